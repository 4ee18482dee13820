// cjk_font.h — Attention Lab platform: the Chinese font (lab_cjk.otf), loaded the
// first time the app wants it (lab_wants_cjk_font), so the English page never
// downloads it. The host reads the bytes — the page fetches them from its own
// folder, the desktop app reads them from the build folder or next to itself —
// into buffer() and reports arrived(); the next frame rebuilds the font atlas.
#pragma once
#include <cstddef>
#include <string>

#include "app/state/lab_app.h"
#include "app/widgets/ui_style.h"

namespace lab_font {

// Once per frame, before building fonts: true once, when the app first wants the
// font (it is then Loading): the host starts reading it.
bool wanted_now(lab::LabApp& app);
// The host: room for the file's bytes, filled before arrived(true, "").
unsigned char* buffer(size_t size);
// The bytes are in buffer() (ok), or could not be read (error says why).
void arrived(bool ok, const std::string& error);
// True once after the bytes arrived (or failed): rebuild the font atlas now.
bool take_arrival();
// The loaded bytes (data == nullptr until they are here).
lab::CjkFontBytes bytes();
// After the atlas was rebuilt because the bytes arrived: the font is Ready (glyph
// count, time from request to atlas).
void finish(lab::LabApp& app, int glyphs);

}  // namespace lab_font
