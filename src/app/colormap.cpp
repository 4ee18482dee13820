// colormap.cpp — Attention Lab app: colour maps.
#include "colormap.h"

#include <cmath>

namespace lab {

namespace {
struct Rgb {
    float r, g, b;
};
Rgb lerp(Rgb a, Rgb b, float t) { return {a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t}; }
uint32_t pack(Rgb c) {
    auto u = [](float x) { return static_cast<uint32_t>(std::fmin(255.0f, std::fmax(0.0f, x * 255.0f + 0.5f))); };
    return 0xFF000000u | (u(c.b) << 16) | (u(c.g) << 8) | u(c.r);
}
// Piecewise-linear through a few stops.
Rgb ramp(const Rgb* stops, int n, float t) {
    t = std::fmin(1.0f, std::fmax(0.0f, t)) * (n - 1);
    const int i = std::fmin(n - 2, static_cast<int>(t));
    return lerp(stops[i], stops[i + 1], t - i);
}
}  // namespace

uint32_t colormap_color(const ColorRange& range, float v) {
    if (std::isnan(v)) return kNanColor;
    if (v <= -1e8f) return kMaskedColor;  // -inf or a -1e9 fill: masked either way
    if (range.map == ColorMap::Sequential) {
        static const Rgb stops[] = {{0.07f, 0.08f, 0.20f}, {0.16f, 0.30f, 0.55f}, {0.13f, 0.60f, 0.56f},
                                    {0.55f, 0.82f, 0.33f}, {0.99f, 0.91f, 0.15f}};
        const float span = range.hi - range.lo;
        return pack(ramp(stops, 5, span > 0 ? (v - range.lo) / span : 0.0f));
    }
    static const Rgb stops[] = {{0.13f, 0.30f, 0.66f}, {0.45f, 0.62f, 0.86f}, {0.93f, 0.93f, 0.93f},
                                {0.90f, 0.55f, 0.42f}, {0.70f, 0.13f, 0.16f}};
    const float m = std::fmax(std::fabs(range.lo), std::fabs(range.hi));
    return pack(ramp(stops, 5, m > 0 ? 0.5f + 0.5f * v / m : 0.5f));
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
