// keyboard_nav.cpp — Attention Lab app: the Tab walk over every widget, Enter on buttons,
// the focus ring, and Esc out of the canvas (keyboard_nav.h).
#include "app/state/keyboard_nav.h"

#include <imgui.h>
#include <imgui_internal.h>  // the item hooks, the navigation state (NavId, NavWindow), FocusWindow

#include <algorithm>
#include <cmath>

#include "app/state/lab_app.h"
#include "app/widgets/palette.h"

// ---- ImGui's item hooks (declared by imgui_internal.h under IMGUI_ENABLE_TEST_ENGINE, which
// only ImGui's own files are compiled with; ImGuiContext::TestEngine is the app's KeyboardNav).

extern void ImGuiTestEngineHook_ItemAdd(ImGuiContext* ctx, const ImRect& bb, ImGuiID id);
extern void ImGuiTestEngineHook_ItemInfo(ImGuiContext* ctx, ImGuiID id, const char* label, ImGuiItemStatusFlags flags);
extern void ImGuiTestEngineHook_Log(ImGuiContext* ctx, const char* fmt, ...);
extern const char* ImGuiTestEngine_FindItemDebugLabel(ImGuiContext* ctx, ImGuiID id);

void ImGuiTestEngineHook_ItemAdd(ImGuiContext* ctx, const ImRect& bb, ImGuiID id) {
    auto* nav = static_cast<lab::KeyboardNav*>(ctx->TestEngine);
    ImGuiWindow* window = ctx->CurrentWindow;
    if (!nav || !window) return;
    lab::NavItem it;
    it.id = id;
    it.window = window;
    it.x = bb.Min.x, it.y = bb.Min.y, it.w = bb.GetWidth(), it.h = bb.GetHeight();
    it.rel_x = bb.Min.x - window->DC.CursorStartPos.x, it.rel_y = bb.Min.y - window->DC.CursorStartPos.y;
    it.item_flags = ctx->LastItemData.InFlags;
    it.layer = window->DC.NavLayerCurrent;
    it.focus_scope = window->DC.NavFocusScopeIdCurrent;
    nav->items.push_back(std::move(it));
}

void ImGuiTestEngineHook_ItemInfo(ImGuiContext* ctx, ImGuiID id, const char* label, ImGuiItemStatusFlags) {
    auto* nav = static_cast<lab::KeyboardNav*>(ctx->TestEngine);
    if (nav && label && !nav->items.empty() && nav->items.back().id == id) nav->items.back().label = label;
}

void ImGuiTestEngineHook_Log(ImGuiContext*, const char*, ...) {}
const char* ImGuiTestEngine_FindItemDebugLabel(ImGuiContext*, ImGuiID) { return nullptr; }

namespace lab {

namespace {

constexpr ImU32 kRingColour = palette::kFocusRing;

ImGuiWindow* window_of(const NavItem& it) { return static_cast<ImGuiWindow*>(it.window); }

// A child window's own entry in its parent: its widgets are visited themselves.
bool is_child_entry(const ImGuiContext& g, const NavItem& it) {
    for (const ImGuiWindow* w : g.Windows)
        if (w->ChildId == it.id && w->ParentWindow == window_of(it)) return true;
    return false;
}

// What Tab visits: an enabled widget of the scope (an open menu or list, the help), else of
// the main screen (not of a popup or a tooltip); not a title bar or a child window's entry.
bool tab_stop(const ImGuiContext& g, const NavItem& it, const ImGuiWindow* scope) {
    if (it.id == 0 || (it.item_flags & (ImGuiItemFlags_Disabled | ImGuiItemFlags_NoNav | ImGuiItemFlags_NoTabStop))) return false;
    const ImGuiWindow* w = window_of(it);
    if (it.id == w->MoveId || !w->Active || is_child_entry(g, it)) return false;
    if (scope) return w->RootWindow == scope->RootWindow;
    return !(w->RootWindow->Flags & (ImGuiWindowFlags_Popup | ImGuiWindowFlags_Tooltip));
}

// The ring on `it` (ImGui's navigation focus, shown), its window focused, scrolled into view.
void focus_item(KeyboardNav& nav, const NavItem& it) {
    ImGuiContext& g = *GImGui;
    ImGuiWindow* w = window_of(it);
    if (g.ActiveId != 0 && g.ActiveId != it.id) ImGui::ClearActiveID();  // Tab leaves a field being edited
    ImGui::FocusWindow(w);
    ImGui::SetNavID(it.id, static_cast<ImGuiNavLayer>(it.layer), it.focus_scope,
                    ImRect(it.rel_x, it.rel_y, it.rel_x + it.w, it.rel_y + it.h));
    g.NavDisableHighlight = false;
    g.NavDisableMouseHover = g.NavMousePosDirty = true;  // a tooltip follows the ring until the mouse moves
    ImGui::ScrollToRectEx(w, ImRect(it.x, it.y, it.x + it.w, it.y + it.h),
                          ImGuiScrollFlags_KeepVisibleEdgeX | ImGuiScrollFlags_KeepVisibleEdgeY);
    nav.keyboard = true;
}

// The window whose widgets alone Tab visits: the open menu or list, else `scope_window`.
ImGuiWindow* tab_scope(const ImGuiContext& g, const char* scope_window) {
    for (int i = g.OpenPopupStack.Size - 1; i >= 0; --i)
        if (g.OpenPopupStack[i].Window) return g.OpenPopupStack[i].Window;
    return scope_window ? ImGui::FindWindowByName(scope_window) : nullptr;
}

// Tab (+1) or Shift+Tab (-1): from the widget ImGui has the focus on (the one clicked last,
// too), else from the start or the end; round at both ends.
void walk(LabApp& app, int dir, const char* scope_window) {
    const ImGuiContext& g = *GImGui;
    const ImGuiWindow* scope = tab_scope(g, scope_window);
    std::vector<const NavItem*> stops;
    int at = -1;
    for (const NavItem& it : app.nav.items) {
        if (!tab_stop(g, it, scope)) continue;
        if (it.id == g.NavId && at < 0) at = static_cast<int>(stops.size());
        stops.push_back(&it);
    }
    if (stops.empty()) return;
    const int n = static_cast<int>(stops.size());
    const int next = at < 0 ? (dir > 0 ? 0 : n - 1) : (at + dir + n) % n;
    focus_item(app.nav, *stops[static_cast<size_t>(next)]);
}

const NavItem* find_item(const KeyboardNav& nav, unsigned id) {
    if (id == 0) return nullptr;
    for (const NavItem& it : nav.items)
        if (it.id == id) return &it;
    return nullptr;
}

// Enter presses the focused button, tick box or list (ImGui 1.86 presses them with Space
// only; its Enter starts typing in a field, which it keeps doing).
void press_focused(const KeyboardNav& nav) {
    ImGuiContext& g = *GImGui;
    const NavItem* it = find_item(nav, g.NavId);
    if (!it || g.ActiveId != 0 || g.NavDisableHighlight || (it->item_flags & ImGuiItemFlags_Inputable)) return;
    g.NavNextActivateId = it->id;
    g.NavNextActivateFlags = ImGuiActivateFlags_None;
}

void draw_ring(const LabApp& app, const NavItem& it) {
    ImGuiWindow* w = window_of(it);
    const float t = 2.0f * app.ui_scale, d = 2.5f * app.ui_scale;
    ImRect clip = w->InnerClipRect;
    clip.Expand(d + t);
    clip.ClipWith(w->OuterRectClipped);
    w->DrawList->PushClipRect(clip.Min, clip.Max, false);
    w->DrawList->AddRect(ImVec2(it.x - d, it.y - d), ImVec2(it.x + it.w + d, it.y + it.h + d), kRingColour,
                         ImGui::GetStyle().FrameRounding + d, 0, t);
    w->DrawList->PopClipRect();
}

// The app's name of the rectangle the ring is on ("preset:Tiny", "chip:scores"), if it noted one.
std::string rect_id_of(const LabApp& app, const NavItem& it) {
    for (const UiRect& r : app.rects)
        if (std::fabs(r.x - it.x) < 0.5f && std::fabs(r.y - it.y) < 0.5f && std::fabs(r.w - it.w) < 0.5f && std::fabs(r.h - it.h) < 0.5f)
            return r.id;
    return "";
}

// "Tiny##preset" -> "Tiny"; a window "Setup###Setup" or "Setup/body_1A2B" -> "Setup", "Setup/body".
std::string shown_label(const std::string& label) { return label.substr(0, label.find("##")); }
std::string window_id(const ImGuiWindow* w) {
    std::string name = w->Name;
    const size_t hashes = name.find("###");
    if (hashes != std::string::npos) name = name.substr(hashes + 3);
    const size_t slash = name.rfind('/');
    const size_t cut = name.rfind('_');
    if (slash != std::string::npos && cut != std::string::npos && cut > slash) name = name.substr(0, cut);
    return name;
}

}  // namespace

void keyboard_nav_begin_frame(LabApp& app) {
    ImGuiContext& g = *GImGui;
    KeyboardNav& nav = app.nav;
    // An arrow on a heatmap moves its cell: ImGui's move request (made in NewFrame) is taken back.
    nav.cell_move = -1;
    if (nav.keyboard && nav.grid_focused && nav.grid_focused == g.NavId && g.NavMoveSubmitted && g.NavMoveDir != ImGuiDir_None) {
        nav.cell_move = g.NavMoveDir;
        ImGui::NavMoveRequestCancel();
    }
    nav.grids.clear();
    app.nav.items.clear();
    app.nav.leave_canvas = false;
    g.TestEngine = &app.nav;
    g.TestEngineHookItems = true;
    g.IO.KeyMap[ImGuiKey_Tab] = -1;  // Tab is the lab's walk (ImGui's would visit text fields only)
}

void keyboard_nav_take_keys(LabApp& app, const char* scope_window) {
    KeyboardNav& nav = app.nav;
    if (nav.entered) {  // the page's Tab brought the focus here: the ring shows, on the widget it was on
        nav.entered = false;
        const NavItem* it = find_item(nav, GImGui->NavId);
        if (it && tab_stop(*GImGui, *it, tab_scope(*GImGui, scope_window))) focus_item(nav, *it);
        else walk(app, nav.entered_dir, scope_window);
    }
    std::vector<LabKey> rest;
    for (LabKey key : app.pending_keys) {
        if (key == LabKey::Tab || key == LabKey::BackTab) walk(app, key == LabKey::Tab ? 1 : -1, scope_window);
        else if (key == LabKey::Enter) { if (nav.keyboard) press_focused(nav); }
        else rest.push_back(key);
    }
    app.pending_keys.swap(rest);
}

void keyboard_nav_end_frame(LabApp& app) {
    ImGuiContext& g = *GImGui;
    KeyboardNav& nav = app.nav;
    for (int b = 0; b < IM_ARRAYSIZE(g.IO.MouseClicked); ++b)
        if (g.IO.MouseClicked[b]) nav.keyboard = false;  // a click: the mouse's turn
    const NavItem* it = find_item(nav, g.NavId);
    nav.ring_drawn = nav.keyboard && it && !g.NavDisableHighlight;
    if (nav.ring_drawn) draw_ring(app, *it);
    nav.grid_focused = std::find(nav.grids.begin(), nav.grids.end(), g.NavId) != nav.grids.end() ? g.NavId : 0;
    nav.focused = it ? *it : NavItem{};
    nav.focused_rect_id = it ? rect_id_of(app, *it) : "";
    if (nav.keyboard) g.IO.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
    else g.IO.ConfigFlags &= ~ImGuiConfigFlags_NavEnableKeyboard, g.NavDisableHighlight = true;
    nav.popup_was_open = g.OpenPopupStack.Size > 0;
    nav.item_was_active = nav.keyboard && g.ActiveId != 0;
    g.TestEngineHookItems = false;
}

bool keyboard_nav_grid_cell(LabApp& app, int rows, int cols, int* row, int* col) {
    const ImGuiContext& g = *GImGui;
    KeyboardNav& nav = app.nav;
    const ImGuiID id = ImGui::GetItemID();
    nav.grids.push_back(id);
    if (!nav.keyboard || id == 0 || id != g.NavId || g.NavDisableHighlight || rows <= 0 || cols <= 0) return false;
    if (nav.cell_grid != id) nav.cell_grid = id, nav.cell_row = nav.cell_col = 0;
    if (nav.cell_move == ImGuiDir_Left) --nav.cell_col;
    if (nav.cell_move == ImGuiDir_Right) ++nav.cell_col;
    if (nav.cell_move == ImGuiDir_Up) --nav.cell_row;
    if (nav.cell_move == ImGuiDir_Down) ++nav.cell_row;
    nav.cell_move = -1;  // one grid takes it
    nav.cell_row = std::clamp(nav.cell_row, 0, rows - 1), nav.cell_col = std::clamp(nav.cell_col, 0, cols - 1);
    *row = nav.cell_row, *col = nav.cell_col;
    return true;
}

void keyboard_nav_leave(LabApp& app) {
    app.nav.leave_canvas = true;
    app.nav.keyboard = false;
}

bool keyboard_nav_escape_taken(LabApp& app) {
    if (app.nav.popup_was_open) {
        if (GImGui->OpenPopupStack.Size > 0) ImGui::ClosePopupToLevel(0, true);  // mouse mode: ImGui's navigation did not
        return true;
    }
    return app.nav.item_was_active;
}

Json keyboard_nav_state(const LabApp& app) {
    const KeyboardNav& nav = app.nav;
    const NavItem& it = nav.focused;
    Json out = {{"keyboard", nav.keyboard}, {"visible", nav.ring_drawn}, {"items", nav.items.size()}};
    if (it.id == 0) {
        out["focused"] = nullptr;
        return out;
    }
    out["focused"] = {{"label", shown_label(it.label)}, {"window", window_id(window_of(it))}, {"rect_id", nav.focused_rect_id}, {"heatmap", nav.grid_focused != 0},
                      {"rect", {{"x", json_number(it.x)}, {"y", json_number(it.y)}, {"w", json_number(it.w)}, {"h", json_number(it.h)}}}};
    return out;
}

}  // namespace lab
