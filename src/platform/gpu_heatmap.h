// gpu_heatmap.h — Attention Lab platform: heatmaps as float textures (R32F,
// nearest sampling) coloured by shaders/heatmap_frag.glsl, drawn inside
// ImGui's draw lists through a draw callback. Implements app's HeatmapRenderer.
#pragma once
#include "app/widgets/heatmap.h"

namespace lab_gpu {

// glsl_version: "#version 300 es" (WebGL2) or "#version 330 core"; after
// lab_gl::init. Returns false if the shaders failed (the app then keeps drawing
// heatmaps on the CPU).
bool init(const char* glsl_version);
void begin_frame();  // frees textures unused for a while; call before the app draws
void shutdown();
lab::HeatmapRenderer renderer();

struct Stats {
    int textures = 0;       // alive
    long uploads = 0;       // since start
    double uploaded_mb = 0; // since start
};
Stats stats();

}  // namespace lab_gpu
