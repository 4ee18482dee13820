// gl_renderer.h — Attention Lab platform: draws Dear ImGui's draw data with WebGL 2
// (web) or OpenGL 3.3 core (desktop), and owns all GL state of the app.
//
// Nothing else draws into the context, so nothing is ever asked of GL in a frame:
// every glGet* / glIsEnabled / glGetError is a synchronous round trip to the
// browser's GPU process (Dear ImGui 1.86's OpenGL3 backend makes ~25 of them per
// frame to save and restore state it does not own). The renderer sets the state it
// needs once and remembers what it bound: the program, the texture, the scissor box.
// Draw callbacks inside ImGui's draw lists (the GPU heatmaps) switch programs with
// use_program(); ImGui's ImDrawCallback_ResetRenderState switches back.
//
//   init(glsl_version);                 once, after the context exists
//   upload_fonts();                     after (re)building io.Fonts
//   render(ImGui::GetDrawData(), w, h); every frame
#pragma once

struct ImDrawData;

namespace lab_gl {

// glsl_version: "#version 300 es" (WebGL 2) or "#version 330 core". False if the
// shaders do not compile (a message is printed).
bool init(const char* glsl_version);
void shutdown();
// (Re)creates the font texture from ImGui's atlas (io.Fonts) and sets its TexID.
void upload_fonts();
// Clears the framebuffer to `background` (RGB) and draws one frame.
void render(const ImDrawData* draw_data, int fb_width, int fb_height, const float background[3]);

// For programs drawn inside ImGui's draw lists; they read the same vertex layout
// (locations 0, 1, 2 = ImDrawVert pos, uv, col). Returns 0 on failure (printed).
unsigned link_program(const char* glsl_version, const char* vertex_src, const char* fragment_src, const char* what);
// In a draw callback: draw the following commands with `program`, until ImGui's
// reset callback. Its projection uniform takes projection() (this frame's, 4x4
// column-major, screen pixels to clip space).
void use_program(unsigned program);
const float* projection();
// Binds a 2D texture on unit 0 through the tracked state (for uploads as well);
// textures are deleted here too, since GL unbinds a deleted texture and may hand its
// name out again.
void bind_texture(unsigned texture);
void delete_texture(unsigned texture);

}  // namespace lab_gl
