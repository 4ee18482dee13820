// gl_api.h — Attention Lab platform: the OpenGL API the renderer and the GPU
// heatmaps draw with: WebGL 2 through Emscripten's GLES 3.0 header on the web,
// OpenGL 3.3 core natively (Mesa's libGL exports the entry points; no loader).
#pragma once
#ifdef __EMSCRIPTEN__
#include <GLES3/gl3.h>
#else
#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>
#endif
