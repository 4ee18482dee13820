#version 300 es
// heatmap_frag.glsl — Attention Lab: colours one float per texel (R32F, nearest
// sampling) with the lab's colour maps. The build writes the maps' table and
// colormap_ramp() where "@LAB_COLORMAP@" stands, from src/app/colormap.def, the same
// table the CPU path (src/app/colormap.cpp) reads, so both draw identical colours.
//   u_map 0: diverging, blue - near-white (0) - red, symmetric range [-u_absmax, u_absmax]
//   u_map 1: sequential, dark blue - teal - yellow over [u_lo, u_hi]
// Masked cells (-inf, or a -1e9 fill) and NaN get colours no value can produce.
precision highp float;
uniform sampler2D Texture;
uniform int u_map;
uniform float u_lo;
uniform float u_hi;
in vec2 Frag_UV;
out vec4 Out_Color;

// @LAB_COLORMAP@

void main() {
    float v = texture(Texture, Frag_UV).r;
    if (v != v) { Out_Color = vec4(k_nan_color, 1.0); return; }
    if (v <= -1.0e8) { Out_Color = vec4(k_masked_color, 1.0); return; }
    float t;
    if (u_map == 1) {
        float span = u_hi - u_lo;
        t = span > 0.0 ? (v - u_lo) / span : 0.0;
    } else {
        float m = max(abs(u_lo), abs(u_hi));
        t = m > 0.0 ? 0.5 + 0.5 * v / m : 0.5;
    }
    Out_Color = vec4(colormap_ramp(u_map, t), 1.0);
}
