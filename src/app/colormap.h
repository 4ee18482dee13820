// colormap.h — Attention Lab app: value → colour for heatmaps.
//   Diverging: blue (negative) – near-white (0) – red (positive), symmetric range.
//   Sequential: dark blue → teal → yellow for probabilities in [0, 1].
//   Masked (-inf) and NaN cells get colours no value can produce.
#pragma once
#include <cstdint>

namespace lab {

enum class ColorMap { Diverging, Sequential };

struct ColorRange {
    ColorMap map = ColorMap::Diverging;
    float lo = -1.0f, hi = 1.0f;
};

// Returns RGBA packed as ImGui's ImU32 (0xAABBGGRR).
uint32_t colormap_color(const ColorRange& range, float v);
constexpr uint32_t kMaskedColor = 0xFF3A3430;  // dark slate: -inf (masked)
constexpr uint32_t kNanColor = 0xFFB040D0;     // magenta: NaN

// A symmetric range around 0 from the finite values (diverging), or [0, 1] (sequential).
ColorRange range_for(const float* values, long count, ColorMap map);

}  // namespace lab
