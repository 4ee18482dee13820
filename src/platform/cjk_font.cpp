// cjk_font.cpp — Attention Lab platform: the Chinese font's way from "wanted" to
// "Ready" (see cjk_font.h); the hosts read the file.
#include "platform/cjk_font.h"

#include <chrono>
#include <vector>

namespace lab_font {

namespace {

struct State {
    lab::LabApp* app = nullptr;  // the bytes arrive outside any frame on the web
    std::vector<unsigned char> bytes;
    bool arrived = false;  // bytes (or an error) came in since the last take_arrival()
    std::chrono::steady_clock::time_point requested;
};
State s;

}  // namespace

bool wanted_now(lab::LabApp& app) {
    s.app = &app;
    if (app.fonts.cjk != lab::FontLoad::None || !lab::lab_wants_cjk_font(app)) return false;
    app.fonts.cjk = lab::FontLoad::Loading;
    s.requested = std::chrono::steady_clock::now();
    return true;
}

unsigned char* buffer(size_t size) {
    s.bytes.assign(size, 0);
    return s.bytes.data();
}

// The app hears "ready" only from finish(), once the atlas holds the glyphs.
void arrived(bool ok, const std::string& error) {
    if (!ok || s.bytes.empty()) {
        if (s.app) s.app->fonts.cjk = lab::FontLoad::Failed, s.app->fonts.cjk_error = error;
        s.bytes.clear();
    }
    s.arrived = true;
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
