// export_panel.cpp — Attention Lab app: exports of the current stage and trace,
// "Copy as prompt", the share link, and loading a pasted config file.
#include <imgui.h>

#include "core/npy.h"
#include "core/stages.h"
#include "interop/exports.h"
#include "lab_app.h"
#include "panels.h"

namespace lab {

namespace {

bool action_button(LabApp& app, const char* id, const char* label, const char* tip) {
    const bool clicked = ImGui::Button(label);
    lab_note_rect(app, std::string("export:") + id);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tip);
    return clicked;
}

void save(LabApp& app, const std::string& name, const std::string& bytes, const char* mime) {
    if (!app.host.save_file) {
        app.last_action = "saving files is not available here";
        return;
    }
    app.host.save_file(name, bytes, mime);
    app.last_action = "saved " + name + " (" + std::to_string(bytes.size()) + " bytes)";
}

void copy(LabApp& app, const std::string& text, const char* what) {
    if (!app.host.copy_text) {
        app.last_action = "the clipboard is not available here";
        return;
    }
    app.host.copy_text(text);
    app.last_action = std::string("copied ") + what + " (" + std::to_string(text.size()) + " bytes)";
}

}  // namespace

void draw_export_section(LabApp& app) {
    const StageInfo& info = stage_infos()[app.stage];
    const Tensor* t = app.trace.find(info.tensors[0]);
    const AttentionConfig& c = app.trace.config;
    ImGui::TextDisabled("Export %s", t ? t->name.c_str() : "");
    if (t) {
        if (action_button(app, "csv", "CSV", "this stage's tensor, every item and head, as CSV"))
            save(app, export_file_name(c, t->name, "csv"), tensor_csv(*t), "text/csv");
        ImGui::SameLine();
        if (action_button(app, "npy", ".npy", "this stage's tensor as a NumPy file (float32, C order)"))
            save(app, export_file_name(c, t->name, "npy"), encode_npy(*t), "application/octet-stream");
        ImGui::SameLine();
        if (action_button(app, "json", "JSON", "this stage's tensor as JSON (NaN and -inf as null)"))
            save(app, export_file_name(c, t->name, "json"), tensor_json(*t), "application/json");
    }
    if (action_button(app, "trace", "Whole trace", "every tensor of every stage as one JSON file"))
        save(app, export_file_name(c, "trace", "json"), trace_json(app.trace), "application/json");
    ImGui::SameLine();
    if (action_button(app, "pytorch", "PyTorch script", "a .py that rebuilds these numbers with PyTorch and checks them"))
        save(app, export_file_name(c, "reproduce", "py"), pytorch_script(app.trace), "text/x-python");
    if (action_button(app, "prompt", "Copy as prompt", "this stage as plain text, for pasting into a chat"))
        copy(app, stage_prompt_text(app.trace, app.stage, app.batch_item, app.head), "the stage as text");
    ImGui::SameLine();
    if (action_button(app, "link", "Copy link", "a URL that reopens exactly this view")) {
        const std::string hash = lab_url_hash(app);
        copy(app, app.host.share_url ? app.host.share_url(hash) : "#" + hash, "the share link");
    }
    if (!app.last_action.empty()) ImGui::TextDisabled("%s", app.last_action.c_str());
}

void draw_config_loader(LabApp& app) {
    ImGui::TextDisabled("Config file (JSON or TOML): paste, or drop a file on the page");
    ImGui::InputTextMultiline("##config", app.config_text, sizeof app.config_text,
                              ImVec2(-1, ImGui::GetTextLineHeight() * 4.5f));
    lab_note_rect(app, "config_text");
    const bool load = ImGui::Button("Load config");
    lab_note_rect(app, "config_load");
    if (load) lab_load_config_text(app, "", app.config_text);
}

}  // namespace lab
