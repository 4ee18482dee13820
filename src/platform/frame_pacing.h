// frame_pacing.h — Attention Lab platform: when a frame is drawn. Only when what is
// shown may change; otherwise the page and the desktop app rest (no frames, no
// main-thread work):
//  - after any event (keys, text, pointer, wheel, focus, resize, a font arriving, a
//    URL hash change, a call of the page's test API) and for kSettleFrames frames
//    after it: ImGui settles over a few frames (a click is pressed in one frame and
//    released in the next, a popup is measured hidden before it shows);
//  - while ImGui settles by itself (lab_probe::settling: popups and windows
//    appearing, a mouse button held) or input is still queued (lab_input);
//  - when the app asks (lab::lab_frame_wanted_in: a recompute to show, later
//    training progress);
//  - when the text caret blinks.
#pragma once

struct GLFWwindow;
namespace lab {
struct LabApp;
}

namespace lab_pacing {

constexpr int kSettleFrames = 3;

// Before ImGui_ImplGlfw_InitForOpenGL: GLFW's wheel, pointer enter / leave, focus
// and size callbacks wake the loop (ImGui's backend chains to them; keys and the
// pointer wake it through lab_input).
void install(GLFWwindow* window);
// Something happened: draw at least `frames` more frames. The host's waker (if set)
// is called so a resting loop starts again (web: it asks for an animation frame).
void wake(int frames = kSettleFrames);
void set_waker(void (*waker)());
// After a frame was drawn: seconds until the next frame is needed; 0 = at once,
// > 0 = then, < 0 = not until wake().
double after_frame(const lab::LabApp& app);

// For state(): frames drawn and whether the loop rests now.
struct Stats {
    long drawn = 0;       // frames drawn
    long wakes = 0;       // wake() calls
    bool resting = false;  // the last after_frame() said: not until an event
    double next_in = -1;  // what it said
};
Stats stats();

}  // namespace lab_pacing
