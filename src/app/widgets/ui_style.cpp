// ui_style.cpp — Attention Lab app: style and fonts.
#include "app/widgets/ui_style.h"

#include <imgui.h>

#include <algorithm>
#include <vector>

#include "base/utf8.h"

#include "lab_font_CjkLabel.h"
#include "lab_font_ranges.h"
#include "lab_font_Sans.h"

namespace lab {

namespace {

constexpr float kMaxFontRasterScale = 3.0f;
// With the Chinese font (about 7,000 glyphs: GB2312 levels 1 and 2) the atlas holds 1.8x
// the glyphs it held with level 1 alone, so rasterising stops at 2.25x (still 4096 x 4096).
constexpr float kMaxCjkRasterScale = 2.25f;

// The code points DejaVu was subset to: kFontSansRanges (CMakeLists.txt, LAB_FONT_UNICODES).
// The CJK blocks (base/utf8.h) the Chinese font may cover, as far as ImGui 1.86's 16-bit
// characters reach; ImGui keeps only the code points the subset really maps.
const ImWchar* cjk_ranges() {
    static const std::vector<ImWchar> ranges = [] {
        std::vector<ImWchar> r;
        for (const utf8::Range& range : utf8::kCjkRanges)
            if (range.last <= 0xFFFF) r.push_back(static_cast<ImWchar>(range.first)), r.push_back(static_cast<ImWchar>(range.last));
        r.push_back(0);
        return r;
    }();
    return ranges.data();
}
const ImWchar kCjkLabelRanges[] = {0x4E2D, 0x4E2D, 0x6587, 0x6587, 0};
}  // namespace

int build_ui_style(float scale, CjkFontBytes cjk) {
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
    c[ImGuiCol_NavHighlight] = ImVec4(0, 0, 0, 0);  // the keyboard's ring is keyboard_nav.cpp's, drawn round every widget alike
    style.ScaleAllSizes(scale);
    ImGui::GetStyle() = style;

    ImGuiIO& io = ImGui::GetIO();
    io.Fonts->Clear();
    ImFontConfig cfg;
    cfg.FontDataOwnedByAtlas = false;  // the bytes are static, compiled in
    cfg.OversampleH = 2;
    // Glyphs are rasterised for at most 3x: the CJK atlas grows with the square of the
    // scale (3x is 4096 x 4096; 8x would be 256 MB, beyond many GPUs' texture limit).
    // Above that ImGui scales the text up when drawing.
    const float raster = std::min(scale, cjk.data ? kMaxCjkRasterScale : kMaxFontRasterScale);
    io.FontGlobalScale = scale / raster;
    const float size = 15.0f * raster;
    ImFont* font = io.Fonts->AddFontFromMemoryTTF(const_cast<unsigned char*>(kFontSans),
                                                  static_cast<int>(kFontSans_size), size, &cfg, kFontSansRanges);
    // Merged fonts fill in what DejaVu lacks (the first font to hold a glyph wins).
    // Hanzi are square and dense: one sample per pixel is enough and keeps the
    // atlas of ~7,000 glyphs small and quick to build. ImGui sizes a font by
    // ascent + descent, which is 1.45 em for Noto CJK but 1.16 em for DejaVu:
    // the CJK size is scaled up so a hanzi is about as tall as a capital plus.
    const float cjk_size = size * 1.3f;
    ImFontConfig merge;
    merge.FontDataOwnedByAtlas = false;
    merge.MergeMode = true;
    merge.OversampleH = merge.OversampleV = 1;
    merge.PixelSnapH = true;
    if (cjk.data && cjk.size > 0)
        io.Fonts->AddFontFromMemoryTTF(const_cast<unsigned char*>(cjk.data), static_cast<int>(cjk.size), cjk_size, &merge,
                                       cjk_ranges());
    else
        io.Fonts->AddFontFromMemoryTTF(const_cast<unsigned char*>(kFontCjkLabel), static_cast<int>(kFontCjkLabel_size),
                                       cjk_size, &merge, kCjkLabelRanges);
    io.Fonts->Build();
    int glyphs = 0;
    if (cjk.data)
        for (const ImFontGlyph& g : font->Glyphs) glyphs += utf8::is_cjk(g.Codepoint);
    return glyphs;
}

}  // namespace lab
