// key_bindings.h — Attention Lab app: every keyboard shortcut, one row each: the keys,
// how the help overlay names them, what it says they do, and what they do. The key
// handler (lab_app.cpp) and the help overlay (help_overlay.cpp) read the same rows.
#pragma once
#include <vector>

#include "app/state/lab_app.h"

namespace lab {

struct KeyBinding {
    const char* keys_literal;      // how the help names the keys when they are symbols ("Home / End") ...
    UiStr keys_text;               // ... or words ("→ / j"): UiStr::Count_ = use keys_literal
    UiStr what;                    // what the help says it does; UiStr::Count_: not listed (e.g. Esc)
    std::vector<LabKey> keys;      // navigation keys the platform queues
    const char* chars;             // typed characters
    void (*act)(LabApp& app, unsigned ch);  // ch: the character typed, 0 for a navigation key
};

const std::vector<KeyBinding>& key_bindings();

}  // namespace lab
