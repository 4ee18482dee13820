// touch_input.h — Attention Lab platform: fingers on the canvas turned into what a
// reader of the page expects (issue #28), for Dear ImGui, which knows only a mouse.
//
// Emscripten 3.1.6's GLFW hears touch events but reads no position from them (its
// Browser.calculateMouseEvent only knows SDL's touch objects): a touch pressed the
// left button wherever the mouse was last, and a drag moved nothing. The page
// (web/lab_bridge.js) therefore keeps touch events from GLFW and hands them here:
//  - tap (the finger lifts within the slop, before the hold time): a click where it
//    touched, then the pointer leaves, so no hover or tooltip stays on;
//  - hold (still for kHoldMs): the pointer, under the finger from the start (its
//    hover shows), follows it and stays after the finger lifts, so a heatmap
//    cell's derivation can be read;
//  - drag: scrolls the window under the finger the way the wheel would (the first
//    one up its parents that scrolls that way), and keeps going after the finger
//    lifts (momentum, slowing down) until it stops or reaches the end. The rule
//    for widgets that want a drag of their own (sliders, a custom mask's cells): a
//    mostly horizontal drag that starts on a hovered widget, in a window that does
//    not scroll sideways, is a mouse drag (press, move, release); every other drag
//    scrolls. A panel scroll is what people expect from a drag, and sliders and
//    mask rows run sideways.
//  - pinch (two fingers): the UI scale, zoom() times devicePixelRatio, in steps of
//    kZoomStep within [kZoomMin, zoom_max()] (each step rebuilds the fonts). zoom_max()
//    is kZoomMax where the screen has room, less on a phone: the zoomed screen keeps
//    kZoomRoomCss units of width, the narrowest the one-column layout fits without
//    cutting a text (a 390 px phone zooms to x1.2, a 360 px one to x1.1).
// The mouse and a pen never come here: their events still go through GLFW.
#pragma once

namespace lab_touch {

constexpr double kHoldMs = 500;      // a long-press
constexpr double kSlopCss = 10;      // CSS px a finger may wander and still tap or hold
constexpr float kZoomMin = 0.8f, kZoomMax = 1.6f, kZoomStep = 0.1f;
constexpr double kZoomRoomCss = 320;  // the width a zoom leaves, in zoomed CSS px

enum class Phase { Start = 0, Move = 1, End = 2, Cancel = 3 };

struct Point {
    double x = 0, y = 0;  // framebuffer pixels
};

enum class Result { None = 0, Tap = 1, TapOnText = 2 };

// A touch event: Start / Move carry the fingers down now (up to two); End / Cancel
// carry the number of fingers still down and the lifted finger's point. time_ms:
// when it happened (the clock of before_frame's now_ms). dpr: CSS
// px to framebuffer px. A tap on a text field makes the page focus its text input
// in the event's handler, which opens the on-screen keyboard; telling that needs a
// frame drawn with the pointer there (needs_frame).
Result on_touch(Phase phase, int count, const Point* points, double time_ms, double dpr);
// A tap's answer needs frames with the pointer where the finger is: draw one now.
bool needs_frame();
// The last tap lands on a text field (after needs_frame() turned false).
bool tap_on_text();
// Before ImGui's frame: the hold's timer, the scroll and the momentum. Returns
// true if another frame is wanted (momentum).
bool before_frame(double now_ms);
// After ImGui's frame: what is under a finger that just came down.
void after_frame();

// The pinch's factor on the UI scale.
float zoom();
// The screen's width in CSS px (each frame): it bounds the zoom (and lowers a zoom a
// turned phone no longer has room for).
void set_screen_css_width(double css_width);
float zoom_max();
// For window.lab.state(): the gesture now and the last one completed.
const char* gesture_name();
const char* last_gesture_name();

}  // namespace lab_touch
