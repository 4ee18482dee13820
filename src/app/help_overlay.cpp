// help_overlay.cpp — Attention Lab app: '?' shows every shortcut (key_bindings.h).
#include <imgui.h>

#include "key_bindings.h"
#include "lab_app.h"
#include "panels.h"

namespace lab {

void draw_help_overlay(LabApp& app) {
    const ImVec2 ds = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowPos(ImVec2(ds.x * 0.5f, ds.y * 0.5f), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowBgAlpha(0.97f);
    ImGui::Begin(ui_label(app, UiStr::ui_help_window, "Keyboard shortcuts").c_str(), &app.show_help,
                 ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings);
    if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_RowBg)) {
        for (const KeyBinding& b : key_bindings()) {
            if (b.what == UiStr::Count_) continue;
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(b.keys_text == UiStr::Count_ ? b.keys_literal : tr(app, b.keys_text));
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(tr(app, b.what));
        }
        ImGui::EndTable();
    }
    ImGui::TextDisabled("%s", tr(app, UiStr::ui_help_hover));
    ImGui::End();
}

}  // namespace lab
