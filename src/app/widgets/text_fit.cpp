// text_fit.cpp — Attention Lab app: drawing text and recording what does not fit.
#include "app/widgets/text_fit.h"

#include <imgui_internal.h>  // the current window's clip rectangle and hidden frames

#include <cstdarg>
#include <cstring>

#include "base/utf8.h"

namespace lab {

namespace {

std::vector<ClippedText>* g_report = nullptr;

// The window's name as the tests read it: each level's stable id ("设置###Setup" -> "Setup").
std::string window_where(const ImGuiWindow* w) {
    std::string out;
    for (const char* s = w->Name; *s;) {
        const char* slash = std::strchr(s, '/');
        std::string level(s, slash ? slash : s + std::strlen(s));
        const size_t ids = level.find("###");
        if (ids != std::string::npos) level.erase(0, ids + 3);
        out += (out.empty() ? "" : "/") + level;
        s = slash ? slash + 1 : s + std::strlen(s);
    }
    return out;
}

// A window ImGui hides this frame (measuring its size first) shows nothing that could be cut.
bool measuring(const ImGuiWindow* w) {
    for (; w; w = w->ParentWindow)
        if (w->SkipItems || w->Hidden || w->HiddenFramesCanSkipItems > 0 || w->HiddenFramesCannotSkipItems > 0) return true;
    return false;
}

// The visible text of a label ("Load###config_load" -> "Load"), at most 80 bytes on a character boundary.
std::string shown_part(const char* text) {
    const char* end = ImGui::FindRenderedTextEnd(text);
    std::string s(text, end);
    if (s.size() > 80) s.resize(utf8::boundary_at_or_before(s, 80));
    return s;
}

void record(std::string where, const char* text, float need, float have) {
    if (g_report) g_report->push_back({std::move(where), shown_part(text), need, have});
}

}  // namespace

void text_fit_begin_frame(std::vector<ClippedText>* report) {
    g_report = report;
    if (report) report->clear();
}

void check_item(const char* label) {
    const ImGuiContext& g = *GImGui;
    const ImGuiWindow* w = g.CurrentWindow;
    if (!g_report || !w || measuring(w)) return;
    const ImRect item = g.LastItemData.Rect, clip = w->ClipRect;
    const float slack = 0.5f;
    if (item.Max.x > clip.Max.x + slack || item.Min.x < clip.Min.x - slack)
        record(window_where(w), label, item.GetWidth(), clip.Max.x - ImMax(item.Min.x, clip.Min.x));
    // Without a scrollbar nothing shows that an item below the window's own edge exists: it is
    // cut too. (Its own edge, not the clip rect: a child scrolled partly out of a scrolling
    // parent is not cut, the parent's scrollbar shows the rest.)
    else if ((w->Flags & ImGuiWindowFlags_NoScrollbar) && item.Max.y > w->InnerRect.Max.y + slack)
        record(window_where(w), label, item.GetHeight(), ImMax(0.0f, w->InnerRect.Max.y - item.Min.y));
}

bool check_width(const char* where, const char* text, float need, float have) {
    if (need <= have + 0.5f) return true;
    const ImGuiWindow* w = GImGui->CurrentWindow;
    if (w && measuring(w)) return false;
    record(w ? window_where(w) + ":" + where : std::string(where), text, need, have);
    return false;
}

void draw_text(ImDrawList* dl, ImVec2 pos, ImU32 colour, const char* text, float max_w, const char* where) {
    dl->AddText(pos, colour, text);
    check_width(where, text, ImGui::CalcTextSize(text).x, max_w);
}

void text(const char* s, const char* end) {
    ImGui::TextUnformatted(s, end);
    if (g_report) check_item(end ? std::string(s, end).c_str() : s);
}

void text_disabled(const char* s) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    text(s);
    ImGui::PopStyleColor();
}

void textf(const char* fmt, ...) {
    va_list args;
    va_start(args, fmt);
    ImGuiContext& g = *GImGui;
    const int n = ImFormatStringV(g.TempBuffer, IM_ARRAYSIZE(g.TempBuffer), fmt, args);
    va_end(args);
    const std::string s(g.TempBuffer, g.TempBuffer + n);  // check_item may format again
    text(s.c_str());
}

void heading(const char* s) {
    ImGui::Spacing();
    text_wrapped_disabled(s);
}

bool fits_on_line(float w) {
    const ImGuiWindow* win = GImGui->CurrentWindow;
    const float right = ImMin(win->WorkRect.Max.x, win->ClipRect.Max.x);
    return ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x + w <= right;
}

void text_after(const char* s, bool disabled) {
    if (fits_on_line(ImGui::CalcTextSize(s).x)) {
        ImGui::SameLine();
        disabled ? text_disabled(s) : text(s);
    } else {
        disabled ? text_wrapped_disabled(s) : text_wrapped("%s", s);
    }
}

void table_headers() {
    const int columns = ImGui::TableGetColumnCount();
    ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
    for (int c = 0; c < columns; ++c)
        if (ImGui::TableSetColumnIndex(c)) text_wrapped("%s", ImGui::TableGetColumnName(c));
}

}  // namespace lab
