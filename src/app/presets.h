// presets.h — Attention Lab app: named starting configurations: Tiny, Paper base, a single
// sentence, cross-attention.
#pragma once
#include <vector>

#include "core/config.h"
#include "ui_text.h"

namespace lab {

struct Preset {
    const char* name;  // id (English, never translated): "preset:<name>" in the layout
    UiStr label;       // the button's text
    UiStr what;        // its tooltip
    AttentionConfig config;
};

const std::vector<Preset>& presets();

}  // namespace lab
