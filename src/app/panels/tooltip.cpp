// tooltip.cpp — Attention Lab app: item_tooltip's placement (tooltip.h).
#include "app/panels/tooltip.h"

#include <imgui.h>
#include <imgui_internal.h>  // the item's root window: a knob sits in the setup panel's scrolling child

#include <algorithm>

#include "app/state/lab_app.h"

namespace lab {

namespace {

bool overlaps(const UiRect& r, ImVec2 a, ImVec2 size) {
    return a.x < r.x + r.w && a.x + size.x > r.x && a.y < r.y + r.h && a.y + size.y > r.y;
}

// Moves a tooltip at `pos` down past every header it would cover (a header moved past may
// bring it onto another one, so until none is covered).
ImVec2 below_headers(const std::vector<UiRect>& headers, ImVec2 pos, ImVec2 size) {
    for (int pass = 0; pass < 4; ++pass) {
        bool moved = false;
        for (const UiRect& h : headers)
            if (overlaps(h, pos, size)) pos.y = h.y + h.h + 4, moved = true;
        if (!moved) break;
    }
    return pos;
}

// Beside the item's window (right, then left) when the window is a side panel, else under
// the item; then out of the headers, and onto the screen.
ImVec2 place(const LabApp& app, ImVec2 size) {
    const ImVec2 screen = ImGui::GetIO().DisplaySize, item_min = ImGui::GetItemRectMin(), item_max = ImGui::GetItemRectMax();
    const ImGuiWindow* root = ImGui::GetCurrentWindow()->RootWindow;
    const ImVec2 win = root->Pos, win_size = root->Size;
    const float gap = 6 * app.ui_scale;
    ImVec2 pos(item_min.x, item_max.y + gap);
    if (win_size.x < screen.x * 0.5f) {
        if (win.x + win_size.x + gap + size.x <= screen.x) pos = ImVec2(win.x + win_size.x + gap, item_min.y);
        else if (win.x - gap - size.x >= 0) pos = ImVec2(win.x - gap - size.x, item_min.y);
    }
    pos = below_headers(app.headers_last, pos, size);
    if (pos.y + size.y > screen.y) pos.y = std::max(0.0f, std::min(item_min.y - gap - size.y, screen.y - size.y));
    pos.x = std::max(0.0f, std::min(pos.x, screen.x - size.x));
    return pos;
}

}  // namespace

void item_tooltip(LabApp& app, const char* text) {
    const ImVec2 item = ImGui::GetItemRectMin();
    const bool hovered = ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled);  // a greyed knob says why
    float* hushed = app.tooltip_hushed;
    const bool this_item = hushed[0] == item.x && hushed[1] == item.y;
    if (!hovered) {
        if (this_item) hushed[0] = hushed[1] = -1;  // the pointer left: its tooltip may show again
        return;
    }
    if (ImGui::IsMouseDown(ImGuiMouseButton_Left) || ImGui::IsMouseReleased(ImGuiMouseButton_Left)) {
        hushed[0] = item.x, hushed[1] = item.y;
        return;
    }
    if (this_item || !text || !*text) return;
    const ImGuiStyle& style = ImGui::GetStyle();
    const float wrap = tooltip_wrap_width(30);
    const ImVec2 text_size = ImGui::CalcTextSize(text, nullptr, false, wrap);
    const ImVec2 size(text_size.x + style.WindowPadding.x * 2, text_size.y + style.WindowPadding.y * 2);
    ImGui::SetNextWindowPos(place(app, size));
    ImGui::BeginTooltip();
    lab_note_window(app, "tooltip");
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + wrap);
    ImGui::TextUnformatted(text);
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
    app.tooltip_shown = text;
}

void note_header(LabApp& app, float top_y) {
    const ImVec2 win = ImGui::GetWindowPos(), win_size = ImGui::GetWindowSize();
    const float bottom = ImGui::GetItemRectMax().y;
    if (bottom <= top_y) return;
    app.headers.push_back({"header:" + std::to_string(app.headers.size()), win.x, top_y, win_size.x, bottom - top_y});
    app.rects.push_back(app.headers.back());
}

void tooltip_begin_frame(LabApp& app) {
    app.headers_last.swap(app.headers);
    app.headers.clear();
    app.tooltip_shown.clear();
}

float tooltip_wrap_width(float chars) {
    const float screen = ImGui::GetIO().DisplaySize.x - ImGui::GetStyle().WindowPadding.x * 2 - ImGui::GetStyle().DisplaySafeAreaPadding.x * 2;
    return std::max(ImGui::GetFontSize() * 4, std::min(ImGui::GetFontSize() * chars, screen));
}

}  // namespace lab
