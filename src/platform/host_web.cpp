// host_web.cpp — Attention Lab platform: the page's host (Emscripten). Everything
// that touches the browser is here and in web/lab_bridge.js, its JavaScript half
// (linked with --post-js): the canvas and devicePixelRatio, frames on demand, the
// wheel, touch (touch_input.h), IME text and paste, the URL hash, downloads and the
// clipboard, the Chinese font's fetch, the canvas as text and the keyboard in and out
// of it (issue 28), and the functions behind window.lab.
//
// Frames on demand: nothing runs while nothing changes. An event (GLFW's callbacks,
// the wheel, the bridge's listeners for text, paste, hash, resize and font) wakes
// lab_pacing, which asks here for an animation frame; after each frame lab_pacing
// says when the next one is due (at once, after a delay, or not until an event).
#include <emscripten.h>
#include <emscripten/eventloop.h>
#include <emscripten/html5.h>

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstring>
#include <string>

#include "app/page_mirror.h"
#include "app/state/lab_app.h"
#include "platform/cjk_font.h"
#include "platform/frame_pacing.h"
#include "platform/host.h"
#include "platform/imgui_probe.h"
#include "platform/input_queue.h"
#include "platform/touch_input.h"

namespace lab_host {

namespace {

struct State {
    GLFWwindow* window = nullptr;
    lab::LabApp* app = nullptr;
    void (*draw_frame)() = nullptr;
    bool frame_requested = false;
    long animation_frame = 0;    // its requestAnimationFrame id
    long timer = 0;              // a pending delayed frame (emscripten_set_timeout id)
    double frame_ms = 0;         // main-thread time of the last frame
    long drawn_by_state = 0;     // frames drawn inside window.lab.state() (draw_due_frames)
    std::string hash_written;    // the URL hash as the app last wrote it
    int ime_x = 0, ime_y = 0;    // the text caret, for the input method's window
    std::string checkpoint_bytes;                   // a shipped checkpoint's file arriving
    std::vector<lab::ArchiveFile> checkpoint_files;  // and those that have
};
State s;

// ---- the browser, through the page's JavaScript --------------------------------

EM_JS(int, js_hash_size, (), { return lengthBytesUTF8(window.location.hash) + 1; });
EM_JS(void, js_hash_copy, (char* out, int size), { stringToUTF8(window.location.hash, out, size); });
EM_JS(void, js_hash_replace, (const char* hash), {
    var h = '#' + UTF8ToString(hash);
    if (window.location.hash !== h) history.replaceState(null, "", h);
});
EM_JS(int, js_language_size, (), { return lengthBytesUTF8(navigator.language || "") + 1; });
EM_JS(void, js_language_copy, (char* out, int size), { stringToUTF8(navigator.language || "", out, size); });
EM_JS(int, js_url_size, (const char* hash), {
    return lengthBytesUTF8(location.origin + location.pathname + "#" + UTF8ToString(hash)) + 1;
});
EM_JS(void, js_url_copy, (const char* hash, char* out, int size), {
    stringToUTF8(location.origin + location.pathname + "#" + UTF8ToString(hash), out, size);
});
EM_JS(void, js_save_file, (const char* name, const char* bytes, int size, const char* mime), {
    window.lab.saveFile(UTF8ToString(name), HEAPU8.slice(bytes, bytes + size), UTF8ToString(mime));
});
EM_JS(void, js_copy_text, (const char* text), { window.lab.copyText(UTF8ToString(text), true); });
EM_JS(void, js_clipboard_write, (const char* text), { window.lab.copyText(UTF8ToString(text), false); });
EM_JS(void, js_text_input_state, (int active, int x, int y), { window.lab.textInput(active, x, y); });
EM_JS(void, js_load_cjk_font, (), { window.lab.loadCjkFont(); });
// localStorage may be missing or refuse (private windows, storage off): then nothing is kept.
EM_JS(int, js_stored_size, (const char* key), {
    try { var v = window.localStorage.getItem(UTF8ToString(key)); return v === null ? 1 : lengthBytesUTF8(v) + 1; } catch (e) { return 1; }
});
EM_JS(void, js_stored_copy, (const char* key, char* out, int size), {
    try { stringToUTF8(window.localStorage.getItem(UTF8ToString(key)) || "", out, size); } catch (e) { stringToUTF8("", out, size); }
});
EM_JS(void, js_store, (const char* key, const char* text), {
    try { window.localStorage.setItem(UTF8ToString(key), UTF8ToString(text)); } catch (e) {}
});
EM_JS(void, js_fetch_checkpoint, (const char* task), { window.lab.fetchCheckpoint(UTF8ToString(task)); });
EM_JS(void, js_set_ready, (), {
    window.lab.ready = true;
    if (window.labReady) window.labReady();  // index.html: the loader goes
});
EM_JS(int, js_canvas_width, (), { return window.labCanvas ? window.labCanvas.width : 1280; });
EM_JS(int, js_canvas_height, (), { return window.labCanvas ? window.labCanvas.height : 800; });
EM_JS(double, js_canvas_dpr, (), { return window.labCanvas ? window.labCanvas.dpr : 1; });
// What glfwSetWindowSize does, minus its quirk: Emscripten's GLFW goes fullscreen
// when the size asked for equals the screen's (a 1280x800 canvas on a 1280x800
// screen), which a page may not do without a click.
EM_JS(void, js_resize_window, (int width, int height), { Browser.setCanvasSize(width, height); });

// A string the page's JavaScript measures and copies (size includes the NUL).
template <class Size, class Copy>
std::string js_string(Size size, Copy copy) {
    std::string out(static_cast<size_t>(size()), '\0');
    copy(&out[0], static_cast<int>(out.size()));
    out.resize(std::strlen(out.c_str()));
    return out;
}

std::string location_hash() {
    const std::string h = js_string(js_hash_size, js_hash_copy);
    return h.empty() || h[0] != '#' ? h : h.substr(1);
}

// The URL hash mirrors the view. An edit from outside (address bar, a pasted link,
// back/forward; each wakes a frame) is applied; the app's own changes replace it.
void sync_url_hash(lab::LabApp& app) {
    const std::string now = location_hash();
    if (now != s.hash_written && !(now.empty() && s.hash_written.empty())) lab::lab_apply_url_hash(app, now);
    const std::string want = lab::lab_url_hash(app);
    if (want != now) js_hash_replace(want.c_str());
    s.hash_written = want;
}

// ---- issue 28.3 / 28.4: the canvas as text, and the keyboard in and out of the canvas -----
// The app's text version of the screen (app/page_mirror.h) goes to the page's DOM when it
// changed; Esc with nothing to close (app/state/keyboard_nav.h) moves the browser's focus to the
// page's buttons. web/lab_bridge.js draws the one and calls back for the buttons below.
EM_JS(void, js_page_mirror, (const char* json), { window.lab.mirror(UTF8ToString(json)); });
EM_JS(void, js_leave_canvas, (), { window.lab.leaveCanvas(); });

void sync_page_mirror(lab::LabApp& app) {
    static std::string sent;  // the description the page has
    std::string now = lab::page_mirror_json(app);
    if (now != sent) js_page_mirror(now.c_str()), sent.swap(now);
    if (app.nav.leave_canvas) js_leave_canvas();
}

// ---- the app's host functions (LabHost) and ImGui's clipboard ---------------------

void save_file(const std::string& name, const std::string& bytes, const char* mime) {
    js_save_file(name.c_str(), bytes.data(), static_cast<int>(bytes.size()), mime);
}
void copy_text(const std::string& text) { js_copy_text(text.c_str()); }
void fetch_checkpoint(const std::string& task) { js_fetch_checkpoint(task.c_str()); }
std::string share_url(const std::string& hash) {
    return js_string([&] { return js_url_size(hash.c_str()); },
                     [&](char* out, int size) { js_url_copy(hash.c_str(), out, size); });
}
std::string load_text(const char* key) {
    return js_string([&] { return js_stored_size(key); }, [&](char* out, int size) { js_stored_copy(key, out, size); });
}
void save_text(const char* key, const std::string& text) { js_store(key, text.c_str()); }
// The system clipboard can only be read in a paste event (lab_input::push_paste);
// copy and cut write through to it.
const char* clipboard_get(void*) { return lab_input::clipboard_text(); }
void clipboard_set(void*, const char* text) {
    lab_input::set_clipboard_text(text);
    js_clipboard_write(text ? text : "");
}
void on_ime_position(int x, int y) { s.ime_x = x, s.ime_y = y; }

// ---- input the host delivers itself ---------------------------------------------

// The wheel, as Dear ImGui 1.86 expects it: notches, + = up / left (one notch
// scrolls 5 lines). The DOM gives + = down / right in CSS pixels (Chromium: 100 a
// notch), lines (3 a notch) or pages. (Emscripten's GLFW passes the DOM's pixels on
// unconverted: one notch down scrolled 100 notches up, i.e. to the top.)
EM_BOOL on_wheel(int, const EmscriptenWheelEvent* e, void*) {
    double notches_per_unit = 1.0 / 100.0;
    if (e->deltaMode == DOM_DELTA_LINE) notches_per_unit = 1.0 / 3.0;
    if (e->deltaMode == DOM_DELTA_PAGE) notches_per_unit = 80.0;
    ImGuiIO& io = ImGui::GetIO();
    io.MouseWheel -= static_cast<float>(e->deltaY * notches_per_unit);
    io.MouseWheelH -= static_cast<float>(e->deltaX * notches_per_unit);
    lab_pacing::wake();
    return EM_TRUE;  // the page itself never scrolls
}

// ---- frames on demand -------------------------------------------------------------

void request_frame();

void schedule(double seconds) {
    if (seconds == 0) return request_frame();
    if (seconds < 0) return;  // rest until an event wakes the pacing
    s.timer = emscripten_set_timeout([](void*) { s.timer = 0, request_frame(); }, seconds * 1000.0, nullptr);
}

EM_BOOL on_animation_frame(double, void*) {
    s.frame_requested = false;
    if (s.timer) emscripten_clear_timeout(s.timer), s.timer = 0;
    const double t0 = emscripten_get_now();
    s.draw_frame();
    s.frame_ms = emscripten_get_now() - t0;
    schedule(lab_pacing::after_frame(*s.app));
    return EM_FALSE;
}

void request_frame() {
    if (s.frame_requested || !s.draw_frame) return;
    s.frame_requested = true;
    s.animation_frame = emscripten_request_animation_frame(on_animation_frame, nullptr);
}

// window.lab.state() reports what is on screen once the current task ends: a frame
// that is due (input arrived, the test API changed something, the URL hash was
// edited and its hashchange event has not run yet) is drawn now rather than at the
// next animation frame, and so is the app's own follow-up (a recompute it queued).
void draw_due_frames() {
    if (!s.draw_frame) return;
    if (location_hash() != s.hash_written) lab_pacing::wake();
    for (int i = 0; i < 4 && s.frame_requested && (i == 0 || lab::lab_frame_wanted_in(*s.app) == 0); ++i) {
        emscripten_cancel_animation_frame(s.animation_frame);
        on_animation_frame(0, nullptr);
        ++s.drawn_by_state;
    }
}

}  // namespace

Window open(int, char**) {
    Window w;
    if (!glfwInit()) {
        std::fprintf(stderr, "attention_lab: glfwInit failed\n");
        return w;
    }
    glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
    w.glsl_version = "#version 300 es";
    w.window = glfwCreateWindow(js_canvas_width(), js_canvas_height(), "Attention Lab", nullptr, nullptr);
    if (!w.window) return std::fprintf(stderr, "attention_lab: cannot create a WebGL 2 context\n"), w;
    glfwMakeContextCurrent(w.window);
    return w;
}

void connect(GLFWwindow* window, lab::LabApp& app) {
    s.window = window, s.app = &app;
    app.host.save_file = save_file;
    app.host.copy_text = copy_text;
    app.host.share_url = share_url;
    app.host.load_text = load_text;
    app.host.save_text = save_text;
    app.host.fetch_checkpoint = fetch_checkpoint;
    ImGuiIO& io = ImGui::GetIO();
    io.ImeSetInputScreenPosFn = on_ime_position;
    io.GetClipboardTextFn = clipboard_get;
    io.SetClipboardTextFn = clipboard_set;
    glfwSetScrollCallback(window, nullptr);  // on_wheel instead
    emscripten_set_wheel_callback("#canvas", nullptr, EM_TRUE, on_wheel);
    // The interface language: the URL hash's lang= wins, else the browser's (zh* -> 中文).
    lab::Lang lang = lab::Lang::En;
    if (lab::parse_lang(js_string(js_language_size, js_language_copy), &lang) && lang != app.lang)
        lab::lab_set_language(app, lang);
    s.hash_written = location_hash();
    if (!s.hash_written.empty()) lab::lab_apply_url_hash(app, s.hash_written);
}

void run(void (*draw_frame)()) {
    s.draw_frame = draw_frame;
    lab_pacing::set_waker(request_frame);
    request_frame();
    emscripten_exit_with_live_runtime();  // frames come from the browser from now on
}

// The page sizes the canvas backing store to CSS size x devicePixelRatio
// (index.html); Emscripten's GLFW then reports sizes in backing-store pixels, so
// ImGui draws 1:1 and the UI scale follows the dpr.
void begin_frame(lab::LabApp& app) {
    const int w = js_canvas_width(), h = js_canvas_height();
    const double dpr = js_canvas_dpr();
    int cw = 0, ch = 0;
    glfwGetWindowSize(s.window, &cw, &ch);
    if (w > 0 && h > 0 && (w != cw || h != ch)) js_resize_window(w, h);  // GLFW hears it and calls back
    const double ratio = dpr > 0.5 && dpr < 8 ? dpr : 1.0;
    lab_touch::set_screen_css_width(w > 0 ? w / ratio : 0);
    app.ui_scale = static_cast<float>(ratio) * lab_touch::zoom();  // a pinch's zoom
    if (lab_touch::before_frame(emscripten_get_now())) lab_pacing::wake(2);  // momentum: the next frame
}

void end_frame(lab::LabApp& app) {
    lab_touch::after_frame();
    js_text_input_state(ImGui::GetIO().WantTextInput ? 1 : 0, s.ime_x, s.ime_y);
    sync_url_hash(app);
    sync_page_mirror(app);
}

void present(lab::LabApp& app, int, int) {
    if (app.frame == 2) js_set_ready();  // the first complete frame is on screen
}

void load_cjk_font() { js_load_cjk_font(); }

void close(GLFWwindow* window) {
    glfwDestroyWindow(window);
    glfwTerminate();
}

namespace {

// What the host adds to window.lab.state(): scroll positions of every window, the
// text fields, and the frame pacing.
std::string state_json() {
    using nlohmann::json;
    json scroll = json::object();
    for (const lab_probe::ScrollRegion& r : lab_probe::scroll_regions())
        scroll[r.id] = {{"x", r.x}, {"y", r.y}, {"w", r.w}, {"h", r.h}, {"scroll_x", r.scroll_x},
                        {"scroll_y", r.scroll_y}, {"max_x", r.max_x}, {"max_y", r.max_y}};
    const lab_probe::EditedText e = lab_probe::edited_text();
    json editing = nullptr;
    if (e.active)
        editing = {{"text", e.text}, {"cursor", e.cursor}, {"select_start", e.select_start}, {"select_end", e.select_end}};
    const json fields = {{"tokens", s.app->token_text}, {"config", s.app->config_text}, {"editing", editing}};
    const lab_pacing::Stats p = lab_pacing::stats();
    // settled: no frame is due now (a later one may be: the caret's blink);
    // resting: none at all until an event.
    const bool settled = !s.frame_requested && p.next_in != 0;
    const json render = {{"drawn", p.drawn}, {"drawn_by_state", s.drawn_by_state}, {"wakes", p.wakes},
                         {"settled", settled}, {"resting", settled && p.resting}, {"next_in", p.next_in},
                         {"frame_ms", s.frame_ms}};
    const json touch = {{"gesture", lab_touch::gesture_name()}, {"last", lab_touch::last_gesture_name()},
                        {"zoom", lab_touch::zoom()}, {"zoom_min", lab_touch::kZoomMin}, {"zoom_max", lab_touch::zoom_max()}};
    const json out = {{"scroll", scroll}, {"fields", fields}, {"render", render}, {"font_size", ImGui::GetFontSize()},
                      {"touch", touch}};
    return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

}  // namespace lab_host

// ---- window.lab (web/lab_bridge.js calls these) ---------------------------------------

extern "C" {

EMSCRIPTEN_KEEPALIVE const char* lab_state_json() {
    lab_host::draw_due_frames();
    static std::string json;
    json = lab::lab_state_json(*lab_host::s.app);
    return json.c_str();
}

EMSCRIPTEN_KEEPALIVE const char* lab_host_state_json() {
    static std::string json;
    json = lab_host::state_json();
    return json.c_str();
}

// Draw `frames` frames (the test API and the page's own listeners: resize, hash, focus).
EMSCRIPTEN_KEEPALIVE void lab_wake(int frames) { lab_pacing::wake(frames > 0 ? frames : lab_pacing::kSettleFrames); }

// A config file dropped on the page (its bytes; a file over the limit arrives empty
// with its real size).
EMSCRIPTEN_KEEPALIVE void lab_load_config_bytes(const char* name, const char* bytes, int length, double size) {
    constexpr double kLimit = 1 << 20;
    lab::LabApp& app = *lab_host::s.app;
    const std::string file = name ? name : "";
    if (size > kLimit) lab::lab_refuse_config_file(app, file, size);
    else lab::lab_load_config_text(app, file, std::string(bytes ? bytes : "", bytes ? static_cast<size_t>(length) : 0));
    lab_pacing::wake();
}

// A touch event on the canvas (web/lab_bridge.js; see touch_input.h): phase 0 start,
// 1 move, 2 end, 3 cancel; count and up to two points in framebuffer pixels (end /
// cancel: the fingers still down, and the lifted finger's point); the event's time
// (performance.now's clock: when the finger moved, which a busy page handles later). Returns 1 for a
// tap, 2 for a tap on a text field: the page then focuses its text input while the
// event runs, which is what opens an on-screen keyboard. Telling that needs a frame
// drawn with the pointer where the finger came down, so a quick tap draws it now.
EMSCRIPTEN_KEEPALIVE int lab_touch_event(int phase, int count, double x0, double y0, double x1, double y1, double time_ms) {
    using namespace lab_host;
    if (phase < 0 || phase > 3 || count < 0) return 0;
    const lab_touch::Point points[2] = {{x0, y0}, {x1, y1}};
    const auto p = static_cast<lab_touch::Phase>(phase);
    lab_touch::Result result = lab_touch::on_touch(p, count, points, time_ms, js_canvas_dpr());
    for (int i = 0; i < 3 && s.draw_frame && lab_touch::needs_frame(); ++i) {
        if (s.frame_requested) emscripten_cancel_animation_frame(s.animation_frame);
        on_animation_frame(0, nullptr);
        if (result != lab_touch::Result::None)
            result = lab_touch::tap_on_text() ? lab_touch::Result::TapOnText : lab_touch::Result::Tap;
    }
    return static_cast<int>(result);
}

// Text without key presses (an input method's commit, insertText), and the
// browser's paste (see input_queue.h).
EMSCRIPTEN_KEEPALIVE void lab_text_input(const char* utf8) { lab_input::push_text(utf8 ? utf8 : ""); }
EMSCRIPTEN_KEEPALIVE void lab_paste(const char* utf8) { lab_input::push_paste(utf8 ? utf8 : ""); }

// The Chinese font's bytes go into this buffer, then arrive.
EMSCRIPTEN_KEEPALIVE unsigned char* lab_font_buffer(int size) {
    return lab_font::buffer(size > 0 ? static_cast<size_t>(size) : 0);
}
EMSCRIPTEN_KEEPALIVE void lab_font_arrived(int ok, const char* error) {
    lab_font::arrived(ok != 0, error ? error : "");
    lab_pacing::wake();
}

// A shipped checkpoint (web/lab_bridge.js fetches the page's checkpoints/<task>/ files):
// each file's bytes into the buffer, then its path; then done (error "" when all came).
EMSCRIPTEN_KEEPALIVE unsigned char* lab_checkpoint_buffer(int size) {
    lab_host::s.checkpoint_bytes.assign(size > 0 ? static_cast<size_t>(size) : 0, '\0');
    return reinterpret_cast<unsigned char*>(&lab_host::s.checkpoint_bytes[0]);
}
EMSCRIPTEN_KEEPALIVE void lab_checkpoint_file(const char* path) {
    lab_host::s.checkpoint_files.push_back({path ? path : "", std::move(lab_host::s.checkpoint_bytes)});
    lab_host::s.checkpoint_bytes.clear();
}
EMSCRIPTEN_KEEPALIVE void lab_checkpoint_done(const char* task, const char* error) {
    lab::lab_checkpoint_arrived(*lab_host::s.app, task ? task : "", lab_host::s.checkpoint_files, error ? error : "");
    lab_host::s.checkpoint_files.clear();
    lab_pacing::wake();
}

// ---- issue 28.3 / 28.4: the page's buttons (web/lab_bridge.js) --------------------------
// kind: app/page_mirror.h's PageAction::Kind (a place of the walk, a step, the language).
EMSCRIPTEN_KEEPALIVE void lab_page_action(int kind, int value) {
    if (!lab_host::s.app) return;
    if (kind < lab::PageAction::GoToPlace || kind > lab::PageAction::Language) return;
    lab_host::s.app->page_actions.push_back({static_cast<lab::PageAction::Kind>(kind), value});
    lab_pacing::wake();
}
// The page's Tab (dir +1) or Shift+Tab (-1) moved the browser's focus into the canvas: the
// keyboard's focus ring shows (app/state/keyboard_nav.h).
EMSCRIPTEN_KEEPALIVE void lab_keyboard_entered(int dir) {
    if (!lab_host::s.app) return;
    lab_host::s.app->nav.entered = true;
    lab_host::s.app->nav.entered_dir = dir < 0 ? -1 : 1;
    lab_pacing::wake();
}

}  // extern "C"
