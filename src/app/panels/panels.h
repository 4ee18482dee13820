// panels.h — Attention Lab app: the panels of the main screen, each a free function
// drawing one ImGui window inside the rectangle the layout gives it.
#pragma once
#include <string>
#include <vector>

#include "interop/json_export.h"

namespace lab {

struct LabApp;

struct PanelRect {
    float x, y, w, h;
};

// Begins a fixed, undecorated-by-default ImGui window covering r (always pair with ImGui::End()).
bool begin_panel(const char* name, const PanelRect& r, int extra_flags = 0);
// Called after a number field (its -/+ buttons included): once it is clicked, and while the
// pointer stays over its panel, typed characters are not shortcuts (a learner who clicked
// "-" beside a number and types 10 means the number); the messages say where they went.
void note_number_field(LabApp& app);

void draw_pipeline_bar(LabApp& app, const PanelRect& r);   // one chip per stage
// The bar's parts, which the narrow layout arranges its own way (pipeline_bar.cpp): the
// Experiments, Lessons and Train buttons; the language switch, right-aligned on the current
// line; the chips as one strip `width` wide (numbers when the names do not fit, sideways
// scrolling when the numbers do not).
float bar_menus_width(const LabApp& app);
void draw_bar_menus(LabApp& app);
float language_switch_width(const LabApp& app);
void draw_language_switch(LabApp& app);
float chip_strip_height(const LabApp& app, float width);
void draw_chip_strip(LabApp& app, float width);
// The narrow layout (narrow_layout.cpp): a phone either way up or a standing tablet, under
// kNarrowCssWidth CSS px wide or kShortCssHeight tall, gets one column whose panels are tabs.
// The three desktop columns need 800 px (setup 190, explain 230, the stage the rest); a
// pinch's zoom divides the CSS px, so zooming in on a tablet turns its columns into tabs.
constexpr float kNarrowCssWidth = 800.0f, kShortCssHeight = 500.0f;
bool narrow_screen(const LabApp& app);
void draw_narrow_layout(LabApp& app);
Json narrow_state(const LabApp& app);  // state().narrow
void draw_setup_panel(LabApp& app, const PanelRect& r);    // knobs, presets, tokens, errors
void draw_stage_view(LabApp& app, const PanelRect& r);     // the current stage's heatmaps
void draw_explain_panel(LabApp& app, const PanelRect& r);  // formula, PyTorch, shapes, why, invariants
void draw_dimension_table(LabApp& app, const PanelRect& r);
void draw_help_overlay(LabApp& app);                       // '?' — every shortcut
void draw_export_section(LabApp& app);                     // inside the explain panel
void draw_cost_tab(LabApp& app);                           // a tab beside the dimension table
void draw_flash_tab(LabApp& app);                          // ... and, with flash_tile, the online softmax's tiles
void draw_kv_cache_tab(LabApp& app);                       // ... and, with a decoder open, its KV-cache decoding
Json kv_cache_json(const LabApp& app);                     // state().kv_cache (null until the tab decoded)
struct InvariantCheck;
// A check's badge: a dot in its verdict's colour (a ring for a fact), its label and numbers
// ("badge:<id>" is the dot's rectangle).
void check_badge(LabApp& app, const InvariantCheck& ch);
void draw_config_loader(LabApp& app);                      // inside the setup panel
// The messages the learner caused (errors, notes about a file, a link or typed tokens),
// pinned under the setup panel; its height for a panel `width` wide (0: nothing to say).
float messages_panel_height(const LabApp& app, float width, float max_h);
void draw_messages_panel(LabApp& app, const PanelRect& r);
// "Untrained weights": says where weights and attention maps appear that the weights are
// random (Xavier) and what that implies; its detail on hover.
void draw_untrained_note(LabApp& app);
Json untrained_note_json(const LabApp& app);  // state().weights_note

struct StageShow;
enum class TensorId;
// One tensor of the stepper in the current child window: its heatmap (every head as small
// multiples when asked), hover and derivation; grad: its gradient (the backward view).
void draw_stage_tensor(LabApp& app, TensorId id, bool every_head, bool grad);
// The backward view: each tensor of the list beside its gradient, one row each.
void draw_backward_pairs(LabApp& app, const std::vector<StageShow>& pairs);

}  // namespace lab
