// help_overlay.cpp — Attention Lab app: '?' shows every shortcut.
#include <imgui.h>

#include "lab_app.h"
#include "panels.h"

namespace lab {

void draw_help_overlay(LabApp& app) {
    const ImVec2 ds = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowPos(ImVec2(ds.x * 0.5f, ds.y * 0.5f), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowBgAlpha(0.97f);
    ImGui::Begin("Keyboard shortcuts", &app.show_help,
                 ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings);
    static const char* rows[][2] = {
        {"Right / j", "next stage"},       {"Left / k", "previous stage"},
        {"Home / End", "first / last stage"}, {"1 ... 9, 0", "jump to stage 1 ... 10"},
        {"[ / ]", "previous / next head"}, {"a", "all heads as small multiples"},
        {"b", "next batch item"},          {"e", "experiments menu (Esc leaves one)"},
        {"?", "this help (Esc closes)"},
    };
    if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_RowBg)) {
        for (const auto& row : rows) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(row[0]);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(row[1]);
        }
        ImGui::EndTable();
    }
    ImGui::TextDisabled("Hover any cell for its value and where it came from.");
    ImGui::End();
}

}  // namespace lab
