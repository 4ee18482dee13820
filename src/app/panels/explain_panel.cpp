// explain_panel.cpp — Attention Lab app: what the current stage does — the paper's
// formula, the PyTorch line, the shapes with named dims, why, and invariant badges
// computed from the live numbers.
#include <imgui.h>

#include <algorithm>

#include "app/panels/panels.h"
#include "app/panels/tooltip.h"
#include "app/state/lab_app.h"
#include "app/state/stepper_model.h"
#include "app/widgets/palette.h"
#include "app/widgets/text_fit.h"
#include "trace/stages.h"

namespace lab {

// Only a pass is green; NaN from fully-masked rows is amber with its explanation.
void check_badge(LabApp& app, const InvariantCheck& ch) {
    const ImU32* colour = palette::kVerdict;
    static const UiStr prefix[] = {UiStr::ui_explain_fails, UiStr::ui_explain_nan};  // fail, NaN
    const int v = static_cast<int>(ch.verdict);
    const float r = ImGui::GetTextLineHeight() * 0.3f;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const ImVec2 centre(p.x + r, p.y + ImGui::GetTextLineHeight() * 0.5f);
    if (ch.is_check()) ImGui::GetWindowDrawList()->AddCircleFilled(centre, r, colour[v]);
    else ImGui::GetWindowDrawList()->AddCircle(centre, r * 0.85f, colour[v], 0, 1.5f);
    ImGui::Dummy(ImVec2(r * 2.5f, ImGui::GetTextLineHeight()));
    lab_note_rect(app, "badge:" + ch.id);  // the dot: tests read its colour
    ImGui::SameLine();
    text_wrapped("%s%s", v == 1 || v == 2 ? tr(app, prefix[v - 1]) : "", say(app, ch.label).c_str());
    ImGui::Indent(r * 2.5f + ImGui::GetStyle().ItemSpacing.x);
    ImGui::PushStyleColor(ImGuiCol_Text, ch.verdict == Verdict::NanMasked ? palette::kWarnText
                                                                          : ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    text_wrapped("%s", say(app, ch.detail).c_str());
    ImGui::PopStyleColor();
    ImGui::Unindent(r * 2.5f + ImGui::GetStyle().ItemSpacing.x);
}

namespace {

// The backward view's part: its formula, what the gradients say, the loss, the checks.
void draw_backward_explain(LabApp& app, const StepperStageText& text, const GradTrace& g) {
    heading(tr(app, UiStr::stp_explain_backward));
    text_wrapped("%s", tr(app, text.backward->formula));
    text_wrapped("%s", tr(app, text.backward->why));
    text_wrapped("%s", say(app, stepper_loss_text(g, false)).c_str());
    heading(tr(app, UiStr::stp_explain_grad_checks));
    if (text.grad_checks->empty()) text_wrapped_disabled(tr(app, UiStr::ui_explain_no_checks));
    for (const InvariantCheck& ch : *text.grad_checks) check_badge(app, ch);
}

}  // namespace

void draw_explain_panel(LabApp& app, const PanelRect& r) {
    const std::vector<StepperPlace> places = stepper_places(app);
    const int at = stepper_place_index(app);
    const StepperStageText text = stepper_stage_text(app, places[static_cast<size_t>(at)]);
    begin_panel(ui_label(app, UiStr::ui_explain_window, "Explain").c_str(), r);
    text_wrapped("%d. %s", at + 1, tr(app, text.title));
    note_header(app, ImGui::GetWindowPos().y);
    heading(tr(app, UiStr::ui_explain_paper));
    text_wrapped("%s", tr(app, text.formula));
    heading(tr(app, UiStr::ui_explain_pytorch));
    ImGui::PushStyleColor(ImGuiCol_Text, palette::kCodeText);
    text_wrapped("%s", text.pytorch);
    ImGui::PopStyleColor();
    heading(tr(app, UiStr::ui_explain_shapes));
    // Each step wrapped beside its bullet: a named shape like (B=2, h=8, L_q=10, L_kv=10) is long.
    for (const ShapeStep& st : *text.steps) {
        ImGui::Bullet();
        ImGui::SameLine(0, ImGui::GetStyle().FramePadding.x * 2);  // where BulletText puts its text
        text_wrapped("%s  %s", say(app, st.op).c_str(), shape_named(st.shape, st.dims).c_str());
    }
    if (const GradTrace* g = stepper_grads(app)) draw_backward_explain(app, text, *g);
    heading(tr(app, UiStr::ui_explain_why));
    text_wrapped("%s", tr(app, text.why));
    // Checks first; facts (what no input can make false, footnote 4's numbers) apart, never counted.
    heading(tr(app, UiStr::ui_explain_checks));
    const std::vector<InvariantCheck>& checks = *text.checks;
    bool facts = false;
    for (const InvariantCheck& ch : checks)
        if (ch.is_check()) check_badge(app, ch);
        else facts = true;
    if (std::none_of(checks.begin(), checks.end(), [](const InvariantCheck& c) { return c.is_check(); }))
        text_wrapped_disabled(tr(app, UiStr::ui_explain_no_checks));
    if (facts) heading(tr(app, UiStr::ui_explain_facts));
    for (const InvariantCheck& ch : checks)
        if (!ch.is_check()) check_badge(app, ch);
    if (!app.hover.tensor.empty()) {
        heading(tr(app, UiStr::ui_explain_hovered));
        text_wrapped("%s", say(app, app.hover.text).c_str());
    }
    ImGui::Spacing();
    ImGui::Separator();
    draw_export_section(app);
    ImGui::End();
}

}  // namespace lab
