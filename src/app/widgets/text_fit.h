// text_fit.h — Attention Lab app: text that fits, and a record of any that does not.
//
// Every panel draws its texts through these helpers (or checks a widget's label right
// after the widget), so a text cut by its window, its table column, its button or its
// box is never silent: it lands in the frame's report, which state().clipped lists as
// {where, text, need, have} (pixels). The browser tests require that list to be empty
// at 1280x800 and 1024x640 in both languages, so a new panel that clips shows up there.
//
//   lab::text("weights (B, h, L_q, L_kv)");       // one line; recorded if cut
//   lab::text_wrapped("%s", long_sentence);        // wrapped (text_wrap.h); recorded if a line is cut
//   ImGui::Checkbox(label, &on); lab::check_item(label);   // any widget with a label
//   lab::check_width("legend", label, need_px, have_px);    // text drawn in a fixed space
//   lab::draw_text(dl, pos, colour, label, max_w, "plot:x"); // draw-list text with a width limit
//   if (lab::fits_on_line(w)) ImGui::SameLine();   // flow layout: next item on this line if it fits
//
// The report belongs to the frame: lab_frame() points it at app.clipped before drawing
// (text_fit_begin_frame). Windows that ImGui hides while it measures them (a popup's or
// an auto-sized window's first frame) report nothing.
#pragma once
#include <imgui.h>

#include <string>
#include <vector>

#include "app/widgets/text_wrap.h"

namespace lab {

struct ClippedText {
    std::string where;  // the window (and column) or the caller's id
    std::string text;   // what was cut (at most 80 bytes of it)
    float need = 0;     // pixels the text needs
    float have = 0;     // pixels it got
};

// Starts a frame's report (null: report nothing, e.g. outside lab_frame).
void text_fit_begin_frame(std::vector<ClippedText>* report);

// One line of text at the cursor (ImGui::TextUnformatted, in the dimmed colour, printf-style).
void text(const char* s, const char* end = nullptr);
void text_disabled(const char* s);
void textf(const char* fmt, ...) IM_FMTARGS(1);
// A heading line: dimmed, wrapped when the panel is narrow.
void heading(const char* s);

// The last ImGui item (a button, checkbox, combo, slider, tab, ...) showing `label`: is it
// inside the visible part of its window or table column? Records it otherwise.
void check_item(const char* label);
// `text` needs `need` pixels and has `have` (a label inside a fixed-size button or bar, a
// legend entry): records it when it does not fit. Returns whether it fits.
bool check_width(const char* where, const char* text, float need, float have);
// Draw-list text at `pos`, which has `max_w` pixels: drawn whole, recorded when wider.
void draw_text(ImDrawList* dl, ImVec2 pos, ImU32 colour, const char* text, float max_w, const char* where);

// Flow layout: true when an item `w` pixels wide still fits on the current line after
// the last item (call ImGui::SameLine() then); false: it goes on the next line.
bool fits_on_line(float w);
// A text placed after the last item on its line when it fits there, else on its own
// wrapped lines below.
void text_after(const char* s, bool disabled = true);

// A table's header row whose labels wrap in narrow columns (instead of ImGui::TableHeadersRow()).
void table_headers();

}  // namespace lab
