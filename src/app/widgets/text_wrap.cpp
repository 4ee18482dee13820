// text_wrap.cpp — Attention Lab app: line breaking for mixed Latin/Chinese text.
#include "app/widgets/text_wrap.h"

#include <imgui_internal.h>  // ImFormatStringV

#include <cmath>
#include <cstdarg>
#include <cstring>
#include <string>
#include <vector>

#include "app/widgets/text_fit.h"
#include "base/utf8.h"

namespace lab {

namespace {

// Kinsoku: these may not start a line ...
bool is_closing(unsigned c) {
    static const unsigned k[] = {0xFF0C, 0x3002, 0x3001, 0xFF1B, 0xFF1A, 0xFF1F, 0xFF01, 0xFF09, 0x300D,
                                 0x300F, 0x300B, 0x3011, 0x201D, 0x2019, 0x2026, ',', '.', ')', ';', ':'};
    for (unsigned x : k)
        if (c == x) return true;
    return false;
}
// ... and these may not end one.
bool is_opening(unsigned c) { return c == 0xFF08 || c == 0x300C || c == 0x300E || c == 0x300A || c == 0x3010 || c == 0x201C || c == 0x2018; }

struct Line {
    const char *begin, *end;
};

// Splits [text, end) into lines no wider than `width` pixels.
std::vector<Line> break_lines(const char* text, const char* end, float width) {
    const ImFont* font = ImGui::GetFont();
    const float scale = ImGui::GetFontSize() / font->FontSize;
    // A pixel of slack: ImGui rounds a line's width up (CalcTextSize) and the content's start
    // down, so a line that fills the width exactly reads as a pixel of sideways scroll.
    width = std::floor(width) - 1.0f;
    std::vector<Line> lines;
    const char* line = text;
    const char* brk = nullptr;   // the line may end here ...
    const char* next = nullptr;  // ... and the next one start here (after a space)
    float w = 0, w_brk = 0;      // width of [line, s) and of [line, next)
    unsigned prev = 0;
    for (const char* s = text; s < end;) {
        size_t n = 1;
        const unsigned c = utf8::decode(s, end, &n);
        if (c == '\n') {
            lines.push_back({line, s});
            line = s + n, brk = nullptr, w = 0, prev = 0, s += n;
            continue;
        }
        const float adv = font->GetCharAdvance(static_cast<ImWchar>(c <= 0xFFFF ? c : 0xFFFD)) * scale;
        if (s > line) {
            if (c == ' ') {
                brk = s, next = s + n, w_brk = w + adv;
            } else if ((utf8::is_cjk(c) || utf8::is_cjk(prev)) && prev != ' ' && !is_closing(c) && !is_opening(prev)) {
                brk = s, next = s, w_brk = w;
            }
        }
        if (w + adv > width && s > line && c != ' ') {
            if (brk && brk > line) {
                const char* last = brk;
                while (last > line && last[-1] == ' ') --last;  // a run of spaces ends the line, unseen
                lines.push_back({line, last});
                line = next;
                w -= w_brk;
            } else {  // one word wider than the line: cut it here
                lines.push_back({line, s});
                line = s;
                w = 0;
            }
            brk = nullptr;
        }
        w += adv;
        prev = c;
        s += n;
    }
    lines.push_back({line, end});
    return lines;
}

}  // namespace

void text_wrapped(const char* fmt, ...) {
    va_list args;
    va_start(args, fmt);
    const char* text = fmt;
    const char* end = nullptr;
    ImGuiContext& g = *GImGui;
    if (std::strcmp(fmt, "%s") == 0) {
        text = va_arg(args, const char*);
        end = text + std::strlen(text);
    } else {
        const int n = ImFormatStringV(g.TempBuffer, IM_ARRAYSIZE(g.TempBuffer), fmt, args);
        text = g.TempBuffer;
        end = text + n;
    }
    va_end(args);
    text_wrapped_width(text, end, ImGui::GetContentRegionAvail().x);
}

void text_wrapped_width(const char* text, const char* end, float width) {
    if (!end) end = text + std::strlen(text);
    width = ImMax(width, ImGui::GetFontSize() * 2);
    // One item, lines as close as ImGui's own wrapped lines.
    ImGui::BeginGroup();
    ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(ImGui::GetStyle().ItemSpacing.x, 0));
    for (const Line& l : break_lines(text, end, width)) ImGui::TextUnformatted(l.begin, l.end);
    ImGui::PopStyleVar();
    ImGui::EndGroup();
    check_item(std::string(text, end).c_str());  // only a panel narrower than two characters cuts it
}

void text_wrapped_colored(const ImVec4& colour, const char* text) {
    ImGui::PushStyleColor(ImGuiCol_Text, colour);
    text_wrapped("%s", text);
    ImGui::PopStyleColor();
}

void text_wrapped_disabled(const char* text) { text_wrapped_colored(ImGui::GetStyle().Colors[ImGuiCol_TextDisabled], text); }

bool wrapped_small_button(const char* label) {
    const char* id = std::strstr(label, "###");
    const char* end = id ? id : label + std::strlen(label);
    const ImGuiStyle& style = ImGui::GetStyle();
    const float room = ImGui::GetContentRegionAvail().x;
    if (ImGui::CalcTextSize(label, end).x + style.FramePadding.x * 2 <= room) {
        const bool pressed = ImGui::SmallButton(label);
        check_item(label);
        return pressed;
    }
    // Too long for the line: the same button, its label broken into lines (ImGui's keep one).
    const float wrap = ImMax(room - style.FramePadding.x * 2, ImGui::GetFontSize() * 2);
    const std::vector<Line> lines = break_lines(label, end, wrap);
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const ImVec2 size(room, static_cast<float>(lines.size()) * ImGui::GetTextLineHeight());
    const bool pressed = ImGui::InvisibleButton(id ? id : label, size);
    const ImGuiCol fill = ImGui::IsItemActive() ? ImGuiCol_ButtonActive : ImGui::IsItemHovered() ? ImGuiCol_ButtonHovered : ImGuiCol_Button;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(at, ImVec2(at.x + size.x, at.y + size.y), ImGui::GetColorU32(fill), style.FrameRounding);
    float y = at.y;
    for (const Line& l : lines) {
        dl->AddText(ImVec2(at.x + style.FramePadding.x, y), ImGui::GetColorU32(ImGuiCol_Text), l.begin, l.end);
        y += ImGui::GetTextLineHeight();
    }
    return pressed;
}

float wrapped_height(const char* text, float width) {
    const size_t lines = break_lines(text, text + std::strlen(text), ImMax(width, ImGui::GetFontSize() * 2)).size();
    return static_cast<float>(lines) * ImGui::GetTextLineHeight();
}

}  // namespace lab
