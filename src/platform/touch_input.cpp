// touch_input.cpp — Attention Lab platform: taps, holds, drags with momentum and
// pinches turned into ImGui's pointer, scroll and the UI scale (see touch_input.h).
#include "platform/touch_input.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <deque>

#include "platform/frame_pacing.h"
#include "platform/input_queue.h"

namespace lab_touch {

namespace {

enum class Gesture { None, Pending, Hold, Drag, Scroll, Fling, Pinch, Ignore };
const char* const kGestureNames[] = {"none", "pending", "hold", "drag", "scroll", "fling", "pinch", "ignore"};

constexpr double kVelocityWindowMs = 100;  // the finger's speed: over its last moves
constexpr double kFlingMinCss = 60;        // CSS px/s below which a lifted finger just stops
constexpr double kFlingStopCss = 15;       // CSS px/s at which momentum ends
constexpr double kFlingTau = 0.4;          // s: momentum's speed falls by 1/e
constexpr double kMaxStep = 0.05;          // s: a longer gap between frames counts as this

struct Sample {
    double t, x, y;
};

// What was under the finger in the first frame after it came down.
struct Under {
    int frames = 0;       // frames drawn with the pointer there
    bool ready = false;   // frames > 0
    ImGuiID window = 0;   // the hovered window (a child, if one)
    ImGuiID item = 0;     // the hovered widget, 0: none
    bool text = false;    // the widget is a text field (ImGui shows the text cursor)
};

struct State {
    Gesture gesture = Gesture::None, last = Gesture::None;
    double dpr = 1;
    double t0 = 0;                  // the finger came down
    Point start, finger;            // where it came down, where it is
    bool moved = false;             // beyond the slop
    bool stopped_fling = false;     // the finger came down on a moving panel: no tap
    Under under;
    ImGuiID target = 0;             // the window scrolled
    ImVec2 scroll_pos{0, 0};        // its scroll as the finger put it (ImGui floors its own)
    ImVec2 pending_scroll{0, 0};    // finger movement not yet applied
    std::deque<Sample> samples;     // recent finger positions while scrolling
    ImVec2 velocity{0, 0};          // momentum, px/s of finger movement
    double last_step = 0;           // the momentum's last frame
    float zoom = 1.0f, pinch_zoom0 = 1.0f;
    double css_width = 0;  // the screen's (set_screen_css_width); 0: not known yet
    double pinch_d0 = 0;
};
State s;

double distance(const Point& a, const Point& b) { return std::hypot(a.x - b.x, a.y - b.y); }

ImGuiWindow* window_by_id(ImGuiID id) { return id ? ImGui::FindWindowByID(id) : nullptr; }

// The window a drag along axis (0: x, 1: y) scrolls: as the wheel picks it, the
// first one from the hovered window up its parents that scrolls that way.
ImGuiWindow* scroll_target(ImGuiWindow* w, int axis) {
    for (; w; w = (w->Flags & ImGuiWindowFlags_ChildWindow) ? w->ParentWindow : nullptr)
        if (w->ScrollMax[axis] > 0 && !(w->Flags & ImGuiWindowFlags_NoScrollWithMouse)) return w;
    return nullptr;
}

void finish(Gesture as) {
    s.last = as;
    s.gesture = Gesture::None;
}

// The finger went beyond the slop: a mouse drag or a scroll (the rule in
// touch_input.h). Needs what was under the finger when it came down.
void decide() {
    if (!s.under.ready) return;  // before_frame asks again after the next frame
    const double dx = s.finger.x - s.start.x, dy = s.finger.y - s.start.y;
    const int axis = std::fabs(dx) > std::fabs(dy) ? 0 : 1;
    ImGuiWindow* hovered = window_by_id(s.under.window);
    ImGuiWindow* target = scroll_target(hovered, axis);
    if (axis == 0 && s.under.item && !target) {
        s.gesture = Gesture::Drag;
        lab_input::push_left_button(true);  // where the finger came down, as a mouse would
        lab_input::push_pointer(s.finger.x, s.finger.y);
        return;
    }
    if (!target) target = scroll_target(hovered, 1 - axis);
    lab_input::push_pointer_leave();  // no hover or tooltip under a scrolling finger
    if (!target) {
        s.gesture = Gesture::Ignore, s.last = Gesture::Ignore;
        return;
    }
    s.gesture = Gesture::Scroll;
    s.target = target->ID;
    s.scroll_pos = target->Scroll;
    s.pending_scroll = ImVec2(static_cast<float>(dx), static_cast<float>(dy));
    s.samples.clear();
    s.samples.push_back({s.t0, s.start.x, s.start.y});
}

void start_one(const Point& p, double time_ms) {
    s.stopped_fling = s.gesture == Gesture::Fling;
    s.gesture = Gesture::Pending;
    s.t0 = time_ms;
    s.start = s.finger = p;
    s.moved = false;
    s.under = Under{};
    s.pending_scroll = ImVec2(0, 0);
    lab_input::push_pointer(p.x, p.y);
}

// Whatever one finger was doing ends without its effect (a second finger came).
void abandon() {
    if (s.gesture == Gesture::Drag) lab_input::push_left_button(false);
    if (s.gesture != Gesture::None && s.gesture != Gesture::Pinch) lab_input::push_pointer_leave();
}

void start_pinch(const Point* p) {
    abandon();
    s.gesture = Gesture::Pinch;
    s.pinch_d0 = std::max(1.0, distance(p[0], p[1]));
    s.pinch_zoom0 = s.zoom;
}

void pinch_to(const Point* p) {
    const double want = s.pinch_zoom0 * distance(p[0], p[1]) / s.pinch_d0;
    const float stepped = static_cast<float>(std::round(want / kZoomStep) * kZoomStep);
    const float z = std::min(zoom_max(), std::max(kZoomMin, stepped));
    if (z != s.zoom) s.zoom = z, lab_pacing::wake();
}

// A finger still since it came down for kHoldMs holds. Told by the events' times
// only: a busy page (this one under software GL) handles a quick tap's lift or a
// flick's first move long after it happened, and must not make a hold of them.
// While a finger rests the pointer is under it anyway (its hover shows); the hold
// keeps it there after the lift, and a drag after the hold moves the hover.
bool holds(double time_ms) { return s.gesture == Gesture::Pending && !s.moved && !s.stopped_fling && time_ms - s.t0 >= kHoldMs; }

void move_one(const Point& p, double time_ms) {
    const Point before = s.finger;
    s.finger = p;
    if (holds(time_ms)) s.gesture = Gesture::Hold;
    switch (s.gesture) {
        case Gesture::Pending:
            if (distance(s.start, p) > kSlopCss * s.dpr) s.moved = true, decide();
            break;
        case Gesture::Hold:
        case Gesture::Drag: lab_input::push_pointer(p.x, p.y); break;
        case Gesture::Scroll:
            s.pending_scroll.x += static_cast<float>(p.x - before.x);
            s.pending_scroll.y += static_cast<float>(p.y - before.y);
            s.samples.push_back({time_ms, p.x, p.y});
            while (s.samples.size() > 2 && time_ms - s.samples.front().t > kVelocityWindowMs) s.samples.pop_front();
            lab_pacing::wake();
            break;
        default: break;
    }
}

// The finger's speed over its last moves, px/s; none if it rested before lifting.
ImVec2 finger_velocity(double time_ms) {
    if (s.samples.size() < 2 || time_ms - s.samples.back().t > kVelocityWindowMs) return ImVec2(0, 0);
    const Sample& a = s.samples.front();
    const Sample& b = s.samples.back();
    const double dt = std::max(1.0, b.t - a.t) / 1000.0;
    return ImVec2(static_cast<float>((b.x - a.x) / dt), static_cast<float>((b.y - a.y) / dt));
}

void lift_one(double time_ms) {
    if (holds(time_ms)) s.gesture = Gesture::Hold;
    switch (s.gesture) {
        case Gesture::Pending:
            if (s.moved || s.stopped_fling) return lab_input::push_pointer_leave(), finish(Gesture::Ignore);
            lab_input::push_left_button(true);
            lab_input::push_left_button(false);
            lab_input::push_pointer_leave();
            return finish(Gesture::Pending);  // "tap" in last_gesture_name
        case Gesture::Hold: return finish(Gesture::Hold);  // the pointer stays: the hover stays shown
        case Gesture::Drag:
            lab_input::push_left_button(false);
            lab_input::push_pointer_leave();
            return finish(Gesture::Drag);
        case Gesture::Scroll: {
            const ImVec2 v = finger_velocity(time_ms);
            if (std::hypot(v.x, v.y) < kFlingMinCss * s.dpr) return finish(Gesture::Scroll);
            s.gesture = Gesture::Fling, s.velocity = v, s.last_step = time_ms;
            return lab_pacing::wake();
        }
        case Gesture::Ignore: s.gesture = Gesture::None; return;  // the last gesture said what it was
        default: return finish(s.gesture);
    }
}

// Moves the target window by the finger's movement (the content follows the
// finger), within its scroll range. False: it did not move (an end reached, or the
// window is gone).
bool scroll_by(ImVec2 delta) {
    ImGuiWindow* w = window_by_id(s.target);
    if (!w) return false;
    const ImVec2 before = s.scroll_pos;
    s.scroll_pos.x = std::max(0.0f, std::min(w->ScrollMax.x, s.scroll_pos.x - delta.x));
    s.scroll_pos.y = std::max(0.0f, std::min(w->ScrollMax.y, s.scroll_pos.y - delta.y));
    if (s.scroll_pos.x != before.x) ImGui::SetScrollX(w, s.scroll_pos.x);
    if (s.scroll_pos.y != before.y) ImGui::SetScrollY(w, s.scroll_pos.y);
    return s.scroll_pos.x != before.x || s.scroll_pos.y != before.y;
}

// Momentum: the lifted finger's speed, falling off exponentially; it ends when slow
// or at the end of the window's scroll range.
bool fling_step(double now_ms) {
    const double dt = std::min(kMaxStep, std::max(0.0, (now_ms - s.last_step) / 1000.0));
    s.last_step = now_ms;
    const ImVec2 step(static_cast<float>(s.velocity.x * dt), static_cast<float>(s.velocity.y * dt));
    const bool slow = std::hypot(s.velocity.x, s.velocity.y) < kFlingStopCss * s.dpr;
    if (slow || (dt > 0 && !scroll_by(step))) {
        finish(Gesture::Fling);
        return false;
    }
    const float decay = static_cast<float>(std::exp(-dt / kFlingTau));
    s.velocity = ImVec2(s.velocity.x * decay, s.velocity.y * decay);
    return true;
}

}  // namespace

Result on_touch(Phase phase, int count, const Point* points, double time_ms, double dpr) {
    s.dpr = dpr > 0 ? dpr : 1;
    bool tapped = false;
    const bool pinching = s.gesture == Gesture::Pinch;
    switch (phase) {
        case Phase::Start:
            if (count >= 2 && !pinching) start_pinch(points);
            else if (count == 1) start_one(points[0], time_ms);
            break;
        case Phase::Move:
            if (pinching && count >= 2) pinch_to(points);
            else if (count == 1) move_one(points[0], time_ms);
            break;
        case Phase::End:
        case Phase::Cancel:
            if (count > 0) {
                if (pinching) s.gesture = Gesture::Ignore, s.last = Gesture::Pinch;  // then the other finger lifts
                break;
            }
            if (phase == Phase::Cancel && s.gesture == Gesture::Pending) s.moved = true;  // no tap
            lift_one(time_ms);
            tapped = s.gesture == Gesture::None && s.last == Gesture::Pending;
            break;
    }
    return !tapped ? Result::None : tap_on_text() ? Result::TapOnText : Result::Tap;
}

bool needs_frame() {
    return s.last == Gesture::Pending && s.gesture == Gesture::None && s.under.frames < 2;
}

bool tap_on_text() { return s.under.ready && s.under.text; }

bool before_frame(double now_ms) {  // now_ms: the momentum's clock
    switch (s.gesture) {
        case Gesture::Pending:
            if (s.moved) decide();
            break;
        case Gesture::Scroll:
            if (!window_by_id(s.target)) finish(Gesture::Scroll);
            else scroll_by(s.pending_scroll);
            s.pending_scroll = ImVec2(0, 0);
            break;
        case Gesture::Fling: return fling_step(now_ms);
        default: break;
    }
    return false;
}

// Every frame drawn with the pointer where the finger came down says again what is
// there (the newest: ImGui's hover can take a frame to settle on a widget).
void after_frame() {
    const bool fresh = s.gesture == Gesture::Pending || (s.gesture == Gesture::None && s.last == Gesture::Pending);
    if (!fresh) return;
    const ImGuiContext& g = *ImGui::GetCurrentContext();
    // The frame was drawn with the pointer where the finger came down (ImGui floors it).
    const ImVec2 pointer = g.IO.MousePos;
    if (pointer.x != std::floor(static_cast<float>(s.start.x)) || pointer.y != std::floor(static_cast<float>(s.start.y))) return;
    s.under.ready = true;
    ++s.under.frames;
    s.under.window = g.HoveredWindow ? g.HoveredWindow->ID : 0;
    s.under.item = g.HoveredId;
    s.under.text = ImGui::GetMouseCursor() == ImGuiMouseCursor_TextInput;
}

float zoom() { return s.zoom; }

float zoom_max() {
    if (s.css_width <= 0) return kZoomMax;
    const double room = std::floor(s.css_width / kZoomRoomCss / kZoomStep + 1e-6) * kZoomStep;
    return static_cast<float>(std::max(1.0, std::min<double>(kZoomMax, room)));
}

void set_screen_css_width(double css_width) {
    s.css_width = css_width;
    if (s.zoom > zoom_max()) s.zoom = zoom_max();
}


const char* gesture_name() { return kGestureNames[static_cast<int>(s.gesture)]; }

const char* last_gesture_name() { return s.last == Gesture::Pending ? "tap" : kGestureNames[static_cast<int>(s.last)]; }

}  // namespace lab_touch
