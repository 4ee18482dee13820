// lesson_panel.h — Attention Lab app: the guided lessons on screen. The lessons and their
// questions are the core's (teach/lessons/lessons.h); this is the learner's side: which step is
// shown, what was typed, clicked or picked, how often, and what was answered right
// (kept by the host: localStorage on the web).
//
//   top bar: "Lessons" (menu:lessons) opens the list, lesson:K starts lesson K (1-based)
//   right column: the lesson card in place of the explain panel while a lesson is shown
//   URL hash: lesson=K&step=N (app/data/url_state.h)
#pragma once
#include <string>
#include <vector>

#include "app/state/lesson_state.h"
#include "interop/json_export.h"

namespace lab {

struct LabApp;
struct PanelRect;

// Shows step `step` of lesson `lesson` (indices) and sets the lab up for it.
void lesson_start(LabApp& app, int lesson, int step);
void lesson_leave(LabApp& app);
// Applies the set-up of the current step again (the learner moved the knobs).
void lesson_setup_again(LabApp& app);
// Reads a response and grades it; a right one is kept in the progress.
void lesson_answer(LabApp& app, const LessonResponse& response);

// A tensor's shape as the stage view and the dimension table print it; every axis a "?"
// while a shape question waits for its answer, so the screen does not give it away.
std::string shape_on_screen(const LabApp& app, const Tensor& t);

void draw_lesson_menu(LabApp& app);                        // the top bar's "Lessons" button and list
void draw_lesson_panel(LabApp& app, const PanelRect& r);  // the card, the marks on the maps, cell clicks
Json lesson_state(const LabApp& app);                      // state().lesson: null or the step
Json lessons_progress_state(const LabApp& app);            // state().lessons: every lesson and its progress

// Progress as the host stores it: "one_head=11010;scaling=0000" (by key, so a reordered
// registry keeps it). Unknown keys and wrong lengths are dropped.
std::string progress_text(const std::vector<std::string>& done);
std::vector<std::string> parse_progress(const std::string& text);

}  // namespace lab
