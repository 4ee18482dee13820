// keyboard_nav.h — Attention Lab app: every widget reachable by the keyboard (issue 28.4).
//
// Dear ImGui 1.86 moves its keyboard focus with the arrow keys inside one window, and its
// Tab only visits text fields. The lab walks every widget of the screen instead, in the
// order the panels draw them (top bar, setup, stage view, dimension table, explain):
//   Tab / Shift+Tab   the focus ring to the next / previous widget (wrapping round; inside
//                     an open menu or list, its entries only)
//   Enter / Space     press it (ImGui's navigation: a button, a tick box, a list; a text
//                     field starts editing, Enter or Esc ends it); arrows move the ring,
//                     or on a heatmap a cell, whose derivation shows as for the mouse
//   Esc               back (key_bindings.cpp); with nothing to go back from, out of the
//                     canvas to the page's buttons (the host moves the browser's focus)
// The ring is the keyboard's: Tab (or the page's Tab into the canvas) turns keyboard mode
// on; a click turns it off. While it is on, ImGui's keyboard navigation is on
// (ImGuiConfigFlags_NavEnableKeyboard) and the arrow keys and Home / End are its, not the
// stage shortcuts; j / k, the digits and the letters stay shortcuts.
//
// The widgets are listed through ImGui's item hooks (IMGUI_ENABLE_TEST_ENGINE, compiled
// into ImGui only): every ItemAdd with its window, rectangle, flags and label.
#pragma once
#include <string>
#include <vector>

#include "interop/json_export.h"

namespace lab {

struct LabApp;

// A widget ImGui registered this frame.
struct NavItem {
    unsigned id = 0;
    void* window = nullptr;  // its ImGuiWindow
    float x = 0, y = 0, w = 0, h = 0;
    float rel_x = 0, rel_y = 0;  // the rectangle's corner relative to the window's content start
    int item_flags = 0;          // ImGuiItemFlags at ItemAdd
    int layer = 0;               // ImGuiNavLayer
    unsigned focus_scope = 0;
    std::string label;           // as the widget was called ("Tiny##preset"), "" if it gave none
};

struct KeyboardNav {
    std::vector<NavItem> items;     // this frame's, in the order drawn (filled by the hooks)
    bool keyboard = false;          // keyboard mode: the ring shows, ImGui's navigation is on
    bool entered = false;           // the page moved the browser's focus into the canvas by Tab
    int entered_dir = 1;            // ... forward (Tab) or backward (Shift+Tab)
    bool leave_canvas = false;      // this frame: Esc found nothing to go back from (the host acts)
    bool popup_was_open = false;    // at the end of the last frame: a menu or list was open
    bool item_was_active = false;   // ... a widget was being used (a slider moved by keys)
    // What the ring is on (state().nav), as of the end of the last frame.
    NavItem focused;
    std::string focused_rect_id;    // the app's name of that rectangle (LabApp::rects), if any
    bool ring_drawn = false;
    // A heatmap under the ring: the arrows move a cell of it instead of the ring, and the
    // cell is "hovered" (its derivation shows, as for the mouse).
    std::vector<unsigned> grids;    // this frame's heatmap grids (keyboard_nav_grid_cell)
    unsigned grid_focused = 0;      // the grid the ring was on at the end of the last frame
    unsigned cell_grid = 0;         // the grid the keyboard's cell is in
    int cell_row = 0, cell_col = 0;
    int cell_move = -1;             // this frame's arrow on the grid (ImGuiDir), -1: none
};

// Start of lab_frame: the item hooks record into app.nav.items.
void keyboard_nav_begin_frame(LabApp& app);
// Takes Tab / Shift+Tab out of app.pending_keys and walks the ring; end of lab_frame
// (every widget of the frame is known): draws the ring and sets ImGui's navigation for
// the next frame. `scope_window`: an ImGui window name whose widgets alone the Tab walk
// visits (the help overlay), or null.
void keyboard_nav_take_keys(LabApp& app, const char* scope_window);
void keyboard_nav_end_frame(LabApp& app);
// Right after a heatmap (MatrixHeatmap, its grid the last item): true while the ring is on it,
// with the keyboard's cell of its rows x cols in *row, *col (moved by this frame's arrow).
bool keyboard_nav_grid_cell(LabApp& app, int rows, int cols, int* row, int* col);
// Esc's "back" found nothing to close: leave the canvas (keyboard mode ends).
void keyboard_nav_leave(LabApp& app);
// Esc closed an open menu (or ended a widget's use) in this frame, so it means nothing more.
bool keyboard_nav_escape_taken(LabApp& app);
// state().nav: {keyboard, visible, items, focused: null or {label, window, rect_id, heatmap, rect}}.
Json keyboard_nav_state(const LabApp& app);

}  // namespace lab
