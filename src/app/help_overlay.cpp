// help_overlay.cpp — Attention Lab app: '?' shows every shortcut.
#include <imgui.h>

#include "lab_app.h"
#include "panels.h"

namespace lab {

namespace {

// One shortcut: its keys (a text id when they are words, else the literal keys) and what it does.
struct HelpRow {
    const char* keys;  // literal keys, used when keys_text is Str::Count_
    Str keys_text;
    Str what;
};

}  // namespace

void draw_help_overlay(LabApp& app) {
    const ImVec2 ds = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowPos(ImVec2(ds.x * 0.5f, ds.y * 0.5f), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowBgAlpha(0.97f);
    ImGui::Begin(ui_label(Str::ui_help_window, "Keyboard shortcuts").c_str(), &app.show_help,
                 ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings);
    constexpr Str kLiteral = Str::Count_;
    static const HelpRow rows[] = {
        {"", Str::ui_help_key_right, Str::ui_help_next_stage},
        {"", Str::ui_help_key_left, Str::ui_help_prev_stage},
        {"Home / End", kLiteral, Str::ui_help_first_last},
        {"1 ... 9, 0", kLiteral, Str::ui_help_jump},
        {"[ / ]", kLiteral, Str::ui_help_head},
        {"a", kLiteral, Str::ui_help_all_heads},
        {"b", kLiteral, Str::ui_help_batch},
        {"e", kLiteral, Str::ui_help_experiments},
        {"L", kLiteral, Str::ui_help_language},
        {"?", kLiteral, Str::ui_help_help},
    };
    if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_RowBg)) {
        for (const HelpRow& row : rows) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(row.keys_text == kLiteral ? row.keys : tr(row.keys_text));
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(tr(row.what));
        }
        ImGui::EndTable();
    }
    ImGui::TextDisabled("%s", tr(Str::ui_help_hover));
    ImGui::End();
}

}  // namespace lab
