// i18n.h — Attention Lab core: the two languages (English, 中文) and the core's string
// table.
//
// Every text a learner reads is an entry of a string table:
//
//   LAB_STR(stage_scale_title, "Scale by 1/sqrt(d_k)", "除以 √d_k 缩放")
//
// The core's table (src/base/strings/*.def, enum Str) holds what the core and the
// interop layer say: stage texts, validation and file/URL messages, invariant checks,
// derivations, experiment texts. What only the app or the page says is in the app's
// table (src/app/data/strings/*.def, enum UiStr in app/data/ui_text.h). Both are read the same
// way (TextEntry); tests/test_i18n.cpp checks every entry of both.
//
// Formats use printf conversions; both languages must use the same conversions in the
// same order. Math symbols, tensor names and code stay as they are in both languages.
// The Chinese texts also decide which glyphs the CJK font subset keeps
// (scripts/string_table.py reads the same files), so a new string cannot miss a glyph.
//
// There is no current language here: the core returns messages (base/message.h) and
// whoever shows them says in which language (the app, the CLI in English, exports in
// the interface language).
#pragma once
#include <string>

namespace lab {

enum class Lang { En, Zh };
constexpr int kLangCount = 2;

const char* lang_code(Lang lang);                      // "en", "zh"
const char* lang_endonym(Lang lang);                   // "English", "中文": the language in itself (a switch to it)
bool parse_lang(const std::string& code, Lang* out);   // "en", "zh", "zh-CN", "zh_TW.UTF-8", ... (case-insensitive)

// One entry of a string table: its key and its text in each language.
struct TextEntry {
    const char* key;
    const char* text[kLangCount];
};

// A string table: its entries in enum order.
struct TextTable {
    const TextEntry* entries;
    int count;
    // The entry of an id (the first one for an id out of range).
    template <class Id>
    const TextEntry& at(Id id) const {
        const int i = static_cast<int>(id);
        return entries[i >= 0 && i < count ? i : 0];
    }
};

enum class Str : int {
#define LAB_STR(key, en, zh) key,
#include "base/strings/all.def"
#undef LAB_STR
    Count_
};
constexpr int kStrCount = static_cast<int>(Str::Count_);

const TextTable& core_text_table();
const TextEntry& text_entry(Str id);
inline const char* tr(Str id, Lang lang) { return text_entry(id).text[static_cast<int>(lang)]; }
inline const char* str_key(Str id) { return text_entry(id).key; }

}  // namespace lab
