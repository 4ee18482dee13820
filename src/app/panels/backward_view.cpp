// backward_view.cpp — Attention Lab app: the backward view. For the current stage, each
// tensor of its list (model_trace/backward_trace.cpp) beside the gradient of the loss with
// respect to it, one row per tensor, both hoverable: a gradient cell's derivation redoes
// its backward rule with the numbers on screen. The loss is the model's cross-entropy on
// its sample, or for random weights the probe L = Σ output ∘ R.
#include <imgui.h>

#include <string>

#include "app/panels/panels.h"
#include "app/state/lab_app.h"
#include "app/state/stepper_model.h"

namespace lab {

void draw_backward_pairs(LabApp& app, const std::vector<StageShow>& pairs) {
    const GradTrace& g = *stepper_grads(app);
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s", say(app, stepper_loss_text(g, true)).c_str());
    ImGui::PopTextWrapPos();
    std::vector<StageShow> rows;
    for (const StageShow& p : pairs)
        if (app.trace.find(p.tensor) && (!p.cross_only || app.trace.config.cross)) rows.push_back(p);
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float gap = ImGui::GetStyle().ItemSpacing.x * 2;
    const float w = (avail.x - gap) / 2, h = avail.y / static_cast<float>(rows.size() ? rows.size() : 1);
    for (const StageShow& p : rows) {
        const std::string name = tensor_name(p.tensor);
        ImGui::BeginChild(("fwd_" + name).c_str(), ImVec2(w, h - 2), false, ImGuiWindowFlags_NoScrollbar);
        draw_stage_tensor(app, p.tensor, false, false);
        ImGui::EndChild();
        ImGui::SameLine(0, gap);
        ImGui::BeginChild(("grad_" + name).c_str(), ImVec2(w, h - 2), false, ImGuiWindowFlags_NoScrollbar);
        if (g.grads.find(p.tensor)) {
            draw_stage_tensor(app, p.tensor, false, true);
        } else {
            ImGui::PushTextWrapPos(0);
            ImGui::TextDisabled("%s", say(app, Msg(UiStr::stp_no_grad, name)).c_str());
            ImGui::PopTextWrapPos();
        }
        ImGui::EndChild();
    }
}

}  // namespace lab
