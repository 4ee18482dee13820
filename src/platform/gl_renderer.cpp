// gl_renderer.cpp — Attention Lab platform: Dear ImGui's draw data on WebGL 2 /
// OpenGL 3.3 with tracked, never queried, GL state (see gl_renderer.h).
#include "platform/gl_renderer.h"

#include <imgui.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "lab_shaders.h"
#include "platform/gl_api.h"

namespace lab_gl {

namespace {

struct State {
    GLuint program = 0;  // ImGui's: vertex colour x texture
    GLint loc_proj = -1;
    GLuint vao = 0, vbo = 0, ebo = 0;  // the VAO keeps the vertex layout and the index buffer
    GLuint font_texture = 0;
    // What is bound now, as set by this file (GL is never asked).
    GLuint bound_program = 0;
    GLuint bound_texture = 0;
    GLint scissor[4] = {0, 0, 0, 0};
    float ortho[16] = {};
    // One frame's draw lists in one vertex and one index buffer (indices rebased).
    std::vector<ImDrawVert> vertices;
    std::vector<ImDrawIdx> indices;
};
State s;

GLuint compile(GLenum type, const std::string& source, const char* what) {
    const GLuint shader = glCreateShader(type);
    const char* src = source.c_str();
    glShaderSource(shader, 1, &src, nullptr);
    glCompileShader(shader);
    GLint ok = 0;
    glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);  // once, at start-up
    if (!ok) {
        char log[1024] = {};
        glGetShaderInfoLog(shader, sizeof log, nullptr, log);
        std::fprintf(stderr, "%s shader: %s\n", what, log);
        glDeleteShader(shader);
        return 0;
    }
    return shader;
}

void set_projection(const ImDrawData* dd) {
    const float L = dd->DisplayPos.x, R = dd->DisplayPos.x + dd->DisplaySize.x;
    const float T = dd->DisplayPos.y, B = dd->DisplayPos.y + dd->DisplaySize.y;
    const float ortho[16] = {2.0f / (R - L), 0, 0, 0, 0, 2.0f / (T - B), 0, 0, 0, 0, -1.0f, 0,
                             (R + L) / (L - R), (T + B) / (B - T), 0, 1.0f};
    for (int i = 0; i < 16; ++i) s.ortho[i] = ortho[i];
    use_program(s.program);
    glUniformMatrix4fv(s.loc_proj, 1, GL_FALSE, s.ortho);
}

// All draw lists into one vertex and one index buffer: two uploads per frame.
void upload(const ImDrawData* dd) {
    s.vertices.clear();
    s.indices.clear();
    for (int n = 0; n < dd->CmdListsCount; ++n) {
        const ImDrawList* list = dd->CmdLists[n];
        const ImDrawIdx base = static_cast<ImDrawIdx>(s.vertices.size());
        s.vertices.insert(s.vertices.end(), list->VtxBuffer.begin(), list->VtxBuffer.end());
        for (ImDrawIdx i : list->IdxBuffer) s.indices.push_back(i + base);
    }
    glBufferData(GL_ARRAY_BUFFER, static_cast<GLsizeiptr>(s.vertices.size() * sizeof(ImDrawVert)), s.vertices.data(),
                 GL_STREAM_DRAW);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, static_cast<GLsizeiptr>(s.indices.size() * sizeof(ImDrawIdx)),
                 s.indices.data(), GL_STREAM_DRAW);
}

void scissor(int x, int y, int w, int h) {
    if (x == s.scissor[0] && y == s.scissor[1] && w == s.scissor[2] && h == s.scissor[3]) return;
    glScissor(x, y, w, h);
    s.scissor[0] = x, s.scissor[1] = y, s.scissor[2] = w, s.scissor[3] = h;
}

// One command: a callback, or triangles clipped to the command's rectangle.
void draw_command(const ImDrawList* list, const ImDrawCmd& cmd, size_t index_base, const ImDrawData* dd, int fb_h) {
    if (cmd.UserCallback == ImDrawCallback_ResetRenderState) return use_program(s.program);
    if (cmd.UserCallback) return cmd.UserCallback(list, &cmd);
    const ImVec2 off = dd->DisplayPos, scale = dd->FramebufferScale;
    const float x0 = (cmd.ClipRect.x - off.x) * scale.x, y0 = (cmd.ClipRect.y - off.y) * scale.y;
    const float x1 = (cmd.ClipRect.z - off.x) * scale.x, y1 = (cmd.ClipRect.w - off.y) * scale.y;
    if (x1 <= x0 || y1 <= y0 || cmd.ElemCount == 0) return;
    scissor(static_cast<int>(x0), static_cast<int>(fb_h - y1), static_cast<int>(x1 - x0), static_cast<int>(y1 - y0));
    bind_texture(static_cast<GLuint>(reinterpret_cast<intptr_t>(cmd.TextureId)));
    const size_t first = index_base + cmd.IdxOffset;
    glDrawElements(GL_TRIANGLES, static_cast<GLsizei>(cmd.ElemCount), sizeof(ImDrawIdx) == 2 ? GL_UNSIGNED_SHORT : GL_UNSIGNED_INT,
                   reinterpret_cast<const void*>(first * sizeof(ImDrawIdx)));
}

}  // namespace

unsigned link_program(const char* glsl_version, const char* vertex_src, const char* fragment_src, const char* what) {
    const std::string head = std::string(glsl_version) + "\n";
    const GLuint vs = compile(GL_VERTEX_SHADER, head + vertex_src, what);
    const GLuint fs = compile(GL_FRAGMENT_SHADER, head + fragment_src, what);
    if (!vs || !fs) {
        if (vs) glDeleteShader(vs);
        if (fs) glDeleteShader(fs);
        return 0;
    }
    GLuint program = glCreateProgram();
    glAttachShader(program, vs);
    glAttachShader(program, fs);
    glLinkProgram(program);
    glDeleteShader(vs);
    glDeleteShader(fs);
    GLint ok = 0;
    glGetProgramiv(program, GL_LINK_STATUS, &ok);  // once, at start-up
    if (!ok) {
        std::fprintf(stderr, "%s program failed to link\n", what);
        glDeleteProgram(program);
        program = 0;
    }
    return program;
}

bool init(const char* glsl_version) {
    s.program = link_program(glsl_version, kShader_imgui_vert, kShader_imgui_frag, "ImGui");
    if (!s.program) return false;
    s.loc_proj = glGetUniformLocation(s.program, "ProjMtx");
    glGenVertexArrays(1, &s.vao);
    glGenBuffers(1, &s.vbo);
    glGenBuffers(1, &s.ebo);
    glBindVertexArray(s.vao);
    glBindBuffer(GL_ARRAY_BUFFER, s.vbo);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, s.ebo);
    glEnableVertexAttribArray(0);
    glEnableVertexAttribArray(1);
    glEnableVertexAttribArray(2);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, sizeof(ImDrawVert), (void*)IM_OFFSETOF(ImDrawVert, pos));
    glVertexAttribPointer(1, 2, GL_FLOAT, GL_FALSE, sizeof(ImDrawVert), (void*)IM_OFFSETOF(ImDrawVert, uv));
    glVertexAttribPointer(2, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(ImDrawVert), (void*)IM_OFFSETOF(ImDrawVert, col));
    // The state every frame draws with, set once: alpha blending, no culling, depth or stencil.
    glEnable(GL_BLEND);
    glBlendEquation(GL_FUNC_ADD);
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
    glDisable(GL_CULL_FACE);
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_STENCIL_TEST);
    glActiveTexture(GL_TEXTURE0);
    glUseProgram(s.program);
    s.bound_program = s.program;
    glUniform1i(glGetUniformLocation(s.program, "Texture"), 0);
    ImGuiIO& io = ImGui::GetIO();
    io.BackendRendererName = "lab_gl";
    return true;
}

void shutdown() {
    delete_texture(s.font_texture);
    if (s.vbo) glDeleteBuffers(1, &s.vbo);
    if (s.ebo) glDeleteBuffers(1, &s.ebo);
    if (s.vao) glDeleteVertexArrays(1, &s.vao);
    if (s.program) glDeleteProgram(s.program);
    s = State{};
}

void upload_fonts() {
    ImGuiIO& io = ImGui::GetIO();
    unsigned char* pixels = nullptr;
    int w = 0, h = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
    if (!s.font_texture) glGenTextures(1, &s.font_texture);
    bind_texture(s.font_texture);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
    io.Fonts->SetTexID(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(s.font_texture)));
}

void render(const ImDrawData* dd, int fb_width, int fb_height, const float background[3]) {
    glViewport(0, 0, fb_width, fb_height);
    glDisable(GL_SCISSOR_TEST);  // glClear honours the scissor box
    glClearColor(background[0], background[1], background[2], 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    if (!dd || dd->CmdListsCount == 0 || fb_width <= 0 || fb_height <= 0) return;
    glEnable(GL_SCISSOR_TEST);
    s.scissor[2] = -1;  // unknown after the clear: set by the first command
    set_projection(dd);
    upload(dd);
    size_t index_base = 0;
    for (int n = 0; n < dd->CmdListsCount; ++n) {
        const ImDrawList* list = dd->CmdLists[n];
        for (const ImDrawCmd& cmd : list->CmdBuffer) draw_command(list, cmd, index_base, dd, fb_height);
        index_base += static_cast<size_t>(list->IdxBuffer.Size);
    }
    use_program(s.program);
}

void use_program(unsigned program) {
    if (program == s.bound_program) return;
    glUseProgram(program);
    s.bound_program = program;
}

const float* projection() { return s.ortho; }

void bind_texture(unsigned texture) {
    if (texture == s.bound_texture) return;
    glBindTexture(GL_TEXTURE_2D, texture);
    s.bound_texture = texture;
}

void delete_texture(unsigned texture) {
    if (!texture) return;
    glDeleteTextures(1, &texture);
    if (texture == s.bound_texture) s.bound_texture = 0;
}

}  // namespace lab_gl
