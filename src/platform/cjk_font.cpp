// cjk_font.cpp — Attention Lab platform: loading the Chinese font on demand.
#include "cjk_font.h"

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#endif

namespace lab_font {

namespace {

struct State {
    std::vector<unsigned char> bytes;
    bool arrived = false;  // bytes (or an error) came in since the last take_arrival()
    std::string search_dir;
    std::chrono::steady_clock::time_point requested;
};
State s;

// The bytes (or the failure) are here; the app hears "ready" only from finish(),
// once the atlas holds the glyphs.
void arrive(lab::LabApp& app, bool ok, const std::string& error) {
    if (!ok) {
        app.fonts.cjk = lab::FontLoad::Failed;
        app.fonts.cjk_error = error;
        s.bytes.clear();
    }
    s.arrived = true;
}

lab::LabApp* g_app = nullptr;  // the web callbacks arrive outside any frame

#ifdef __EMSCRIPTEN__
EM_JS(void, js_load_cjk_font, (), { window.lab.loadCjkFont(); });
#else
bool read_file(const std::string& path, std::vector<unsigned char>* out) {
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return false;
    unsigned char buf[1 << 16];
    size_t n;
    out->clear();
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out->insert(out->end(), buf, buf + n);
    std::fclose(f);
    return !out->empty();
}
#endif

}  // namespace

void set_search_dir(const char* argv0) {
    const std::string a = argv0 ? argv0 : "";
    const size_t slash = a.find_last_of('/');
    s.search_dir = slash == std::string::npos ? "." : a.substr(0, slash);
}

void update(lab::LabApp& app) {
    g_app = &app;
    if (app.fonts.cjk != lab::FontLoad::None || !lab::lab_wants_cjk_font(app)) return;
    app.fonts.cjk = lab::FontLoad::Loading;
    s.requested = std::chrono::steady_clock::now();
#ifdef __EMSCRIPTEN__
    js_load_cjk_font();
#else
    std::string tried;
#ifdef LAB_CJK_FONT_FILE
    if (read_file(LAB_CJK_FONT_FILE, &s.bytes)) return arrive(app, true, "");
    tried = LAB_CJK_FONT_FILE;
#endif
    const std::string beside = s.search_dir + "/lab_cjk.otf";
    if (read_file(beside, &s.bytes)) return arrive(app, true, "");
    arrive(app, false, "cannot read " + (tried.empty() ? beside : tried + " or " + beside));
#endif
}

bool take_arrival() {
    const bool a = s.arrived;
    s.arrived = false;
    return a;
}

lab::CjkFontBytes bytes() {
    lab::CjkFontBytes b;
    if (!s.bytes.empty()) b.data = s.bytes.data(), b.size = s.bytes.size();
    return b;
}

void finish(lab::LabApp& app, int glyphs) {
    if (app.fonts.cjk != lab::FontLoad::Loading) return;  // failed, or a rebuild for another reason
    app.fonts.cjk = lab::FontLoad::Ready;
    app.fonts.cjk_bytes = s.bytes.size();
    app.fonts.cjk_glyphs = glyphs;
    app.fonts.cjk_load_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s.requested).count();
}

}  // namespace lab_font

#ifdef __EMSCRIPTEN__
// web/lab_bridge.js: the fetched file's bytes go into this buffer, then arrive.
extern "C" EMSCRIPTEN_KEEPALIVE unsigned char* lab_font_buffer(int size) {
    lab_font::s.bytes.assign(size > 0 ? static_cast<size_t>(size) : 0, 0);
    return lab_font::s.bytes.data();
}
extern "C" EMSCRIPTEN_KEEPALIVE void lab_font_arrived(int ok, const char* error) {
    if (lab_font::g_app) lab_font::arrive(*lab_font::g_app, ok != 0 && !lab_font::s.bytes.empty(), error ? error : "");
}
#endif
