// input_queue.cpp — Attention Lab platform: keys and text handed to Dear ImGui a
// frame's worth at a time (see input_queue.h).
#include "input_queue.h"

#include <imgui.h>
#include <imgui_impl_glfw.h>

#include <GLFW/glfw3.h>

#include <algorithm>
#include <deque>
#include <vector>

#include "app/lab_app.h"
#include "frame_pacing.h"

namespace lab_input {

namespace {

struct Event {
    enum Kind { Key, Char, Text, Paste } kind = Key;
    int key = 0, scancode = 0, action = 0, mods = 0;  // Key
    unsigned int codepoint = 0;                      // Char
    std::string text;                                // Text, Paste
};

struct State {
    GLFWwindow* window = nullptr;
    std::deque<Event> queue;
    std::string clipboard;
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
    if (key == GLFW_KEY_SPACE) return false;
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

void push(Event::Kind kind, const std::string& text) {
    Event e;
    e.kind = kind, e.text = text;
    s.queue.push_back(e);
    lab_pacing::wake();
}

// The app's navigation keys, queued by the app itself: it reads them even when a
// press and release fell into one frame.
void queue_app_key(lab::LabApp& app, int key) {
    switch (key) {
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
}

void push_text(const std::string& utf8) {
    if (!utf8.empty()) push(Event::Text, utf8);
}

void push_paste(const std::string& utf8) { push(Event::Paste, utf8); }

void deliver(lab::LabApp& app) {
    ImGuiIO& io = ImGui::GetIO();
    std::vector<int> keys_this_frame;
    bool typed = false;         // characters were delivered this frame
    int last_press = -1;        // the key pressed last in this frame
    while (!s.queue.empty()) {
        const Event& e = s.queue.front();
        if (e.kind == Event::Key && e.action != GLFW_REPEAT) {
            const bool seen = std::find(keys_this_frame.begin(), keys_this_frame.end(), e.key) != keys_this_frame.end();
            if ((seen && watched(io, e.key)) || (typed && is_modifier(e.key))) break;  // the rest next frame
            keys_this_frame.push_back(e.key);
            last_press = e.action == GLFW_PRESS ? e.key : -1;
            if (e.action == GLFW_PRESS) queue_app_key(app, e.key);
        }
        if (e.kind == Event::Key) ImGui_ImplGlfw_KeyCallback(s.window, e.key, e.scancode, e.action, e.mods);
        if (e.kind == Event::Char) ImGui_ImplGlfw_CharCallback(s.window, e.codepoint), typed = true;
        if (e.kind == Event::Text) io.AddInputCharactersUTF8(e.text.c_str()), typed = true;
        if (e.kind == Event::Paste) {
            const bool imgui_pastes = (last_press == GLFW_KEY_V && shortcut_down(io)) ||
                                      (last_press == GLFW_KEY_INSERT && io.KeyShift && !io.KeyCtrl);
            if (imgui_pastes) s.clipboard = e.text;
            else io.AddInputCharactersUTF8(e.text.c_str()), typed = true;
        }
        s.queue.pop_front();
    }
}

bool pending() { return !s.queue.empty(); }

const char* clipboard_text() { return s.clipboard.c_str(); }

void set_clipboard_text(const char* text) { s.clipboard = text ? text : ""; }

}  // namespace lab_input
