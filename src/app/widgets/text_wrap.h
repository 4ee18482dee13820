// text_wrap.h — Attention Lab app: wrapped text that breaks Chinese lines.
//
// Dear ImGui 1.86 wraps only at spaces (and after ASCII punctuation), so a
// sentence of hanzi — one "word" to it — jumps whole to the next line and leaves
// ragged gaps. text_wrapped() breaks at spaces and between CJK characters (never
// before closing punctuation like ，。）or after opening punctuation like （「),
// and otherwise behaves like ImGui::TextWrapped.
#pragma once
#include <imgui.h>

namespace lab {

void text_wrapped(const char* fmt, ...) IM_FMTARGS(1);
// The same in the dimmed colour of ImGui::TextDisabled (headings, hints).
void text_wrapped_disabled(const char* text);
// `text` (up to `end`, null: its end) wrapped at `width` pixels, e.g. in a tooltip.
void text_wrapped_width(const char* text, const char* end, float width);
// The same in a colour.
void text_wrapped_colored(const ImVec4& colour, const char* text);
// ImGui::SmallButton (the label may end in "###id"), its label broken into lines over the
// width left when it does not fit on one: a long link-like button on a phone.
bool wrapped_small_button(const char* label);
// The height text_wrapped would give `text` in `width` pixels (for laying panels out).
float wrapped_height(const char* text, float width);

}  // namespace lab
