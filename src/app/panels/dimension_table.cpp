// dimension_table.cpp — Attention Lab app: the bottom panel's tabs: every stage's
// tensor, shape and meaning (the current stage highlighted, shapes following the
// knobs live), and the cost tab (cost_panel.cpp).
#include <imgui.h>

#include <cstdio>

#include "app/panels/lesson_panel.h"
#include "app/panels/panels.h"
#include "app/state/lab_app.h"
#include "app/widgets/palette.h"
#include "app/widgets/text_fit.h"
#include "trace/stages.h"

namespace lab {

namespace {

void draw_dimensions_tab(LabApp& app) {
    const auto& infos = stage_infos(app.trace.config);
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_ScrollY |
                                  ImGuiTableFlags_SizingStretchProp;
    if (!ImGui::BeginTable("dims", 4, flags)) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("#", ImGuiTableColumnFlags_WidthFixed, ImGui::GetFontSize() * 1.6f);
    ImGui::TableSetupColumn(tr(app, UiStr::ui_col_tensor), ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableSetupColumn(tr(app, UiStr::ui_col_shape), ImGuiTableColumnFlags_WidthStretch, 2.2f);
    ImGui::TableSetupColumn(tr(app, UiStr::ui_col_stage), ImGuiTableColumnFlags_WidthStretch, 2.0f);
    table_headers();
    for (int s = 0; s < kStageCount; ++s) {
        const Tensor* t = app.trace.find(infos[s].result);
        if (!t) continue;
        ImGui::TableNextRow();
        if (s == app.view.stage) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, palette::kCurrentRow);
        ImGui::TableNextColumn();
        char id[16];
        std::snprintf(id, sizeof id, "%d##row", s + 1);
        if (ImGui::Selectable(id, s == app.view.stage, ImGuiSelectableFlags_SpanAllColumns)) lab_go_to_stage(app, s);
        ImGui::TableNextColumn();
        text_wrapped("%s", t->name.c_str());
        ImGui::TableNextColumn();
        text_wrapped("%s", shape_on_screen(app, *t).c_str());
        ImGui::TableNextColumn();
        text_wrapped("%s", tr(app, infos[s].title));
    }
    ImGui::EndTable();
}

// A tab of the bottom bar: its label checked for fit, its rectangle as "tab:<id>"; true when
// it is open (then EndTabItem follows).
bool bottom_tab(LabApp& app, UiStr label, const char* id) {
    const std::string shown = ui_label(app, label, id);
    const bool open = ImGui::BeginTabItem(shown.c_str());
    check_item(shown.c_str());
    lab_note_rect(app, std::string("tab:") + id);
    return open;
}

}  // namespace

void draw_dimension_table(LabApp& app, const PanelRect& r) {
    begin_panel("Dimensions", r, ImGuiWindowFlags_NoTitleBar);
    app.kv.open = false;  // draw_kv_cache_tab says so again while it is drawn
    if (ImGui::BeginTabBar("bottom")) {
        if (bottom_tab(app, UiStr::ui_tab_dimensions, "dimensions")) {
            draw_dimensions_tab(app);
            ImGui::EndTabItem();
        }
        app.cost_tab_open = bottom_tab(app, UiStr::ui_tab_cost, "cost");
        if (app.cost_tab_open) {
            draw_cost_tab(app);
            ImGui::EndTabItem();
        }
        if (bottom_tab(app, UiStr::ui_tab_tiles, "tiles")) {  // FlashAttention's tiles: the switch, then the walk
            draw_flash_tab(app);
            ImGui::EndTabItem();
        }
        if (bottom_tab(app, UiStr::ui_tab_kv, "kv_cache")) {  // a trained decoder's token-by-token decoding
            draw_kv_cache_tab(app);
            ImGui::EndTabItem();
        }
        ImGui::EndTabBar();
    }
    ImGui::End();
}

}  // namespace lab
