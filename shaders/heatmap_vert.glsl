#version 300 es
// heatmap_vert.glsl — Attention Lab: positions an ImGui image quad (ImDrawVert:
// pos, uv, col at locations 0, 1, 2) for the heatmap fragment shader.
// The #version line is replaced at build time: "300 es" on the web, "330 core" natively.
precision highp float;
layout (location = 0) in vec2 Position;
layout (location = 1) in vec2 UV;
layout (location = 2) in vec4 Color;
uniform mat4 ProjMtx;
out vec2 Frag_UV;
void main() {
    Frag_UV = UV;
    gl_Position = ProjMtx * vec4(Position.xy, 0.0, 1.0);
}
