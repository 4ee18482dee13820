// help_overlay.cpp — Attention Lab app: '?' shows every shortcut (key_bindings.h).
#include <imgui.h>

#include <algorithm>

#include "app/panels/panels.h"
#include "app/state/key_bindings.h"
#include "app/state/lab_app.h"
#include "app/widgets/text_fit.h"

namespace lab {

namespace {

const char* keys_text(const LabApp& app, const KeyBinding& b) { return b.keys_text == UiStr::Count_ ? b.keys_literal : tr(app, b.keys_text); }

}  // namespace

void draw_help_overlay(LabApp& app) {
    const ImVec2 ds = ImGui::GetIO().DisplaySize;
    // As wide as a comfortable line, never wider than the screen; as tall as its rows, up
    // to the screen's height (then it scrolls). Descriptions wrap in their column.
    const float margin = ImGui::GetFontSize() * 2;
    const float w = std::min(ds.x - margin, ImGui::GetFontSize() * 40);
    ImGui::SetNextWindowPos(ImVec2(ds.x * 0.5f, ds.y * 0.5f), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowSizeConstraints(ImVec2(w, 0), ImVec2(w, ds.y - margin));
    ImGui::SetNextWindowBgAlpha(0.97f);
    ImGui::Begin(ui_label(app, UiStr::ui_help_window, "Keyboard shortcuts").c_str(), &app.show_help,
                 ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoSavedSettings);
    float keys_w = 0;
    for (const KeyBinding& b : key_bindings())
        if (b.what != UiStr::Count_) keys_w = std::max(keys_w, ImGui::CalcTextSize(keys_text(app, b)).x);
    if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_RowBg)) {
        ImGui::TableSetupColumn("keys", ImGuiTableColumnFlags_WidthFixed, keys_w);
        ImGui::TableSetupColumn("what", ImGuiTableColumnFlags_WidthStretch);
        for (const KeyBinding& b : key_bindings()) {
            if (b.what == UiStr::Count_) continue;
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            text(keys_text(app, b));
            ImGui::TableNextColumn();
            text_wrapped("%s", tr(app, b.what));
        }
        ImGui::EndTable();
    }
    text_wrapped_disabled(tr(app, UiStr::ui_help_hover));
    ImGui::End();
}

}  // namespace lab
