// main.cpp — Attention Lab platform: the loop that hosts the app, as in Dear ImGui's
// examples. The host (host_web.cpp for the page, host_native.cpp for the desktop
// app) opens the window and connects the app to the browser or the desktop;
// lab_pacing decides when a frame is drawn (only when something may have changed);
// lab_gl draws ImGui's draw data. The app itself (src/app) never sees GL or GLFW.
#include <imgui.h>
#include <imgui_impl_glfw.h>

#include <GLFW/glfw3.h>

#include <cstdlib>

#include "app/state/lab_app.h"
#include "app/widgets/ui_style.h"
#include "platform/cjk_font.h"
#include "platform/frame_pacing.h"
#include "platform/gl_renderer.h"
#include "platform/gpu_heatmap.h"
#include "platform/host.h"
#include "platform/input_queue.h"

namespace {

constexpr float kBackground[3] = {0.086f, 0.094f, 0.114f};  // the page's #16181d

lab::LabApp g_app;
lab_host::Window g_window;
float g_built_scale = 0.0f;  // the UI scale fonts and style were built for

// Fonts and style follow the UI scale and the Chinese font's arrival.
void update_fonts() {
    if (lab_font::wanted_now(g_app)) lab_host::load_cjk_font();
    const bool font_arrived = lab_font::take_arrival();
    if (g_app.ui_scale == g_built_scale && !font_arrived) return;
    const int cjk_glyphs = lab::build_ui_style(g_app.ui_scale, lab_font::bytes());
    lab_gl::upload_fonts();
    ImGui::GetIO().Fonts->ClearTexData();  // the GPU has it; the CPU copy of a CJK atlas is tens of MB
    g_built_scale = g_app.ui_scale;
    if (font_arrived) lab_font::finish(g_app, cjk_glyphs);
}

void frame() {
    lab_host::begin_frame(g_app);
    update_fonts();
    ImGui_ImplGlfw_NewFrame();
    lab_input::deliver(g_app);
    lab_gpu::begin_frame();
    g_app.gpu_uploads = lab_gpu::stats().uploads;
    g_app.gpu_textures = lab_gpu::stats().textures;
    ImGui::NewFrame();
    lab::lab_frame(g_app);
    ImGui::Render();
    lab_host::end_frame(g_app);
    int fb_width = 0, fb_height = 0;
    glfwGetFramebufferSize(g_window.window, &fb_width, &fb_height);
    lab_gl::render(ImGui::GetDrawData(), fb_width, fb_height, kBackground);
    lab_host::present(g_app, fb_width, fb_height);
}

}  // namespace

int main(int argc, char** argv) {
    g_window = lab_host::open(argc, argv);
    if (!g_window.window) return 1;
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;  // the layout is computed, nothing to persist
    lab_pacing::install(g_window.window);  // before ImGui's backend, which chains to it
    ImGui_ImplGlfw_InitForOpenGL(g_window.window, true);
    lab_input::install(g_window.window);
    if (!lab_gl::init(g_window.glsl_version)) return 1;
    // GPU heatmaps unless LAB_CPU_HEATMAPS is set (the CPU path stays as a fallback).
    if (!std::getenv("LAB_CPU_HEATMAPS") && lab_gpu::init(g_window.glsl_version)) g_app.gpu = lab_gpu::renderer();
    lab::lab_init(g_app);
    lab_host::connect(g_window.window, g_app);

    lab_host::run(frame);

    lab_gpu::shutdown();
    lab_gl::shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    lab_host::close(g_window.window);
    return 0;
}
