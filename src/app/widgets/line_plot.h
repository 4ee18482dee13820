// line_plot.h — Attention Lab app: a small line plot with log or linear axes
// (implot style: free function, raw arrays, one call per plot).
//
// The box holds, top to bottom: the y axis title, the data area (y tick labels on its
// left, x tick labels under it), the x axis title and the legend. Nothing is drawn over
// the curves: tick labels are thinned until none overlaps, linear axes tick at round
// steps (1, 2, 5 × 10^k) and end on them, and each legend entry's sample is drawn
// with its series' own style (solid with markers, dashed, dotted).
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace lab {

enum class LineStyle { Solid, Dashed, Dotted };

struct PlotSeries {
    const char* label;
    const double* x;
    const double* y;
    int count;
    uint32_t color;                       // ImU32
    LineStyle style = LineStyle::Solid;   // Solid series also mark their points (when there are few)
};

struct PlotAxes {
    bool log_x = true, log_y = true;      // log axes are drawn in decades
    bool x_ticks_at_data = false;         // ticks at the first series' x values (d_k = 1, 2, 4, ...), not decades
    double y_include_lo = NAN, y_include_hi = NAN;  // the y range covers these too (0 and 1 for a probability)
    double x_include_lo = NAN, x_include_hi = NAN;  // the x range too (0 … a run's steps: axes before the first point)
};

// Where the plot put things, in screen pixels (state() reports it; tests check that no
// text lies on a curve).
struct PlotBox {
    float x = 0, y = 0, w = 0, h = 0;
};
struct PlotText {
    std::string kind;  // "title", "x_label", "x_tick", "y_tick", "legend"
    std::string text;
    PlotBox box;
};
struct PlotLine {
    std::string label;
    LineStyle style = LineStyle::Solid;
    bool markers = false;
    PlotBox sample;               // the legend entry's line sample
    std::vector<float> points;    // x0, y0, x1, y1, ... of the drawn polyline
};
struct PlotGeometry {
    std::string id;
    PlotBox box, area;            // the whole widget, the data area
    std::vector<PlotText> texts;
    std::vector<PlotLine> lines;
};

// Draws the series into a width x height box at the cursor.
PlotGeometry LinePlot(const char* id, const PlotSeries* series, int series_count, float width, float height,
                      const char* x_label, const char* y_label, const PlotAxes& axes = {});

// The height a plot needs for a data area `area_h` high: its texts and legend rows at `width`.
float line_plot_height(const PlotSeries* series, int series_count, float width, float area_h);

}  // namespace lab
