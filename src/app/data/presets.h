// presets.h — Attention Lab app: named starting configurations: Tiny, Paper base, a single
// sentence, cross-attention. No ImGui: the tests read them (lab_app_data).
#pragma once
#include <string>
#include <vector>

#include "app/data/ui_text.h"
#include "attention/config.h"

namespace lab {

struct Preset {
    const char* name;  // id (English, never translated): "preset:<name>" in the layout
    UiStr label;       // the button's text
    UiStr what;        // its tooltip
    AttentionConfig config;
    UiStr sentence = UiStr::Count_;  // the tokens it brings, in the interface's language (Count_: none)
};

const std::vector<Preset>& presets();
const Preset* find_preset(const std::string& name);

// What choosing a preset sets: its configuration and the tokens field's text (its sentence
// in `lang`, seq_len its number of tokens; "" and the tokens cleared for the others).
struct PresetChoice {
    AttentionConfig config;
    std::string token_text;
};
PresetChoice choose_preset(const Preset& p, Lang lang);

}  // namespace lab
