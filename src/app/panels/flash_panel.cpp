// flash_panel.cpp — Attention Lab app: the Tiles tab beside the dimension table, shown when
// flash_tile is set: the online softmax's walk (attention/flash_attention.h) for the selected batch
// item and head, one query tile at a time, key tile by key tile — the running max m, the
// running sum l, the rescale factor and O[i, 0] — with the naive row's max, sum and context
// under it, and the bytes an HBM would move, naive against tiled.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "app/panels/panels.h"
#include "app/panels/tooltip.h"
#include "app/state/lab_app.h"
#include "app/widgets/palette.h"
#include "app/widgets/text_fit.h"
#include "app/widgets/text_wrap.h"
#include "attention/flash_attention.h"

namespace lab {

namespace {

std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4f", v);
    return buf;
}

std::string mebibytes(double bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, bytes < 1e6 ? "%.0f B" : "%.2f MB", bytes < 1e6 ? bytes : bytes / 1e6);
    return buf;
}

void cell(const std::string& s) {
    ImGui::TableNextColumn();
    text(s.c_str());
}

// The naive row: max and sum of e^(s - max) over every key, and the context's first value.
void naive_row(const LabApp& app, int slice, int i) {
    const AttentionConfig& c = app.trace.config;
    const float* s = app.trace[TensorId::Masked].ptr() + (static_cast<long>(slice) * c.L_q() + i) * c.L_kv();
    const SoftmaxRowStats naive = naive_row_stats(s, c.L_kv());
    const float m = naive.m;
    const double l = naive.l;
    ImGui::TableNextRow();
    ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, palette::kReferenceRow);
    cell(tr(app, UiStr::ui_flash_naive));
    cell(std::to_string(i));
    cell(number(m));
    cell(number(l));
    cell("");
    cell(number(app.trace[TensorId::Context].data[(static_cast<long>(slice) * c.L_q() + i) * c.d_v()] * l));
}

// The switch and the two tile sizes, configuration keys like any knob (the link and config
// files carry flash_tile); a change recomputes the trace.
void draw_flash_knobs(LabApp& app) {
    AttentionConfig& c = app.config;
    bool on = !c.flash_tile.empty();
    const std::string label = ui_label(app, UiStr::ui_switch_flash, "flash");
    if (ImGui::Checkbox(label.c_str(), &on)) {
        c.flash_tile.clear();
        if (on) c.flash_tile = {std::max(1, std::min(2, c.L_q())), std::max(1, std::min(2, c.L_kv()))};
        app.random.dirty = true;
    }
    check_item(label.c_str());
    lab_note_rect(app, "switch:flash");
    item_tooltip(app, tr(app, UiStr::ui_switch_flash_tip));
    if (c.flash_tile.size() != 2) return;
    const UiStr labels[] = {UiStr::ui_knob_flash_rows, UiStr::ui_knob_flash_cols}, tips[] = {UiStr::ui_knob_flash_rows_tip, UiStr::ui_knob_flash_cols_tip};
    const char* ids[] = {"flash_rows", "flash_cols"};
    for (int k = 0; k < 2; ++k) {
        const std::string field = ui_label(app, labels[k], ids[k]);
        if (fits_on_line(ImGui::GetFontSize() * 6 + ImGui::CalcTextSize(field.c_str(), nullptr, true).x)) ImGui::SameLine(0, ImGui::GetFontSize());
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
        if (ImGui::InputInt(field.c_str(), &c.flash_tile[k], 1, 4)) app.random.dirty = true;
        check_item(field.c_str());
        note_number_field(app);
        lab_note_rect(app, std::string("knob:") + ids[k]);
        item_tooltip(app, tr(app, tips[k]));
    }
}

}  // namespace

void draw_flash_tab(LabApp& app) {
    draw_flash_knobs(app);
    const FlashRecord& f = app.trace.flash;
    if (!f.on()) {
        text_wrapped_disabled(tr(app, UiStr::ui_switch_flash_tip));
        return;
    }
    const AttentionConfig& c = app.trace.config;
    const int query_tiles = (c.L_q() + f.Br - 1) / f.Br, key_tiles = (c.L_kv() + f.Bc - 1) / f.Bc;
    app.flash_query_tile = std::max(0, std::min(app.flash_query_tile, query_tiles - 1));
    const int item = std::min(app.view.batch_item, c.batch - 1), head = std::min(app.view.head, c.heads - 1);
    const int slice = item * c.heads + head, row0 = app.flash_query_tile * f.Br, rows = std::min(f.Br, c.L_q() - row0);
    text_wrapped("%s", say(app, Msg(UiStr::ui_flash_intro, item, head, row0, row0 + rows - 1, f.Bc)).c_str());
    if (query_tiles > 1) {
        text(tr(app, UiStr::ui_flash_query_tile));
        ImGui::SameLine();
        ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
        ImGui::SliderInt("##flash_query_tile", &app.flash_query_tile, 0, query_tiles - 1);
        lab_note_rect(app, "slider:flash_query_tile");  // the slider alone: a click's place is its value
    }
    const FlashBytes bytes = flash_bytes(c);
    text_wrapped("%s", say(app, Msg(UiStr::ui_flash_bytes, mebibytes(bytes.naive), mebibytes(bytes.tiled), bytes.naive / bytes.tiled)).c_str());
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingFixedFit;
    if (!ImGui::BeginTable("flash_tiles", 6, flags)) return;
    // Fixed columns as wide as their header or a number, whichever is wider; the first takes the rest.
    const char* headers[] = {tr(app, UiStr::ui_flash_col_keys), tr(app, UiStr::ui_flash_col_row), "m", "l", "e^(m_old - m_new)", "O[i, 0]"};
    const float number_w = ImGui::CalcTextSize("-000.0000").x;
    ImGui::TableSetupColumn(headers[0], ImGuiTableColumnFlags_WidthStretch);
    for (int k = 1; k < 6; ++k)
        ImGui::TableSetupColumn(headers[k], ImGuiTableColumnFlags_WidthFixed, std::max(number_w, ImGui::CalcTextSize(headers[k]).x));
    table_headers();
    const size_t first = (static_cast<size_t>(slice) * query_tiles + app.flash_query_tile) * key_tiles;
    for (size_t k = first; k < first + key_tiles && k < f.tiles.size(); ++k) {
        const FlashTile& t = f.tiles[k];
        for (int r = 0; r < t.rows; ++r) {
            ImGui::TableNextRow();
            cell(r ? "" : std::to_string(t.col0) + ".." + std::to_string(t.col0 + t.cols - 1));
            cell(std::to_string(t.row0 + r));
            cell(number(t.m[r]));
            cell(number(t.l[r]));
            cell(number(t.rescale[r]));
            cell(number(t.o[static_cast<size_t>(r) * c.d_v()]));
        }
    }
    for (int r = 0; r < rows; ++r) naive_row(app, slice, row0 + r);
    ImGui::EndTable();
}

}  // namespace lab
