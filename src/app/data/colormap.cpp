// colormap.cpp — Attention Lab app: colour maps (the stops are colormap.def's).
#include "app/data/colormap.h"

#include <cmath>

namespace lab {

namespace {

struct Rgb {
    float r, g, b;
};

#define LAB_COLORMAP_STOP(map, r, g, b) {r, g, b},
#define LAB_COLORMAP_SPECIAL(name, r, g, b)
const Rgb kStops[] = {
#include "app/data/colormap.def"
};
#undef LAB_COLORMAP_STOP
#undef LAB_COLORMAP_SPECIAL
static_assert(sizeof kStops / sizeof kStops[0] == 2 * kColorMapStops, "colormap.def: five stops per map");

}  // namespace

void colormap_ramp(ColorMap map, float t, float rgb[3]) {
    const Rgb* stops = kStops + static_cast<int>(map) * kColorMapStops;
    t = std::fmin(1.0f, std::fmax(0.0f, t)) * (kColorMapStops - 1);
    const int i = static_cast<int>(std::fmin(kColorMapStops - 2, static_cast<int>(t)));
    const float f = t - i;
    const Rgb& a = stops[i];
    const Rgb& b = stops[i + 1];
    rgb[0] = a.r + (b.r - a.r) * f, rgb[1] = a.g + (b.g - a.g) * f, rgb[2] = a.b + (b.b - a.b) * f;
}

uint32_t colormap_color(const ColorRange& range, float v) {
    if (std::isnan(v)) return kNanColor;
    if (v <= -1e8f) return kMaskedColor;  // -inf or a -1e9 fill: masked either way
    float t;
    if (range.map == ColorMap::Sequential) {
        const float span = range.hi - range.lo;
        t = span > 0 ? (v - range.lo) / span : 0.0f;
    } else {
        const float m = std::fmax(std::fabs(range.lo), std::fabs(range.hi));
        t = m > 0 ? 0.5f + 0.5f * v / m : 0.5f;
    }
    float rgb[3];
    colormap_ramp(range.map, t, rgb);
    return pack_rgb(rgb[0], rgb[1], rgb[2]);
}

ColorRange range_for(const float* values, long count, ColorMap map) {
    if (map == ColorMap::Sequential) return {map, 0.0f, 1.0f};
    float m = 0.0f;
    for (long i = 0; i < count; ++i)
        if (std::isfinite(values[i]) && std::fabs(values[i]) < 1e8f) m = std::fmax(m, std::fabs(values[i]));
    if (m == 0.0f) m = 1.0f;
    return {map, -m, m};
}

}  // namespace lab
