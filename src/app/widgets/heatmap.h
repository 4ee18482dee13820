// heatmap.h — Attention Lab app: MatrixHeatmap, a matrix drawn as coloured cells
// with axis labels, returning the hovered cell (implot style: a free function on a
// raw pointer with rows/cols and an explicit row stride; storage is row-major,
// value(r, c) = values[r * row_stride + c]).
#pragma once
#include <string>
#include <vector>

#include "app/data/colormap.h"

namespace lab {

// Draws a matrix as one GPU texture coloured by shaders/heatmap_frag.glsl. Set by
// the platform layer (src/platform/gpu_heatmap.cpp); the app never sees GL.
struct HeatmapRenderer {
    // rows x cols floats, value(r, c) = values[r * row_stride + c], into the screen
    // rectangle (x0, y0)-(x1, y1) of the current window. key + version name the
    // data: it is uploaded only when they change. Returns false when the GPU cannot
    // (e.g. a dimension above the texture size limit): the caller draws on the CPU.
    bool (*draw)(const char* key, unsigned long long version, const float* values, int rows, int cols, int row_stride,
                 const ColorRange& range, float x0, float y0, float x1, float y1) = nullptr;
};

struct HeatmapOptions {
    ColorRange range;                                  // colour map and value range
    float max_cell = 0.0f;                             // largest cell edge in pixels; 0 = 28 px * ui scale
    const std::vector<std::string>* row_labels = nullptr;  // e.g. tokens; null: row numbers
    const std::vector<std::string>* col_labels = nullptr;  // null: column numbers
    int col_group = 0;                                 // > 0: columns form heads of this width (coloured bands)
    int highlight_row = -1;                            // outlined row (e.g. the PE panel's training length)
    bool square = true;                                // square cells while they are 4 px or more; false: fill the box
    const HeatmapRenderer* gpu = nullptr;              // null: cells are drawn as ImGui rectangles
    const char* gpu_key = nullptr;                     // with gpu: names this slice's texture
    unsigned long long gpu_version = 0;                // with gpu: changes when the values change
};

// How an axis is labelled: every label at the font size, every label smaller, every
// label upright (columns), or every k-th position as "#k" (never a subset of the tokens,
// which would read as the sequence); an axis without labels numbers every k-th index.
enum class LabelMode { All, Small, Upright, Positions, Numbers };  // Numbers: an axis without labels, every k-th index
struct AxisLabelPlan {
    LabelMode mode = LabelMode::All;
    float size = 0;  // font size in pixels
    int every = 1;   // every k-th label is drawn (Positions, or numbered axes)
};
const char* label_mode_name(LabelMode m);

struct HeatmapHit {
    int row = -1, col = -1;            // exact cell under the mouse, -1 when none
    float x = 0, y = 0;                // screen position of cell (0, 0)
    float cell_w = 0, cell_h = 0;      // cell size in pixels
    LabelMode row_mode = LabelMode::All, col_mode = LabelMode::All;
    std::vector<std::string> row_labels, col_labels;  // the labels drawn, in order
};

// Draws into the current window, at most `width` x `height` pixels (0 = available).
HeatmapHit MatrixHeatmap(const char* id, const float* values, int rows, int cols, int row_stride,
                         const HeatmapOptions& options, float width = 0.0f, float height = 0.0f);
// Outlines cell (row, col) of a drawn heatmap, as the hovered cell is (the keyboard's cell too).
void HeatmapOutlineCell(const HeatmapHit& hit, int row, int col);

// A small gradient bar with its value range, on the current line: "-2.31 [bar] 2.31",
// plus swatches for masked and NaN cells when the slice has any (masked_label: the
// masked swatch's word, in the interface's language).
void ColorLegend(const ColorRange& range, bool has_masked, bool has_nan, const char* masked_label);

// The colour of head `h` (bands above split/concat columns, chips).
uint32_t head_color(int h);

}  // namespace lab
