// palette.h — Attention Lab app: every colour that carries meaning, one named slot each.
//
// The theme's own colours (window, frame, text) are ImGui's style slots, set once in
// ui_style.cpp. The slots here are what a panel draws with on top of the theme: the chosen
// button, a verdict, a warning, a plot series, a head. A panel names its slot; it never
// spells a colour. Heatmap colour maps are colormap.def's rows, not these.
#pragma once
#include <imgui.h>

namespace lab::palette {

// One choice out of several (stage chips, tabs, task and language buttons): on or off.
inline const ImVec4 kChoiceOn(0.26f, 0.48f, 0.86f, 1), kChoiceOff(0.20f, 0.22f, 0.27f, 1);
inline const ImVec4 kChoiceHovered(0.32f, 0.52f, 0.86f, 1);
inline const ImVec4& choice(bool on) { return on ? kChoiceOn : kChoiceOff; }

// Text that says how things stand.
inline const ImVec4 kNoteText(1.0f, 0.8f, 0.4f, 1);     // a note: what the lab did or could not do
inline const ImVec4 kWarnText(0.95f, 0.75f, 0.4f, 1);   // NaN explained, a lesson not ready, a Flash mismatch
inline const ImVec4 kErrorText(1.0f, 0.55f, 0.5f, 1);   // a rejected value, a wrong answer, a wrong token
inline const ImVec4 kGoodText(0.55f, 0.85f, 0.55f, 1);  // a right answer, a right token
inline const ImVec4 kHintText(0.75f, 0.8f, 1.0f, 1);    // a lesson's hint
inline const ImVec4 kCodeText(0.62f, 0.85f, 0.62f, 1);  // a PyTorch line
inline const ImVec4 kSkippedText(0.55f, 0.8f, 1.0f, 1); // a stage raw SDPA skips: said, not a warning

// A check's badge, in Verdict's order: pass, fail, NaN from fully-masked rows, a note.
inline constexpr ImU32 kVerdict[] = {IM_COL32(90, 200, 120, 255), IM_COL32(240, 90, 80, 255), IM_COL32(240, 180, 60, 255),
                                     IM_COL32(150, 155, 165, 255)};

// Table rows: the current one, and the naive path's row beside the tiled one.
inline constexpr ImU32 kCurrentRow = IM_COL32(60, 100, 170, 140);
inline constexpr ImU32 kReferenceRow = IM_COL32(70, 70, 40, 150);

// Plot series: measured (solid) and the model (dashed) of the same quantity share a hue.
inline constexpr ImU32 kSeriesRed = IM_COL32(240, 110, 100, 255), kSeriesBlue = IM_COL32(90, 170, 240, 255);
inline constexpr ImU32 kSeriesGreen = IM_COL32(129, 199, 132, 255), kSeriesGrey = IM_COL32(175, 175, 180, 255);
// `c` with alpha `a` (0..255): a series' second line, a held-out curve.
inline constexpr ImU32 with_alpha(ImU32 c, unsigned a) { return (c & ~IM_COL32_A_MASK) | (static_cast<ImU32>(a) << IM_COL32_A_SHIFT); }

// Heads: band above split/concat columns, chips, the Train view's head switches.
inline constexpr ImU32 kHeads[] = {IM_COL32(239, 111, 108, 255), IM_COL32(76, 175, 239, 255), IM_COL32(129, 199, 132, 255),
                                   IM_COL32(255, 193, 7, 255),   IM_COL32(186, 104, 200, 255), IM_COL32(255, 138, 101, 255),
                                   IM_COL32(77, 208, 225, 255),  IM_COL32(174, 213, 129, 255)};
inline const ImVec4 kHeadOff(0.35f, 0.2f, 0.2f, 1), kTextOnHead(0.05f, 0.05f, 0.08f, 1), kTextOnHeadOff(1, 1, 1, 1);

// Heatmap overlays: a cell's number on a light or dark cell, the hovered cell's outline,
// the selected row's band.
inline constexpr ImU32 kCellTextDark = IM_COL32(20, 20, 24, 255), kCellTextLight = IM_COL32(240, 240, 240, 255);
inline constexpr ImU32 kHoverOutline = IM_COL32(255, 255, 255, 255), kRowBand = IM_COL32(255, 255, 255, 110);

// Lessons: the cells a question asks about, and a wrong click's cross on its shade.
inline constexpr ImU32 kLessonTarget = IM_COL32(255, 215, 60, 255);
inline constexpr ImU32 kWrongShade = IM_COL32(20, 20, 20, 150), kWrongCross = IM_COL32(255, 120, 90, 255);

// Setup: a field holding a rejected value; a custom mask cell kept or masked.
inline const ImVec4 kRejectedField(0.55f, 0.18f, 0.16f, 1);
inline const ImVec4 kMaskKeep(0.3f, 0.6f, 0.4f, 1), kMaskDrop(0.2f, 0.2f, 0.22f, 1);

// The keyboard's focus ring: amber, apart from every chip and button colour.
inline constexpr ImU32 kFocusRing = IM_COL32(255, 204, 64, 255);

}  // namespace lab::palette
