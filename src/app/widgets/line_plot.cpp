// line_plot.cpp — Attention Lab app: line plots on ImGui's draw list.
#include "app/widgets/line_plot.h"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cstdio>

#include "app/widgets/text_fit.h"

namespace lab {

namespace {

constexpr float kSampleW = 28.0f;  // a legend entry's line sample
constexpr float kPad = 4.0f;

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

// An axis: its ends (log10 of them on a log axis), its ticks and how many decimals their labels need.
struct Axis {
    bool log = false;
    double lo = 0, hi = 1;
    std::vector<double> ticks;
    int decimals = 0;
};

// 1, 2 or 5 times a power of ten, the first at least `raw`.
double nice_step(double raw) {
    const double p = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * p >= raw * (1 - 1e-9)) return m * p;
    return 10 * p;
}

int decimals_of(double step) {
    int d = 0;
    while (d < 6 && std::fabs(step * std::pow(10.0, d) - std::round(step * std::pow(10.0, d))) > 1e-6) ++d;
    return d;
}

// Linear: round steps, ends on ticks. Log: whole decades, or the data's own x values.
Axis make_axis(bool log, double lo, double hi, const std::vector<double>* at_data) {
    Axis ax;
    ax.log = log;
    if (log && at_data && !at_data->empty()) {
        const double span = std::max(1e-9, std::log10(hi) - std::log10(lo));
        ax.lo = std::log10(lo) - span * 0.03, ax.hi = std::log10(hi) + span * 0.03;
        ax.ticks = *at_data;
    } else if (log) {
        ax.lo = std::floor(std::log10(lo));
        ax.hi = std::max(ax.lo + 1, std::ceil(std::log10(hi)));
        for (double e = ax.lo; e <= ax.hi + 1e-9; ++e) ax.ticks.push_back(std::pow(10, e));
    } else {
        if (hi - lo < 1e-12) lo -= std::max(1e-3, std::fabs(lo) * 0.1), hi += std::max(1e-3, std::fabs(hi) * 0.1);
        const double step = nice_step((hi - lo) / 4);
        ax.lo = std::floor(lo / step + 1e-9) * step, ax.hi = std::ceil(hi / step - 1e-9) * step;
        for (double v = ax.lo; v <= ax.hi + step * 1e-6; v += step) ax.ticks.push_back(std::fabs(v) < step * 1e-6 ? 0.0 : v);
        ax.decimals = decimals_of(step);
    }
    return ax;
}

std::string tick_label(double v, const Axis& ax) {
    char buf[32];
    if (!ax.log) std::snprintf(buf, sizeof buf, "%.*f", ax.decimals, v);
    else if (v >= 1 && v < 1e5) std::snprintf(buf, sizeof buf, "%.0f", v);
    else if (v >= 1e-3 && v < 1) std::snprintf(buf, sizeof buf, "%g", v);
    else std::snprintf(buf, sizeof buf, "1e%d", static_cast<int>(std::lround(std::log10(v))));
    return buf;
}

// Every k-th label (k = 1, 2, 4, ...), counted back from the last, so that neighbours keep
// `gap` pixels between them; `extent(i)` gives label i's [start, end) along the axis.
template <class Extent>
int label_stride(int n, float gap, Extent extent) {
    for (int k = 1;; k *= 2) {
        bool ok = true;
        float prev_end = -FLT_MAX;
        for (int i = (n - 1) % k; i < n && ok; i += k) {
            const ImVec2 e = extent(i);
            ok = e.x >= prev_end + gap;
            prev_end = e.y;
        }
        if (ok || k >= n) return k;
    }
}

void add_text(PlotGeometry& g, const char* kind, const std::string& text, ImVec2 at) {
    const ImVec2 size = ImGui::CalcTextSize(text.c_str());
    g.texts.push_back({kind, text, {at.x, at.y, size.x, size.y}});
    ImGui::GetWindowDrawList()->AddText(at, ImGui::GetColorU32(std::string(kind) == "legend" ? ImGuiCol_Text : ImGuiCol_TextDisabled),
                                        text.c_str());
}

void draw_x_ticks(const PlotFrame& f, const Axis& ax, PlotGeometry& g) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    std::vector<double> ticks;
    for (double t : ax.ticks)
        if (f.usable(t, f.axes.log_y ? 1.0 : 0.0)) ticks.push_back(t);
    const int n = static_cast<int>(ticks.size());
    auto extent = [&](int i) {
        const float w = ImGui::CalcTextSize(tick_label(ticks[i], ax).c_str()).x;
        return ImVec2(f.px(ticks[i]) - w * 0.5f, f.px(ticks[i]) + w * 0.5f);
    };
    const int k = label_stride(n, 6.0f, extent);
    for (int i = 0; i < n; ++i) {
        dl->AddLine(ImVec2(f.px(ticks[i]), f.a.y), ImVec2(f.px(ticks[i]), f.b.y), ImGui::GetColorU32(ImGuiCol_Border));
        if ((n - 1 - i) % k == 0) add_text(g, "x_tick", tick_label(ticks[i], ax), ImVec2(extent(i).x, f.b.y + 2));
    }
}

void draw_y_ticks(const PlotFrame& f, const Axis& ax, PlotGeometry& g) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float line = ImGui::GetTextLineHeight();
    const int n = static_cast<int>(ax.ticks.size());
    // Along y the labels' extents run upwards: measure them as distances from the bottom.
    const int k = label_stride(n, 2.0f, [&](int i) {
        const float up = f.b.y - f.py(ax.ticks[i]);
        return ImVec2(up - line * 0.5f, up + line * 0.5f);
    });
    for (int i = 0; i < n; ++i) {
        const float y = f.py(ax.ticks[i]);
        dl->AddLine(ImVec2(f.a.x, y), ImVec2(f.b.x, y), ImGui::GetColorU32(ImGuiCol_Border));
        if ((n - 1 - i) % k) continue;
        const std::string l = tick_label(ax.ticks[i], ax);
        add_text(g, "y_tick", l, ImVec2(f.a.x - kPad - ImGui::CalcTextSize(l.c_str()).x, y - line * 0.5f));
    }
}

// A polyline in a style: dashes and dots keep their rhythm across the segments.
void stroke(const std::vector<ImVec2>& pts, ImU32 color, LineStyle style, float thickness) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    if (style == LineStyle::Solid) {
        if (pts.size() >= 2) dl->AddPolyline(pts.data(), static_cast<int>(pts.size()), color, 0, thickness);
        return;
    }
    const float on = style == LineStyle::Dashed ? 7.0f : 2.0f, off = style == LineStyle::Dashed ? 4.0f : 3.0f;
    float phase = 0;  // distance into the current on+off period
    for (size_t i = 1; i < pts.size(); ++i) {
        const ImVec2 p = pts[i - 1], q = pts[i];
        const float len = std::sqrt((q.x - p.x) * (q.x - p.x) + (q.y - p.y) * (q.y - p.y));
        for (float s = 0; s < len;) {
            const bool drawing = phase < on;
            const float step = std::min(len - s, (drawing ? on : on + off) - phase);
            if (drawing) {
                const float t0 = s / len, t1 = (s + step) / len;
                dl->AddLine(ImVec2(p.x + (q.x - p.x) * t0, p.y + (q.y - p.y) * t0),
                            ImVec2(p.x + (q.x - p.x) * t1, p.y + (q.y - p.y) * t1), color, thickness);
            }
            s += step;
            phase = std::fmod(phase + step, on + off);
        }
    }
}

bool has_markers(const PlotSeries& s) { return s.style == LineStyle::Solid && s.count <= 40; }

PlotLine draw_series(const PlotFrame& f, const PlotSeries& ser) {
    PlotLine line{ser.label, ser.style, has_markers(ser), {}, {}};
    std::vector<ImVec2> pts;
    for (int i = 0; i < ser.count; ++i)
        if (f.usable(ser.x[i], ser.y[i])) pts.push_back(ImVec2(f.px(ser.x[i]), f.py(ser.y[i])));
    stroke(pts, ser.color, ser.style, ser.style == LineStyle::Solid ? 2.0f : 1.5f);
    for (const ImVec2& p : pts) {
        if (line.markers) ImGui::GetWindowDrawList()->AddCircleFilled(p, 3.0f, ser.color);
        line.points.push_back(p.x), line.points.push_back(p.y);
    }
    return line;
}

// Legend entries in a grid under the plot: as many columns as the widest entry allows.
struct LegendGrid {
    int columns = 1, rows = 0;
    float column_w = 0;
};
LegendGrid legend_grid(const PlotSeries* series, int n, float width) {
    float widest = 0;
    for (int s = 0; s < n; ++s) widest = std::max(widest, kSampleW + kPad + ImGui::CalcTextSize(series[s].label).x);
    LegendGrid grid;
    grid.column_w = widest + 12.0f;
    grid.columns = std::max(1, std::min(n, static_cast<int>(width / grid.column_w)));
    grid.rows = (n + grid.columns - 1) / grid.columns;
    return grid;
}

void draw_legend(const PlotSeries* series, int n, ImVec2 at, float width, PlotGeometry& g) {
    const LegendGrid grid = legend_grid(series, n, width);
    const float line = ImGui::GetTextLineHeight();
    for (int s = 0; s < n; ++s) {
        const ImVec2 p(at.x + (s % grid.columns) * grid.column_w, at.y + (s / grid.columns) * line);
        const float mid = p.y + line * 0.5f;
        stroke({ImVec2(p.x, mid), ImVec2(p.x + kSampleW, mid)}, series[s].color, series[s].style, series[s].style == LineStyle::Solid ? 2.0f : 1.5f);
        if (has_markers(series[s])) ImGui::GetWindowDrawList()->AddCircleFilled(ImVec2(p.x + kSampleW * 0.5f, mid), 3.0f, series[s].color);
        g.lines[s].sample = {p.x, p.y, kSampleW, line};
        add_text(g, "legend", series[s].label, ImVec2(p.x + kSampleW + kPad, p.y));
        check_width("legend", series[s].label, kSampleW + kPad + ImGui::CalcTextSize(series[s].label).x, width);
    }
}

// Below the data area: x tick labels, the x axis title, the legend.
float below_area(const PlotSeries* series, int n, float width) {
    const float line = ImGui::GetTextLineHeight();
    return line + 2 + line + kPad + legend_grid(series, n, width).rows * line + kPad;
}

}  // namespace

float line_plot_height(const PlotSeries* series, int n, float width, float area_h) {
    return ImGui::GetTextLineHeight() + kPad + area_h + below_area(series, n, width);
}

PlotGeometry LinePlot(const char* id, const PlotSeries* series, int n, float width, float height, const char* x_label,
                      const char* y_label, const PlotAxes& axes) {
    PlotGeometry g;
    g.id = id;
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
    g.box = {f.origin.x, f.origin.y, width, height};
    for (double v : {axes.x_include_lo, axes.x_include_hi})
        if (std::isfinite(v) && (!axes.log_x || v > 0)) x0 = std::min(x0, v), x1 = std::max(x1, v);
    for (double v : {axes.y_include_lo, axes.y_include_hi})
        if (std::isfinite(v) && (!axes.log_y || v > 0)) y0 = std::min(y0, v), y1 = std::max(y1, v);
    if (x1 < x0 || y1 < y0) return g;  // no data and no ranges
    std::vector<double> data_x;
    if (axes.x_ticks_at_data && n > 0)
        for (int i = 0; i < series[0].count; ++i) data_x.push_back(series[0].x[i]);
    const Axis ax = make_axis(axes.log_x, x0, x1, axes.x_ticks_at_data ? &data_x : nullptr);
    const Axis ay = make_axis(axes.log_y, y0, y1, nullptr);
    f.lx0 = ax.lo, f.lx1 = ax.hi, f.ly0 = ay.lo, f.ly1 = ay.hi;
    float gutter = 0, last_x = 0;
    for (double t : ay.ticks) gutter = std::max(gutter, ImGui::CalcTextSize(tick_label(t, ay).c_str()).x);
    if (!ax.ticks.empty()) last_x = ImGui::CalcTextSize(tick_label(ax.ticks.back(), ax).c_str()).x;
    const float line = ImGui::GetTextLineHeight();
    f.a = ImVec2(f.origin.x + gutter + kPad * 2, f.origin.y + line + kPad);
    f.b = ImVec2(f.origin.x + width - std::max(8.0f, last_x * 0.5f + 2), f.origin.y + height - below_area(series, n, width));
    g.area = {f.a.x, f.a.y, f.b.x - f.a.x, f.b.y - f.a.y};
    add_text(g, "title", y_label, ImVec2(f.a.x, f.origin.y));
    check_width("plot title", y_label, ImGui::CalcTextSize(y_label).x, width - (f.a.x - f.origin.x));
    draw_x_ticks(f, ax, g);
    draw_y_ticks(f, ay, g);
    const float xl_w = ImGui::CalcTextSize(x_label).x;
    add_text(g, "x_label", x_label, ImVec2((f.a.x + f.b.x - xl_w) * 0.5f, f.b.y + line + 2));
    for (int s = 0; s < n; ++s) g.lines.push_back(draw_series(f, series[s]));
    draw_legend(series, n, ImVec2(f.origin.x, f.b.y + 2 * line + 2 + kPad), width, g);
    return g;
}

}  // namespace lab
