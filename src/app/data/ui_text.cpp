// ui_text.cpp — Attention Lab app: the app's string table.
#include "app/data/ui_text.h"

namespace lab {

const TextTable& ui_text_table() {
    static const TextEntry entries[kUiStrCount] = {
#define LAB_STR(key, en, zh) {#key, {en, zh}},
#include "app/data/strings/all.def"
#undef LAB_STR
    };
    static const TextTable table{entries, kUiStrCount};
    return table;
}

}  // namespace lab
