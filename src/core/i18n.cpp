// i18n.cpp — Attention Lab core: the core's string table and language codes.
#include "i18n.h"

#include <cctype>

namespace lab {

namespace {

const TextEntry kEntries[kStrCount] = {
#define LAB_STR(key, en, zh) {#key, {en, zh}},
#include "strings/all.def"
#undef LAB_STR
};

}  // namespace

const TextTable& core_text_table() {
    static const TextTable table{kEntries, kStrCount};
    return table;
}

const TextEntry& text_entry(Str id) {
    const int i = static_cast<int>(id);
    return kEntries[i >= 0 && i < kStrCount ? i : 0];
}

const char* lang_code(Lang lang) { return lang == Lang::Zh ? "zh" : "en"; }

bool parse_lang(const std::string& code, Lang* out) {
    std::string c;
    for (char ch : code) {
        if (ch == '-' || ch == '_' || ch == '.') break;  // language part of "zh-CN", "zh_CN.UTF-8"
        c += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    }
    if (c == "en") return *out = Lang::En, true;
    if (c == "zh") return *out = Lang::Zh, true;
    return false;
}

}  // namespace lab
