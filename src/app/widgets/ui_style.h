// ui_style.h — Attention Lab app: colours, spacing and fonts, built for a UI scale
// (devicePixelRatio on the web, the monitor's content scale natively).
//
// Fonts: DejaVu Sans (subset, compiled in) for Latin, Greek and math; the glyphs of
// the language button "中文" (compiled in); and, once the host has loaded it, the
// Noto Sans CJK SC subset (lab_cjk.otf) for the Chinese interface and typed tokens.
#pragma once
#include <cstddef>

namespace lab {

// The CJK font's bytes as the host loaded them; data == nullptr: not loaded (yet).
struct CjkFontBytes {
    const unsigned char* data = nullptr;
    size_t size = 0;
};

// Rebuilds ImGui's style and font atlas for `scale`. Call between frames; the
// renderer must re-upload the font texture afterwards. Returns the number of CJK
// glyphs in the atlas (0 without the CJK font).
int build_ui_style(float scale, CjkFontBytes cjk = {});

}  // namespace lab
