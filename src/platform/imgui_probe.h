// imgui_probe.h — Attention Lab platform: what the host reads from inside Dear ImGui
// (imgui_internal.h), kept in this one file: whether ImGui is still settling without
// new input, when the text caret blinks next, and for the page's state(): every
// window's scroll position and the text field being edited.
#pragma once
#include <string>
#include <vector>

namespace lab_probe {

// ImGui needs more frames without new input: a window, popup or tooltip appears
// (measured hidden in its first frame) or sizes itself, a table fits its columns,
// a popup was asked to open, or a mouse button is held (drags, repeat buttons).
bool settling();
// Seconds until the caret of the active text field shows or hides; < 0: no caret.
double caret_blink_in();

// A window drawn in the last frame: its id ("Setup", "Dimensions/dims",
// "Setup/config" — the part of ImGui's name after "###", without "##" and the
// child's hash suffix), rectangle and scroll position in framebuffer pixels.
struct ScrollRegion {
    std::string id;
    float x, y, w, h;
    float scroll_x, scroll_y, max_x, max_y;
};
std::vector<ScrollRegion> scroll_regions();

// The text field being edited: its live text (UTF-8), caret and selection in characters.
struct EditedText {
    bool active = false;
    std::string text;
    int cursor = 0, select_start = 0, select_end = 0;
};
EditedText edited_text();

}  // namespace lab_probe
