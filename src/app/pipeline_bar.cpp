// pipeline_bar.cpp — Attention Lab app: the pipeline bar, one chip per stage, the
// current one lit; click a chip or use ←/→ (j/k), Home/End.
#include <imgui.h>

#include <cstdio>

#include "core/stages.h"
#include "lab_app.h"
#include "panels.h"

namespace lab {

void draw_pipeline_bar(LabApp& app, const PanelRect& r) {
    begin_panel("##pipeline", r, ImGuiWindowFlags_NoTitleBar | ImGuiWindowFlags_NoScrollbar);
    ImGui::TextUnformatted("Attention Lab");
    ImGui::SameLine();
    ImGui::TextDisabled("multi-head attention, stage by stage  (? for help)");
    const auto& infos = stage_infos();
    const ImGuiStyle& style = ImGui::GetStyle();
    float total = 0;
    for (const StageInfo& info : infos) total += ImGui::CalcTextSize(info.chip).x + style.FramePadding.x * 2 + 24;
    const float avail = ImGui::GetContentRegionAvail().x;
    const float squeeze = total > avail ? avail / total : 1.0f;
    for (size_t i = 0; i < infos.size(); ++i) {
        if (i) {
            ImGui::SameLine(0, 2);
            ImGui::TextDisabled(">");
            ImGui::SameLine(0, 2);
        }
        const bool current = static_cast<int>(i) == app.stage;
        const bool failing = [&] {
            for (const auto& ch : app.trace.stages[i].checks)
                if (!ch.pass) return true;
            return false;
        }();
        ImGui::PushStyleColor(ImGuiCol_Button, current ? ImVec4(0.26f, 0.48f, 0.86f, 1) : ImVec4(0.20f, 0.22f, 0.27f, 1));
        ImGui::PushStyleColor(ImGuiCol_ButtonHovered, ImVec4(0.32f, 0.52f, 0.86f, 1));
        char label[64];
        std::snprintf(label, sizeof label, "%d %s%s###chip%zu", static_cast<int>(i + 1), infos[i].chip, failing ? " !" : "", i);
        const float w = (ImGui::CalcTextSize(label, nullptr, true).x + style.FramePadding.x * 2) * squeeze;
        if (ImGui::Button(label, ImVec2(w, 0))) lab_go_to_stage(app, static_cast<int>(i));
        lab_note_rect(app, std::string("chip:") + infos[i].key);
        ImGui::PopStyleColor(2);
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s\n%s", infos[i].title, infos[i].formula);
    }
    ImGui::End();
}

}  // namespace lab
