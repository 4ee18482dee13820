// ui_text.cpp — Attention Lab app: the app's string table.
#include "ui_text.h"

namespace lab {

namespace {

const TextEntry kEntries[kUiStrCount] = {
#define LAB_STR(key, en, zh) {#key, {en, zh}},
#include "strings/all.def"
#undef LAB_STR
};

}  // namespace

const TextTable& ui_text_table() {
    static const TextTable table{kEntries, kUiStrCount};
    return table;
}

const TextEntry& text_entry(UiStr id) {
    const int i = static_cast<int>(id);
    return kEntries[i >= 0 && i < kUiStrCount ? i : 0];
}

}  // namespace lab
