// cost_panel.cpp — Attention Lab app: what each stage costs (FLOPs, bytes, measured
// milliseconds in this build) and a sweep over L showing QKᵀ/softmax/·V growing as
// L² against the projections' L — the paper's Table 1 argument, measured.
#include <imgui.h>

#include <cstdio>

#include "core/cost_model.h"
#include "core/stages.h"
#include "lab_app.h"
#include "line_plot.h"
#include "panels.h"

namespace lab {

namespace {

std::string human(double v, const char* unit) {
    char buf[48];
    const char* prefix[] = {"", "k", "M", "G", "T"};
    int p = 0;
    while (v >= 1000 && p < 4) v /= 1000, ++p;
    std::snprintf(buf, sizeof buf, v < 10 ? "%.2f %s%s" : "%.0f %s%s", v, prefix[p], unit);
    return buf;
}

void draw_sweep(LabApp& app) {
    const bool clicked = ImGui::Button(ui_label(app, UiStr::ui_cost_sweep, "cost_sweep").c_str());
    lab_note_rect(app, "cost:sweep");
    if (ImGui::IsItemHovered())
        ImGui::SetTooltip("%s", tr(app, UiStr::ui_cost_sweep_tip));
    if (clicked) app.sweep = sweep_lengths(app.trace.config, {16, 32, 64, 128, 256, 512});
    if (app.sweep.empty()) return;
    std::vector<double> L, att, proj, att_model, proj_model;
    for (const SweepPoint& p : app.sweep) {
        L.push_back(p.seq_len);
        att.push_back(p.attention_ms);
        proj.push_back(p.projection_ms);
    }
    const double a2 = fit_power(L, att, 2.0), a1 = fit_power(L, proj, 1.0);
    for (double l : L) att_model.push_back(a2 * l * l), proj_model.push_back(a1 * l);
    const PlotSeries series[] = {
        {tr(app, UiStr::ui_cost_attention_measured), L.data(), att.data(), (int)L.size(), IM_COL32(240, 110, 100, 255)},
        {tr(app, UiStr::ui_cost_model_l2), L.data(), att_model.data(), (int)L.size(), IM_COL32(240, 110, 100, 200), true},
        {tr(app, UiStr::ui_cost_projections_measured), L.data(), proj.data(), (int)L.size(), IM_COL32(90, 170, 240, 255)},
        {tr(app, UiStr::ui_cost_model_l), L.data(), proj_model.data(), (int)L.size(), IM_COL32(90, 170, 240, 200), true},
    };
    LinePlot("sweep", series, 4, ImGui::GetContentRegionAvail().x, std::max(120.0f, ImGui::GetContentRegionAvail().y),
               tr(app, UiStr::ui_cost_x_label), "ms");
}

}  // namespace

void draw_cost_tab(LabApp& app) {
    // The table on the left, the L sweep on the right.
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    ImGui::BeginChild("cost_table", ImVec2(avail.x * 0.56f, avail.y));
    const AttentionConfig& c = app.trace.config;
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchProp;
    if (ImGui::BeginTable("cost", 5, flags)) {
        ImGui::TableSetupColumn(tr(app, UiStr::ui_col_stage), ImGuiTableColumnFlags_WidthStretch, 1.6f);
        ImGui::TableSetupColumn("FLOPs", ImGuiTableColumnFlags_WidthStretch, 1.0f);
        ImGui::TableSetupColumn(tr(app, UiStr::ui_col_bytes), ImGuiTableColumnFlags_WidthStretch, 1.0f);
        ImGui::TableSetupColumn(tr(app, UiStr::ui_col_ms), ImGuiTableColumnFlags_WidthStretch, 1.0f);
        ImGui::TableSetupColumn("GFLOPS", ImGuiTableColumnFlags_WidthStretch, 0.8f);
        ImGui::TableHeadersRow();
        double total_ms = 0;
        for (int s = 0; s < kStageCount; ++s) {
            const StageCost cost = stage_cost(c, static_cast<StageId>(s));
            const double ms = app.trace.stage_ms[s];
            total_ms += ms;
            ImGui::TableNextRow();
            if (s == app.stage) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, IM_COL32(60, 100, 170, 140));
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(tr(app, stage_infos()[s].title));
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(human(cost.flops, "").c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(human(cost.bytes, "B").c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%.3f", ms);
            ImGui::TableNextColumn();
            if (cost.flops > 0 && ms > 0.001) ImGui::Text("%.2f", cost.flops / (ms * 1e6));
        }
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextDisabled("%s", say(app, Msg(UiStr::ui_cost_total, app.trace.checks_ms)).c_str());
        ImGui::TableNextColumn();
        ImGui::TextDisabled("%s", human(total_cost(c).flops, "").c_str());
        ImGui::TableNextColumn();
        ImGui::TextDisabled("%s", human(total_cost(c).bytes, "B").c_str());
        ImGui::TableNextColumn();
        ImGui::TextDisabled("%.3f", total_ms);
        ImGui::EndTable();
    }
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("cost_sweep", ImVec2(0, avail.y));
    draw_sweep(app);
    ImGui::EndChild();
}

}  // namespace lab
