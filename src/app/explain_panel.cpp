// explain_panel.cpp — Attention Lab app: what the current stage does — the paper's
// formula, the PyTorch line, the shapes with named dims, why, and invariant badges
// computed from the live numbers.
#include <imgui.h>

#include "text_fit.h"
#include "core/stages.h"
#include "lab_app.h"
#include "panels.h"

namespace lab {

namespace {

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

}  // namespace

void draw_explain_panel(LabApp& app, const PanelRect& r) {
    const StageInfo& info = stage_infos()[app.stage];
    const StageRecord& rec = app.trace.stages[app.stage];
    begin_panel(ui_label(app, UiStr::ui_explain_window, "Explain").c_str(), r);
    text_wrapped("%d. %s", app.stage + 1, tr(app, info.title));
    heading(tr(app, UiStr::ui_explain_paper));
    text_wrapped("%s", tr(app, info.formula));
    heading(tr(app, UiStr::ui_explain_pytorch));
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0.62f, 0.85f, 0.62f, 1));
    text_wrapped("%s", info.pytorch);
    ImGui::PopStyleColor();
    heading(tr(app, UiStr::ui_explain_shapes));
    // Each step wrapped beside its bullet (a group): a named shape like (B=2, h=8, L_q=10, L_kv=10) is long.
    for (const ShapeStep& st : rec.shape_steps) {
        ImGui::Bullet();
        ImGui::SameLine(0, ImGui::GetStyle().FramePadding.x * 2);  // where BulletText puts its text
        text_wrapped("%s  %s", say(app, st.op).c_str(), shape_named(st.shape, st.dims).c_str());
    }
    heading(tr(app, UiStr::ui_explain_why));
    text_wrapped("%s", tr(app, info.why));
    heading(tr(app, UiStr::ui_explain_checks));
    if (rec.checks.empty()) text_wrapped_disabled(tr(app, UiStr::ui_explain_no_checks));
    for (const InvariantCheck& ch : rec.checks) badge(app, ch);
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
