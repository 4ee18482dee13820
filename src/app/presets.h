// presets.h — Attention Lab app: named starting configurations (issue #4's list).
#pragma once
#include <vector>

#include "core/config.h"
#include "core/i18n.h"

namespace lab {

struct Preset {
    const char* name;  // id (English, never translated): "preset:<name>" in the layout
    Str label;         // the button's text in the current language
    Str what;          // its tooltip
    AttentionConfig config;
};

const std::vector<Preset>& presets();

}  // namespace lab
