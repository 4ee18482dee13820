// i18n.h — Attention Lab core: the UI's two languages (English, 中文) from one
// string table.
//
// Every text a learner reads is an entry of the table in src/core/strings/*.def:
//
//   LAB_STR(stage_scale_title, "Scale by 1/sqrt(d_k)", "除以 √d_k 缩放")
//
// Formats use printf conversions; both languages must use the same conversions
// in the same order (tests/i18n_test.cpp checks it). Math symbols, tensor names
// and code stay as they are in both languages. The Chinese texts also decide
// which glyphs the CJK font subset keeps (scripts/string_table.py reads the same
// files), so a new string cannot miss a glyph.
//
// The current language is process-wide, like ImGui's context: the app switches
// it, everything that builds text (stages, checks, derivations, messages) reads it.
// The CLI and the tests leave it at English.
#pragma once
#include <string>
#include <utility>

namespace lab {

enum class Lang { En, Zh };
constexpr int kLangCount = 2;

enum class Str : int {
#define LAB_STR(key, en, zh) key,
#include "strings/all.def"
#undef LAB_STR
    Count_
};
constexpr int kStrCount = static_cast<int>(Str::Count_);

void set_language(Lang lang);
Lang language();
const char* lang_code(Lang lang);                      // "en", "zh"
bool parse_lang(const std::string& code, Lang* out);   // "en", "zh", "zh-CN", "zh_TW.UTF-8", ... (case-insensitive)

const char* str_key(Str id);      // "stage_scale_title"
const char* tr(Str id, Lang lang);
inline const char* tr(Str id) { return tr(id, language()); }

// printf-style formatting of a table entry; std::string arguments may be passed directly.
std::string format_text(const char* format, ...);
namespace detail {
inline const char* fmt_arg(const std::string& s) { return s.c_str(); }
template <class T>
T fmt_arg(T v) { return v; }
}  // namespace detail
template <class... Args>
std::string trf(Str id, const Args&... args) {
    return format_text(tr(id), detail::fmt_arg(args)...);
}

}  // namespace lab
