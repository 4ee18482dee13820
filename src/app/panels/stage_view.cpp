// stage_view.cpp — Attention Lab app: the current stage's tensors as heatmaps.
//
// Each stage names the tensors it shows (StageInfo::shows, trace/stages.cpp); a tensor is
// sliced to a matrix by the selection: (B, L, d) -> item b; (B, h, L, x) -> item b, head h (or
// every head as small multiples). Hovering a cell records its full index and its
// derivation in app.hover, which the explain panel and state() report.
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "app/panels/lesson_panel.h"
#include "app/panels/panels.h"
#include "app/panels/tooltip.h"
#include "app/state/lab_app.h"
#include "app/state/stepper_model.h"
#include "app/widgets/heatmap.h"
#include "app/widgets/palette.h"
#include "app/widgets/text_fit.h"
#include "explain/derivation.h"
#include "trace/stages.h"

namespace lab {

namespace {

std::vector<std::string> axis_labels(const LabApp& app, const std::string& dim, int n) {
    std::vector<std::string> out(n);
    if (model_axis_labels(app, dim, n, &out)) return out;
    const bool keys_are_memory = app.trace.config.cross && (dim == "L_kv");
    for (int i = 0; i < n; ++i) {
        if (!keys_are_memory && (dim == "L_q" || dim == "L_kv" || dim == "L") && i < (int)app.tokens.size())
            out[i] = app.tokens[i];
        else if (dim == "L_q" || dim == "L_kv" || dim == "L")
            out[i] = (keys_are_memory ? "m" : "t") + std::to_string(i);
        else
            out[i] = std::to_string(i);
    }
    return out;
}

// Sequential colours for probabilities and the 0/1 mask, diverging for the rest (and every gradient).
ColorMap map_for(TensorId id, bool grad) {
    const bool probability = id == TensorId::Weights || id == TensorId::Mask || id == TensorId::Probs;
    return probability && !grad ? ColorMap::Sequential : ColorMap::Diverging;
}

// The tensor shown: the trace's, or its gradient in the backward view.
const Tensor& shown_tensor(const LabApp& app, TensorId id, bool grad) {
    const GradTrace* g = grad ? stepper_grads(app) : nullptr;
    return g && g->grads.find(id) ? g->grads[id] : app.trace[id];
}

struct Slice {
    const float* data = nullptr;
    int rows = 0, cols = 0;
    std::string row_dim, col_dim;
    std::vector<int> prefix;  // leading indices (b, head) of the full index
};

Slice slice_of(const Tensor& t, int b, int head) {
    Slice s;
    const size_t n = t.shape.size();
    if (n == 1) {
        s = {t.ptr(), 1, t.shape[0], "", t.dims[0], {}};
    } else if (n == 2) {
        s = {t.ptr(), t.shape[0], t.shape[1], t.dims[0], t.dims[1], {}};
    } else if (n == 3) {
        s = {t.ptr() + t.offset({b, 0, 0}), t.shape[1], t.shape[2], t.dims[1], t.dims[2], {b}};
    } else {
        s = {t.ptr() + t.offset({b, head, 0, 0}), t.shape[2], t.shape[3], t.dims[2], t.dims[3], {b, head}};
    }
    return s;
}

// Hover bookkeeping: the cell's full index, value and derivation, and its tooltip.
void hover_cell(LabApp& app, TensorId id, bool grad, const Slice& s, const HeatmapHit& hit, const ColorRange& range,
                const std::vector<std::string>& rows, const std::vector<std::string>& cols) {
    const Tensor& t = shown_tensor(app, id, grad);
    std::vector<int> index = s.prefix;
    if (t.shape.size() >= 2) index.push_back(hit.row);
    index.push_back(hit.col);
    app.hover.tensor = t.name;
    app.hover.index = index;
    app.hover.value = s.data[static_cast<long>(hit.row) * s.cols + hit.col];
    app.hover.text = stepper_derive(app, id, index, grad);
    app.hover.color = colormap_color(range, app.hover.value);
    ImGui::BeginTooltip();
    textf("%s = %s", t.name.c_str(), format_value(app.hover.value).c_str());
    text_disabled((s.row_dim + " = " + rows[hit.row] + ", " + s.col_dim + " = " + cols[hit.col]).c_str());
    const std::string derivation = say(app, app.hover.text);
    text_wrapped_width(derivation.c_str(), nullptr, tooltip_wrap_width(36));
    ImGui::EndTooltip();
}

// A title line, the heatmap, and hover bookkeeping for one tensor slice.
void show_slice(LabApp& app, TensorId id, int head, int col_group, bool short_title, bool grad) {
    const Tensor& t = shown_tensor(app, id, grad);
    const Slice s = slice_of(t, app.view.batch_item, head);
    std::string title = t.name + "  " + shape_on_screen(app, t);
    if (s.prefix.size() == 1) title += say(app, Msg(UiStr::ui_stage_title_item, s.prefix[0]));
    const bool heads = s.prefix.size() == 2 && !app.trace.config.raw;  // raw SDPA: one attention, no head to name
    const bool group = t.dims.size() == 4 && t.dims[1] == "h_kv";     // k_groups, v_groups: key/value groups
    if (s.prefix.size() == 2)
        title += say(app, !heads ? Msg(UiStr::ui_stage_title_item, s.prefix[0])
                                 : Msg(group ? UiStr::ui_stage_title_item_group : UiStr::ui_stage_title_item_head, s.prefix[0], head));
    if (short_title) title = say(app, Msg(group ? UiStr::ui_stage_title_group : UiStr::ui_stage_title_head, head, s.row_dim, s.col_dim));
    // The room is the smaller of the region and the clip rectangle (a small multiple's child clips a pixel or two sooner).
    const float room = std::min(ImGui::GetContentRegionAvail().x, ImGui::GetWindowDrawList()->GetClipRectMax().x - ImGui::GetCursorScreenPos().x);
    if (short_title && ImGui::CalcTextSize(title.c_str()).x > room)  // a small multiple: its shape is in the title above
        title = say(app, Msg(group ? UiStr::ui_stage_title_group_short : UiStr::ui_stage_title_head_short, head));
    text_wrapped_colored(heads ? ImGui::ColorConvertU32ToFloat4(head_color(head)) : ImGui::GetStyleColorVec4(ImGuiCol_Text),
                         title.c_str());
    const std::vector<std::string> rows = axis_labels(app, s.row_dim, s.rows);
    const std::vector<std::string> cols = axis_labels(app, s.col_dim, s.cols);
    HeatmapOptions opt;
    const long count = static_cast<long>(s.rows) * s.cols;
    opt.range = range_for(s.data, count, map_for(id, grad));
    if (!short_title) {
        bool masked = false, nan = false;
        for (long i = 0; i < count; ++i) masked |= s.data[i] <= -1e8f, nan |= std::isnan(s.data[i]);
        ColorLegend(opt.range, masked, nan, tr(app, UiStr::ui_legend_masked));
    }
    // Positions carry tokens; a feature axis (d_model, d_k) is numbered by the heatmap.
    const auto is_position = [](const std::string& dim) { return dim.rfind("L", 0) == 0; };
    opt.row_labels = is_position(s.row_dim) ? &rows : nullptr;
    opt.col_labels = is_position(s.col_dim) ? &cols : nullptr;
    opt.col_group = col_group;
    std::string key = t.name;
    for (int i : s.prefix) key += "/" + std::to_string(i);
    opt.gpu = &app.gpu;
    opt.gpu_key = key.c_str();
    opt.gpu_version = app.generation;
    HeatmapHit hit = MatrixHeatmap(t.name.c_str(), s.data, s.rows, s.cols, s.cols, opt);
    app.heatmaps.push_back(placement_of(t.name, s.prefix, s.rows, s.cols, hit));
    if (keyboard_nav_grid_cell(app, s.rows, s.cols, &hit.row, &hit.col)) HeatmapOutlineCell(hit, hit.row, hit.col);  // the keyboard's cell
    if (hit.row >= 0) hover_cell(app, id, grad, s, hit, opt.range, rows, cols);
}

// The narrowest a head's map may be: its row labels, then at least a pixel per column.
float head_map_min_width(const LabApp& app, const Tensor& t) {
    const Slice s = slice_of(t, app.view.batch_item, 0);
    float labels = 0;
    for (const std::string& l : axis_labels(app, s.row_dim, std::min(s.rows, 512))) labels = std::max(labels, ImGui::CalcTextSize(l.c_str()).x);
    // A short map labels its rows "#k" (heatmap.h): the gutter may need that width instead.
    labels = std::max(labels, ImGui::CalcTextSize(("#" + std::to_string(s.rows - 1)).c_str()).x);
    const float scale = ImGui::GetFontSize() / 13.0f;
    return std::min(labels, 90.0f * scale) + 6.0f * scale + static_cast<float>(s.cols) + ImGui::GetStyle().ItemSpacing.x;
}

// The maps a (B, h, ...) tensor has: h, or h_kv for K's and V's shared groups (k_groups, v_groups).
int heads_in(const LabApp& app, const Tensor& t) {
    return t.dims.size() == 4 && t.dims[1] == "h_kv" ? t.shape[1] : app.trace.config.heads;
}

// How many heads' maps share a row `width` wide: all in a row when asked, else a square-ish
// grid; fewer when a row would leave a head less than a pixel per column.
int heads_per_row(const LabApp& app, const Tensor& t, float width, bool in_a_row) {
    const int heads = heads_in(app, t);
    const int wanted = in_a_row ? heads : static_cast<int>(std::ceil(std::sqrt(static_cast<double>(heads))));
    return std::max(1, std::min(wanted, static_cast<int>(width / head_map_min_width(app, t))));
}

// Every head as small multiples: in a row when few (or the stage shows every head), else a
// grid; fewer per row when a row would leave a head less than a pixel per column.
void show_every_head(LabApp& app, TensorId id, bool in_a_row, bool grad) {
    const Tensor& t = shown_tensor(app, id, grad);
    const int heads = heads_in(app, t);
    text_wrapped("%s", (t.name + "  " + shape_on_screen(app, t) + say(app, Msg(UiStr::ui_stage_title_every_head, app.view.batch_item))).c_str());
    const ImVec2 a = ImGui::GetContentRegionAvail();
    const int per_row = heads_per_row(app, t, a.x, in_a_row);
    const int grid_rows = (heads + per_row - 1) / per_row;
    // Each head at least its title, its column labels and 2 px per row: below that the
    // stage view scrolls rather than squeezing the maps into lines.
    const float line = ImGui::GetTextLineHeightWithSpacing();
    const float min_map = std::max(40.0f * ImGui::GetFontSize() / 13.0f, line + 2.0f * slice_of(t, app.view.batch_item, 0).rows);  // MatrixHeatmap's least
    const float min_h = line + min_map + ImGui::GetStyle().ItemSpacing.y;
    const float h_each = std::max(a.y / grid_rows - 4, min_h);
    for (int h = 0; h < heads; ++h) {
        if (h % per_row) ImGui::SameLine();
        // The spacing between the maps of a row comes out of their widths (4 px each at 1x).
        const float spacing = ImGui::GetStyle().ItemSpacing.x * static_cast<float>(per_row - 1) / static_cast<float>(per_row);
        ImGui::BeginChild(h + 1, ImVec2(a.x / per_row - std::max(4.0f, spacing), h_each), false, ImGuiWindowFlags_NoScrollbar);
        show_slice(app, id, h, 0, true, grad);
        ImGui::EndChild();
    }
}

// The selection row: batch item, head, all heads (each on this line while it fits).
void draw_selection(LabApp& app) {
    const AttentionConfig& c = app.trace.config;
    const float slider = ImGui::GetFontSize() * 6;
    bool first = true;
    auto place = [&](const std::string& label, float field) {
        const float w = field + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label.c_str(), nullptr, true).x;
        if (!first && fits_on_line(w)) ImGui::SameLine();
        first = false;
        if (field > 0) ImGui::SetNextItemWidth(field);
    };
    if (c.batch > 1) {
        const std::string label = ui_label(app, UiStr::ui_stage_item_slider, "item_b");
        place(label, slider);
        ImGui::SliderInt(label.c_str(), &app.view.batch_item, 0, c.batch - 1);
        check_item(label.c_str());
    }
    if (c.heads > 1) {
        const std::string head = ui_label(app, UiStr::ui_stage_head_slider, "head");
        place(head, slider);
        ImGui::SliderInt(head.c_str(), &app.view.head, 0, c.heads - 1);
        lab_note_rect(app, "slider:head");  // touch.test.mjs drags it sideways
        check_item(head.c_str());
        const std::string all = ui_label(app, UiStr::ui_stage_all_heads, "all_heads");
        place(all, ImGui::GetFrameHeight());
        ImGui::Checkbox(all.c_str(), &app.view.all_heads);
        check_item(all.c_str());
    }
}

// Raw SDPA skips some stages (trace.h: StageStatus): the stage says so, and why, above its maps.
void draw_skipped_note(LabApp& app, const StageRecord& rec) {
    if (rec.status != StageStatus::Skipped) return;
    text_wrapped_colored(palette::kSkippedText, say(app, rec.skipped_because).c_str());
    lab_note_rect(app, "note:skipped");
}

// A (B, h, ...) tensor drawn as one map per head: the stage asks for it, or "all heads" is on.
bool as_small_multiples(const LabApp& app, const StageShow& s) {
    return app.trace[s.tensor].shape.size() == 4 && (app.view.all_heads || s.every_head) && app.trace.config.heads > 1;
}

// The tensors of the stage's list (trace/stages.cpp, model_trace/block_stages.cpp) that this trace has.
std::vector<StageShow> shown(const LabApp& app, const std::vector<StageShow>& shows) {
    std::vector<StageShow> out;
    for (const StageShow& s : shows)
        if (app.trace.find(s.tensor) && (!s.cross_only || app.trace.config.cross)) out.push_back(s);
    return out;
}

// The largest matrix of the stage's list: rows and columns of its shown slice.
void largest_slice(const LabApp& app, const std::vector<StageShow>& shows, int* rows, int* cols) {
    *rows = 1, *cols = 1;
    for (const StageShow& s : shows) {
        const std::vector<int>& shape = app.trace[s.tensor].shape;
        *cols = std::max(*cols, shape.back());
        if (shape.size() >= 2) *rows = std::max(*rows, shape[shape.size() - 2]);
    }
}

// The height at which a tensor's map `width` wide is as tall as its cells (square, at most
// MatrixHeatmap's largest) make it: its title, legend and column labels above, row labels
// about three letters wide; every head's map, row by row, for small multiples.
float width_filling_height(const LabApp& app, const StageShow& s, float width) {
    const Tensor& t = app.trace[s.tensor];
    const Slice slice = slice_of(t, app.view.batch_item, 0);
    const float line = ImGui::GetTextLineHeightWithSpacing(), font = ImGui::GetFontSize();
    const auto fill = [&](float w) {
        const float cell = std::min((w - font * 3) / static_cast<float>(slice.cols), 44.0f * font / 13.0f);
        return 3 * line + cell * static_cast<float>(slice.rows);
    };
    if (!as_small_multiples(app, s)) return fill(width);
    const int heads = heads_in(app, t);
    const float inner = width - ImGui::GetStyle().ScrollbarSize;
    const int per_row = heads_per_row(app, t, inner, s.every_head && heads <= 8);
    const int grid_rows = (heads + per_row - 1) / per_row;
    return 2 * line + static_cast<float>(grid_rows) * (fill(inner / static_cast<float>(per_row)) + ImGui::GetStyle().ItemSpacing.y);
}

// One column (a phone): the maps side by side or stacked, whichever gives their cells the
// larger side. Beside one another their titles wrap more (about four lines above a map
// against three); the row labels take about three letters' width.
bool stacking_gives_larger_cells(const LabApp& app, const std::vector<StageShow>& shows, const ImVec2& avail, float gap) {
    int rows, cols;
    largest_slice(app, shows, &rows, &cols);
    const float n = static_cast<float>(shows.size()), line = ImGui::GetTextLineHeightWithSpacing();
    const float gutter = ImGui::GetFontSize() * 3;
    const float beside = std::min(((avail.x - gap * (n - 1)) / n - gutter) / cols, (avail.y - 4 * line) / rows);
    const float stacked_h = (avail.y - ImGui::GetStyle().ItemSpacing.y * (n - 1)) / n;
    const float stacked = std::min((avail.x - gutter) / cols, (stacked_h - 3 * line) / rows);
    return stacked > beside;
}

}  // namespace

void draw_stage_tensor(LabApp& app, TensorId id, bool every_head, bool grad) {
    const AttentionConfig& c = app.trace.config;
    const Tensor& t = shown_tensor(app, id, grad);
    // Head bands only where columns really belong to heads: Q, K, V and the concat.
    const bool head_columns = id == TensorId::Q || id == TensorId::K || id == TensorId::V || id == TensorId::Concat;
    if (t.shape.size() == 4 && (app.view.all_heads || every_head) && c.heads > 1)
        show_every_head(app, id, every_head && c.heads <= 8, grad);
    else
        show_slice(app, id, app.view.head, head_columns && c.heads > 1 ? c.d_k() : 0, false, grad);
}

void draw_stage_view(LabApp& app, const PanelRect& r) {
    const std::vector<StepperPlace> places = stepper_places(app);
    const int at = stepper_place_index(app);
    const StepperStageText text = stepper_stage_text(app, places[static_cast<size_t>(at)]);
    // A phone standing: the maps stack at a height their width can use, and the panel scrolls
    // (its scrollbar always there, so the maps' width does not change when it comes).
    const bool scrolls = app.narrow.on && r.h > r.w;
    begin_panel("Stage", r, ImGuiWindowFlags_NoTitleBar | (scrolls ? ImGuiWindowFlags_AlwaysVerticalScrollbar : 0));
    const AttentionConfig& c = app.trace.config;
    textf("%d / %d  %s", at + 1, static_cast<int>(places.size()), tr(app, text.title));
    text_after(tr(app, text.backward && stepper_grads(app) ? text.backward->formula : text.formula));
    note_header(app, ImGui::GetWindowPos().y);
    draw_stepper_header(app);
    draw_selection(app);
    if (!app.stepper.shown) draw_untrained_note(app);  // else the header says which weights
    const StepperPlace& place = places[static_cast<size_t>(at)];
    if (!app.stepper.shown && place.attention >= 0) draw_skipped_note(app, app.trace.stages[static_cast<size_t>(place.attention)]);
    ImGui::Separator();
    if (stepper_grads(app)) {
        draw_backward_pairs(app, text.backward->pairs);
        ImGui::End();
        return;
    }
    const std::vector<StageShow> shows = shown(app, *text.shows);
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const int n = static_cast<int>(shows.size());
    const float gap = ImGui::GetStyle().ItemSpacing.x * 2;
    // Narrow matrices sit side by side; wide ones (d_model = 512), and heads that would get
    // less than a pixel per column side by side, stack.
    bool wide = false;
    for (const StageShow& s : shows) {
        const Tensor& t = app.trace[s.tensor];
        const bool heads = as_small_multiples(app, s);
        wide |= t.shape.back() > 64 || (heads && head_map_min_width(app, t) * std::min(c.heads, 2) > (avail.x - gap * (n - 1)) / n);
    }
    if (scrolls) wide = true;
    else if (app.narrow.on && n > 1) wide |= stacking_gives_larger_cells(app, shows, avail, gap);
    const float cell_w = wide ? avail.x : (avail.x - gap * (n - 1)) / n;
    // Stacked, the children and the spacing between them fill the height exactly: a pixel more
    // would bring a scrollbar, narrow the view and change the layout the next frame.
    float cell_h = wide ? (avail.y - ImGui::GetStyle().ItemSpacing.y * (n - 1)) / n : avail.y;
    // Too many stacked maps for the height (the split stage's eight with the bottom tabs open at
    // 1024x640): each keeps its title and a map its colour scale's numbers fit beside, and the
    // panel scrolls. Decided by the height alone, so a scrollbar's width cannot flip it back.
    const float readable = ImGui::GetTextLineHeightWithSpacing() * 3;  // title, colour scale, a line of map
    if (wide && cell_h < readable) cell_h = readable;
    for (int i = 0; i < n; ++i) {
        if (i && !wide) ImGui::SameLine(0, gap);
        // Heads as small multiples keep a readable height and scroll when they need more (the
        // scrollbar always there: its coming and going would change how many fit in a row).
        const bool every_head = as_small_multiples(app, shows[i]);
        const float h = scrolls ? std::max(cell_h, std::min(width_filling_height(app, shows[i], cell_w), r.h * 0.75f)) : cell_h;
        ImGui::BeginChild(tensor_name(shows[i].tensor), ImVec2(cell_w, h), false,
                          every_head ? ImGuiWindowFlags_AlwaysVerticalScrollbar : ImGuiWindowFlags_NoScrollbar);
        draw_stage_tensor(app, shows[i].tensor, shows[i].every_head, false);
        ImGui::EndChild();
    }
    ImGui::End();
}

}  // namespace lab
