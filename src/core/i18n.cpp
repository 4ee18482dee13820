// i18n.cpp — Attention Lab core: the string table and the current language.
#include "i18n.h"

#include <cctype>
#include <cstdarg>
#include <cstdio>

namespace lab {

namespace {

struct Entry {
    const char* key;
    const char* text[kLangCount];
};

const Entry kTable[kStrCount] = {
#define LAB_STR(key, en, zh) {#key, {en, zh}},
#include "strings/all.def"
#undef LAB_STR
};

Lang g_language = Lang::En;

}  // namespace

void set_language(Lang lang) { g_language = lang; }
Lang language() { return g_language; }

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

const char* str_key(Str id) {
    const int i = static_cast<int>(id);
    return i >= 0 && i < kStrCount ? kTable[i].key : "";
}

const char* tr(Str id, Lang lang) {
    const int i = static_cast<int>(id), l = static_cast<int>(lang);
    if (i < 0 || i >= kStrCount || l < 0 || l >= kLangCount) return "";
    return kTable[i].text[l];
}

std::string format_text(const char* format, ...) {
    va_list args, again;
    va_start(args, format);
    va_copy(again, args);
    const int n = std::vsnprintf(nullptr, 0, format, args);
    va_end(args);
    std::string out;
    if (n > 0) {
        out.resize(static_cast<size_t>(n) + 1);
        std::vsnprintf(&out[0], out.size(), format, again);
        out.resize(static_cast<size_t>(n));
    }
    va_end(again);
    return out;
}

}  // namespace lab
