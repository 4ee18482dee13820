// heatmap.cpp — Attention Lab app: MatrixHeatmap on ImGui's draw list.
//
// Cells narrower than a pixel are binned: a bin shows the value of largest
// magnitude among its cells (so a single strong cell never disappears), while the
// hover still maps the mouse back to the exact cell.
#include "app/widgets/heatmap.h"

#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>

#include "app/widgets/palette.h"
#include "app/widgets/text_fit.h"

namespace lab {

const char* label_mode_name(LabelMode m) {
    switch (m) {
        case LabelMode::Small: return "small";
        case LabelMode::Upright: return "upright";
        case LabelMode::Positions: return "positions";
        case LabelMode::Numbers: return "numbers";
        default: return "all";
    }
}

uint32_t head_color(int h) {
    return palette::kHeads[h % 8];
}

void ColorLegend(const ColorRange& range, bool has_masked, bool has_nan, const char* masked_label) {
    const float scale = ImGui::GetFontSize() / 13.0f;
    const float h = ImGui::GetTextLineHeight() * 0.6f, gap = 4 * scale;
    char lo[24], hi[24];
    std::snprintf(lo, sizeof lo, range.map == ColorMap::Sequential ? "%.0f" : "%.3g", range.lo);
    std::snprintf(hi, sizeof hi, range.map == ColorMap::Sequential ? "%.0f" : "%.3g", range.hi);
    // The bar takes what the numbers leave, between 24 and 70 px (at 13 px text); in a
    // narrower map (three side by side on a tablet standing) down to 6 px, so no number is cut.
    const float numbers = ImGui::CalcTextSize(lo).x + ImGui::CalcTextSize(hi).x + gap * 2;
    const float room = ImGui::GetContentRegionAvail().x - numbers;
    const float w = room >= 24.0f * scale ? std::min(70.0f * scale, room) : std::max(6.0f * scale, room);
    text_disabled(lo);
    ImGui::SameLine(0, gap);
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float y = p.y + (ImGui::GetTextLineHeight() - h) * 0.5f;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    constexpr int kSteps = 24;
    for (int i = 0; i < kSteps; ++i) {
        const float v = range.lo + (range.hi - range.lo) * (i + 0.5f) / kSteps;
        dl->AddRectFilled(ImVec2(p.x + w * i / kSteps, y), ImVec2(p.x + w * (i + 1) / kSteps + 0.5f, y + h),
                          colormap_color(range, v));
    }
    ImGui::Dummy(ImVec2(w, ImGui::GetTextLineHeight()));
    ImGui::SameLine(0, gap);
    text_disabled(hi);
    // Swatches for masked and NaN cells: on this line while they fit, else below.
    auto swatch = [&](uint32_t color, const char* label) {
        if (fits_on_line(h + 3 * scale + ImGui::CalcTextSize(label).x + 6 * scale)) ImGui::SameLine(0, 10 * scale);
        const ImVec2 q = ImGui::GetCursorScreenPos();
        const float sy = q.y + (ImGui::GetTextLineHeight() - h) * 0.5f;
        ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(q.x, sy), ImVec2(q.x + h, sy + h), color);
        ImGui::Dummy(ImVec2(h, ImGui::GetTextLineHeight()));
        ImGui::SameLine(0, 3 * scale);
        text_disabled(label);
    };
    if (has_masked) swatch(kMaskedColor, masked_label);
    if (has_nan) swatch(kNanColor, "NaN");
}

namespace {

// The matrix's place on screen: the label gutters and the cell grid.
struct Grid {
    const float* values;
    int rows, cols, row_stride;
    float scale;         // font size / 13
    float label_w;       // row labels' gutter
    float band_h;        // head band above the columns
    ImVec2 origin, p0;   // the widget's corner; cell (0, 0)
    float cw, ch;        // cell size
    AxisLabelPlan row_plan, col_plan;
    float value(int r, int c) const { return values[static_cast<long>(r) * row_stride + c]; }
    float grid_w() const { return cw * cols; }
    float grid_h() const { return ch * rows; }
};

std::string label_of(const std::vector<std::string>* labels, int i) {
    return labels && i < static_cast<int>(labels->size()) ? (*labels)[i] : std::to_string(i);
}

// Positions stand in for tokens when the tokens cannot all be shown: "#3", never "3",
// which would read as a token of a digit task.
std::string position_label(const std::vector<std::string>* labels, int i) {
    return labels ? "#" + std::to_string(i) : std::to_string(i);
}

constexpr float kSmallLabel = 0.78f;  // the smaller label size, of the font size

float text_w(const std::string& s, float size) { return ImGui::GetFont()->CalcTextSizeA(size, FLT_MAX, 0, s.c_str()).x; }

float widest_label(const std::vector<std::string>* labels, int n, float size) {
    float w = 0;
    for (int i = 0; i < n && i < 512; ++i) w = std::max(w, text_w(label_of(labels, i), size));
    return w;
}

// Every-k-th, rounded so the shown positions are easy to count on: 2, 4, 8, 16, 32 ...
int thinning(float need, float cell) {
    int every = std::max(1, static_cast<int>(std::ceil(need / cell)));
    if (every > 1) every = every <= 2 ? 2 : every <= 4 ? 4 : every <= 8 ? 8 : ((every + 15) / 16) * 16;
    return every;
}

// Rows: every token at the font size, else at a smaller one, else positions.
AxisLabelPlan plan_rows(const std::vector<std::string>* labels, float ch) {
    const float size = ImGui::GetFontSize();
    if (!labels) return {LabelMode::Numbers, size, thinning(size, ch)};
    if (ch >= size) return {LabelMode::All, size, 1};
    if (ch >= size * kSmallLabel) return {LabelMode::Small, size * kSmallLabel, 1};
    return {LabelMode::Positions, size, thinning(size, ch)};
}

// Columns: every token across, else smaller, else upright (read bottom to top), else positions.
AxisLabelPlan plan_cols(const std::vector<std::string>* labels, int cols, float cw, float scale, bool upright = true) {
    const float size = ImGui::GetFontSize(), small = size * kSmallLabel;
    const float widest = widest_label(labels, cols, size);
    if (!labels) return {LabelMode::Numbers, size, thinning(widest + 6 * scale, cw)};
    if (widest + 4 * scale <= cw) return {LabelMode::All, size, 1};
    if (widest * kSmallLabel + 3 * scale <= cw) return {LabelMode::Small, small, 1};
    if (upright && small + 2 * scale <= cw) return {LabelMode::Upright, small, 1};
    const float pos_w = text_w(position_label(labels, cols - 1), size) + 6 * scale;
    return {LabelMode::Positions, size, thinning(pos_w, cw)};
}

// The column labels' band: a line, or the longest upright label (at most 80 px).
float col_band(const Grid& g, const std::vector<std::string>* labels) {
    if (g.col_plan.mode != LabelMode::Upright) return ImGui::GetTextLineHeight();
    return std::max(ImGui::GetTextLineHeight(), std::min(widest_label(labels, g.cols, g.col_plan.size), 80.0f * g.scale));
}

void size_cells(Grid& g, const HeatmapOptions& opt, float width, float height, float top_h) {
    const float max_cell = opt.max_cell > 0 ? opt.max_cell : 44.0f * g.scale;
    g.cw = std::max(0.05f, std::min(max_cell, (width - g.label_w) / g.cols));
    g.ch = std::max(0.05f, std::min(max_cell, (height - top_h) / g.rows));
    if (opt.square && g.cw >= 4.0f * g.scale) g.cw = g.ch = std::min(g.cw, g.ch);
}

// Label gutters (row labels left, a head band and column labels on top) and cells that
// stay square while they are big enough to read; a very wide matrix (L x 512) keeps thin
// columns but tall rows, so it stays a readable band. Labels are planned after the cells:
// all of them, smaller, upright, or positions — never a subset of the tokens.
Grid layout(const float* values, int rows, int cols, int row_stride, const HeatmapOptions& opt, float width, float height) {
    Grid g{values, rows, cols, row_stride, ImGui::GetFontSize() / 13.0f, 0, 0, {}, {}, 0, 0, {}, {}};
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    if (width <= 0) width = avail.x;
    if (height <= 0) height = std::max(avail.y, 40.0f * g.scale);
    g.band_h = opt.col_group > 0 ? 5.0f * g.scale : 0.0f;
    float top_h = ImGui::GetTextLineHeight() + g.band_h + 2.0f * g.scale;
    // The gutter holds the row tokens, or "#k" when rows will be too short for them.
    float widest_row = widest_label(opt.row_labels, rows, ImGui::GetFontSize());
    const float row_h = (height - top_h) / rows;
    if (opt.row_labels && row_h < ImGui::GetFontSize() * kSmallLabel)
        widest_row = std::max(widest_row, text_w(position_label(opt.row_labels, rows - 1), ImGui::GetFontSize()));
    g.label_w = std::min(widest_row, 90.0f * g.scale) + 6.0f * g.scale;
    size_cells(g, opt, width, height, top_h);
    g.col_plan = plan_cols(opt.col_labels, cols, g.cw, g.scale);
    if (g.col_plan.mode == LabelMode::Upright) {
        top_h = col_band(g, opt.col_labels) + g.band_h + 2.0f * g.scale;
        size_cells(g, opt, width, height, top_h);
        // The taller band made the cells smaller: upright labels no longer fit, so positions.
        if (g.col_plan.size + 2 * g.scale > g.cw) g.col_plan = plan_cols(opt.col_labels, cols, g.cw, g.scale, false);
    }
    g.row_plan = plan_rows(opt.row_labels, g.ch);
    // Square cells made the rows shorter than estimated: room for "#k", and the cells again.
    const float pos_w = opt.row_labels ? text_w(position_label(opt.row_labels, rows - 1), ImGui::GetFontSize()) + 6.0f * g.scale : 0;
    if (g.row_plan.mode == LabelMode::Positions && g.label_w < pos_w) {
        g.label_w = pos_w;
        size_cells(g, opt, width, height, top_h);
        g.col_plan = plan_cols(opt.col_labels, cols, g.cw, g.scale, g.col_plan.mode == LabelMode::Upright);
        g.row_plan = plan_rows(opt.row_labels, g.ch);
    }
    g.origin = ImGui::GetCursorScreenPos();
    g.p0 = ImVec2(g.origin.x + g.label_w, g.origin.y + top_h);
    return g;
}

// Cells as rectangles, binned to whole pixels when cells get smaller than one (a bin
// shows the value of largest magnitude among its cells).
void draw_cells_cpu(const Grid& g, const ColorRange& range) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const int step_c = g.cw >= 1.0f ? 1 : static_cast<int>(std::ceil(1.0f / g.cw));
    const int step_r = g.ch >= 1.0f ? 1 : static_cast<int>(std::ceil(1.0f / g.ch));
    const float gap_x = g.cw >= 6.0f ? 1.0f : 0.0f, gap_y = g.ch >= 6.0f ? 1.0f : 0.0f;
    for (int r = 0; r < g.rows; r += step_r)
        for (int c = 0; c < g.cols; c += step_c) {
            float v = g.value(r, c);
            for (int rr = r; rr < std::min(g.rows, r + step_r); ++rr)
                for (int cc = c; cc < std::min(g.cols, c + step_c); ++cc) {
                    const float u = g.value(rr, cc);
                    if (std::isnan(u) || std::fabs(u) > std::fabs(v)) v = u;
                }
            const ImVec2 a(g.p0.x + c * g.cw, g.p0.y + r * g.ch);
            const ImVec2 b(g.p0.x + std::min(g.cols, c + step_c) * g.cw - gap_x, g.p0.y + std::min(g.rows, r + step_r) * g.ch - gap_y);
            dl->AddRectFilled(a, b, colormap_color(range, v));
        }
}

// The CPU path leaves 1 px gaps between big cells: over a GPU texture, draw them as lines.
void draw_gaps(const Grid& g) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImU32 bg = ImGui::GetColorU32(ImGuiCol_WindowBg);
    for (int c = 1; c < g.cols; ++c)
        dl->AddLine(ImVec2(g.p0.x + c * g.cw - 0.5f, g.p0.y), ImVec2(g.p0.x + c * g.cw - 0.5f, g.p0.y + g.grid_h()), bg);
    for (int r = 1; r < g.rows; ++r)
        dl->AddLine(ImVec2(g.p0.x, g.p0.y + r * g.ch - 0.5f), ImVec2(g.p0.x + g.grid_w(), g.p0.y + r * g.ch - 0.5f), bg);
}

// A cell's number as drawn: two decimals, -inf / -1e9 for masked cells, NaN.
void cell_text(float v, char (&buf)[16]) {
    if (std::isnan(v)) std::snprintf(buf, sizeof buf, "NaN");
    else if (v <= -1e8f) std::snprintf(buf, sizeof buf, std::isinf(v) ? "-inf" : "-1e9");
    else std::snprintf(buf, sizeof buf, "%.2f", v);
}

// Numbers inside cells when every one fits its cell (a wide one like -12.34 included),
// dark on light cells and light on dark ones.
void draw_numbers(const Grid& g, const ColorRange& range) {
    if (g.ch < ImGui::GetTextLineHeight() || g.rows * g.cols > 400) return;
    char buf[16];
    float widest = 0;
    for (int r = 0; r < g.rows; ++r)
        for (int c = 0; c < g.cols; ++c) cell_text(g.value(r, c), buf), widest = std::max(widest, ImGui::CalcTextSize(buf).x);
    if (g.cw < widest + 4.0f * g.scale) return;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    for (int r = 0; r < g.rows; ++r)
        for (int c = 0; c < g.cols; ++c) {
            const float v = g.value(r, c);
            cell_text(v, buf);
            const ImVec2 ts = ImGui::CalcTextSize(buf);
            const uint32_t bg = colormap_color(range, v);
            const int lum = ((bg & 0xFF) * 3 + ((bg >> 8) & 0xFF) * 6 + ((bg >> 16) & 0xFF)) / 10;
            dl->AddText(ImVec2(g.p0.x + c * g.cw + (g.cw - ts.x) * 0.5f, g.p0.y + r * g.ch + (g.ch - ts.y) * 0.5f),
                        lum > 140 ? palette::kCellTextDark : palette::kCellTextLight, buf);
        }
}

std::string planned_label(const AxisLabelPlan& plan, const std::vector<std::string>* labels, int i) {
    return plan.mode == LabelMode::Positions ? position_label(labels, i) : label_of(labels, i);
}

// Text turned a quarter to the left around `foot`, read bottom to top, inside the band
// above it: the glyphs are laid out horizontally and their vertices rotated (ImGui 1.86
// has no rotated text). The clip rectangle is set by hand because ImGui culls glyphs by
// their unrotated place: it covers the laid-out line and, once turned, the band.
bool add_upright_text(ImDrawList* dl, float size, ImVec2 foot, float band_top, ImU32 colour, const char* text, float w) {
    const ImVec4 window = dl->_ClipRectStack.back();
    if (foot.x + size > window.z || foot.x < window.x) return false;
    dl->PushClipRect(ImVec2(foot.x - 1, std::max(band_top, window.y)), ImVec2(foot.x + std::max(w, size) + 1, std::min(foot.y, window.w)));
    const int first = dl->VtxBuffer.Size;
    dl->AddText(ImGui::GetFont(), size, ImVec2(foot.x, foot.y - size), colour, text);
    for (int i = first; i < dl->VtxBuffer.Size; ++i) {
        ImVec2& p = dl->VtxBuffer[i].pos;
        const float dx = p.x - foot.x, dy = p.y - (foot.y - size);
        p = ImVec2(foot.x + dy, foot.y - dx);
    }
    dl->PopClipRect();
    return true;
}

void draw_row_labels(const Grid& g, const HeatmapOptions& opt, ImU32 colour, std::vector<std::string>& drawn) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const AxisLabelPlan& plan = g.row_plan;
    const float line_h = plan.size, gutter = g.label_w - 4 * g.scale;
    for (int r = 0; r < g.rows; r += plan.every) {
        const std::string label = planned_label(plan, opt.row_labels, r);
        const float y = g.p0.y + r * g.ch + (std::min(g.ch * plan.every, line_h * 2) - line_h) * 0.5f;
        if (plan.mode == LabelMode::Positions && y + line_h > g.p0.y + g.grid_h() + 0.5f) break;  // only whole positions
        dl->PushClipRect(g.origin, ImVec2(g.origin.x + gutter, g.p0.y + g.grid_h()), true);
        dl->AddText(ImGui::GetFont(), plan.size, ImVec2(g.origin.x, y), colour, label.c_str());
        dl->PopClipRect();
        check_width("row label", label.c_str(), text_w(label, plan.size), gutter);
        drawn.push_back(label);
    }
}

// Column labels start at their column; one the window's edge would cut is left out (it
// can only be a position: tokens are planned to fit their columns).
void draw_col_labels(const Grid& g, const HeatmapOptions& opt, ImU32 colour, std::vector<std::string>& drawn) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const AxisLabelPlan& plan = g.col_plan;
    const float foot = g.p0.y - g.band_h - 2.0f * g.scale, band = foot - g.origin.y;
    const float right = std::min(g.p0.x + g.grid_w() + 40 * g.scale, dl->GetClipRectMax().x);
    for (int c = 0; c < g.cols; c += plan.every) {
        const std::string label = planned_label(plan, opt.col_labels, c);
        const float x = g.p0.x + c * g.cw, w = text_w(label, plan.size);
        if (plan.mode == LabelMode::Upright) {
            if (!add_upright_text(dl, plan.size, ImVec2(x + (g.cw - plan.size) * 0.5f, foot), g.origin.y, colour, label.c_str(), w))
                continue;
            check_width("column label", label.c_str(), w, band);
        } else if (x + w <= right) {
            dl->AddText(ImGui::GetFont(), plan.size, ImVec2(x, g.origin.y), colour, label.c_str());
            check_width("column label", label.c_str(), w, plan.every > 1 ? right - x : g.cw);
        } else {
            continue;
        }
        drawn.push_back(label);
    }
}

// Row labels, head bands, column labels.
void draw_labels(const Grid& g, const HeatmapOptions& opt, HeatmapHit& hit) {
    const ImU32 label_col = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    draw_row_labels(g, opt, label_col, hit.row_labels);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    if (opt.col_group > 0)
        for (int k = 0; k * opt.col_group < g.cols; ++k)
            dl->AddRectFilled(ImVec2(g.p0.x + k * opt.col_group * g.cw, g.p0.y - g.band_h - 1),
                              ImVec2(g.p0.x + std::min(g.cols, (k + 1) * opt.col_group) * g.cw - 1, g.p0.y - 1), head_color(k));
    draw_col_labels(g, opt, label_col, hit.col_labels);
    hit.row_mode = g.row_plan.mode, hit.col_mode = g.col_plan.mode;
}

// The exact cell under the mouse, outlined.
void hover(const Grid& g, HeatmapHit& hit) {
    const ImVec2 m = ImGui::GetIO().MousePos;
    const int c = static_cast<int>((m.x - g.p0.x) / g.cw), r = static_cast<int>((m.y - g.p0.y) / g.ch);
    if (m.x < g.p0.x || m.y < g.p0.y || c < 0 || c >= g.cols || r < 0 || r >= g.rows) return;
    hit.row = r, hit.col = c;
}

}  // namespace

void HeatmapOutlineCell(const HeatmapHit& hit, int row, int col) {
    ImGui::GetWindowDrawList()->AddRect(ImVec2(hit.x + col * hit.cell_w - 1, hit.y + row * hit.cell_h - 1),
                                        ImVec2(hit.x + (col + 1) * hit.cell_w + 1, hit.y + (row + 1) * hit.cell_h + 1),
                                        palette::kHoverOutline, 0, 0, 2.0f);
}

HeatmapHit MatrixHeatmap(const char* id, const float* values, int rows, int cols, int row_stride,
                         const HeatmapOptions& opt, float width, float height) {
    HeatmapHit hit;
    if (rows <= 0 || cols <= 0) return hit;
    ImGui::PushID(id);
    const Grid g = layout(values, rows, cols, row_stride, opt, width, height);
    ImGui::InvisibleButton("grid", ImVec2(g.label_w + g.grid_w() + 1, g.p0.y - g.origin.y + g.grid_h() + 1));
    const bool hovered = ImGui::IsItemHovered();
    hit.x = g.p0.x, hit.y = g.p0.y, hit.cell_w = g.cw, hit.cell_h = g.ch;
    // Cells: one texture on the GPU when the platform offers it; otherwise rectangles.
    const bool on_gpu = opt.gpu && opt.gpu->draw &&
                        opt.gpu->draw(opt.gpu_key ? opt.gpu_key : id, opt.gpu_version, values, rows, cols, row_stride,
                                      opt.range, g.p0.x, g.p0.y, g.p0.x + g.grid_w(), g.p0.y + g.grid_h());
    if (!on_gpu) draw_cells_cpu(g, opt.range);
    else if (g.cw >= 6.0f && g.ch >= 6.0f) draw_gaps(g);
    draw_numbers(g, opt.range);
    draw_labels(g, opt, hit);
    if (hovered) hover(g, hit);
    if (hit.row >= 0) HeatmapOutlineCell(hit, hit.row, hit.col);
    if (opt.highlight_row >= 0 && opt.highlight_row < rows)
        ImGui::GetWindowDrawList()->AddRect(ImVec2(g.p0.x - 1, g.p0.y + opt.highlight_row * g.ch - 1),
                                            ImVec2(g.p0.x + g.grid_w() + 1, g.p0.y + (opt.highlight_row + 1) * g.ch + 1),
                                            palette::kRowBand);
    ImGui::PopID();
    return hit;
}

}  // namespace lab
