// input_queue.cpp — Attention Lab platform: keys and text handed to Dear ImGui a
// frame's worth at a time (see input_queue.h).
#include "platform/input_queue.h"

#include <imgui.h>
#include <imgui_impl_glfw.h>

#include <GLFW/glfw3.h>

#include <algorithm>
#include <cfloat>
#include <deque>
#include <vector>

#include "app/state/lab_app.h"
#include "platform/frame_pacing.h"

namespace lab_input {

namespace {

struct Event {
    enum Kind { Key, Char, Text, Paste, Button, Cursor, Leave } kind = Key;
    int key = 0, scancode = 0, action = 0, mods = 0;  // Key; Button: key = the button
    unsigned int codepoint = 0;                      // Char
    std::string text;                                // Text, Paste
    double x = 0, y = 0;                             // Cursor
};

constexpr int kButtons = 5;  // ImGui's io.MouseDown

struct State {
    GLFWwindow* window = nullptr;
    std::deque<Event> queue;
    std::string clipboard;
    bool pointer_known = false;  // a cursor event arrived
    bool pointer_gone = false;   // a finger lifted (Leave) and no pointer moved since
    double x = 0, y = 0;         // the pointer and buttons as delivered so far
    bool buttons[kButtons] = {};
    bool queued_pointer = false;  // the pointer as queued last
    double queued_x = 0, queued_y = 0;
};
State s;

bool is_modifier(int key) {
    switch (key) {
        case GLFW_KEY_LEFT_CONTROL: case GLFW_KEY_RIGHT_CONTROL: case GLFW_KEY_LEFT_SHIFT: case GLFW_KEY_RIGHT_SHIFT:
        case GLFW_KEY_LEFT_ALT: case GLFW_KEY_RIGHT_ALT: case GLFW_KEY_LEFT_SUPER: case GLFW_KEY_RIGHT_SUPER:
            return true;
        default:
            return false;
    }
}

// ImGui's shortcut modifier: Ctrl, or Cmd where ImGui follows macOS conventions.
bool shortcut_down(const ImGuiIO& io) { return io.ConfigMacOSXBehaviors ? io.KeySuper : io.KeyCtrl; }

// Keys whose press ImGui or the app acts on: modifiers, the editing and navigation
// keys of ImGui's key map, and the letters of its shortcuts while the shortcut
// modifier is down. Other keys only type characters, which are queued in order.
bool watched(const ImGuiIO& io, int key) {
    if (is_modifier(key)) return true;
    // Space types a character, and in keyboard mode (keyboard_nav.h) it also presses the focused widget.
    if (key == GLFW_KEY_SPACE) return (io.ConfigFlags & ImGuiConfigFlags_NavEnableKeyboard) != 0;
    for (int i = 0; i < ImGuiKey_COUNT; ++i)
        if (io.KeyMap[i] == key) return key < GLFW_KEY_A || key > GLFW_KEY_Z || shortcut_down(io);
    return false;
}

void on_key(GLFWwindow*, int key, int scancode, int action, int mods) {
    Event e;
    e.kind = Event::Key, e.key = key, e.scancode = scancode, e.action = action, e.mods = mods;
    s.queue.push_back(e);
    lab_pacing::wake();
}

void on_char(GLFWwindow*, unsigned int c) {
    Event e;
    e.kind = Event::Char, e.codepoint = c;
    s.queue.push_back(e);
    lab_pacing::wake();
}

void queue_cursor(double x, double y) {
    Event e;
    e.kind = Event::Cursor, e.x = x, e.y = y;
    s.queue.push_back(e);
    s.queued_x = x, s.queued_y = y, s.queued_pointer = true;
    lab_pacing::wake();
}

void on_cursor(GLFWwindow*, double x, double y) { queue_cursor(x, y); }

// A press or release where no move event brought the pointer (a touch, a click
// right after the page appeared) moves it there first.
void on_button(GLFWwindow* window, int button, int action, int) {
    double x = 0, y = 0;
    glfwGetCursorPos(window, &x, &y);
    if (!s.queued_pointer || x != s.queued_x || y != s.queued_y) on_cursor(window, x, y);
    Event e;
    e.kind = Event::Button, e.key = button, e.action = action;
    s.queue.push_back(e);
    lab_pacing::wake();
}

void push(Event::Kind kind, const std::string& text) {
    Event e;
    e.kind = kind, e.text = text;
    s.queue.push_back(e);
    lab_pacing::wake();
}

// The app's navigation keys, queued by the app itself: it reads them even when a
// press and release fell into one frame.
void queue_app_key(lab::LabApp& app, int key, int mods) {
    switch (key) {
        case GLFW_KEY_TAB: app.pending_keys.push_back(mods & GLFW_MOD_SHIFT ? lab::LabKey::BackTab : lab::LabKey::Tab); break;
        case GLFW_KEY_ENTER: case GLFW_KEY_KP_ENTER: app.pending_keys.push_back(lab::LabKey::Enter); break;
        case GLFW_KEY_LEFT: app.pending_keys.push_back(lab::LabKey::Left); break;
        case GLFW_KEY_RIGHT: app.pending_keys.push_back(lab::LabKey::Right); break;
        case GLFW_KEY_HOME: app.pending_keys.push_back(lab::LabKey::Home); break;
        case GLFW_KEY_END: app.pending_keys.push_back(lab::LabKey::End); break;
        case GLFW_KEY_ESCAPE: app.pending_keys.push_back(lab::LabKey::Escape); break;
        default: break;
    }
}

}  // namespace

void install(GLFWwindow* window) {
    s.window = window;
    glfwSetKeyCallback(window, on_key);
    glfwSetCharCallback(window, on_char);
    glfwSetMouseButtonCallback(window, on_button);
    glfwSetCursorPosCallback(window, on_cursor);
}

void push_text(const std::string& utf8) {
    if (!utf8.empty()) push(Event::Text, utf8);
}

void push_paste(const std::string& utf8) { push(Event::Paste, utf8); }

void push_pointer(double x, double y) { queue_cursor(x, y); }

void push_left_button(bool down) {
    Event e;
    e.kind = Event::Button, e.key = GLFW_MOUSE_BUTTON_LEFT, e.action = down ? GLFW_PRESS : GLFW_RELEASE;
    s.queue.push_back(e);
    lab_pacing::wake();
}

void push_pointer_leave() {
    Event e;
    e.kind = Event::Leave;
    s.queue.push_back(e);
    s.queued_pointer = false;
    lab_pacing::wake();
}

namespace {

// What one frame has taken so far, to decide where the next frame begins.
struct Frame {
    std::vector<int> keys;       // keys pressed or released
    bool typed = false;          // characters delivered
    int last_press = -1;         // the key pressed last
    bool moved = false;          // the pointer moved
    bool clicked[kButtons] = {};  // buttons pressed or released
};

// False: the event belongs to the next frame.
bool fits(const Event& e, const Frame& f, const ImGuiIO& io) {
    switch (e.kind) {
        case Event::Key: {
            if (e.action == GLFW_REPEAT) return true;
            const bool seen = std::find(f.keys.begin(), f.keys.end(), e.key) != f.keys.end();
            return !(seen && watched(io, e.key)) && !(f.typed && is_modifier(e.key));
        }
        case Event::Button:
            return e.key < 0 || e.key >= kButtons || (!f.moved && !f.clicked[e.key]);
        case Event::Cursor:
        case Event::Leave:
            return std::none_of(f.clicked, f.clicked + kButtons, [](bool b) { return b; });
        default:
            return true;
    }
}

void apply(const Event& e, Frame& f, ImGuiIO& io, lab::LabApp& app) {
    switch (e.kind) {
        case Event::Key:
            if (e.action != GLFW_REPEAT) {
                f.keys.push_back(e.key);
                f.last_press = e.action == GLFW_PRESS ? e.key : -1;
                if (e.action == GLFW_PRESS) queue_app_key(app, e.key, e.mods);
            }
            ImGui_ImplGlfw_KeyCallback(s.window, e.key, e.scancode, e.action, e.mods);
            break;
        case Event::Char: ImGui_ImplGlfw_CharCallback(s.window, e.codepoint), f.typed = true; break;
        case Event::Text: io.AddInputCharactersUTF8(e.text.c_str()), f.typed = true; break;
        case Event::Paste: {
            const bool imgui_pastes = (f.last_press == GLFW_KEY_V && shortcut_down(io)) ||
                                      (f.last_press == GLFW_KEY_INSERT && io.KeyShift && !io.KeyCtrl);
            if (imgui_pastes) s.clipboard = e.text;  // ImGui's paste shortcut reads it this frame
            else io.AddInputCharactersUTF8(e.text.c_str()), f.typed = true;
            break;
        }
        case Event::Button:
            if (e.key >= 0 && e.key < kButtons) s.buttons[e.key] = e.action == GLFW_PRESS, f.clicked[e.key] = true;
            break;
        case Event::Cursor: s.x = e.x, s.y = e.y, s.pointer_known = true, s.pointer_gone = false, f.moved = true; break;
        case Event::Leave: s.pointer_gone = true, f.moved = true; break;
    }
}

}  // namespace

void deliver(lab::LabApp& app) {
    ImGuiIO& io = ImGui::GetIO();
    Frame f;
    bool delivered = false;
    while (!s.queue.empty() && fits(s.queue.front(), f, io)) {
        apply(s.queue.front(), f, io, app);
        s.queue.pop_front();
        delivered = true;
    }
    if (delivered) lab_pacing::wake();  // ImGui settles over the frames after it sees the input
    // The pointer as delivered (ImGui's backend read the newest one); none if the
    // backend has none (the window lost the mouse) or a finger lifted since.
    for (int b = 0; b < kButtons; ++b) io.MouseDown[b] = s.buttons[b];
    if (s.pointer_gone) io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
    else if (s.pointer_known && io.MousePos.x > -FLT_MAX) io.MousePos = ImVec2(static_cast<float>(s.x), static_cast<float>(s.y));
}

bool pending() { return !s.queue.empty(); }

const char* clipboard_text() { return s.clipboard.c_str(); }

void set_clipboard_text(const char* text) { s.clipboard = text ? text : ""; }

}  // namespace lab_input
