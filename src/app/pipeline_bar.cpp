// pipeline_bar.cpp — Attention Lab app: the pipeline bar, one chip per stage, the
// current one lit; click a chip or use ←/→ (j/k), Home/End.
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "core/stages.h"
#include "lab_app.h"
#include "tooltip.h"
#include "panels.h"
#include "text_fit.h"
#include "stepper_model.h"
#include "train_view.h"

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
        if (!current) item_tooltip(app, tr(app, UiStr::lang_toggle_tip));
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
    ImGui::SameLine();
    draw_train_button(app);
    draw_language_switch(app);
    // One chip per place of the stepper's walk: the ten stages, and with a model the block's.
    const std::vector<StepperPlace> places = stepper_places(app);
    const int current_place = stepper_place_index(app);
    std::vector<StepperStageText> texts;
    for (const StepperPlace& p : places) texts.push_back(stepper_stage_text(app, p));
    auto chip_label = [&](size_t i, const char* failing) {
        char label[96];
        if (places[i].attention >= 0) std::snprintf(label, sizeof label, "%d %s%s", places[i].attention + 1, tr(app, texts[i].chip), failing);
        else std::snprintf(label, sizeof label, "%s%s", tr(app, texts[i].chip), failing);
        return std::string(label);
    };
    const ImGuiStyle& style = ImGui::GetStyle();
    // Chips keep their full labels; on a narrow window the '>' separators go first, then
    // the padding inside the chips narrows, and only then do the chips shrink evenly.
    const float n = static_cast<float>(places.size());
    float labels = 0;
    for (size_t i = 0; i < places.size(); ++i) labels += ImGui::CalcTextSize(chip_label(i, " !").c_str()).x;
    const float sep = ImGui::CalcTextSize(">").x + 4 + style.ItemSpacing.x;
    const float avail = ImGui::GetContentRegionAvail().x;
    const bool separators = labels + style.FramePadding.x * 2 * n + sep * (n - 1) <= avail;
    const float spacing = separators ? sep : style.ItemSpacing.x;
    const float pad = std::clamp((avail - spacing * (n - 1) - labels) / (2 * n), 2.0f, style.FramePadding.x);
    // Still too wide (a model's fourteen chips at 1024 px): a smaller font before any label is cut.
    const float font_scale = std::clamp((avail - spacing * (n - 1) - pad * 2 * n) / labels, 0.75f, 1.0f);
    ImGui::SetWindowFontScale(font_scale);
    const float squeeze = std::min(1.0f, (avail - spacing * (n - 1)) / (labels * font_scale + pad * 2 * n));
    for (size_t i = 0; i < places.size(); ++i) {
        if (i && !separators) ImGui::SameLine();
        if (i && separators) {
            ImGui::SameLine(0, 2);
            ImGui::TextDisabled(">");
            ImGui::SameLine(0, 2);
        }
        const bool current = static_cast<int>(i) == current_place && app.experiment < 0 && !app.training.view_open;
        bool failing = false;
        for (const InvariantCheck& ch : *texts[i].checks) failing |= ch.is_check() && !ch.passed();
        for (size_t k = 0; texts[i].grad_checks && k < texts[i].grad_checks->size(); ++k) {
            const InvariantCheck& ch = (*texts[i].grad_checks)[k];
            failing |= ch.is_check() && !ch.passed();
        }
        ImGui::PushStyleColor(ImGuiCol_Button, current ? ImVec4(0.26f, 0.48f, 0.86f, 1) : ImVec4(0.20f, 0.22f, 0.27f, 1));
        ImGui::PushStyleColor(ImGuiCol_ButtonHovered, ImVec4(0.32f, 0.52f, 0.86f, 1));
        // A stage raw SDPA skips is greyed (still a stop of the walk: it says why it is skipped).
        const int a = places[i].attention;
        const bool skipped = a >= 0 && !app.stepper.shown && app.trace.stages[static_cast<size_t>(a)].status == StageStatus::Skipped;
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(skipped ? ImGuiCol_TextDisabled : ImGuiCol_Text));
        const std::string label = chip_label(i, failing ? " !" : "") + "###chip" + std::to_string(i);
        const float need = ImGui::CalcTextSize(label.c_str(), nullptr, true).x + pad * 2;
        const float w = need * squeeze;
        ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, ImVec2(pad, style.FramePadding.y));
        if (ImGui::Button(label.c_str(), ImVec2(w, 0))) stepper_go(app, places[i]);
        ImGui::PopStyleVar();
        check_width("chip", label.c_str(), need, w);
        lab_note_rect(app, std::string("chip:") + texts[i].key);
        ImGui::PopStyleColor(3);
        item_tooltip(app, (std::string(tr(app, texts[i].title)) + "\n" + tr(app, texts[i].formula)).c_str());
    }
    ImGui::SetWindowFontScale(1.0f);
    ImGui::End();
}

}  // namespace lab
