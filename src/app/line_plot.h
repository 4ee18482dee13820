// line_plot.h — Attention Lab app: a small line plot with log or linear axes
// (implot style: free function, raw arrays, one call per plot).
#pragma once
#include <cmath>
#include <cstdint>

namespace lab {

struct PlotSeries {
    const char* label;
    const double* x;
    const double* y;
    int count;
    uint32_t color;     // ImU32
    bool dashed = false;  // model curves
};

struct PlotAxes {
    bool log_x = true, log_y = true;  // log axes are drawn in decades
    double y_min = NAN, y_max = NAN;  // a fixed y range (linear axis), e.g. 0 … 1 for accuracies
    double x_min = NAN, x_max = NAN;  // a fixed x range (linear axis), e.g. 0 … the run's steps
    bool legend_right = false, legend_bottom = false;  // the legend's corner: where the curves are not
};

// Draws the series into a width x height box at the cursor.
void LinePlot(const char* id, const PlotSeries* series, int series_count, float width, float height,
              const char* x_label, const char* y_label, const PlotAxes& axes = {});

}  // namespace lab
