#version 300 es
// imgui_vert.glsl — Attention Lab: Dear ImGui's vertices (ImDrawVert: pos, uv,
// col at locations 0, 1, 2) in screen pixels, projected by ProjMtx. Both programs
// use it: ImGui's triangles (imgui_frag.glsl) and the heatmap image quads
// (heatmap_frag.glsl, which reads only the uv).
// The #version line is replaced at build time: "300 es" on the web, "330 core" natively.
precision highp float;
layout (location = 0) in vec2 Position;
layout (location = 1) in vec2 UV;
layout (location = 2) in vec4 Color;
uniform mat4 ProjMtx;
out vec2 Frag_UV;
out vec4 Frag_Color;
void main() {
    Frag_UV = UV;
    Frag_Color = Color;
    gl_Position = ProjMtx * vec4(Position.xy, 0.0, 1.0);
}
