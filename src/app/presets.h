// presets.h — Attention Lab app: named starting configurations (issue #4's list).
#pragma once
#include <vector>

#include "core/config.h"

namespace lab {

struct Preset {
    const char* name;
    const char* what;
    AttentionConfig config;
};

const std::vector<Preset>& presets();

}  // namespace lab
