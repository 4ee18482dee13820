// input_queue.h — Attention Lab platform: keys and text, queued as they happen and
// handed to Dear ImGui a frame's worth at a time.
//
// Dear ImGui 1.86 reads the keyboard and the mouse as "what is down, where is the
// pointer" once per frame, so:
//  - a chord pressed and released between two frames (Ctrl+C typed quickly, a test's
//    keyboard.press) is never seen: the queue gives a watched key's press and its
//    release to different frames;
//  - a click that arrives with the pointer's jump to a new place is read as if the
//    pointer had always been there, which some widgets refuse (a tab is hovered only
//    if nothing else was hovered in the frame before): the queue moves the pointer
//    in one frame and presses in the next, and releases a button a frame after it
//    was pressed;
//  - characters arriving while Ctrl is down are dropped by InputText (it ignores
//    typing with Ctrl), which is where the browser's paste of Ctrl+V lands: a paste
//    that follows a Ctrl+V / Shift+Insert press becomes the clipboard text that
//    ImGui's own paste shortcut reads in that very frame, any other paste (a menu,
//    Cmd+V) is typed; and text typed before Ctrl went down is read before it.
// The wheel goes to ImGui directly. Touch arrives here as pointer events
// (touch_input.h turns gestures into them): the pointer can also leave, which
// hides it from ImGui (no hover) until the next move.
#pragma once
#include <string>

struct GLFWwindow;
namespace lab {
struct LabApp;
}

namespace lab_input {

// After ImGui_ImplGlfw_InitForOpenGL(window, true): takes over its key, character,
// mouse button and cursor callbacks (and passes them on, queued). Every event wakes
// the frame pacing.
void install(GLFWwindow* window);
// Text that arrives without key presses: an input method's commit, insertText (web).
void push_text(const std::string& utf8);
// The browser's paste event (web); see above.
void push_paste(const std::string& utf8);
// A pointer that is not GLFW's (a finger): moves to (x, y) in framebuffer pixels,
// presses or releases the left button, leaves (ImGui sees no pointer until the next
// move, of a finger or of the mouse).
void push_pointer(double x, double y);
void push_left_button(bool down);
void push_pointer_leave();
// After ImGui_ImplGlfw_NewFrame and before ImGui::NewFrame: delivers the queued
// events one frame may see, and queues the app's navigation keys (app.pending_keys)
// as they are delivered.
void deliver(lab::LabApp& app);
// Events are still queued: another frame is needed.
bool pending();

// What a paste inserts (ImGui's GetClipboardTextFn on the web, where the system
// clipboard can only be read in a paste event) and what copy / cut put there.
const char* clipboard_text();
void set_clipboard_text(const char* text);

}  // namespace lab_input
