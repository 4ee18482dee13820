// ui_style.cpp — Attention Lab app: style and fonts.
#include "ui_style.h"

#include <imgui.h>

#include "lab_font_Sans.h"

namespace lab {

namespace {

// The code points the font was subset to (CMakeLists.txt, LAB_FONT_UNICODES).
const ImWchar kGlyphRanges[] = {0x0020, 0x007E, 0x00A0, 0x00FF, 0x0391, 0x03A9, 0x03B1, 0x03C9, 0x2013, 0x2014,
                                0x2018, 0x201D, 0x2022, 0x2022, 0x2026, 0x2026, 0x2032, 0x2032, 0x2070, 0x209F,
                                0x2190, 0x2193, 0x21D2, 0x21D2, 0x2200, 0x22FF, 0x2713, 0x2717, 0x1D3C, 0x1D3C,
                                0x1D40, 0x1D4F, 0x1D57, 0x1D57, 0};
}  // namespace

void build_ui_style(float scale) {
    ImGuiStyle style;
    ImGui::StyleColorsDark(&style);
    style.WindowRounding = 0.0f;
    style.FrameRounding = 4.0f;
    style.GrabRounding = 4.0f;
    style.WindowBorderSize = 1.0f;
    style.FramePadding = ImVec2(7, 4);
    style.ItemSpacing = ImVec2(8, 6);
    style.WindowPadding = ImVec2(10, 8);
    ImVec4* c = style.Colors;
    c[ImGuiCol_WindowBg] = ImVec4(0.094f, 0.102f, 0.122f, 1.0f);
    c[ImGuiCol_ChildBg] = ImVec4(0, 0, 0, 0);
    c[ImGuiCol_Border] = ImVec4(0.20f, 0.22f, 0.27f, 1.0f);
    c[ImGuiCol_FrameBg] = ImVec4(0.16f, 0.17f, 0.21f, 1.0f);
    c[ImGuiCol_TitleBg] = c[ImGuiCol_TitleBgActive] = ImVec4(0.12f, 0.13f, 0.16f, 1.0f);
    c[ImGuiCol_Text] = ImVec4(0.88f, 0.90f, 0.93f, 1.0f);
    c[ImGuiCol_TextDisabled] = ImVec4(0.55f, 0.58f, 0.64f, 1.0f);
    style.ScaleAllSizes(scale);
    ImGui::GetStyle() = style;

    ImGuiIO& io = ImGui::GetIO();
    io.Fonts->Clear();
    ImFontConfig cfg;
    cfg.FontDataOwnedByAtlas = false;  // the bytes are static, compiled in
    cfg.OversampleH = 2;
    io.Fonts->AddFontFromMemoryTTF(const_cast<unsigned char*>(kFontSans), static_cast<int>(kFontSans_size),
                                   15.0f * scale, &cfg, kGlyphRanges);
    io.Fonts->Build();
}

}  // namespace lab
