// lab_app.h — Attention Lab app: the one state struct and the per-frame entry
// points the platform layer calls. ImGui only: no GL, no GLFW, no browser.
//
//   LabApp app;  lab_init(app);
//   every frame: ImGui::NewFrame(); lab_frame(app); ImGui::Render();
//   the page's window.lab.state() returns lab_state_json(app).
#pragma once
#include <string>
#include <vector>

#include "core/config.h"
#include "core/trace.h"

namespace lab {

// What the mouse is over: a cell of a shown tensor, with its derivation.
struct HoverCell {
    std::string tensor;      // "" when nothing is hovered
    std::vector<int> index;  // full index into the tensor
    float value = 0.0f;
    std::string text;        // derive_cell()
};

struct LabApp {
    AttentionConfig config;            // what the knobs show (may be invalid)
    std::vector<ConfigError> errors;   // validate(config); non-empty keeps the last good trace
    Trace trace;                       // last good trace
    std::vector<std::string> tokens;   // axis labels / token embeddings (empty: t0, t1, ...)
    char token_text[512] = {};         // the tokens field as typed

    int stage = 0;                     // index into stage_infos()
    int batch_item = 0;
    int head = 0;
    bool all_heads = false;            // small multiples of every head
    bool show_help = false;

    HoverCell hover;
    double recompute_ms = 0.0;
    long frame = 0;
    float ui_scale = 1.0f;             // set by the platform from devicePixelRatio / content scale
    bool dirty = true;                 // config changed: recompute before drawing
};

void lab_init(LabApp& app);
// Validates app.config; if valid, runs the trace, otherwise keeps the last good one.
void lab_recompute(LabApp& app);
// Keyboard shortcuts and every panel for one frame.
void lab_frame(LabApp& app);
// JSON of what is on screen, for window.lab.state() and the tests.
std::string lab_state_json(const LabApp& app);
// Stage navigation (wraps nothing: clamps to [0, kStageCount)).
void lab_go_to_stage(LabApp& app, int index);

}  // namespace lab
