// state_json.cpp — Attention Lab app: window.lab.state(), what is on screen as JSON.
#include "core/dump.h"
#include "core/stages.h"
#include "lab_app.h"

namespace lab {

std::string lab_state_json(const LabApp& app) {
    const auto& infos = stage_infos();
    JsonWriter w;
    w.begin_object();
    w.key("frame").value(app.frame);
    w.key("experiment");
    write_experiment_state(app, w);
    w.key("stage").begin_object().key("id").value(infos[app.stage].key).key("index").value(app.stage);
    w.key("title").value(infos[app.stage].title).end_object();
    w.key("stages");
    write_stages(w, app.trace);
    w.key("config");
    write_config(w, app.trace.config);
    w.key("tokens").values(app.tokens);
    w.key("selection").begin_object().key("batch").value(app.batch_item).key("head").value(app.head);
    w.key("all_heads").value(app.all_heads).key("hover");
    if (app.hover.tensor.empty()) {
        w.null();
    } else {
        w.begin_object().key("tensor").value(app.hover.tensor).key("index").values(app.hover.index);
        w.key("value").value(static_cast<double>(app.hover.value)).key("text").value(app.hover.text).end_object();
    }
    w.end_object();
    w.key("errors").begin_array();
    for (const ConfigError& e : app.errors) w.begin_object().key("param").value(e.param).key("message").value(e.message).end_object();
    w.end_array();
    w.key("stage_ms").begin_array();
    for (double ms : app.trace.stage_ms) w.value(ms);
    w.end_array();
    w.key("cost_tab_open").value(app.cost_tab_open);
    w.key("sweep").begin_array();
    for (const SweepPoint& p : app.sweep)
        w.begin_object().key("seq_len").value(p.seq_len).key("attention_ms").value(p.attention_ms)
            .key("projection_ms").value(p.projection_ms).key("attention_flops").value(p.attention_flops)
            .key("projection_flops").value(p.projection_flops).end_object();
    w.end_array();
    w.key("notes").values(app.notes);
    w.key("last_action").value(app.last_action);
    w.key("url_hash").value(lab_url_hash(app));
    w.key("layout").begin_object();
    for (const UiRect& r : app.rects)
        w.key(r.id).begin_object().key("x").value(r.x).key("y").value(r.y).key("w").value(r.w).key("h").value(r.h).end_object();
    w.end_object();
    w.key("heatmaps").begin_array();
    for (const HeatmapPlacement& h : app.heatmaps)
        w.begin_object()
            .key("tensor").value(h.tensor).key("prefix").values(h.prefix)
            .key("rows").value(h.rows).key("cols").value(h.cols)
            .key("x").value(h.x).key("y").value(h.y).key("cell_w").value(h.cell_w).key("cell_h").value(h.cell_h)
            .end_object();
    w.end_array();
    w.key("help").value(app.show_help);
    w.key("recompute_ms").value(app.recompute_ms);
    w.key("gpu").begin_object().key("enabled").value(app.gpu.draw != nullptr);
    w.key("uploads").value(app.gpu_uploads).key("textures").value(app.gpu_textures).end_object();
    w.key("ui_scale").value(static_cast<double>(app.ui_scale));
    w.key("lang").value(lang_code(app.lang));
    w.key("text_lang").value(lang_code(language()));  // what the texts are in now (Chinese waits for its font)
    static const char* const kFontLoad[] = {"none", "loading", "ready", "failed"};
    const LabFonts& f = app.fonts;
    w.key("fonts").begin_object().key("cjk").value(kFontLoad[static_cast<int>(f.cjk)]);
    w.key("cjk_glyphs").value(f.cjk_glyphs).key("cjk_bytes").value(static_cast<long>(f.cjk_bytes));
    w.key("cjk_error").value(f.cjk_error).key("cjk_load_ms").value(f.cjk_load_ms).end_object();
    w.key("glyph_notes").values(app.glyph_notes);
    w.end_object();
    return w.str();
}

}  // namespace lab
