// colormap.h — Attention Lab app: value → colour for heatmaps, from the one table in
// colormap.def (the GPU's shader gets the same table at build time).
//   Diverging: blue (negative) – near-white (0) – red (positive), symmetric range.
//   Sequential: dark blue → teal → yellow for probabilities in [0, 1].
//   Masked (-inf) and NaN cells get colours no value can produce.
#pragma once
#include <cstdint>

namespace lab {

enum class ColorMap { Diverging, Sequential };  // the order of the maps in colormap.def
constexpr int kColorMapStops = 5;               // stops per map, evenly spaced over [0, 1]

struct ColorRange {
    ColorMap map = ColorMap::Diverging;
    float lo = -1.0f, hi = 1.0f;
};

// RGBA packed as ImGui's ImU32 (0xAABBGGRR), each channel rounded from [0, 1].
constexpr uint32_t pack_rgb(float r, float g, float b) {
    auto u = [](float x) { return static_cast<uint32_t>(x <= 0 ? 0.0f : x >= 1 ? 255.0f : x * 255.0f + 0.5f); };
    return 0xFF000000u | (u(b) << 16) | (u(g) << 8) | u(r);
}

#define LAB_COLORMAP_STOP(map, r, g, b)
#define LAB_COLORMAP_SPECIAL(name, r, g, b) constexpr uint32_t k_##name##_color = pack_rgb(r, g, b);
namespace colormap_detail {
#include "app/data/colormap.def"
}
#undef LAB_COLORMAP_STOP
#undef LAB_COLORMAP_SPECIAL
constexpr uint32_t kMaskedColor = colormap_detail::k_masked_color;  // -inf (or a -1e9 fill): masked
constexpr uint32_t kNanColor = colormap_detail::k_nan_color;        // NaN

// The colour of a value: the map's stop colours, interpolated linearly.
uint32_t colormap_color(const ColorRange& range, float v);
// Position t in [0, 1] of a map, as red, green, blue in [0, 1] (what the shader computes).
void colormap_ramp(ColorMap map, float t, float rgb[3]);

// A symmetric range around 0 from the finite values (diverging), or [0, 1] (sequential).
ColorRange range_for(const float* values, long count, ColorMap map);

}  // namespace lab
