// lesson_state.h — Attention Lab app state: what the lesson card remembers — which lesson
// and step are shown, the question asked of which trace, what the learner typed or clicked,
// and what was answered right. Owned by the lesson panel (app/panels/lesson_panel.cpp),
// held in LabApp::lesson.
#pragma once
#include <string>
#include <vector>

#include "teach/lessons/lesson_model.h"
#include "teach/lessons/lessons.h"

namespace lab {

struct LessonState {
    int lesson = -1;                     // index into lessons(); -1: no lesson shown
    int step = 0;                        // index into its steps
    LessonQuestion question;             // asked of the trace of generation `asked_for`
    unsigned long long asked_for = ~0ull;
    unsigned long long asked_version = ~0ull;  // ... and of TrainingSession::version (a step on a model)
    // The model a step on a shipped checkpoint asks about, measured once per model and
    // version (held-out losses with each head knocked out take a while).
    LessonModel model;
    const Trainer* model_of = nullptr;
    unsigned long long model_version = ~0ull;
    bool answered = false;               // an answer was read for this step
    bool correct = false;                // ... and the last one was right
    int attempts = 0;                    // answers read for this step
    bool hint_shown = false;
    Msg feedback;                        // the verdict of the last answer, or the explanation once right
    char input[128] = {};                // Shape, Estimate: the text field
    std::vector<int> cells;              // Cells: row * cols + col, as clicked
    std::vector<std::string> done;       // per lesson: one '1' / '0' per step answered right
    bool progress_loaded = false;
    bool open_menu = false;              // a key asked the top bar to open the list
};

}  // namespace lab
