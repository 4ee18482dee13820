// ui_text.cpp — Attention Lab app: the app's string table.
#include "ui_text.h"

namespace lab {

namespace {

const TextEntry kEntries[kUiStrCount] = {
#define LAB_STR(key, en, zh) {#key, {en, zh}},
#include "strings/all.def"
#undef LAB_STR
};
const TextTable kTable{kEntries, kUiStrCount};

}  // namespace

const TextTable& ui_text_table() { return kTable; }
const TextEntry& text_entry(UiStr id) { return kTable.at(id); }

}  // namespace lab
