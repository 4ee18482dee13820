// cost_panel.cpp — Attention Lab app: what each stage costs (FLOPs, bytes, measured
// milliseconds in this build) and a sweep over L showing QKᵀ/softmax/·V growing as
// L² against the projections' L — the paper's Table 1 argument, measured.
#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "app/panels/panels.h"
#include "app/panels/tooltip.h"
#include "app/state/lab_app.h"
#include "app/widgets/line_plot.h"
#include "app/widgets/palette.h"
#include "app/widgets/text_fit.h"
#include "trace/cost_model.h"
#include "trace/stages.h"

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

// The button that measures the sweep over L.
void draw_sweep_button(LabApp& app) {
    const std::string label = ui_label(app, UiStr::ui_cost_sweep, "cost_sweep");
    const bool clicked = ImGui::Button(label.c_str());
    check_item(label.c_str());
    lab_note_rect(app, "cost:sweep");
    item_tooltip(app, tr(app, UiStr::ui_cost_sweep_tip));
    if (clicked) app.sweep = sweep_lengths(app.trace.config, {16, 32, 64, 128, 256, 512});
}

// The measured sweep against the L² and L models, `height` pixels tall at least.
void draw_sweep_plot(LabApp& app, float height) {
    if (app.sweep.empty()) return;
    std::vector<double> L, att, proj, att_model, proj_model;
    for (const SweepPoint& p : app.sweep) {
        L.push_back(p.seq_len);
        att.push_back(p.attention_ms);
        proj.push_back(p.projection_ms);
    }
    const double a2 = fit_power(L, att, 2.0), a1 = fit_power(L, proj, 1.0);
    for (double l : L) att_model.push_back(a2 * l * l), proj_model.push_back(a1 * l);
    const int n = static_cast<int>(L.size());
    const PlotSeries series[] = {
        {tr(app, UiStr::ui_cost_attention_measured), L.data(), att.data(), n, palette::kSeriesRed},
        {tr(app, UiStr::ui_cost_model_l2), L.data(), att_model.data(), n, palette::with_alpha(palette::kSeriesRed, 200), LineStyle::Dashed},
        {tr(app, UiStr::ui_cost_projections_measured), L.data(), proj.data(), n, palette::kSeriesBlue},
        {tr(app, UiStr::ui_cost_model_l), L.data(), proj_model.data(), n, palette::with_alpha(palette::kSeriesBlue, 200), LineStyle::Dashed},
    };
    const float w = ImGui::GetContentRegionAvail().x;
    const float h = std::max(height, line_plot_height(series, 4, w, 6 * ImGui::GetFontSize()));
    PlotAxes axes;
    axes.x_ticks_at_data = true;
    LinePlot("sweep", series, 4, w, h, tr(app, UiStr::ui_cost_x_label), "ms", axes);
}

// One row of the table, as text.
struct CostRow {
    std::string stage, flops, bytes, ms, gflops;
    bool current = false, total = false;
};

std::vector<CostRow> cost_rows(const LabApp& app) {
    const AttentionConfig& c = app.trace.config;
    std::vector<CostRow> rows;
    char buf[32];
    double total_ms = 0;
    for (int s = 0; s < kStageCount; ++s) {
        const StageCost cost = stage_cost(c, static_cast<StageId>(s));
        const double ms = app.trace.stage_ms[s];
        total_ms += ms;
        CostRow r{tr(app, stage_infos(app.trace.config)[s].title), human(cost.flops, ""), human(cost.bytes, "B"), "", "", s == app.view.stage};
        std::snprintf(buf, sizeof buf, "%.3f", ms);
        r.ms = buf;
        if (cost.flops > 0 && ms > 0.001) std::snprintf(buf, sizeof buf, "%.2f", cost.flops / (ms * 1e6)), r.gflops = buf;
        rows.push_back(r);
    }
    std::snprintf(buf, sizeof buf, "%.3f", total_ms);
    rows.push_back({say(app, Msg(UiStr::ui_cost_total, app.trace.checks_ms)), human(total_cost(c).flops, ""),
                    human(total_cost(c).bytes, "B"), buf, "", false, true});
    return rows;
}

// The number columns: their fields, headers and widths (the widest of header and cells).
struct NumberColumns {
    std::string CostRow::*fields[4] = {&CostRow::flops, &CostRow::bytes, &CostRow::ms, &CostRow::gflops};
    const char* headers[4];
    float widths[4];
    float total = 0;  // with the cells' padding
};
NumberColumns number_columns(const LabApp& app, const std::vector<CostRow>& rows) {
    NumberColumns c;
    const char* headers[4] = {"FLOPs", tr(app, UiStr::ui_col_bytes), tr(app, UiStr::ui_col_ms), "GFLOPS"};
    for (int k = 0; k < 4; ++k) {
        c.headers[k] = headers[k];
        c.widths[k] = ImGui::CalcTextSize(c.headers[k]).x;
        for (const CostRow& r : rows) c.widths[k] = std::max(c.widths[k], ImGui::CalcTextSize((r.*c.fields[k]).c_str()).x);
        c.total += c.widths[k] + ImGui::GetStyle().CellPadding.x * 2;
    }
    return c;
}

// The table: numbers in columns as wide as their widest entry, the stage's name wrapped in
// what is left.
void draw_cost_table(LabApp& app, const std::vector<CostRow>& rows, const NumberColumns& nc) {
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
    if (!ImGui::BeginTable("cost", 5, flags)) return;
    ImGui::TableSetupColumn(tr(app, UiStr::ui_col_stage), ImGuiTableColumnFlags_WidthStretch);
    for (int k = 0; k < 4; ++k) ImGui::TableSetupColumn(nc.headers[k], ImGuiTableColumnFlags_WidthFixed, nc.widths[k]);
    table_headers();
    for (const CostRow& r : rows) {
        ImGui::TableNextRow();
        if (r.current) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, palette::kCurrentRow);
        ImGui::TableNextColumn();
        r.total ? text_wrapped_disabled(r.stage.c_str()) : text_wrapped("%s", r.stage.c_str());
        for (std::string CostRow::*field : nc.fields) {
            ImGui::TableNextColumn();
            r.total ? text_disabled((r.*field).c_str()) : text((r.*field).c_str());
        }
    }
    ImGui::EndTable();
}

}  // namespace

void draw_cost_tab(LabApp& app) {
    // The table on the left and the L sweep on the right when both fit, else the sweep's
    // button above the table and its plot under it (the region scrolls).
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const std::vector<CostRow> rows = cost_rows(app);
    const NumberColumns nc = number_columns(app, rows);
    const float table_min = nc.total + ImGui::GetFontSize() * 8, plot_min = ImGui::GetFontSize() * 18;
    const bool side_by_side = avail.x * 0.56f >= table_min && avail.x * 0.44f >= plot_min;
    ImGui::BeginChild("cost_table", ImVec2(side_by_side ? avail.x * 0.56f : avail.x, avail.y));
    if (!side_by_side) draw_sweep_button(app);
    draw_cost_table(app, rows, nc);
    if (!side_by_side) {
        ImGui::Spacing();
        draw_sweep_plot(app, avail.y - ImGui::GetFrameHeightWithSpacing());
    }
    ImGui::EndChild();
    if (!side_by_side) return;
    ImGui::SameLine();
    ImGui::BeginChild("cost_sweep", ImVec2(0, avail.y));
    draw_sweep_button(app);
    draw_sweep_plot(app, ImGui::GetContentRegionAvail().y);
    ImGui::EndChild();
}

}  // namespace lab
