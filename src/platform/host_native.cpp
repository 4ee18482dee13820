// host_native.cpp — Attention Lab platform: the desktop app's host.
//
//   attention_lab [--hash STATE] [--lang en|zh] [--frames N] [--screenshot out.ppm] [--width W --height H]
//   (--hash takes the page's URL hash, e.g. "d_model=512&heads=8&stage=softmax"; the
//    language defaults to $LANG's, e.g. zh_CN.UTF-8 -> 中文; --frames draws N frames
//    and exits, --screenshot writes the last one as PPM)
//
// Like the page, the app draws only when something changes: between frames it waits
// for events (glfwWaitEvents / glfwWaitEventsTimeout, as lab_pacing says).
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <iterator>
#include <string>

#include "app/state/lab_app.h"
#include "platform/cjk_font.h"
#include "platform/frame_pacing.h"
#include "platform/gl_api.h"
#include "platform/host.h"

namespace lab_host {

namespace {

struct State {
    GLFWwindow* window = nullptr;
    lab::LabApp* app = nullptr;
    long frames_left = -1;   // --frames: exit after this many
    std::string screenshot;  // --screenshot: write the last frame as PPM
    std::string hash;        // --hash: start from this view
    std::string lang;        // --lang (else $LC_ALL / $LC_MESSAGES / $LANG)
    std::string exe_dir;     // where the Chinese font may sit besides the build folder
    int width = 1280, height = 800;
};
State s;

void parse_args(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : ""; };
        if (a == "--frames") s.frames_left = std::atol(next());
        else if (a == "--screenshot") s.screenshot = next();
        else if (a == "--hash") s.hash = next();
        else if (a == "--width") s.width = std::atoi(next());
        else if (a == "--height") s.height = std::atoi(next());
        else if (a == "--lang") s.lang = next();
    }
    if (!s.screenshot.empty() && s.frames_left < 0) s.frames_left = 3;
    const std::string exe = argc > 0 && argv[0] ? argv[0] : "";
    const size_t slash = exe.find_last_of('/');
    s.exe_dir = slash == std::string::npos ? "." : exe.substr(0, slash);
}

void save_file(const std::string& name, const std::string& bytes, const char*) {
    FILE* f = std::fopen(name.c_str(), "wb");
    if (f) std::fwrite(bytes.data(), 1, bytes.size(), f), std::fclose(f);
    else std::fprintf(stderr, "attention_lab: cannot write %s\n", name.c_str());
}
void copy_text(const std::string& text) { glfwSetClipboardString(s.window, text.c_str()); }

// Texts kept between runs (the lessons' progress): one file per key in
// $XDG_CONFIG_HOME/attention_lab (else ~/.config/attention_lab); nothing is kept without either.
std::filesystem::path kept_file(const char* key) {
    const char* xdg = std::getenv("XDG_CONFIG_HOME");
    const char* home = std::getenv("HOME");
    if (xdg && *xdg) return std::filesystem::path(xdg) / "attention_lab" / key;
    if (home && *home) return std::filesystem::path(home) / ".config" / "attention_lab" / key;
    return {};
}
std::string load_text(const char* key) {
    std::ifstream in(kept_file(key));
    std::stringstream text;
    text << in.rdbuf();
    return in ? text.str() : std::string();
}
void save_text(const char* key, const std::string& text) {
    const std::filesystem::path file = kept_file(key);
    if (file.empty()) return;
    std::error_code ignored;  // a read-only home keeps nothing, and says nothing
    std::filesystem::create_directories(file.parent_path(), ignored);
    std::ofstream(file) << text;
}

// The shipped checkpoints are read from the source tree's web/checkpoints: every file of
// the task's folder (manifest.json, final/, loss.npy, lr.npy), then handed to the app.
void fetch_checkpoint(const std::string& task) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(LAB_CHECKPOINT_DIR) / task;
    std::vector<lab::ArchiveFile> files;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        if (!it->is_regular_file()) continue;
        std::ifstream in(it->path(), std::ios::binary);
        files.push_back({fs::relative(it->path(), dir).generic_string(),
                         std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>())});
    }
    lab::lab_checkpoint_arrived(*s.app, task, files, ec ? dir.string() + ": " + ec.message() : std::string());
}

void write_ppm(const std::string& path, int w, int h) {
    std::string pixels(static_cast<size_t>(w) * h * 3, '\0');
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE, &pixels[0]);  // once, for --screenshot
    FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) {
        std::fprintf(stderr, "attention_lab: cannot write %s\n", path.c_str());
        return;
    }
    std::fprintf(f, "P6\n%d %d\n255\n", w, h);
    for (int y = h - 1; y >= 0; --y) std::fwrite(&pixels[static_cast<size_t>(y) * w * 3], 1, static_cast<size_t>(w) * 3, f);
    std::fclose(f);
}

bool read_file(const std::string& path, unsigned char* (*room)(size_t)) {
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return false;
    std::fseek(f, 0, SEEK_END);
    const long size = std::ftell(f);
    std::fseek(f, 0, SEEK_SET);
    const bool ok = size > 0 && std::fread(room(static_cast<size_t>(size)), 1, static_cast<size_t>(size), f) == static_cast<size_t>(size);
    std::fclose(f);
    return ok;
}

}  // namespace

Window open(int argc, char** argv) {
    parse_args(argc, argv);
    Window w;
    if (!glfwInit()) {
        std::fprintf(stderr, "attention_lab: glfwInit failed (no display?)\n");
        return w;
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    w.glsl_version = "#version 330 core";
    w.window = glfwCreateWindow(s.width, s.height, "Attention Lab", nullptr, nullptr);
    if (!w.window) {
        std::fprintf(stderr, "attention_lab: cannot create a %s window\n", w.glsl_version);
        glfwTerminate();
        return w;
    }
    glfwMakeContextCurrent(w.window);
    glfwSwapInterval(1);
    return w;
}

void connect(GLFWwindow* window, lab::LabApp& app) {
    s.window = window, s.app = &app;
    float sx = 1, sy = 1;
    glfwGetWindowContentScale(window, &sx, &sy);
    app.ui_scale = sx > 0.5f ? sx : 1.0f;
    app.host.save_file = save_file;
    app.host.copy_text = copy_text;
    app.host.load_text = load_text;
    app.host.save_text = save_text;
    app.host.fetch_checkpoint = fetch_checkpoint;
    // The interface language: --hash's lang= wins, else --lang, else the locale (zh* -> 中文).
    for (const char* var : {"LC_ALL", "LC_MESSAGES", "LANG"})
        if (s.lang.empty() && std::getenv(var) && *std::getenv(var)) s.lang = std::getenv(var);
    lab::Lang lang = lab::Lang::En;
    if (lab::parse_lang(s.lang, &lang) && lang != app.lang) lab::lab_set_language(app, lang);
    if (!s.hash.empty()) lab::lab_apply_url_hash(app, s.hash);
}

void run(void (*draw_frame)()) {
    double next = 0;
    while (!glfwWindowShouldClose(s.window)) {
        if (next == 0 || s.frames_left > 0) glfwPollEvents();
        else if (next > 0) glfwWaitEventsTimeout(next);
        else glfwWaitEvents();
        draw_frame();
        next = lab_pacing::after_frame(*s.app);
    }
}

void begin_frame(lab::LabApp&) {}
void end_frame(lab::LabApp&) {}

void present(lab::LabApp&, int fb_width, int fb_height) {
    if (s.frames_left > 0 && --s.frames_left == 0) {
        if (!s.screenshot.empty()) write_ppm(s.screenshot, fb_width, fb_height);
        glfwSetWindowShouldClose(s.window, GLFW_TRUE);
    }
    glfwSwapBuffers(s.window);
}

void load_cjk_font() {
    std::string tried;
#ifdef LAB_CJK_FONT_FILE
    if (read_file(LAB_CJK_FONT_FILE, lab_font::buffer)) return lab_font::arrived(true, "");
    tried = std::string(LAB_CJK_FONT_FILE) + " or ";
#endif
    const std::string beside = s.exe_dir + "/lab_cjk.otf";
    if (read_file(beside, lab_font::buffer)) return lab_font::arrived(true, "");
    lab_font::arrived(false, "cannot read " + tried + beside);
}

void close(GLFWwindow* window) {
    glfwDestroyWindow(window);
    glfwTerminate();
}

}  // namespace lab_host
