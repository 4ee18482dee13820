#version 300 es
// heatmap_frag.glsl — Attention Lab: colours one float per texel (R32F, nearest
// sampling) with the lab's colour maps; the same stops as src/app/colormap.cpp so
// the GPU and CPU paths draw identical colours.
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

vec3 ramp(vec3 s0, vec3 s1, vec3 s2, vec3 s3, vec3 s4, float t) {
    t = clamp(t, 0.0, 1.0) * 4.0;
    if (t < 1.0) return mix(s0, s1, t);
    if (t < 2.0) return mix(s1, s2, t - 1.0);
    if (t < 3.0) return mix(s2, s3, t - 2.0);
    return mix(s3, s4, t - 3.0);
}

void main() {
    float v = texture(Texture, Frag_UV).r;
    if (v != v) { Out_Color = vec4(0.816, 0.251, 0.690, 1.0); return; }       // NaN
    if (v <= -1.0e8) { Out_Color = vec4(0.188, 0.204, 0.227, 1.0); return; }  // masked
    vec3 c;
    if (u_map == 1) {
        float span = u_hi - u_lo;
        c = ramp(vec3(0.07, 0.08, 0.20), vec3(0.16, 0.30, 0.55), vec3(0.13, 0.60, 0.56),
                 vec3(0.55, 0.82, 0.33), vec3(0.99, 0.91, 0.15), span > 0.0 ? (v - u_lo) / span : 0.0);
    } else {
        float m = max(abs(u_lo), abs(u_hi));
        c = ramp(vec3(0.13, 0.30, 0.66), vec3(0.45, 0.62, 0.86), vec3(0.93, 0.93, 0.93),
                 vec3(0.90, 0.55, 0.42), vec3(0.70, 0.13, 0.16), m > 0.0 ? 0.5 + 0.5 * v / m : 0.5);
    }
    Out_Color = vec4(c, 1.0);
}
