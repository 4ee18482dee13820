// i18n.cpp — Attention Lab core: the core's string table and language codes.
#include "base/i18n.h"

#include <cctype>

namespace lab {

namespace {

const TextEntry kEntries[kStrCount] = {
#define LAB_STR(key, en, zh) {#key, {en, zh}},
#include "base/strings/all.def"
#undef LAB_STR
};
const TextTable kTable{kEntries, kStrCount};

}  // namespace

const TextTable& core_text_table() { return kTable; }
const TextEntry& text_entry(Str id) { return kTable.at(id); }

const char* lang_code(Lang lang) { return lang == Lang::Zh ? "zh" : "en"; }
const char* lang_endonym(Lang lang) { return lang == Lang::Zh ? "\xe4\xb8\xad\xe6\x96\x87" : "English"; }

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
