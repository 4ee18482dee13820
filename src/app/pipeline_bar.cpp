// pipeline_bar.cpp — Attention Lab app: the pipeline bar, one chip per stage, the
// current one lit; click a chip or use ←/→ (j/k), Home/End.
#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "core/stages.h"
#include "lab_app.h"
#include "panels.h"
#include "text_fit.h"

namespace lab {

namespace {

// "EN | 中文" at the right end of the bar, the current language lit; L toggles too.
// "中文" is drawable before the Chinese font has loaded (its two glyphs are compiled in).
void draw_language_switch(LabApp& app) {
    const ImGuiStyle& style = ImGui::GetStyle();
    const char* labels[kLangCount] = {"EN", "\xe4\xb8\xad\xe6\x96\x87"};
    float w = style.ItemSpacing.x;
    for (const char* l : labels) w += ImGui::CalcTextSize(l).x + style.FramePadding.x * 2;
    const bool loading = app.fonts.cjk == FontLoad::Loading;
    // While the Chinese font loads, Chinese text cannot show yet: the status is in English.
    const char* status = tr(UiStr::lang_loading_short, Lang::En);
    const float status_w = loading ? ImGui::CalcTextSize(status).x + style.ItemSpacing.x : 0.0f;
    ImGui::SameLine(std::max(ImGui::GetCursorPosX(), ImGui::GetWindowContentRegionMax().x - w - status_w));
    if (loading) {
        text_disabled(status);
        ImGui::SameLine();
    }
    for (int i = 0; i < kLangCount; ++i) {
        const Lang lang = static_cast<Lang>(i);
        const bool current = app.lang == lang;
        if (i) ImGui::SameLine();
        ImGui::PushStyleColor(ImGuiCol_Button, current ? ImVec4(0.26f, 0.48f, 0.86f, 1) : ImVec4(0.20f, 0.22f, 0.27f, 1));
        if (ImGui::SmallButton(labels[i]) && !current) lab_set_language(app, lang);
        check_item(labels[i]);
        ImGui::PopStyleColor();
        lab_note_rect(app, std::string("lang:") + lang_code(lang));
        if (ImGui::IsItemHovered() && !current) ImGui::SetTooltip("%s", tr(app, UiStr::lang_toggle_tip));
    }
}

}  // namespace

void draw_pipeline_bar(LabApp& app, const PanelRect& r) {
    begin_panel("##pipeline", r, ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoScrollbar);
    text("Attention Lab");
    // The subtitle only where it fits beside the menu and the language switch.
    const char* subtitle = tr(app, UiStr::bar_subtitle);
    const float menu_and_switch = ImGui::GetFontSize() * 14;
    if (fits_on_line(ImGui::CalcTextSize(subtitle).x + menu_and_switch)) {
        ImGui::SameLine();
        text_disabled(subtitle);
    }
    ImGui::SameLine();
    draw_experiment_menu(app);
    ImGui::SameLine();
    draw_lesson_menu(app);
    draw_language_switch(app);
    const auto& infos = stage_infos();
    const ImGuiStyle& style = ImGui::GetStyle();
    // Chips keep their full labels; on a narrow window the '>' separators go first,
    // then the chips shrink evenly.
    char label[64];
    float chips = 0;
    for (size_t i = 0; i < infos.size(); ++i) {
        std::snprintf(label, sizeof label, "%d %s !", static_cast<int>(i + 1), tr(app, infos[i].chip));
        chips += ImGui::CalcTextSize(label).x + style.FramePadding.x * 2;
    }
    const float sep = ImGui::CalcTextSize(">").x + 4 + style.ItemSpacing.x;
    const float avail = ImGui::GetContentRegionAvail().x;
    const bool separators = chips + sep * (infos.size() - 1) <= avail;
    const float spacing = separators ? sep : style.ItemSpacing.x;
    const float squeeze = std::min(1.0f, (avail - spacing * (infos.size() - 1)) / chips);
    for (size_t i = 0; i < infos.size(); ++i) {
        if (i && !separators) ImGui::SameLine();
        if (i && separators) {
            ImGui::SameLine(0, 2);
            ImGui::TextDisabled(">");
            ImGui::SameLine(0, 2);
        }
        const bool current = static_cast<int>(i) == app.stage && app.experiment < 0;
        const bool failing = [&] {
            for (const auto& ch : app.trace.stages[i].checks)
                if (ch.is_check() && !ch.passed()) return true;
            return false;
        }();
        ImGui::PushStyleColor(ImGuiCol_Button, current ? ImVec4(0.26f, 0.48f, 0.86f, 1) : ImVec4(0.20f, 0.22f, 0.27f, 1));
        ImGui::PushStyleColor(ImGuiCol_ButtonHovered, ImVec4(0.32f, 0.52f, 0.86f, 1));
        std::snprintf(label, sizeof label, "%d %s%s###chip%zu", static_cast<int>(i + 1), tr(app, infos[i].chip), failing ? " !" : "", i);
        const float need = ImGui::CalcTextSize(label, nullptr, true).x + style.FramePadding.x * 2;
        const float w = need * squeeze;
        if (ImGui::Button(label, ImVec2(w, 0))) lab_go_to_stage(app, static_cast<int>(i));
        check_width("chip", label, need, w);
        lab_note_rect(app, std::string("chip:") + infos[i].key);
        ImGui::PopStyleColor(2);
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s\n%s", tr(app, infos[i].title), tr(app, infos[i].formula));
    }
    ImGui::End();
}

}  // namespace lab
