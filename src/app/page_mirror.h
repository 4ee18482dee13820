// page_mirror.h — Attention Lab app: the screen as text for the page (issue 28.3). A canvas is
// one picture to a screen reader, the browser's find and its translation; the page keeps a
// text version of it in the DOM (web/lab_bridge.js draws it, index.html holds its frame):
// the place in the walk, the stage's title, formula, PyTorch line, shapes, why, every check
// and fact with its verdict, the hovered cell's derivation, the lesson's question and
// feedback, and a short status line said aloud when it changes. Every text is the one the
// panels draw (the same string tables and messages), in the language they are drawn in.
//
// The page's own buttons (previous / next stage, a stage, the language) ask for a
// PageAction (app/state/lab_app.h); the app applies the queued ones at the start of its next frame.
#pragma once
#include <string>

namespace lab {

struct LabApp;

// The text version as JSON (see web/lab_bridge.js, renderMirror): the host hands it to the
// page when it changed. {"lang", "labels": {...}, "place", "places", "stages": [...],
// "view", "title", "formula", "pytorch", "shapes", "why", "checks", "facts", "backward",
// "hover", "lesson", "status"}.
std::string page_mirror_json(const LabApp& app);
// Applies and clears app.page_actions (start of lab_frame).
void page_mirror_apply_actions(LabApp& app);

}  // namespace lab
