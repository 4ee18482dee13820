// line_plot.cpp — Attention Lab app: line plots on ImGui's draw list.
#include "line_plot.h"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace lab {

namespace {

// The plot's box on screen and its axes: data to pixels.
struct PlotFrame {
    PlotAxes axes;
    ImVec2 origin, a, b;        // the widget's corner; the plot area from a (top left) to b (bottom right)
    double lx0, lx1, ly0, ly1;  // axis ends (log10 of them on log axes)
    double fx(double x) const { return axes.log_x ? std::log10(x) : x; }
    double fy(double y) const { return axes.log_y ? std::log10(y) : y; }
    float px(double x) const { return a.x + static_cast<float>((fx(x) - lx0) / (lx1 - lx0)) * (b.x - a.x); }
    float py(double y) const { return b.y - static_cast<float>((fy(y) - ly0) / (ly1 - ly0)) * (b.y - a.y); }
    // Points a log axis cannot show (<= 0) and non-finite values are skipped.
    bool usable(double x, double y) const {
        return std::isfinite(x) && std::isfinite(y) && (!axes.log_x || x > 0) && (!axes.log_y || y > 0);
    }
};

// Axis ends: whole decades on log axes, padded "nice" ends on linear ones.
void axis_ends(bool log, double lo, double hi, double* a, double* b) {
    if (log) {
        *a = std::floor(std::log10(lo));
        *b = std::max(*a + 1, std::ceil(std::log10(hi)));
    } else {
        const double pad = (hi - lo) > 0 ? (hi - lo) * 0.05 : std::max(1e-3, std::fabs(hi) * 0.1);
        *a = lo - pad;
        *b = hi + pad;
        if (lo >= 0 && *a < 0) *a = 0;
    }
}

// Ticks: each decade on a log axis, 5 even steps on a linear one.
std::vector<double> ticks(bool log, double lo, double hi) {
    std::vector<double> t;
    if (log) for (double e = lo; e <= hi; ++e) t.push_back(std::pow(10, e));
    else for (int i = 0; i <= 4; ++i) t.push_back(lo + (hi - lo) * i / 4);
    return t;
}

// Tick labels: "1000" rather than "1e+03", and 0 rather than 3.8e-05 on a linear axis.
std::string tick_label(double v, bool log, double span) {
    char buf[32];
    if (!log && std::fabs(v) < span * 1e-6) v = 0;
    std::snprintf(buf, sizeof buf, std::fabs(v) >= 1 && std::fabs(v) < 1e6 ? "%.0f" : "%.3g", v);
    if (!log && std::fabs(v) < 1 && v != 0) std::snprintf(buf, sizeof buf, "%.2f", v);
    return buf;
}

void draw_axes(const PlotFrame& f, const char* x_label, const char* y_label) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImU32 grid = ImGui::GetColorU32(ImGuiCol_Border), text = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    const float line = ImGui::GetTextLineHeight();
    for (double x : ticks(f.axes.log_x, f.lx0, f.lx1)) {
        dl->AddLine(ImVec2(f.px(x), f.a.y), ImVec2(f.px(x), f.b.y), grid);
        const std::string l = tick_label(x, f.axes.log_x, f.lx1 - f.lx0);
        dl->AddText(ImVec2(f.px(x) - ImGui::CalcTextSize(l.c_str()).x * 0.5f, f.b.y + 2), text, l.c_str());
    }
    for (double y : ticks(f.axes.log_y, f.ly0, f.ly1)) {
        dl->AddLine(ImVec2(f.a.x, f.py(y)), ImVec2(f.b.x, f.py(y)), grid);
        dl->AddText(ImVec2(f.origin.x, f.py(y) - line * 0.5f), text, tick_label(y, f.axes.log_y, f.ly1 - f.ly0).c_str());
    }
    dl->AddText(ImVec2((f.a.x + f.b.x) * 0.5f - ImGui::CalcTextSize(x_label).x * 0.5f, f.b.y + line + 2), text, x_label);
    dl->AddText(ImVec2(f.a.x + 4, f.a.y), text, y_label);
}

// One series: solid or dashed segments, markers while they stay readable.
void draw_series(const PlotFrame& f, const PlotSeries& ser) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    for (int i = 1; i < ser.count; ++i) {
        if (!f.usable(ser.x[i - 1], ser.y[i - 1]) || !f.usable(ser.x[i], ser.y[i])) continue;
        const ImVec2 p(f.px(ser.x[i - 1]), f.py(ser.y[i - 1])), q(f.px(ser.x[i]), f.py(ser.y[i]));
        if (!ser.dashed) {
            dl->AddLine(p, q, ser.color, 2.0f);
            continue;
        }
        constexpr int kDashes = 8;
        for (int d = 0; d < kDashes; d += 2)
            dl->AddLine(ImVec2(p.x + (q.x - p.x) * d / kDashes, p.y + (q.y - p.y) * d / kDashes),
                        ImVec2(p.x + (q.x - p.x) * (d + 1) / kDashes, p.y + (q.y - p.y) * (d + 1) / kDashes), ser.color, 1.5f);
    }
    if (!ser.dashed && ser.count <= 40)
        for (int i = 0; i < ser.count; ++i)
            if (f.usable(ser.x[i], ser.y[i])) dl->AddCircleFilled(ImVec2(f.px(ser.x[i]), f.py(ser.y[i])), 3.0f, ser.color);
}

// The legend: one row per series in the corner the axes ask for, on the plot's background
// so curves passing under it do not cross its words.
void draw_legend(const PlotFrame& f, const PlotSeries* series, int n) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float line = ImGui::GetTextLineHeight();
    float text_w = 0;
    for (int s = 0; s < n; ++s) text_w = std::max(text_w, ImGui::CalcTextSize(series[s].label).x);
    const float w = 30 + text_w + 6, h = line * n + 4;
    const float x = f.axes.legend_right ? std::max(f.a.x + 4, f.b.x - w - 4) : f.a.x + 4;
    const float y = f.axes.legend_bottom ? f.b.y - h - 4 : f.a.y + line;  // top: under the y axis' label
    dl->AddRectFilled(ImVec2(x, y), ImVec2(x + w, y + h), (ImGui::GetColorU32(ImGuiCol_WindowBg) & 0x00FFFFFFu) | 0xD0000000u, 3.0f);
    for (int s = 0; s < n; ++s) {
        const float row = y + 2 + line * s;
        if (!series[s].dashed) dl->AddLine(ImVec2(x + 4, row + line * 0.5f), ImVec2(x + 22, row + line * 0.5f), series[s].color, 2.0f);
        else
            for (int d = 0; d < 3; ++d)  // dashed like its curve
                dl->AddLine(ImVec2(x + 4 + d * 7, row + line * 0.5f), ImVec2(x + 8 + d * 7, row + line * 0.5f), series[s].color, 1.5f);
        dl->AddText(ImVec2(x + 26, row), ImGui::GetColorU32(ImGuiCol_Text), series[s].label);
    }
}

}  // namespace

void LinePlot(const char* id, const PlotSeries* series, int n, float width, float height, const char* x_label,
              const char* y_label, const PlotAxes& axes) {
    PlotFrame f;
    f.axes = axes;
    double x0 = DBL_MAX, x1 = -DBL_MAX, y0 = DBL_MAX, y1 = -DBL_MAX;
    for (int s = 0; s < n; ++s)
        for (int i = 0; i < series[s].count; ++i)
            if (f.usable(series[s].x[i], series[s].y[i])) {
                x0 = std::min(x0, series[s].x[i]), x1 = std::max(x1, series[s].x[i]);
                y0 = std::min(y0, series[s].y[i]), y1 = std::max(y1, series[s].y[i]);
            }
    ImGui::PushID(id);
    f.origin = ImGui::GetCursorScreenPos();
    ImGui::Dummy(ImVec2(width, height));
    ImGui::PopID();
    const bool fixed_x = !axes.log_x && std::isfinite(axes.x_min) && std::isfinite(axes.x_max);
    const bool fixed_y = !axes.log_y && std::isfinite(axes.y_min) && std::isfinite(axes.y_max);
    if ((x1 < x0 || y1 < y0) && !(fixed_x && fixed_y)) return;  // no data and no ranges: nothing to draw
    if (!fixed_x) axis_ends(axes.log_x, x0, x1, &f.lx0, &f.lx1);
    if (!fixed_y) axis_ends(axes.log_y, y0, y1, &f.ly0, &f.ly1);
    if (fixed_y) f.ly0 = axes.y_min, f.ly1 = axes.y_max;
    if (fixed_x) f.lx0 = axes.x_min, f.lx1 = axes.x_max;
    const float line = ImGui::GetTextLineHeight();
    f.a = ImVec2(f.origin.x + ImGui::CalcTextSize("1e-3").x + 8, f.origin.y + 4);
    f.b = ImVec2(f.origin.x + width - 8, f.origin.y + height - line * 2.2f);
    draw_axes(f, x_label, y_label);
    for (int s = 0; s < n; ++s) draw_series(f, series[s]);
    draw_legend(f, series, n);
}

}  // namespace lab
