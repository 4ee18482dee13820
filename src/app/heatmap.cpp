// heatmap.cpp — Attention Lab app: MatrixHeatmap on ImGui's draw list.
//
// Cells narrower than a pixel are binned: a bin shows the value of largest
// magnitude among its cells (so a single strong cell never disappears), while the
// hover still maps the mouse back to the exact cell.
#include "heatmap.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>


namespace lab {

uint32_t head_color(int h) {
    static const ImU32 palette[] = {IM_COL32(239, 111, 108, 255), IM_COL32(76, 175, 239, 255),
                                    IM_COL32(129, 199, 132, 255), IM_COL32(255, 193, 7, 255),
                                    IM_COL32(186, 104, 200, 255), IM_COL32(255, 138, 101, 255),
                                    IM_COL32(77, 208, 225, 255),  IM_COL32(174, 213, 129, 255)};
    return palette[h % 8];
}

void ColorLegend(const ColorRange& range, bool has_masked, bool has_nan, const char* masked_label) {
    const float scale = ImGui::GetFontSize() / 13.0f;
    const float w = 70.0f * scale, h = ImGui::GetTextLineHeight() * 0.6f;
    char lo[24], hi[24];
    std::snprintf(lo, sizeof lo, range.map == ColorMap::Sequential ? "%.0f" : "%.3g", range.lo);
    std::snprintf(hi, sizeof hi, range.map == ColorMap::Sequential ? "%.0f" : "%.3g", range.hi);
    ImGui::TextDisabled("%s", lo);
    ImGui::SameLine(0, 4 * scale);
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
    ImGui::SameLine(0, 4 * scale);
    ImGui::TextDisabled("%s", hi);
    auto swatch = [&](uint32_t color, const char* label) {
        ImGui::SameLine(0, 10 * scale);
        const ImVec2 q = ImGui::GetCursorScreenPos();
        dl->AddRectFilled(ImVec2(q.x, y), ImVec2(q.x + h, y + h), color);
        ImGui::Dummy(ImVec2(h, ImGui::GetTextLineHeight()));
        ImGui::SameLine(0, 3 * scale);
        ImGui::TextDisabled("%s", label);
    };
    if (has_masked) swatch(kMaskedColor, masked_label);
    if (has_nan) swatch(kNanColor, "NaN");
}

HeatmapHit MatrixHeatmap(const char* id, const float* values, int rows, int cols, int row_stride,
                         const HeatmapOptions& opt, float width, float height) {
    HeatmapHit hit;
    if (rows <= 0 || cols <= 0) return hit;
    ImGui::PushID(id);
    const float scale = ImGui::GetFontSize() / 13.0f;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    if (width <= 0) width = avail.x;
    if (height <= 0) height = std::max(avail.y, 40.0f * scale);

    // Label gutters: row labels on the left, a head band and column labels on top.
    float label_w = 0;
    for (int r = 0; r < rows && r < 512; ++r) {
        const std::string l = opt.row_labels && r < (int)opt.row_labels->size() ? (*opt.row_labels)[r] : std::to_string(r);
        label_w = std::max(label_w, ImGui::CalcTextSize(l.c_str()).x);
    }
    label_w = std::min(label_w, 90.0f * scale) + 6.0f * scale;
    const float band_h = opt.col_group > 0 ? 5.0f * scale : 0.0f;
    const float top_h = ImGui::GetTextLineHeight() + band_h + 2.0f * scale;

    // Square cells while they are big enough to read; a very wide matrix (L x 512)
    // keeps thin columns but tall rows, so it stays a readable band.
    const float max_cell = opt.max_cell > 0 ? opt.max_cell : 44.0f * scale;
    float cw = std::max(0.05f, std::min(max_cell, (width - label_w) / cols));
    float ch = std::max(0.05f, std::min(max_cell, (height - top_h) / rows));
    if (cw >= 4.0f * scale) cw = ch = std::min(cw, ch);
    const float grid_w = cw * cols, grid_h = ch * rows;

    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const ImVec2 p0(origin.x + label_w, origin.y + top_h);
    ImGui::InvisibleButton("grid", ImVec2(label_w + grid_w + 1, top_h + grid_h + 1));
    const bool hovered = ImGui::IsItemHovered();
    hit.x = p0.x, hit.y = p0.y, hit.cell_w = cw, hit.cell_h = ch;
    ImDrawList* dl = ImGui::GetWindowDrawList();

    // Cells: one texture on the GPU when the platform offers it; otherwise
    // rectangles, binned to whole pixels when cells get smaller than one.
    const bool on_gpu = opt.gpu && opt.gpu->draw &&
                        opt.gpu->draw(opt.gpu_key ? opt.gpu_key : id, opt.gpu_version, values, rows, cols, row_stride,
                                      opt.range, p0.x, p0.y, p0.x + grid_w, p0.y + grid_h);
    const int step_c = cw >= 1.0f ? 1 : static_cast<int>(std::ceil(1.0f / cw));
    const int step_r = ch >= 1.0f ? 1 : static_cast<int>(std::ceil(1.0f / ch));
    const float gap_x = cw >= 6.0f ? 1.0f : 0.0f, gap_y = ch >= 6.0f ? 1.0f : 0.0f;
    for (int r = 0; r < rows && !on_gpu; r += step_r)
        for (int c = 0; c < cols; c += step_c) {
            float v = values[static_cast<long>(r) * row_stride + c];
            for (int rr = r; rr < std::min(rows, r + step_r); ++rr)
                for (int cc = c; cc < std::min(cols, c + step_c); ++cc) {
                    const float u = values[static_cast<long>(rr) * row_stride + cc];
                    if (std::isnan(u) || std::fabs(u) > std::fabs(v)) v = u;
                }
            const ImVec2 a(p0.x + c * cw, p0.y + r * ch);
            const ImVec2 b(p0.x + std::min(cols, c + step_c) * cw - gap_x, p0.y + std::min(rows, r + step_r) * ch - gap_y);
            dl->AddRectFilled(a, b, colormap_color(opt.range, v));
        }

    if (on_gpu && cw >= 6.0f && ch >= 6.0f) {  // the CPU path leaves 1 px gaps: draw them as lines
        const ImU32 bg = ImGui::GetColorU32(ImGuiCol_WindowBg);
        for (int c = 1; c < cols; ++c) dl->AddLine(ImVec2(p0.x + c * cw - 0.5f, p0.y), ImVec2(p0.x + c * cw - 0.5f, p0.y + grid_h), bg);
        for (int r = 1; r < rows; ++r) dl->AddLine(ImVec2(p0.x, p0.y + r * ch - 0.5f), ImVec2(p0.x + grid_w, p0.y + r * ch - 0.5f), bg);
    }

    // Numbers inside cells when they fit.
    const float text_w = ImGui::CalcTextSize("-0.00").x;
    if (cw >= text_w + 4.0f * scale && ch >= ImGui::GetTextLineHeight() && rows * cols <= 400) {
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < cols; ++c) {
                const float v = values[static_cast<long>(r) * row_stride + c];
                char buf[16];
                if (std::isnan(v)) std::snprintf(buf, sizeof buf, "NaN");
                else if (v <= -1e8f) std::snprintf(buf, sizeof buf, std::isinf(v) ? "-inf" : "-1e9");
                else std::snprintf(buf, sizeof buf, "%.2f", v);
                const ImVec2 ts = ImGui::CalcTextSize(buf);
                const uint32_t bg = colormap_color(opt.range, v);
                const int lum = ((bg & 0xFF) * 3 + ((bg >> 8) & 0xFF) * 6 + ((bg >> 16) & 0xFF)) / 10;
                dl->AddText(ImVec2(p0.x + c * cw + (cw - ts.x) * 0.5f, p0.y + r * ch + (ch - ts.y) * 0.5f),
                            lum > 140 ? IM_COL32(20, 20, 24, 255) : IM_COL32(240, 240, 240, 255), buf);
            }
    }

    // Row labels, head bands, column labels (every k-th so they never overlap).
    const ImU32 label_col = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    const float line_h = ImGui::GetTextLineHeight();
    const int row_every = std::max(1, static_cast<int>(std::ceil(line_h / ch)));
    for (int r = 0; r < rows; r += row_every) {
        const std::string l = opt.row_labels && r < (int)opt.row_labels->size() ? (*opt.row_labels)[r] : std::to_string(r);
        dl->PushClipRect(origin, ImVec2(origin.x + label_w - 4 * scale, p0.y + grid_h), true);
        dl->AddText(ImVec2(origin.x, p0.y + r * ch + (std::min(ch * row_every, line_h * 2) - line_h) * 0.5f),
                    label_col, l.c_str());
        dl->PopClipRect();
    }
    if (opt.col_group > 0)
        for (int g = 0; g * opt.col_group < cols; ++g)
            dl->AddRectFilled(ImVec2(p0.x + g * opt.col_group * cw, p0.y - band_h - 1),
                              ImVec2(p0.x + std::min(cols, (g + 1) * opt.col_group) * cw - 1, p0.y - 1), head_color(g));
    auto col_label = [&](int c) {
        return opt.col_labels && c < (int)opt.col_labels->size() ? (*opt.col_labels)[c] : std::to_string(c);
    };
    float col_label_w = ImGui::CalcTextSize(col_label(cols - 1).c_str()).x;
    for (int c = 0; c < cols && c < 64; ++c) col_label_w = std::max(col_label_w, ImGui::CalcTextSize(col_label(c).c_str()).x);
    col_label_w += 6 * scale;
    int col_every = std::max(1, static_cast<int>(std::ceil(col_label_w / cw)));
    if (col_every > 1) col_every = col_every <= 2 ? 2 : col_every <= 4 ? 4 : col_every <= 8 ? 8 : ((col_every + 15) / 16) * 16;
    dl->PushClipRect(ImVec2(p0.x, origin.y), ImVec2(p0.x + grid_w + col_label_w, p0.y), true);
    for (int c = 0; c < cols; c += col_every) dl->AddText(ImVec2(p0.x + c * cw, origin.y), label_col, col_label(c).c_str());
    dl->PopClipRect();

    if (hovered) {
        const ImVec2 m = ImGui::GetIO().MousePos;
        const int c = static_cast<int>((m.x - p0.x) / cw), r = static_cast<int>((m.y - p0.y) / ch);
        if (m.x >= p0.x && m.y >= p0.y && c >= 0 && c < cols && r >= 0 && r < rows) {
            hit.row = r, hit.col = c;
            dl->AddRect(ImVec2(p0.x + c * cw - 1, p0.y + r * ch - 1), ImVec2(p0.x + (c + 1) * cw + 1, p0.y + (r + 1) * ch + 1),
                        IM_COL32(255, 255, 255, 255), 0, 0, 2.0f);
        }
    }
    if (opt.highlight_row >= 0 && opt.highlight_row < rows)
        dl->AddRect(ImVec2(p0.x - 1, p0.y + opt.highlight_row * ch - 1),
                    ImVec2(p0.x + grid_w + 1, p0.y + (opt.highlight_row + 1) * ch + 1), IM_COL32(255, 255, 255, 110));
    ImGui::PopID();
    return hit;
}

}  // namespace lab
