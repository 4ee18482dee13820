// imgui_probe.cpp — Attention Lab platform: reading Dear ImGui 1.86's internals
// (see imgui_probe.h).
#include "platform/imgui_probe.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <cctype>
#include <cmath>

namespace lab_probe {

namespace {

// A child window scrolled out of its parent's view (or inside one that is): ImGui marks it
// hidden every frame it stays there, which is no change anyone could see.
bool out_of_sight(const ImGuiWindow* w) {
    for (; w && (w->Flags & ImGuiWindowFlags_ChildWindow) && !(w->Flags & (ImGuiWindowFlags_Popup | ImGuiWindowFlags_Tooltip));
         w = w->ParentWindow)
        if (w->OuterRectClipped.Min.x >= w->OuterRectClipped.Max.x || w->OuterRectClipped.Min.y >= w->OuterRectClipped.Max.y)
            return true;
    return false;
}

bool window_settling(const ImGuiWindow* w) {
    if (!w->Active && !w->WasActive) return false;
    if (out_of_sight(w)) return false;
    return w->Appearing || w->HiddenFramesCanSkipItems > 0 || w->HiddenFramesCannotSkipItems > 0 ||
           w->HiddenFramesForRenderOnly > 0 || w->AutoFitFramesX > 0 || w->AutoFitFramesY > 0;
}

bool table_settling(const ImGuiTable* t) {
    if (t->IsInitializing || t->IsSettingsRequestLoad) return true;
    for (int c = 0; c < t->ColumnsCount; ++c)
        if (t->Columns[c].AutoFitQueue || t->Columns[c].CannotSkipItemsQueue) return true;
    return false;
}

// "设置###Setup/##config_5A1F3E2B" -> "Setup/config".
std::string region_id(const char* name) {
    std::string out, part;
    const std::string full = name;
    size_t start = 0;
    while (start <= full.size()) {
        size_t slash = full.find('/', start);
        if (slash == std::string::npos) slash = full.size();
        part = full.substr(start, slash - start);
        const size_t ids = part.rfind("###");
        if (ids != std::string::npos) part = part.substr(ids + 3);
        while (!part.empty() && part[0] == '#') part.erase(0, 1);
        const size_t us = part.rfind('_');
        if (us != std::string::npos && part.size() - us == 9) {
            bool hex = true;
            for (size_t i = us + 1; i < part.size(); ++i) hex &= std::isxdigit(static_cast<unsigned char>(part[i])) != 0;
            if (hex) part.erase(us);
        }
        out += (out.empty() ? "" : "/") + part;
        start = slash + 1;
    }
    return out;
}

}  // namespace

bool settling() {
    ImGuiContext& g = *GImGui;
    for (int i = 0; i < IM_ARRAYSIZE(g.IO.MouseDown); ++i)
        if (g.IO.MouseDown[i]) return true;
    for (const ImGuiPopupData& p : g.OpenPopupStack)
        if (!p.Window || window_settling(p.Window)) return true;
    for (const ImGuiWindow* w : g.Windows)
        if (window_settling(w)) return true;
    for (int i = 0; i < g.Tables.GetMapSize(); ++i) {
        const ImGuiTable* t = g.Tables.TryGetMapData(i);  // null: a freed slot
        if (t && t->LastFrameActive >= g.FrameCount - 1 && table_settling(t)) return true;
    }
    return false;
}

double caret_blink_in() {
    const ImGuiContext& g = *GImGui;
    if (!g.IO.ConfigInputTextCursorBlink || g.ActiveId == 0 || g.InputTextState.ID != g.ActiveId) return -1.0;
    // ImGui shows the caret while CursorAnim <= 0 (just edited) and for the first
    // 0.8 s of every 1.2 s after that. A little past the change, so it has happened.
    constexpr double kPast = 0.02;
    const double t = g.InputTextState.CursorAnim;
    if (t < 0) return -t + 0.8 + kPast;
    const double phase = std::fmod(t, 1.2);
    return (phase <= 0.8 ? 0.8 - phase : 1.2 - phase) + kPast;
}

std::vector<ScrollRegion> scroll_regions() {
    std::vector<ScrollRegion> out;
    for (const ImGuiWindow* w : GImGui->Windows) {
        if (!w->WasActive || w->Hidden) continue;
        out.push_back({region_id(w->Name), w->Pos.x, w->Pos.y, w->Size.x, w->Size.y, w->Scroll.x, w->Scroll.y,
                       w->ScrollMax.x, w->ScrollMax.y});
    }
    return out;
}

EditedText edited_text() {
    const ImGuiContext& g = *GImGui;
    EditedText e;
    const ImGuiInputTextState& st = g.InputTextState;
    if (g.ActiveId == 0 || st.ID != g.ActiveId) return e;
    e.active = true;
    std::string utf8(static_cast<size_t>(st.CurLenW) * 4 + 1, '\0');
    const int n = ImTextStrToUtf8(&utf8[0], static_cast<int>(utf8.size()), st.TextW.Data, st.TextW.Data + st.CurLenW);
    utf8.resize(static_cast<size_t>(n));
    e.text = utf8;
    e.cursor = st.Stb.cursor;
    e.select_start = std::min(st.Stb.select_start, st.Stb.select_end);
    e.select_end = std::max(st.Stb.select_start, st.Stb.select_end);
    return e;
}

}  // namespace lab_probe
