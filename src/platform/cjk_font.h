// cjk_font.h — Attention Lab platform: loads the Chinese font (lab_cjk.otf) the
// first time the app wants it (lab_wants_cjk_font), so the English page never
// downloads it. Web: fetched from the page's own folder (web/lab_bridge.js);
// native: read from the build folder or next to the executable.
#pragma once
#include "app/lab_app.h"
#include "app/ui_style.h"

namespace lab_font {

// Call once per frame before building fonts: starts loading when wanted.
void update(lab::LabApp& app);
// True once after the bytes arrived (or failed): rebuild the font atlas now.
bool take_arrival();
// The loaded bytes (data == nullptr until they are here).
lab::CjkFontBytes bytes();
// After the atlas was rebuilt because the bytes arrived: the font is Ready (glyph
// count, time from request to atlas).
void finish(lab::LabApp& app, int glyphs);
// Native: where to look besides the build folder (the executable's directory).
void set_search_dir(const char* argv0);

}  // namespace lab_font
