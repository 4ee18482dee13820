// tooltip.h — Attention Lab app: the tooltips of widgets, placed where they cover no
// panel's header and gone once their widget is clicked.
//
//   ImGui::Button("...");
//   item_tooltip(app, tr(app, UiStr::..._tip));   // instead of IsItemHovered() + SetTooltip
//   ...
//   note_header(app, top_y);                        // a panel's header: from top_y to here
#pragma once

namespace lab {

struct LabApp;

// The last item's tooltip while the pointer rests on it. It sits beside the item's panel
// when there is room (a knob's tooltip must not hide the next knob's label), else below
// the item, and never over a header noted this frame or the last; a click on the item
// hides it until the pointer leaves (the click changed what the header says).
void item_tooltip(LabApp& app, const char* text);

// The current window's header: from `top_y` (screen) to the end of the last item.
void note_header(LabApp& app, float top_y);

// The width a tooltip's text wraps at: `chars` characters of the font, but never more than
// the screen holds (a phone is narrower than a derivation's 36 characters).
float tooltip_wrap_width(float chars);

// At the start of a frame: the headers noted in the last one become the ones to avoid.
void tooltip_begin_frame(LabApp& app);

}  // namespace lab
