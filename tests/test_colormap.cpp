// test_colormap.cpp — the heatmap colours: the GPU's shader (shaders/heatmap_frag.glsl,
// its colour table generated at build time from src/app/data/colormap.def) and the CPU path
// (app/data/colormap.cpp) draw the same colour for every value. The generated GLSL is read
// back from the embedded shader source and evaluated the way the shader does.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <regex>
#include <string>
#include <vector>

#include "app/data/colormap.h"
#include "lab_shaders.h"

using namespace lab;

namespace {

struct Vec3 {
    float r, g, b;
};

std::vector<Vec3> vec3s(const std::string& text) {
    std::vector<Vec3> out;
    const std::regex v(R"(vec3\(([0-9.]+), ([0-9.]+), ([0-9.]+)\))");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), v); it != std::sregex_iterator(); ++it)
        out.push_back({std::strtof((*it)[1].str().c_str(), nullptr), std::strtof((*it)[2].str().c_str(), nullptr),
                       std::strtof((*it)[3].str().c_str(), nullptr)});
    return out;
}

// The shader's table, its special colours, and colormap_ramp as GLSL computes it:
// t = clamp(t, 0, 1) * segments; i = min(int(t), segments - 1); mix(a, b, t - i).
struct Shader {
    std::vector<Vec3> stops;
    Vec3 masked{}, nan{};
    int per_map = 0;
    Vec3 ramp(int map, float t) const {
        const int segments = per_map - 1;
        t = std::fmin(std::fmax(t, 0.0f), 1.0f) * segments;
        const int i = std::min(static_cast<int>(t), segments - 1);
        const Vec3 a = stops[map * per_map + i], b = stops[map * per_map + i + 1];
        const float f = t - i;
        return {a.r * (1 - f) + b.r * f, a.g * (1 - f) + b.g * f, a.b * (1 - f) + b.b * f};
    }
};

Shader read_shader() {
    const std::string src = kShader_heatmap_frag;
    Shader s;
    const size_t table = src.find("const vec3 kColormapStops[");
    REQUIRE_MESSAGE(table != std::string::npos, "the shader has no generated colour table");
    s.stops = vec3s(src.substr(table, src.find(';', table) - table));
    s.per_map = static_cast<int>(s.stops.size()) / 2;
    for (const char* name : {"k_masked_color", "k_nan_color"}) {
        const size_t at = src.find(std::string("const vec3 ") + name);
        REQUIRE(at != std::string::npos);
        (std::string(name) == "k_masked_color" ? s.masked : s.nan) = vec3s(src.substr(at, src.find(';', at) - at)).at(0);
    }
    CHECK(src.find("colormap_ramp(u_map, t)") != std::string::npos);  // the shader draws with the generated ramp
    return s;
}

// A GPU writes a colour channel to an 8-bit target as round(x * 255).
uint32_t gpu_pack(Vec3 c) {
    auto u = [](float x) { return static_cast<uint32_t>(std::lround(std::fmin(std::fmax(x, 0.0f), 1.0f) * 255.0f)); };
    return 0xFF000000u | (u(c.b) << 16) | (u(c.g) << 8) | u(c.r);
}

int channel_difference(uint32_t a, uint32_t b) {
    int worst = 0;
    for (int shift = 0; shift < 24; shift += 8)
        worst = std::max(worst, std::abs(static_cast<int>((a >> shift) & 0xFF) - static_cast<int>((b >> shift) & 0xFF)));
    return worst;
}

}  // namespace

TEST_CASE("colour maps: the shader's generated table is colormap.def's, as the CPU reads it") {
    const Shader s = read_shader();
    REQUIRE(s.per_map == kColorMapStops);
    REQUIRE(s.stops.size() == 2u * kColorMapStops);
    for (int map = 0; map < 2; ++map)
        for (int k = 0; k < kColorMapStops; ++k) {
            float rgb[3];
            colormap_ramp(static_cast<ColorMap>(map), static_cast<float>(k) / (kColorMapStops - 1), rgb);
            const Vec3& g = s.stops[map * kColorMapStops + k];
            CHECK(rgb[0] == doctest::Approx(g.r).epsilon(1e-6));
            CHECK(rgb[1] == doctest::Approx(g.g).epsilon(1e-6));
            CHECK(rgb[2] == doctest::Approx(g.b).epsilon(1e-6));
        }
    CHECK(gpu_pack(s.masked) == kMaskedColor);
    CHECK(gpu_pack(s.nan) == kNanColor);
}

TEST_CASE("colour maps: CPU and GPU give the same colour for every value, to one step of 255") {
    const Shader s = read_shader();
    int worst = 0;
    for (int map = 0; map < 2; ++map) {
        const ColorRange range = map == 0 ? ColorRange{ColorMap::Diverging, -2.5f, 2.5f} : ColorRange{ColorMap::Sequential, 0.0f, 1.0f};
        for (int k = -20; k <= 1020; ++k) {
            const float v = range.lo + (range.hi - range.lo) * k / 1000.0f;  // a little outside the range too
            // The shader's value -> t (heatmap_frag.glsl's main), then its ramp.
            const float t = map == 1 ? (v - range.lo) / (range.hi - range.lo) : 0.5f + 0.5f * v / 2.5f;
            worst = std::max(worst, channel_difference(colormap_color(range, v), gpu_pack(s.ramp(map, t))));
        }
    }
    CHECK(worst <= 1);
    CHECK(colormap_color({}, NAN) == kNanColor);
    CHECK(colormap_color({}, -INFINITY) == kMaskedColor);
    CHECK(colormap_color({}, -1e9f) == kMaskedColor);
}
