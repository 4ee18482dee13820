// ui_style.h — Attention Lab app: colours, spacing and the embedded font (DejaVu
// Sans, subset), built for a UI scale (devicePixelRatio on the web, the monitor's
// content scale natively).
#pragma once

namespace lab {

// Rebuilds ImGui's style and font atlas for `scale`. Call between frames; the
// renderer must re-upload the font texture afterwards.
void build_ui_style(float scale);

}  // namespace lab
