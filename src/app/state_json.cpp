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
    w.key("notes").values(app.notes);
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
    w.key("ui_scale").value(static_cast<double>(app.ui_scale));
    w.end_object();
    return w.str();
}

}  // namespace lab
