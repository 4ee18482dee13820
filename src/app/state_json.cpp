// state_json.cpp — Attention Lab app: window.lab.state(), what is on screen as JSON,
// every text in the language the interface shows.
#include <cstdio>

#include "app/panels/lesson_panel.h"
#include "app/panels/panels.h"
#include "app/panels/train_view.h"
#include "app/state/experiments.h"
#include "app/state/lab_app.h"
#include "interop/json_export.h"
#include "trace/stages.h"

namespace lab {

void write_stepper_state(const LabApp& app, Json& s);  // stepper_state.cpp

namespace {

Json selection_json(const LabApp& app) {
    Json hover = nullptr;
    if (!app.hover.tensor.empty()) {
        char color[8];  // "#rrggbb"
        const uint32_t c = app.hover.color;
        std::snprintf(color, sizeof color, "#%02x%02x%02x", c & 0xFF, (c >> 8) & 0xFF, (c >> 16) & 0xFF);
        hover = {{"tensor", app.hover.tensor}, {"index", app.hover.index}, {"value", json_number(app.hover.value)},
                 {"text", say(app, app.hover.text)}, {"color", color}};
    }
    return {{"batch", app.view.batch_item}, {"head", app.view.head}, {"all_heads", app.view.all_heads}, {"hover", hover}};
}

Json messages_json(const LabApp& app, const std::vector<Msg>& messages) {
    Json out = Json::array();
    for (const Msg& m : messages) out.push_back(say(app, m));
    return out;
}

// Where things are on screen: widget rectangles and heatmap cells.
void write_layout(const LabApp& app, Json& s) {
    Json layout = Json::object();
    for (const UiRect& r : app.rects)
        layout[r.id] = {{"x", json_number(r.x)}, {"y", json_number(r.y)}, {"w", json_number(r.w)}, {"h", json_number(r.h)}};
    Json heatmaps = Json::array();
    for (const HeatmapPlacement& h : app.heatmaps)
        heatmaps.push_back({{"tensor", h.tensor}, {"prefix", h.prefix}, {"rows", h.rows}, {"cols", h.cols},
                            {"x", json_number(h.x)}, {"y", json_number(h.y)}, {"cell_w", json_number(h.cell_w)},
                            {"cell_h", json_number(h.cell_h)}, {"row_mode", label_mode_name(h.row_mode)},
                            {"col_mode", label_mode_name(h.col_mode)}, {"row_labels", h.row_labels}, {"col_labels", h.col_labels}});
    s["layout"] = layout;
    s["heatmaps"] = heatmaps;
}

Json sweep_json(const LabApp& app) {
    Json out = Json::array();
    for (const SweepPoint& p : app.sweep)
        out.push_back({{"seq_len", p.seq_len}, {"attention_ms", json_number(p.attention_ms)},
                       {"projection_ms", json_number(p.projection_ms)}, {"attention_flops", json_number(p.attention_flops)},
                       {"projection_flops", json_number(p.projection_flops)}});
    return out;
}

Json fonts_json(const LabApp& app) {
    static const char* const kFontLoad[] = {"none", "loading", "ready", "failed"};
    const LabFonts& f = app.fonts;
    return {{"cjk", kFontLoad[static_cast<int>(f.cjk)]}, {"cjk_glyphs", f.cjk_glyphs},
            {"cjk_bytes", static_cast<long>(f.cjk_bytes)}, {"cjk_error", f.cjk_error},
            {"cjk_load_ms", json_number(f.cjk_load_ms)}};
}

}  // namespace

std::string lab_state_json(const LabApp& app) {
    const StageInfo& info = stage_infos(app.trace.config)[app.view.stage];
    Json s = Json::object();
    s["frame"] = app.frame;
    s["experiment"] = experiment_state(app);
    s["training"] = training_state(app);
    s["stage"] = {{"id", info.key}, {"index", app.view.stage}, {"title", tr(app, info.title)}};
    s["stages"] = stages_json(app.trace, app.text_lang);
    s["config"] = config_json_value(app.trace.config);
    s["tokens"] = app.tokens;
    s["selection"] = selection_json(app);
    Json errors = Json::array();
    for (const ConfigError& e : app.errors) errors.push_back({{"param", e.param}, {"message", say(app, e.message)}});
    s["errors"] = errors;
    Json stage_ms = Json::array();
    for (double ms : app.trace.stage_ms) stage_ms.push_back(json_number(ms));
    s["stage_ms"] = stage_ms;
    s["cost_tab_open"] = app.cost_tab_open;
    if (app.kv.model) s["kv_cache"] = kv_cache_json(app);  // only once the tab decoded: other states stay as they were
    if (app.trace.flash.on())  // only with flash_tile: every other state stays as it was
        s["flash"] = {{"tile", {app.trace.flash.Br, app.trace.flash.Bc}}, {"tiles", app.trace.flash.tiles.size()},
                      {"query_tile", app.flash_query_tile}};
    s["sweep"] = sweep_json(app);
    s["notes"] = messages_json(app, app.notes);
    s["last_action"] = say(app, app.last_action);
    s["held_keys"] = app.held_keys;
    s["tooltip"] = app.tooltip_shown;
    s["url_hash"] = lab_url_hash(app);
    write_layout(app, s);
    s["narrow"] = narrow_state(app);
    s["help"] = app.show_help;
    s["nav"] = keyboard_nav_state(app);  // the keyboard's focus ring (keyboard_nav.h)
    s["recompute_ms"] = json_number(app.random.ms);
    s["random_traces"] = app.random.traces;  // the knobs' traces computed since the page opened
    s["generation"] = app.generation;        // changes of the shown trace
    s["gpu"] = {{"enabled", app.gpu.draw != nullptr}, {"uploads", app.gpu_uploads}, {"textures", app.gpu_textures}};
    s["ui_scale"] = json_number(app.ui_scale);
    s["lang"] = lang_code(app.lang);
    s["text_lang"] = lang_code(app.text_lang);  // what the texts are in now (Chinese waits for its font)
    s["fonts"] = fonts_json(app);
    s["glyph_notes"] = messages_json(app, app.glyph_notes);
    s["lesson"] = lesson_state(app);
    s["lessons"] = lessons_progress_state(app);
    Json clipped = Json::array();
    for (const ClippedText& c : app.clipped)
        clipped.push_back({{"where", c.where}, {"text", c.text}, {"need", json_number(c.need)}, {"have", json_number(c.have)}});
    s["clipped"] = clipped;
    s["weights_note"] = untrained_note_json(app);
    write_stepper_state(app, s);
    return json_text(s);
}

}  // namespace lab
