// narrow_layout.cpp — Attention Lab app: a phone either way up, a standing tablet. One column:
// the bar on top (the menus and the language switch, the chips as one strip, the tabs) and
// one panel at a time below it — the stage (or the experiment, or the Train view), the
// setup (or the Train view's knobs), the explanation with the dimensions table under it,
// the lesson card — with the messages pinned under whichever is shown.
//
// Sizes: the platform gives ImGui the canvas's backing store (CSS px x devicePixelRatio)
// and sets app.ui_scale to that ratio, so DisplaySize / ui_scale is the screen in CSS px,
// whatever the device's pixel density; the text stays 15 CSS px.
#include <imgui.h>

#include <algorithm>
#include <vector>

#include "app/panels/lesson_panel.h"
#include "app/panels/panels.h"
#include "app/panels/train_view.h"
#include "app/state/lab_app.h"
#include "app/widgets/palette.h"
#include "app/widgets/text_fit.h"
#include "trace/stages.h"

namespace lab {

namespace {

struct TabEntry {
    NarrowTab tab;
    UiStr label;
    const char* key;  // state().narrow.tab, the rect "ntab:<key>"
};

const char* tab_key(NarrowTab tab) {
    static const char* const keys[] = {"stage", "setup", "explain", "lesson"};
    return keys[static_cast<int>(tab)];
}

bool train_shown(const LabApp& app) { return app.training.view_open && app.experiments.open < 0; }

// An experiment or the Train view takes the stage's place and says its own why (no explain
// tab); a lesson's card has a tab of its own beside the stage it is about.
std::vector<TabEntry> offered_tabs(const LabApp& app) {
    if (train_shown(app)) return {{NarrowTab::Stage, UiStr::nar_tab_train, "stage"}, {NarrowTab::Setup, UiStr::ui_setup_window, "setup"}};
    if (app.experiments.open >= 0)
        return {{NarrowTab::Stage, UiStr::nar_tab_experiment, "stage"}, {NarrowTab::Setup, UiStr::ui_setup_window, "setup"}};
    std::vector<TabEntry> tabs = {{NarrowTab::Stage, UiStr::nar_tab_stage, "stage"},
                                  {NarrowTab::Setup, UiStr::ui_setup_window, "setup"},
                                  {NarrowTab::Explain, UiStr::ui_explain_window, "explain"}};
    if (app.lesson.lesson >= 0) tabs.push_back({NarrowTab::Lesson, UiStr::nar_tab_lesson, "lesson"});
    return tabs;
}

// The tab shown: the one chosen while it is offered, else the stage.
NarrowTab shown_tab(const LabApp& app, const std::vector<TabEntry>& tabs) {
    for (const TabEntry& t : tabs)
        if (t.tab == app.narrow.tab) return t.tab;
    return NarrowTab::Stage;
}

float button_width(const std::string& label) {
    return ImGui::CalcTextSize(label.c_str(), nullptr, true).x + ImGui::GetStyle().FramePadding.x * 2;
}

float tabs_width(const LabApp& app, const std::vector<TabEntry>& tabs) {
    float w = ImGui::GetStyle().ItemSpacing.x * static_cast<float>(tabs.size() - 1);
    for (const TabEntry& t : tabs) w += button_width(ui_label(app, t.label, t.key));
    return w;
}

// How the bar's items share its lines. A landscape phone has room for the title, the tabs,
// the menus and the language switch on one line above the chips; a portrait one puts the
// tabs on a line of their own under the chips (the title and the switch where they fit).
struct BarPlan {
    bool one_line = false;     // title, tabs, menus, switch on the first line
    bool title = false;        // "Attention Lab" shown
    bool switch_on_tabs = false;  // the language switch at the end of the tabs' line
    float height = 0;
};

BarPlan plan_bar(const LabApp& app, const std::vector<TabEntry>& tabs, float width) {
    const ImGuiStyle& style = ImGui::GetStyle();
    const float avail = width - style.WindowPadding.x * 2, gap = style.ItemSpacing.x;
    const float title = ImGui::CalcTextSize("Attention Lab").x, menus = bar_menus_width(app), lang = language_switch_width(app);
    BarPlan p;
    p.one_line = title + tabs_width(app, tabs) + menus + lang + gap * 3 + ImGui::GetFontSize() <= avail;
    p.switch_on_tabs = !p.one_line && menus + gap + lang > avail;
    p.title = p.one_line || title + gap + menus + (p.switch_on_tabs ? 0 : gap + lang) <= avail;
    const float lines = p.one_line ? 1 : 2;
    p.height = style.WindowPadding.y * 2 + lines * (ImGui::GetFrameHeight() + style.ItemSpacing.y) + chip_strip_height(app, avail);
    return p;
}

// The tabs as buttons, the shown one lit; `each` wide (0: as wide as its label).
void draw_tabs(LabApp& app, const std::vector<TabEntry>& tabs, NarrowTab shown, float each) {
    for (size_t i = 0; i < tabs.size(); ++i) {
        if (i) ImGui::SameLine();
        const std::string label = ui_label(app, tabs[i].label, (std::string("ntab_") + tabs[i].key).c_str());
        const float need = button_width(label), w = each > 0 ? each : need;
        const bool current = tabs[i].tab == shown;
        ImGui::PushStyleColor(ImGuiCol_Button, palette::choice(current));
        if (ImGui::Button(label.c_str(), ImVec2(w, 0))) app.narrow.tab = tabs[i].tab;
        ImGui::PopStyleColor();
        check_width("tab", label.c_str(), need, w);
        lab_note_rect(app, std::string("ntab:") + tabs[i].key);
    }
}

void draw_narrow_bar(LabApp& app, const std::vector<TabEntry>& tabs, NarrowTab shown, const BarPlan& p, float width) {
    begin_panel("##pipeline", {0, 0, width, p.height}, ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoScrollbar);
    const ImGuiStyle& style = ImGui::GetStyle();
    const float avail = ImGui::GetContentRegionAvail().x;
    if (p.title) {
        text("Attention Lab");
        ImGui::SameLine();
    }
    if (p.one_line) {
        draw_tabs(app, tabs, shown, 0);
        ImGui::SameLine(0, ImGui::GetFontSize());
    }
    draw_bar_menus(app);
    if (!p.switch_on_tabs) draw_language_switch(app);
    draw_chip_strip(app, avail);
    if (!p.one_line) {
        const float room = avail - (p.switch_on_tabs ? language_switch_width(app) + style.ItemSpacing.x : 0);
        const float n = static_cast<float>(tabs.size());
        draw_tabs(app, tabs, shown, (room - style.ItemSpacing.x * (n - 1)) / n);
        if (p.switch_on_tabs) draw_language_switch(app);
    }
    ImGui::End();
}

// The explanation, and under it the dimensions table (the cost tab, when chosen, taller).
void draw_explain_tab(LabApp& app, const PanelRect& r) {
    const float rows = (kStageCount + 3.5f) * ImGui::GetTextLineHeightWithSpacing();
    const float table_h = app.cost_tab_open || app.kv.open ? r.h * 0.5f : std::min(r.h * 0.4f, rows);
    draw_explain_panel(app, {r.x, r.y, r.w, r.h - table_h});
    draw_dimension_table(app, {r.x, r.y + r.h - table_h, r.w, table_h});
}

void draw_narrow_body(LabApp& app, NarrowTab tab, const PanelRect& body) {
    const float messages_h = messages_panel_height(app, body.w, body.h * 0.3f);
    const PanelRect r = {body.x, body.y, body.w, body.h - messages_h};
    const bool train = train_shown(app);
    if (tab == NarrowTab::Setup) {
        if (train) draw_train_knobs(app, r);
        else draw_setup_panel(app, r);
    }
    draw_messages_panel(app, {body.x, body.y + r.h, body.w, messages_h});
    app.hover = HoverCell{};
    if (tab == NarrowTab::Stage) {
        if (train) draw_train_view(app, r);
        else if (app.experiments.open >= 0) draw_experiment_view(app, r.x, r.y, r.w, r.h);
        else draw_stage_view(app, r);
    }
    if (tab == NarrowTab::Explain) draw_explain_tab(app, r);
    if (tab == NarrowTab::Lesson) draw_lesson_panel(app, r);
}

}  // namespace

bool narrow_screen(const LabApp& app) {
    const ImVec2 ds = ImGui::GetIO().DisplaySize;
    const float css_w = ds.x / app.ui_scale, css_h = ds.y / app.ui_scale;
    return css_w < kNarrowCssWidth || css_h < kShortCssHeight;
}

// A lesson's new step asks its question on its card: the Lesson tab comes to the front
// (on a desktop the card is always in sight); the learner may then look at the others.
static void show_new_lesson_step(LabApp& app) {
    NarrowLayout& n = app.narrow;
    if (app.lesson.lesson == n.lesson_shown && app.lesson.step == n.lesson_step_shown) return;
    n.lesson_shown = app.lesson.lesson, n.lesson_step_shown = app.lesson.step;
    if (app.lesson.lesson >= 0) n.tab = NarrowTab::Lesson;
}

// Start is among the Train view's knobs, on the Setup tab: the run it starts is watched on
// the Train tab, which comes to the front.
static void show_started_training(LabApp& app) {
    NarrowLayout& n = app.narrow;
    const bool running = train_shown(app) && app.training.running;
    if (running && !n.training_seen_running && n.tab == NarrowTab::Setup) n.tab = NarrowTab::Stage;
    n.training_seen_running = running;
}

void draw_narrow_layout(LabApp& app) {
    const ImVec2 ds = ImGui::GetIO().DisplaySize;
    show_new_lesson_step(app);
    show_started_training(app);
    const std::vector<TabEntry> tabs = offered_tabs(app);
    const NarrowTab shown = shown_tab(app, tabs);
    const BarPlan plan = plan_bar(app, tabs, ds.x);
    draw_narrow_bar(app, tabs, shown, plan, ds.x);
    draw_narrow_body(app, shown, {0, plan.height, ds.x, ds.y - plan.height});
}

Json narrow_state(const LabApp& app) {
    const ImVec2 ds = ImGui::GetIO().DisplaySize;
    Json tabs = Json::array();
    for (const TabEntry& t : offered_tabs(app)) tabs.push_back(t.key);
    return {{"on", app.narrow.on}, {"tab", tab_key(shown_tab(app, offered_tabs(app)))}, {"tabs", tabs},
            {"css_width", json_number(ds.x / app.ui_scale)}, {"css_height", json_number(ds.y / app.ui_scale)},
            {"chips_scroll", json_number(app.narrow.chips_scroll)}, {"chips_scroll_max", json_number(app.narrow.chips_scroll_max)}};
}

}  // namespace lab
