// line_plot.cpp — Attention Lab app: line plots on ImGui's draw list.
#include "line_plot.h"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <vector>

namespace lab {

void LinePlot(const char* id, const PlotSeries* series, int n, float width, float height, const char* x_label,
              const char* y_label, const PlotAxes& axes) {
    // Points a log axis cannot show (<= 0) and non-finite values are skipped.
    auto usable = [&](double x, double y) {
        return std::isfinite(x) && std::isfinite(y) && (!axes.log_x || x > 0) && (!axes.log_y || y > 0);
    };
    double x0 = DBL_MAX, x1 = -DBL_MAX, y0 = DBL_MAX, y1 = -DBL_MAX;
    for (int s = 0; s < n; ++s)
        for (int i = 0; i < series[s].count; ++i)
            if (usable(series[s].x[i], series[s].y[i])) {
                x0 = std::min(x0, series[s].x[i]), x1 = std::max(x1, series[s].x[i]);
                y0 = std::min(y0, series[s].y[i]), y1 = std::max(y1, series[s].y[i]);
            }
    ImGui::PushID(id);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::Dummy(ImVec2(width, height));
    ImGui::PopID();
    if (x1 < x0 || y1 < y0) return;
    // Axis ends: whole decades on log axes, padded "nice" ends on linear ones.
    auto ends = [](bool log, double lo, double hi, double* a, double* b) {
        if (log) {
            *a = std::floor(std::log10(lo));
            *b = std::max(*a + 1, std::ceil(std::log10(hi)));
        } else {
            const double pad = (hi - lo) > 0 ? (hi - lo) * 0.05 : std::max(1e-3, std::fabs(hi) * 0.1);
            *a = lo - pad;
            *b = hi + pad;
            if (lo >= 0 && *a < 0) *a = 0;
        }
    };
    double lx0, lx1, ly0, ly1;
    ends(axes.log_x, x0, x1, &lx0, &lx1);
    ends(axes.log_y, y0, y1, &ly0, &ly1);
    const float line = ImGui::GetTextLineHeight();
    const ImVec2 a(origin.x + ImGui::CalcTextSize("1e-3").x + 8, origin.y + 4);
    const ImVec2 b(origin.x + width - 8, origin.y + height - line * 2.2f);
    auto fx = [&](double x) { return axes.log_x ? std::log10(x) : x; };
    auto fy = [&](double y) { return axes.log_y ? std::log10(y) : y; };
    auto px = [&](double x) { return a.x + static_cast<float>((fx(x) - lx0) / (lx1 - lx0)) * (b.x - a.x); };
    auto py = [&](double y) { return b.y - static_cast<float>((fy(y) - ly0) / (ly1 - ly0)) * (b.y - a.y); };
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImU32 grid = ImGui::GetColorU32(ImGuiCol_Border), text = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    char buf[32];
    // Ticks: each decade on a log axis, 5 even steps on a linear one.
    auto ticks = [](bool log, double lo, double hi) {
        std::vector<double> t;
        if (log) for (double e = lo; e <= hi; ++e) t.push_back(std::pow(10, e));
        else for (int i = 0; i <= 4; ++i) t.push_back(lo + (hi - lo) * i / 4);
        return t;
    };
    // Tick labels: "1000" rather than "1e+03", and 0 rather than 3.8e-05 on a linear axis.
    auto label = [&](double v, bool log, double span) {
        if (!log && std::fabs(v) < span * 1e-6) v = 0;
        std::snprintf(buf, sizeof buf, std::fabs(v) >= 1 && std::fabs(v) < 1e6 ? "%.0f" : "%.3g", v);
        if (!log && std::fabs(v) < 1 && v != 0) std::snprintf(buf, sizeof buf, "%.2f", v);
    };
    for (double x : ticks(axes.log_x, lx0, lx1)) {
        dl->AddLine(ImVec2(px(x), a.y), ImVec2(px(x), b.y), grid);
        label(x, axes.log_x, lx1 - lx0);
        dl->AddText(ImVec2(px(x) - ImGui::CalcTextSize(buf).x * 0.5f, b.y + 2), text, buf);
    }
    for (double y : ticks(axes.log_y, ly0, ly1)) {
        dl->AddLine(ImVec2(a.x, py(y)), ImVec2(b.x, py(y)), grid);
        label(y, axes.log_y, ly1 - ly0);
        dl->AddText(ImVec2(origin.x, py(y) - line * 0.5f), text, buf);
    }
    dl->AddText(ImVec2((a.x + b.x) * 0.5f - ImGui::CalcTextSize(x_label).x * 0.5f, b.y + line + 2), text, x_label);
    dl->AddText(ImVec2(a.x + 4, a.y), text, y_label);
    float legend_y = a.y + line;
    for (int s = 0; s < n; ++s) {
        const PlotSeries& ser = series[s];
        for (int i = 1; i < ser.count; ++i) {
            if (!usable(ser.x[i - 1], ser.y[i - 1]) || !usable(ser.x[i], ser.y[i])) continue;
            const ImVec2 p(px(ser.x[i - 1]), py(ser.y[i - 1])), q(px(ser.x[i]), py(ser.y[i]));
            if (!ser.dashed) {
                dl->AddLine(p, q, ser.color, 2.0f);
                continue;
            }
            constexpr int kDashes = 8;
            for (int d = 0; d < kDashes; d += 2)
                dl->AddLine(ImVec2(p.x + (q.x - p.x) * d / kDashes, p.y + (q.y - p.y) * d / kDashes),
                            ImVec2(p.x + (q.x - p.x) * (d + 1) / kDashes, p.y + (q.y - p.y) * (d + 1) / kDashes), ser.color,
                            1.5f);
        }
        if (!ser.dashed && ser.count <= 40)  // markers only while they stay readable
            for (int i = 0; i < ser.count; ++i)
                if (usable(ser.x[i], ser.y[i])) dl->AddCircleFilled(ImVec2(px(ser.x[i]), py(ser.y[i])), 3.0f, ser.color);
        dl->AddLine(ImVec2(a.x + 8, legend_y + line * 0.5f), ImVec2(a.x + 26, legend_y + line * 0.5f), ser.color, 2.0f);
        dl->AddText(ImVec2(a.x + 30, legend_y), ImGui::GetColorU32(ImGuiCol_Text), ser.label);
        legend_y += line;
    }
}

}  // namespace lab
