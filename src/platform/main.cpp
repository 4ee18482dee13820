// main.cpp — Attention Lab platform: the GLFW + OpenGL loop that hosts the app,
// natively (OpenGL 3.3 core, desktop window) and on the web (WebGL2 via
// Emscripten's GLFW). The app itself (src/app) never sees GL or GLFW.
//
//   native:  attention_lab [--hash STATE] [--lang en|zh] [--frames N] [--screenshot out.ppm] [--width W --height H]
//            (--hash takes the page's URL hash, e.g. "d_model=512&heads=8&stage=softmax";
//             the language defaults to $LANG's, e.g. zh_CN.UTF-8 -> 中文)
//   web:     loaded by index.html; window.lab.state() reads lab_state_json()
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#include <GLES3/gl3.h>
#else
#include <GL/gl.h>
#endif
#include <GLFW/glfw3.h>

#include "app/lab_app.h"
#include "app/ui_style.h"
#include "cjk_font.h"
#include "gpu_heatmap.h"

namespace {

struct Platform {
    GLFWwindow* window = nullptr;
    lab::LabApp app;
    float built_scale = 0.0f;  // ui scale the fonts/style were built for
    long frames_left = -1;     // native --frames: exit after this many
    std::string screenshot;    // native --screenshot: write the last frame as PPM
    std::string hash;          // native --hash: start from this view
    std::string lang;          // native --lang (else $LC_ALL / $LC_MESSAGES / $LANG)
};
Platform g;

#ifdef __EMSCRIPTEN__
EM_JS(int, js_hash_size, (), { return lengthBytesUTF8(window.location.hash) + 1; });
EM_JS(void, js_hash_copy, (char* out, int size), { stringToUTF8(window.location.hash, out, size); });
EM_JS(void, js_hash_replace, (const char* hash), {
    var h = '#' + UTF8ToString(hash);
    if (window.location.hash !== h) history.replaceState(null, "", h);
});

std::string location_hash() {
    std::string h(static_cast<size_t>(js_hash_size()), '\0');
    js_hash_copy(&h[0], static_cast<int>(h.size()));
    h.resize(std::strlen(h.c_str()));
    return h.empty() || h[0] != '#' ? h : h.substr(1);
}

// The URL hash mirrors the view. An edit from outside (address bar, a pasted
// link, back/forward) is applied; the app's own changes replace the hash.
std::string g_hash_written;
void sync_url_hash() {
    const std::string now = location_hash();
    if (now != g_hash_written && !(now.empty() && g_hash_written.empty())) lab::lab_apply_url_hash(g.app, now);
    const std::string want = lab::lab_url_hash(g.app);
    if (want != now) js_hash_replace(want.c_str());
    g_hash_written = want;
}

// Downloads and the clipboard for the app's exports (LabHost).
EM_JS(void, js_save_file, (const char* name, const char* bytes, int size, const char* mime), {
    var data = HEAPU8.slice(bytes, bytes + size);
    var blob = new Blob([data], {type: UTF8ToString(mime)});
    var a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = UTF8ToString(name);
    document.body.appendChild(a);
    a.click();
    setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
    window.lab.lastSave = {name: a.download, size: size};
});
EM_JS(void, js_copy_text, (const char* text), {
    var s = UTF8ToString(text);
    window.lab.lastCopy = s;
    if (navigator.clipboard && navigator.clipboard.writeText)
        navigator.clipboard.writeText(s).catch(function (e) { console.warn("clipboard: " + e); });
});
EM_JS(int, js_url_size, (const char* hash), {
    return lengthBytesUTF8(location.origin + location.pathname + "#" + UTF8ToString(hash)) + 1;
});
EM_JS(void, js_url_copy, (const char* hash, char* out, int size), {
    stringToUTF8(location.origin + location.pathname + "#" + UTF8ToString(hash), out, size);
});

EM_JS(int, js_language_size, (), { return lengthBytesUTF8(navigator.language || "") + 1; });
EM_JS(void, js_language_copy, (char* out, int size), { stringToUTF8(navigator.language || "", out, size); });
std::string browser_language() {
    std::string l(static_cast<size_t>(js_language_size()), '\0');
    js_language_copy(&l[0], static_cast<int>(l.size()));
    l.resize(std::strlen(l.c_str()));
    return l;
}

void web_save_file(const std::string& name, const std::string& bytes, const char* mime) {
    js_save_file(name.c_str(), bytes.data(), static_cast<int>(bytes.size()), mime);
}
void web_copy_text(const std::string& text) { js_copy_text(text.c_str()); }
std::string web_share_url(const std::string& hash) {
    std::string url(static_cast<size_t>(js_url_size(hash.c_str())), '\0');
    js_url_copy(hash.c_str(), &url[0], static_cast<int>(url.size()));
    url.resize(std::strlen(url.c_str()));
    return url;
}

// Text that does not come as key presses — an input method's composed Chinese,
// a paste — arrives through a hidden textarea that has the focus while an ImGui
// text field is active (web/lab_bridge.js); the IME's candidate window follows
// ImGui's caret. The browser's paste is the only paste (GLFW's own clipboard on
// the web is a string in the page, which would paste twice).
int g_ime_x = 0, g_ime_y = 0;
void on_ime_position(int x, int y) { g_ime_x = x, g_ime_y = y; }
EM_JS(void, js_text_input_state, (int active, int x, int y), { window.lab.textInput(active, x, y); });
const char* no_clipboard_text(void*) { return ""; }
// Copy / cut in a text field go to the system clipboard (GLFW's web clipboard keeps nothing).
EM_JS(void, js_clipboard_write, (const char* text), {
    if (navigator.clipboard && navigator.clipboard.writeText)
        navigator.clipboard.writeText(UTF8ToString(text)).catch(function (e) { console.warn("clipboard: " + e); });
});
void clipboard_write(void*, const char* text) { js_clipboard_write(text ? text : ""); }

// The page sizes the canvas backing store to CSS size x devicePixelRatio
// (index.html); Emscripten's GLFW then reports sizes in backing-store pixels, so
// ImGui draws 1:1 and the UI scale follows the dpr.
void follow_canvas() {
    const int w = EM_ASM_INT({ return window.labCanvas ? window.labCanvas.width : 0; });
    const int h = EM_ASM_INT({ return window.labCanvas ? window.labCanvas.height : 0; });
    const double dpr = EM_ASM_DOUBLE({ return window.labCanvas ? window.labCanvas.dpr : 1; });
    int cw = 0, ch = 0;
    glfwGetWindowSize(g.window, &cw, &ch);
    if (w > 0 && h > 0 && (w != cw || h != ch)) glfwSetWindowSize(g.window, w, h);
    g.app.ui_scale = static_cast<float>(dpr > 0.5 && dpr < 8 ? dpr : 1.0);
}
#endif

// Queues navigation keys for the app (installed before ImGui's backend, which
// chains to it), so quick taps between frames are not lost.
void on_key(GLFWwindow*, int key, int, int action, int) {
    if (action == GLFW_RELEASE) return;
    switch (key) {
        case GLFW_KEY_LEFT: g.app.pending_keys.push_back(lab::LabKey::Left); break;
        case GLFW_KEY_RIGHT: g.app.pending_keys.push_back(lab::LabKey::Right); break;
        case GLFW_KEY_HOME: g.app.pending_keys.push_back(lab::LabKey::Home); break;
        case GLFW_KEY_END: g.app.pending_keys.push_back(lab::LabKey::End); break;
        case GLFW_KEY_ESCAPE: g.app.pending_keys.push_back(lab::LabKey::Escape); break;
        default: break;
    }
}

#ifndef __EMSCRIPTEN__
void native_save_file(const std::string& name, const std::string& bytes, const char*) {
    FILE* f = std::fopen(name.c_str(), "wb");
    if (f) std::fwrite(bytes.data(), 1, bytes.size(), f), std::fclose(f);
    else std::fprintf(stderr, "attention_lab: cannot write %s\n", name.c_str());
}
void native_copy_text(const std::string& text) { glfwSetClipboardString(g.window, text.c_str()); }
#endif

void write_ppm(const std::string& path, int w, int h) {
    std::string pixels(static_cast<size_t>(w) * h * 3, '\0');
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, &pixels[0]);
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) {
        std::fprintf(stderr, "attention_lab: cannot write %s\n", path.c_str());
        return;
    }
    std::fprintf(f, "P6\n%d %d\n255\n", w, h);
    for (int y = h - 1; y >= 0; --y) std::fwrite(&pixels[static_cast<size_t>(y) * w * 3], 1, static_cast<size_t>(w) * 3, f);
    std::fclose(f);
}

void frame() {
#ifdef __EMSCRIPTEN__
    follow_canvas();
#endif
    glfwPollEvents();
    lab_font::update(g.app);
    const bool font_arrived = lab_font::take_arrival();
    if (g.app.ui_scale != g.built_scale || font_arrived) {
        const int cjk_glyphs = lab::build_ui_style(g.app.ui_scale, lab_font::bytes());
        ImGui_ImplOpenGL3_DestroyFontsTexture();
        ImGui_ImplOpenGL3_CreateFontsTexture();
        ImGui::GetIO().Fonts->ClearTexData();  // the GPU has it; the CPU copy of a CJK atlas is tens of MB
        g.built_scale = g.app.ui_scale;
        if (font_arrived) lab_font::finish(g.app, cjk_glyphs);
    }
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    lab_gpu::begin_frame();
    g.app.gpu_uploads = lab_gpu::stats().uploads;
    g.app.gpu_textures = lab_gpu::stats().textures;
    ImGui::NewFrame();
    lab::lab_frame(g.app);
    ImGui::Render();
#ifdef __EMSCRIPTEN__
    js_text_input_state(ImGui::GetIO().WantTextInput ? 1 : 0, g_ime_x, g_ime_y);
    sync_url_hash();
#endif
    int fw = 0, fh = 0;
    glfwGetFramebufferSize(g.window, &fw, &fh);
    glViewport(0, 0, fw, fh);
    glClearColor(0.086f, 0.094f, 0.114f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
#ifdef __EMSCRIPTEN__
    if (g.app.frame == 2) EM_ASM({ if (window.lab) window.lab.ready = true; });  // first complete frame is on screen
#else
    if (g.frames_left > 0 && --g.frames_left == 0) {
        if (!g.screenshot.empty()) write_ppm(g.screenshot, fw, fh);
        glfwSetWindowShouldClose(g.window, GLFW_TRUE);
    }
    glfwSwapBuffers(g.window);
#endif
}

}  // namespace

#ifdef __EMSCRIPTEN__
extern "C" EMSCRIPTEN_KEEPALIVE const char* lab_state_json() {
    static std::string json;
    json = lab::lab_state_json(g.app);
    return json.c_str();
}
// A config file dropped on the page (web/lab_bridge.js reads its bytes; a file
// over the limit arrives empty with its real size).
extern "C" EMSCRIPTEN_KEEPALIVE void lab_load_config_bytes(const char* name, const char* bytes, int length, double size) {
    constexpr double kLimit = 1 << 20;
    const std::string file = name ? name : "";
    if (size > kLimit) {
        lab::lab_refuse_config_file(g.app, file, size);
        return;
    }
    lab::lab_load_config_text(g.app, file, std::string(bytes ? bytes : "", bytes ? static_cast<size_t>(length) : 0));
}
// Text from the hidden textarea (see js_text_input_state).
extern "C" EMSCRIPTEN_KEEPALIVE void lab_text_input(const char* utf8) {
    if (utf8) ImGui::GetIO().AddInputCharactersUTF8(utf8);
}
#endif

int main(int argc, char** argv) {
    int width = 1280, height = 800;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : ""; };
        if (a == "--frames") g.frames_left = std::atol(next());
        else if (a == "--screenshot") g.screenshot = next();
        else if (a == "--hash") g.hash = next();
        else if (a == "--width") width = std::atoi(next());
        else if (a == "--height") height = std::atoi(next());
        else if (a == "--lang") g.lang = next();
    }
    lab_font::set_search_dir(argv[0]);
    if (!g.screenshot.empty() && g.frames_left < 0) g.frames_left = 3;
    if (!glfwInit()) {
        std::fprintf(stderr, "attention_lab: glfwInit failed (no display?)\n");
        return 1;
    }
#ifdef __EMSCRIPTEN__
    const char* glsl_version = "#version 300 es";
    glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
    width = EM_ASM_INT({ return window.labCanvas ? window.labCanvas.width : 1280; });
    height = EM_ASM_INT({ return window.labCanvas ? window.labCanvas.height : 800; });
#else
    const char* glsl_version = "#version 330 core";
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
#endif
    g.window = glfwCreateWindow(width, height, "Attention Lab", nullptr, nullptr);
    if (!g.window) {
        std::fprintf(stderr, "attention_lab: cannot create a %s window\n", glsl_version);
        glfwTerminate();
        return 1;
    }
    glfwMakeContextCurrent(g.window);
    glfwSwapInterval(1);

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGui::GetIO().IniFilename = nullptr;  // layout is computed, nothing to persist
#ifndef __EMSCRIPTEN__
    float sx = 1, sy = 1;
    glfwGetWindowContentScale(g.window, &sx, &sy);
    g.app.ui_scale = sx > 0.5f ? sx : 1.0f;
#endif
    glfwSetKeyCallback(g.window, on_key);
    ImGui_ImplGlfw_InitForOpenGL(g.window, true);
    ImGui_ImplOpenGL3_Init(glsl_version);
    // GPU heatmaps unless LAB_CPU_HEATMAPS is set (the CPU path stays as a fallback).
    if (!std::getenv("LAB_CPU_HEATMAPS") && lab_gpu::init(glsl_version)) g.app.gpu = lab_gpu::renderer();
#ifdef __EMSCRIPTEN__
    g.app.host.save_file = web_save_file;
    g.app.host.copy_text = web_copy_text;
    g.app.host.share_url = web_share_url;
    ImGui::GetIO().ImeSetInputScreenPosFn = on_ime_position;
    ImGui::GetIO().GetClipboardTextFn = no_clipboard_text;
    ImGui::GetIO().SetClipboardTextFn = clipboard_write;
#else
    g.app.host.save_file = native_save_file;
    g.app.host.copy_text = native_copy_text;
#endif
    lab::lab_init(g.app);
    // The interface language: the URL hash's lang= wins; else the browser's
    // language (web) or --lang / the locale (native); zh* -> 中文.
    lab::Lang lang = lab::Lang::En;
#ifdef __EMSCRIPTEN__
    g.lang = browser_language();
#else
    for (const char* var : {"LC_ALL", "LC_MESSAGES", "LANG"})
        if (g.lang.empty() && std::getenv(var) && *std::getenv(var)) g.lang = std::getenv(var);
#endif
    if (lab::parse_lang(g.lang, &lang) && lang != g.app.lang) lab::lab_set_language(g.app, lang);
    if (!g.hash.empty()) lab::lab_apply_url_hash(g.app, g.hash);
#ifdef __EMSCRIPTEN__
    g_hash_written = "";
    if (!location_hash().empty()) lab::lab_apply_url_hash(g.app, location_hash());
    g_hash_written = location_hash();
#endif

#ifdef __EMSCRIPTEN__
    emscripten_set_main_loop(frame, 0, true);
#else
    while (!glfwWindowShouldClose(g.window)) frame();
    lab_gpu::shutdown();
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(g.window);
    glfwTerminate();
#endif
    return 0;
}
