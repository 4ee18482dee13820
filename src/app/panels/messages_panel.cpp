// messages_panel.cpp — Attention Lab app: what the learner just caused, where they look.
//
// An invalid knob, a config file's ignored keys or errors, a refused file, a bad link,
// typed characters no font holds: each is said in a panel pinned to the bottom of the
// left column, outside the setup panel's scrolling, so it is on screen whatever part of
// the setup the learner was looking at and whatever the window's size.
#include <imgui.h>

#include <algorithm>

#include "app/panels/panels.h"
#include "app/state/lab_app.h"
#include "app/widgets/palette.h"
#include "app/widgets/text_fit.h"

namespace lab {

namespace {


struct Message {
    ImVec4 colour;
    std::string text;
};

// Errors first (the view keeps the last valid trace), then notes about typed tokens, then
// the notes about a file or a link.
std::vector<Message> messages(const LabApp& app) {
    std::vector<Message> out;
    for (const ConfigError& e : app.errors) out.push_back({palette::kErrorText, say(app, Msg(UiStr::app_param_message, e.param, e.message))});
    if (!app.errors.empty()) out.push_back({ImGui::GetStyle().Colors[ImGuiCol_TextDisabled], tr(app, UiStr::ui_setup_last_valid)});
    for (const Msg& n : app.glyph_notes) out.push_back({palette::kNoteText, say(app, n)});
    // Without the font Chinese would not show: this one is said in English.
    if (app.fonts.cjk == FontLoad::Failed) out.push_back({palette::kNoteText, render(Msg(UiStr::lang_font_failed, app.fonts.cjk_error), Lang::En)});
    for (const Msg& n : app.notes) out.push_back({palette::kNoteText, say(app, n)});
    if (!app.held_keys.empty()) out.push_back({palette::kNoteText, say(app, Msg(UiStr::ui_keys_held, app.held_keys))});
    return out;
}

}  // namespace

float messages_panel_height(const LabApp& app, float width, float max_h) {
    const std::vector<Message> list = messages(app);
    if (list.empty()) return 0.0f;
    const ImGuiStyle& style = ImGui::GetStyle();
    const float text_w = width - style.WindowPadding.x * 2 - style.ScrollbarSize;
    float h = style.WindowPadding.y * 2 + ImGui::GetFrameHeightWithSpacing();  // the heading line
    for (const Message& m : list) h += wrapped_height(m.text.c_str(), text_w) + style.ItemSpacing.y;
    return std::min(h, max_h);
}

void draw_messages_panel(LabApp& app, const PanelRect& r) {
    const std::vector<Message> list = messages(app);
    if (list.empty()) return;
    const bool notes = !app.notes.empty() || !app.held_keys.empty();
    ImGui::PushStyleColor(ImGuiCol_Border, app.errors.empty() ? palette::kNoteText : palette::kErrorText);
    begin_panel("Messages", r, ImGuiWindowFlags_NoTitleBar);
    ImGui::PopStyleColor();
    lab_note_window(app, "messages");
    text_disabled(tr(app, notes ? UiStr::ui_messages_heading : UiStr::ui_messages_heading_errors));
    if (notes) {
        const std::string dismiss = ui_label(app, UiStr::ui_setup_dismiss, "dismiss");
        const float w = ImGui::CalcTextSize(dismiss.c_str(), nullptr, true).x + ImGui::GetStyle().FramePadding.x * 2;
        if (fits_on_line(w)) ImGui::SameLine();
        const bool dismissed = ImGui::SmallButton(dismiss.c_str());
        check_item(dismiss.c_str());
        lab_note_rect(app, "messages:dismiss");
        if (dismissed) app.notes.clear(), app.held_keys.clear();
    }
    int i = 0;
    for (const Message& m : list) {
        text_wrapped_colored(m.colour, m.text.c_str());
        lab_note_rect(app, "message:" + std::to_string(i++));
    }
    ImGui::End();
}

}  // namespace lab
