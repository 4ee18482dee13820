// host.h — Attention Lab platform: what the loop (main.cpp) asks of its host. One
// implementation per build: host_web.cpp (the page: Emscripten, the browser,
// window.lab; with web/lab_bridge.js) and host_native.cpp (the desktop app: command
// line, files, a window of its own).
#pragma once

struct GLFWwindow;
namespace lab {
struct LabApp;
}

namespace lab_host {

struct Window {
    GLFWwindow* window = nullptr;   // null: it could not be opened (a message was printed)
    const char* glsl_version = "";  // "#version 300 es" (WebGL 2) or "#version 330 core"
};

// Reads the command line (desktop) and opens the window with its GL context.
Window open(int argc, char** argv);
// After ImGui, the renderer and lab_init: the app's exports and clipboard, the UI
// scale, the interface language, the first view (URL hash / --hash), and the input
// the host delivers itself (the page's wheel, IME text and paste).
void connect(GLFWwindow* window, lab::LabApp& app);
// Draws frames with draw_frame whenever lab_pacing asks for one. The desktop app
// returns when its window closes; the page never returns (the browser calls back).
void run(void (*draw_frame)());
// Each frame, before ImGui's: follow the canvas size and devicePixelRatio (web).
void begin_frame(lab::LabApp& app);
// Each frame, after ImGui::Render: the URL hash follows the view and the input
// method's window the text caret (web).
void end_frame(lab::LabApp& app);
// The frame is drawn: show it (desktop: swap, --frames, --screenshot; web: ready).
void present(lab::LabApp& app, int fb_width, int fb_height);
// Starts reading the Chinese font (lab_font::wanted_now said so).
void load_cjk_font();
void close(GLFWwindow* window);

}  // namespace lab_host
