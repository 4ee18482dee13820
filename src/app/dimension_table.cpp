// dimension_table.cpp — Attention Lab app: every stage's tensor, shape and meaning;
// the current stage highlighted, shapes following the knobs live.
#include <imgui.h>

#include <cstdio>

#include "core/stages.h"
#include "lab_app.h"
#include "panels.h"

namespace lab {

void draw_dimension_table(LabApp& app, const PanelRect& r) {
    begin_panel("Dimensions", r, ImGuiWindowFlags_NoTitleBar);
    const auto& infos = stage_infos();
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                                  ImGuiTableFlags_SizingStretchProp;
    if (ImGui::BeginTable("dims", 4, flags)) {
        ImGui::TableSetupScrollFreeze(0, 1);
        ImGui::TableSetupColumn("#", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 1.6f);
        ImGui::TableSetupColumn("tensor", ImGuiTableColumnFlags_WidthStretch, 1.0f);
        ImGui::TableSetupColumn("shape (named dims)", ImGuiTableColumnFlags_WidthStretch, 2.2f);
        ImGui::TableSetupColumn("stage", ImGuiTableColumnFlags_WidthStretch, 2.0f);
        ImGui::TableHeadersRow();
        for (int s = 0; s < kStageCount; ++s) {
            const Tensor* t = app.trace.find(infos[s].tensors[0]);
            if (!t) continue;
            ImGui::TableNextRow();
            if (s == app.stage)
                ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, IM_COL32(60, 100, 170, 140));
            ImGui::TableNextColumn();
            char id[16];
            std::snprintf(id, sizeof id, "%d##row", s + 1);
            if (ImGui::Selectable(id, s == app.stage, ImGuiSelectableFlags_SpanAllColumns)) lab_go_to_stage(app, s);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(t->name.c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%s", shape_named(*t).c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(infos[s].title);
        }
        ImGui::EndTable();
    }
    ImGui::End();
}

}  // namespace lab
