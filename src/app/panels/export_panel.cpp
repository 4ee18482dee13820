// export_panel.cpp — Attention Lab app: exports of the current stage and trace,
// "Copy as prompt", the share link, and loading a pasted config file.
#include <imgui.h>

#include <string>

#include "app/panels/panels.h"
#include "app/panels/tooltip.h"
#include "app/state/lab_app.h"
#include "app/widgets/text_fit.h"
#include "interop/exports.h"
#include "interop/npy.h"
#include "trace/stages.h"

namespace lab {

namespace {

// A button on the current line when it still fits there (flow layout), else on the next.
bool action_button(LabApp& app, const char* id, const char* label, UiStr tip, bool first = false) {
    const std::string shown = std::string(label) + "###export:" + id;
    if (!first && fits_on_line(ImGui::CalcTextSize(label).x + ImGui::GetStyle().FramePadding.x * 2)) ImGui::SameLine();
    const bool clicked = ImGui::Button(shown.c_str());
    check_item(shown.c_str());
    lab_note_rect(app, std::string("export:") + id);
    item_tooltip(app, tr(app, tip));
    return clicked;
}

void save(LabApp& app, const std::string& name, const std::string& bytes, const char* mime) {
    if (!app.host.save_file) {
        app.last_action = UiStr::ui_export_no_save;
        return;
    }
    app.host.save_file(name, bytes, mime);
    app.last_action = Msg(UiStr::ui_export_saved, name, bytes.size());
}

void copy(LabApp& app, const std::string& text, UiStr what) {
    if (!app.host.copy_text) {
        app.last_action = UiStr::ui_export_no_clipboard;
        return;
    }
    app.host.copy_text(text);
    app.last_action = Msg(UiStr::ui_export_copied, what, text.size());
}

}  // namespace

void draw_export_section(LabApp& app) {
    const StageInfo& info = stage_infos(app.trace.config)[app.view.stage];
    const Tensor* t = app.trace.find(info.result);
    const AttentionConfig& c = app.trace.config;
    text_wrapped_disabled(say(app, Msg(UiStr::ui_export_heading, t ? t->name.c_str() : "")).c_str());
    if (t) {
        if (action_button(app, "csv", "CSV", UiStr::ui_export_csv_tip, true))
            save(app, export_file_name(c, t->name, "csv"), tensor_csv(*t), "text/csv");
        if (action_button(app, "npy", ".npy", UiStr::ui_export_npy_tip))
            save(app, export_file_name(c, t->name, "npy"), encode_npy(*t), "application/octet-stream");
        if (action_button(app, "json", "JSON", UiStr::ui_export_json_tip))
            save(app, export_file_name(c, t->name, "json"), tensor_json(*t), "application/json");
    }
    if (action_button(app, "trace", tr(app, UiStr::ui_export_trace), UiStr::ui_export_trace_tip, true))
        save(app, export_file_name(c, "trace", "json"), trace_json(app.trace, app.text_lang), "application/json");
    if (action_button(app, "pytorch", tr(app, UiStr::ui_export_pytorch), UiStr::ui_export_pytorch_tip))
        save(app, export_file_name(c, "reproduce", "py"), pytorch_script(app.trace), "text/x-python");
    if (action_button(app, "prompt", tr(app, UiStr::ui_export_prompt), UiStr::ui_export_prompt_tip))
        copy(app, stage_prompt_text(app.trace, app.view.stage, app.view.batch_item, app.view.head, app.text_lang), UiStr::ui_export_what_stage);
    if (action_button(app, "link", tr(app, UiStr::ui_export_link), UiStr::ui_export_link_tip)) {
        const std::string hash = lab_url_hash(app);
        copy(app, app.host.share_url ? app.host.share_url(hash) : "#" + hash, UiStr::ui_export_what_link);
    }
    if (!app.last_action.empty()) text_wrapped_disabled(say(app, app.last_action).c_str());
}

void draw_config_loader(LabApp& app) {
    text_wrapped_disabled(tr(app, UiStr::ui_config_heading));
    ImGui::InputTextMultiline("##config", app.config_text, sizeof app.config_text,
                              ImVec2(-1, ImGui::GetTextLineHeight() * 4.5f));
    lab_note_rect(app, "config_text");
    const std::string load_label = ui_label(app, UiStr::ui_config_load, "config_load");
    const bool load = ImGui::Button(load_label.c_str());
    check_item(load_label.c_str());
    lab_note_rect(app, "config_load");
    if (load) lab_load_config_text(app, "", app.config_text);
}

}  // namespace lab
