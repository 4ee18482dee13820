// frame_pacing.cpp — Attention Lab platform: when a frame is drawn (see frame_pacing.h).
#include "platform/frame_pacing.h"

#include <GLFW/glfw3.h>

#include <algorithm>

#include "app/state/lab_app.h"
#include "platform/imgui_probe.h"
#include "platform/input_queue.h"

namespace lab_pacing {

namespace {

struct State {
    int settle = kSettleFrames;  // the first frames after start-up settle too
    void (*waker)() = nullptr;
    Stats stats;
};
State s;

void on_scroll(GLFWwindow*, double, double) { wake(); }
void on_cursor_enter(GLFWwindow*, int) { wake(); }
void on_focus(GLFWwindow*, int) { wake(); }
void on_framebuffer_size(GLFWwindow*, int, int) { wake(); }
void on_refresh(GLFWwindow*) { wake(); }

// The earliest of two "seconds until" values, where < 0 means never.
double earliest(double a, double b) {
    if (a < 0) return b;
    if (b < 0) return a;
    return std::min(a, b);
}

}  // namespace

void install(GLFWwindow* window) {
    glfwSetScrollCallback(window, on_scroll);
    glfwSetCursorEnterCallback(window, on_cursor_enter);
    glfwSetWindowFocusCallback(window, on_focus);
    glfwSetFramebufferSizeCallback(window, on_framebuffer_size);
    glfwSetWindowRefreshCallback(window, on_refresh);
}

void wake(int frames) {
    s.settle = std::max(s.settle, frames);
    ++s.stats.wakes;
    if (s.waker) s.waker();
}

void set_waker(void (*waker)()) { s.waker = waker; }

double after_frame(const lab::LabApp& app) {
    ++s.stats.drawn;
    if (s.settle > 0) --s.settle;
    double next = -1.0;
    if (s.settle > 0 || lab_input::pending() || lab_probe::settling()) next = 0.0;
    next = earliest(next, lab::lab_frame_wanted_in(app));
    next = earliest(next, lab_probe::caret_blink_in());
    s.stats.next_in = next;
    s.stats.resting = next < 0;
    return next;
}

Stats stats() { return s.stats; }

}  // namespace lab_pacing
