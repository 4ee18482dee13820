// gpu_heatmap.cpp — Attention Lab platform: GPU heatmaps.
//
// Each visible tensor slice is uploaded once per recompute (key + version) as an
// R32F texture. Drawing adds three commands to the window's draw list: a callback
// that switches to the heatmap program (lab_gl's tracked state; the vertex layout is
// ImGui's), the image quad, and ImGui's reset callback, which switches back.
#include "platform/gpu_heatmap.h"

#include <imgui.h>

#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>

#include "lab_shaders.h"
#include "platform/gl_api.h"
#include "platform/gl_renderer.h"

namespace lab_gpu {

namespace {

struct Texture {
    GLuint id = 0;
    unsigned long long version = ~0ull;
    int rows = 0, cols = 0;
    long last_used = 0;
};

struct DrawParams {
    int map;
    float lo, hi;
};

struct State {
    GLuint program = 0;
    GLint loc_proj = -1, loc_map = -1, loc_lo = -1, loc_hi = -1;
    GLint max_texture = 0;
    long frame = 0;
    std::unordered_map<std::string, Texture> textures;
    std::deque<DrawParams> params;  // stable addresses until the frame is rendered
    Stats stats;
};
State s;

constexpr long kEvictAfterFrames = 180;

// Runs inside lab_gl::render, before the image quad is drawn.
void use_heatmap_program(const ImDrawList*, const ImDrawCmd* cmd) {
    const DrawParams& p = *static_cast<const DrawParams*>(cmd->UserCallbackData);
    lab_gl::use_program(s.program);
    glUniformMatrix4fv(s.loc_proj, 1, GL_FALSE, lab_gl::projection());
    glUniform1i(s.loc_map, p.map);
    glUniform1f(s.loc_lo, p.lo);
    glUniform1f(s.loc_hi, p.hi);
}

Texture* upload(const char* key, unsigned long long version, const float* values, int rows, int cols, int row_stride) {
    Texture& t = s.textures[key];
    t.last_used = s.frame;
    if (t.id && t.version == version && t.rows == rows && t.cols == cols) return &t;
    if (!t.id) glGenTextures(1, &t.id);
    lab_gl::bind_texture(t.id);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, row_stride);  // row-major rows, possibly strided
    glTexImage2D(GL_TEXTURE_2D, 0, GL_R32F, cols, rows, 0, GL_RED, GL_FLOAT, values);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    t.version = version, t.rows = rows, t.cols = cols;
    ++s.stats.uploads;
    s.stats.uploaded_mb += rows * static_cast<double>(cols) * 4 / (1024.0 * 1024.0);
    return &t;
}

bool draw(const char* key, unsigned long long version, const float* values, int rows, int cols, int row_stride,
          const lab::ColorRange& range, float x0, float y0, float x1, float y1) {
    if (!s.program || rows <= 0 || cols <= 0 || rows > s.max_texture || cols > s.max_texture) return false;
    Texture* t = upload(key, version, values, rows, cols, row_stride);
    s.params.push_back({range.map == lab::ColorMap::Sequential ? 1 : 0, range.lo, range.hi});
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddCallback(use_heatmap_program, &s.params.back());
    dl->AddImage(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(t->id)), ImVec2(x0, y0), ImVec2(x1, y1));
    dl->AddCallback(ImDrawCallback_ResetRenderState, nullptr);
    return true;
}

}  // namespace

bool init(const char* glsl_version) {
    s.program = lab_gl::link_program(glsl_version, kShader_imgui_vert, kShader_heatmap_frag, "heatmap");
    if (!s.program) return false;
    s.loc_proj = glGetUniformLocation(s.program, "ProjMtx");
    s.loc_map = glGetUniformLocation(s.program, "u_map");
    s.loc_lo = glGetUniformLocation(s.program, "u_lo");
    s.loc_hi = glGetUniformLocation(s.program, "u_hi");
    lab_gl::use_program(s.program);
    glUniform1i(glGetUniformLocation(s.program, "Texture"), 0);
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &s.max_texture);  // once, at start-up
    return true;
}

void begin_frame() {
    ++s.frame;
    s.params.clear();
    for (auto it = s.textures.begin(); it != s.textures.end();) {
        if (s.frame - it->second.last_used > kEvictAfterFrames) {
            lab_gl::delete_texture(it->second.id);
            it = s.textures.erase(it);
        } else {
            ++it;
        }
    }
    s.stats.textures = static_cast<int>(s.textures.size());
}

void shutdown() {
    for (auto& kv : s.textures) lab_gl::delete_texture(kv.second.id);
    s.textures.clear();
    if (s.program) glDeleteProgram(s.program);
    s.program = 0;
}

lab::HeatmapRenderer renderer() {
    lab::HeatmapRenderer r;
    r.draw = draw;
    return r;
}

Stats stats() { return s.stats; }

}  // namespace lab_gpu
