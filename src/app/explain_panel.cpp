// explain_panel.cpp — Attention Lab app: what the current stage does — the paper's
// formula, the PyTorch line, the shapes with named dims, why, and invariant badges
// computed from the live numbers.
#include <imgui.h>

#include "text_wrap.h"
#include "core/stages.h"
#include "lab_app.h"
#include "panels.h"
#include "stepper_model.h"

namespace lab {

namespace {

void heading(const char* text) {
    ImGui::Spacing();
    ImGui::TextDisabled("%s", text);
}

// A green or red dot, then the label and its numbers.
void badge(const LabApp& app, const InvariantCheck& ch) {
    const float r = ImGui::GetTextLineHeight() * 0.3f;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImGui::GetWindowDrawList()->AddCircleFilled(ImVec2(p.x + r, p.y + ImGui::GetTextLineHeight() * 0.5f), r,
                                                ch.pass ? IM_COL32(90, 200, 120, 255) : IM_COL32(240, 90, 80, 255));
    ImGui::Dummy(ImVec2(r * 2.5f, 0));
    ImGui::SameLine();
    text_wrapped("%s%s", ch.pass ? "" : tr(app, UiStr::ui_explain_fails), say(app, ch.label).c_str());
    ImGui::Indent(r * 2.5f + ImGui::GetStyle().ItemSpacing.x);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    text_wrapped("%s", say(app, ch.detail).c_str());
    ImGui::PopStyleColor();
    ImGui::Unindent(r * 2.5f + ImGui::GetStyle().ItemSpacing.x);
}

// The backward view's part: its formula, what the gradients say, the loss, the checks.
void draw_backward_explain(const LabApp& app, const StepperStageText& text, const GradTrace& g) {
    heading(tr(app, UiStr::stp_explain_backward));
    text_wrapped("%s", tr(app, text.backward->formula));
    text_wrapped("%s", tr(app, text.backward->why));
    text_wrapped("%s", say(app, stepper_loss_text(g, false)).c_str());
    heading(tr(app, UiStr::stp_explain_grad_checks));
    if (text.grad_checks->empty()) ImGui::TextDisabled("%s", tr(app, UiStr::ui_explain_no_checks));
    for (const InvariantCheck& ch : *text.grad_checks) badge(app, ch);
}

}  // namespace

void draw_explain_panel(LabApp& app, const PanelRect& r) {
    const std::vector<StepperPlace> places = stepper_places(app);
    const int at = stepper_place_index(app);
    const StepperStageText text = stepper_stage_text(app, places[static_cast<size_t>(at)]);
    begin_panel(ui_label(app, UiStr::ui_explain_window, "Explain").c_str(), r);
    ImGui::PushTextWrapPos(0);
    ImGui::Text("%d. %s", at + 1, tr(app, text.title));
    heading(tr(app, UiStr::ui_explain_paper));
    text_wrapped("%s", tr(app, text.formula));
    heading(tr(app, UiStr::ui_explain_pytorch));
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.62f, 0.85f, 0.62f, 1));
    text_wrapped("%s", text.pytorch);
    ImGui::PopStyleColor();
    heading(tr(app, UiStr::ui_explain_shapes));
    for (const ShapeStep& st : *text.steps) {  // a long shape wraps under its bullet
        ImGui::Bullet();  // stays on the line
        text_wrapped("%s  %s", say(app, st.op).c_str(), shape_named(st.shape, st.dims).c_str());
    }
    if (const GradTrace* g = stepper_grads(app)) draw_backward_explain(app, text, *g);
    heading(tr(app, UiStr::ui_explain_why));
    text_wrapped("%s", tr(app, text.why));
    heading(tr(app, UiStr::ui_explain_checks));
    if (text.checks->empty()) ImGui::TextDisabled("%s", tr(app, UiStr::ui_explain_no_checks));
    for (const InvariantCheck& ch : *text.checks) badge(app, ch);
    if (!app.hover.tensor.empty()) {
        heading(tr(app, UiStr::ui_explain_hovered));
        text_wrapped("%s", say(app, app.hover.text).c_str());
    }
    ImGui::PopTextWrapPos();
    ImGui::Spacing();
    ImGui::Separator();
    draw_export_section(app);
    ImGui::End();
}

}  // namespace lab
