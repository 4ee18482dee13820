// ui_style.h — Attention Lab app: colours, spacing and the two embedded fonts
// (DejaVu Sans for the UI, DejaVu Sans Mono for code and numbers), built for a UI
// scale (devicePixelRatio on the web, the monitor's content scale natively).
#pragma once

struct ImFont;

namespace lab {

// Rebuilds ImGui's style and font atlas for `scale`. Call between frames; the
// renderer must re-upload the font texture afterwards.
void build_ui_style(float scale);
ImFont* code_font();  // monospace, for PyTorch lines and numbers

}  // namespace lab
