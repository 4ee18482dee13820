// pipeline_bar.cpp — Attention Lab app: the pipeline bar, one chip per stage, the
// current one lit; click a chip or use ←/→ (j/k), Home/End.
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "app/panels/lesson_panel.h"
#include "app/panels/panels.h"
#include "app/panels/tooltip.h"
#include "app/panels/train_view.h"
#include "app/state/lab_app.h"
#include "app/state/stepper_model.h"
#include "app/widgets/palette.h"
#include "app/widgets/text_fit.h"
#include "trace/stages.h"

namespace lab {

namespace {

const char* const kLangLabels[kLangCount] = {"EN", "\xe4\xb8\xad\xe6\x96\x87"};

// The width of the switch's buttons (and, while the Chinese font loads, of its status).
float switch_width(const LabApp& app, float* status_w) {
    const ImGuiStyle& style = ImGui::GetStyle();
    float w = style.ItemSpacing.x;
    for (const char* l : kLangLabels) w += ImGui::CalcTextSize(l).x + style.FramePadding.x * 2;
    // While the Chinese font loads, Chinese text cannot show yet: the status is in English.
    const bool loading = app.fonts.cjk == FontLoad::Loading;
    *status_w = loading ? ImGui::CalcTextSize(tr(UiStr::lang_loading_short, Lang::En)).x + style.ItemSpacing.x : 0.0f;
    return w;
}

float small_button_width(const std::string& label) {
    return ImGui::CalcTextSize(label.c_str(), nullptr, true).x + ImGui::GetStyle().FramePadding.x * 2;
}

// The label of chip i: its number and name, or (short) its number in the stepper's walk.
std::string chip_label(const LabApp& app, const std::vector<StepperPlace>& places, const std::vector<StepperStageText>& texts,
                       size_t i, const char* failing, bool number_only) {
    char label[96];
    if (number_only) std::snprintf(label, sizeof label, "%d%s", static_cast<int>(i) + 1, failing);
    else if (places[i].attention >= 0) std::snprintf(label, sizeof label, "%d %s%s", places[i].attention + 1, tr(app, texts[i].chip), failing);
    else std::snprintf(label, sizeof label, "%s%s", tr(app, texts[i].chip), failing);
    return std::string(label);
}

// A check of the stage (or of its gradients) fails: its chip says '!'.
bool chip_failing(const StepperStageText& text) {
    bool failing = false;
    for (const InvariantCheck& ch : *text.checks) failing |= ch.is_check() && !ch.passed();
    for (size_t k = 0; text.grad_checks && k < text.grad_checks->size(); ++k) {
        const InvariantCheck& ch = (*text.grad_checks)[k];
        failing |= ch.is_check() && !ch.passed();
    }
    return failing;
}

// The stages and their texts, which every chip needs.
struct ChipRow {
    std::vector<StepperPlace> places;
    std::vector<StepperStageText> texts;
    int current = -1;
    explicit ChipRow(const LabApp& app) : places(stepper_places(app)), current(stepper_place_index(app)) {
        for (const StepperPlace& p : places) texts.push_back(stepper_stage_text(app, p));
    }
    // The labels' widths: room for a '!' on each (the desktop bar), or as they are now.
    float labels_width(const LabApp& app, bool number_only, bool as_now = false) const {
        float w = 0;
        for (size_t i = 0; i < places.size(); ++i) {
            const char* mark = !as_now || chip_failing(texts[i]) ? " !" : "";
            w += ImGui::CalcTextSize(chip_label(app, places, texts, i, mark, number_only).c_str()).x;
        }
        return w;
    }
};

// One chip: lit when current, '!' when a check fails, greyed when raw SDPA skips it; a
// click goes there: `squeeze` times as wide as its label, `pad` the padding inside it.
void draw_chip(LabApp& app, const ChipRow& row, size_t i, bool number_only, float squeeze, float pad) {
    const ImGuiStyle& style = ImGui::GetStyle();
    const StepperStageText& text = row.texts[i];
    const bool current = static_cast<int>(i) == row.current && app.experiments.open < 0 && !app.training.view_open;
    const bool failing = chip_failing(text);
    ImGui::PushStyleColor(ImGuiCol_Button, palette::choice(current));
    ImGui::PushStyleColor(ImGuiCol_ButtonHovered, palette::kChoiceHovered);
    // A stage raw SDPA skips is greyed (still a stop of the walk: it says why it is skipped).
    const int a = row.places[i].attention;
    const bool skipped = a >= 0 && !app.stepper.shown && app.trace.stages[static_cast<size_t>(a)].status == StageStatus::Skipped;
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(skipped ? ImGuiCol_TextDisabled : ImGuiCol_Text));
    const std::string label = chip_label(app, row.places, row.texts, i, failing ? " !" : "", number_only) + "###chip" + std::to_string(i);
    const float need = ImGui::CalcTextSize(label.c_str(), nullptr, true).x + pad * 2;
    const float w = need * squeeze;
    ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, ImVec2(pad, style.FramePadding.y));
    if (ImGui::Button(label.c_str(), ImVec2(w, 0))) stepper_go(app, row.places[i]);
    ImGui::PopStyleVar();
    check_width("chip", label.c_str(), need, w);
    lab_note_rect(app, std::string("chip:") + text.key);
    ImGui::PopStyleColor(3);
    item_tooltip(app, (std::string(tr(app, text.title)) + "\n" + tr(app, text.formula)).c_str());
}

}  // namespace

float bar_menus_width(const LabApp& app) {
    const float gap = ImGui::GetStyle().ItemSpacing.x * 2;
    return small_button_width(ui_label(app, UiStr::xv_menu_button, "experiments_button")) +
           small_button_width(ui_label(app, UiStr::lv_menu_button, "lessons_button")) +
           small_button_width(ui_label(app, UiStr::tv_menu_button, "train_button")) + gap;
}

void draw_bar_menus(LabApp& app) {
    draw_experiment_menu(app);
    ImGui::SameLine();
    draw_lesson_menu(app);
    ImGui::SameLine();
    draw_train_button(app);
}

float language_switch_width(const LabApp& app) {
    float status_w = 0;
    const float w = switch_width(app, &status_w);
    return w + status_w;
}

// "EN | 中文" at the right end of the line, the current language lit; L toggles too.
// "中文" is drawable before the Chinese font has loaded (its two glyphs are compiled in).
void draw_language_switch(LabApp& app) {
    float status_w = 0;
    const float w = switch_width(app, &status_w);
    ImGui::SameLine(std::max(ImGui::GetCursorPosX(), ImGui::GetWindowContentRegionMax().x - w - status_w));
    if (app.fonts.cjk == FontLoad::Loading) {
        text_disabled(tr(UiStr::lang_loading_short, Lang::En));
        ImGui::SameLine();
    }
    for (int i = 0; i < kLangCount; ++i) {
        const Lang lang = static_cast<Lang>(i);
        const bool current = app.lang == lang;
        if (i) ImGui::SameLine();
        ImGui::PushStyleColor(ImGuiCol_Button, palette::choice(current));
        if (ImGui::SmallButton(kLangLabels[i]) && !current) lab_set_language(app, lang);
        check_item(kLangLabels[i]);
        ImGui::PopStyleColor();
        lab_note_rect(app, std::string("lang:") + lang_code(lang));
        if (!current) item_tooltip(app, tr(app, UiStr::lang_toggle_tip));
    }
}

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
    draw_bar_menus(app);
    draw_language_switch(app);
    // One chip per place of the stepper's walk: the ten stages, and with a model the block's.
    const ChipRow row(app);
    const ImGuiStyle& style = ImGui::GetStyle();
    // Chips keep their full labels; on a narrow window the '>' separators go first, then
    // the padding inside the chips narrows, and only then do the chips shrink evenly.
    const float n = static_cast<float>(row.places.size());
    const float labels = row.labels_width(app, false);
    const float sep = ImGui::CalcTextSize(">").x + 4 + style.ItemSpacing.x;
    const float avail = ImGui::GetContentRegionAvail().x;
    const bool separators = labels + style.FramePadding.x * 2 * n + sep * (n - 1) <= avail;
    const float spacing = separators ? sep : style.ItemSpacing.x;
    const float pad = std::clamp((avail - spacing * (n - 1) - labels) / (2 * n), 2.0f, style.FramePadding.x);
    // Still too wide (a model's fourteen chips at 1024 px): a smaller font before any label is cut.
    const float font_scale = std::clamp((avail - spacing * (n - 1) - pad * 2 * n) / labels, 0.75f, 1.0f);
    ImGui::SetWindowFontScale(font_scale);
    const float squeeze = std::min(1.0f, (avail - spacing * (n - 1)) / (labels * font_scale + pad * 2 * n));
    for (size_t i = 0; i < row.places.size(); ++i) {
        if (i && !separators) ImGui::SameLine();
        if (i && separators) {
            ImGui::SameLine(0, 2);
            ImGui::TextDisabled(">");
            ImGui::SameLine(0, 2);
        }
        draw_chip(app, row, i, false, squeeze, pad);
    }
    ImGui::SetWindowFontScale(1.0f);
    ImGui::End();
}

// The narrow layout's chips: their labels when every one fits the width, else their
// numbers; and when even the numbers do not fit, a strip that scrolls sideways, the
// current chip brought into view whenever the stage changes.
float chip_strip_height(const LabApp& app, float width) {
    const ChipRow row(app);
    const ImGuiStyle& style = ImGui::GetStyle();
    const float n = static_cast<float>(row.places.size());
    const float numbers = row.labels_width(app, true, true) + style.FramePadding.x * 2 * n + style.ItemSpacing.x * (n - 1);
    return ImGui::GetFrameHeight() + (numbers > width ? style.ScrollbarSize : 0.0f);
}

void draw_chip_strip(LabApp& app, float width) {
    const ChipRow row(app);
    const ImGuiStyle& style = ImGui::GetStyle();
    const float n = static_cast<float>(row.places.size());
    const float gaps = style.ItemSpacing.x * (n - 1) + style.FramePadding.x * 2 * n;
    const bool number_only = row.labels_width(app, false, true) + gaps > width;
    ImGui::BeginChild("chips", ImVec2(width, chip_strip_height(app, width)), false, ImGuiWindowFlags_HorizontalScrollbar);
    lab_note_window(app, "chips");
    for (size_t i = 0; i < row.places.size(); ++i) {
        if (i) ImGui::SameLine();
        draw_chip(app, row, i, number_only, 1.0f, style.FramePadding.x);
        if (static_cast<int>(i) == row.current && app.narrow.chips_shown_place != row.current) {
            ImGui::SetScrollHereX(0.5f);
            app.narrow.chips_shown_place = row.current;
        }
    }
    app.narrow.chips_scroll = ImGui::GetScrollX();
    app.narrow.chips_scroll_max = ImGui::GetScrollMaxX();
    ImGui::EndChild();
}

}  // namespace lab
