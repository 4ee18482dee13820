// utf8.h — Attention Lab core: UTF-8 text, one definition for everyone who reads it
// character by character (tokens, config files, line breaking, the font loader, the
// CLI's table columns), and the one definition of a "CJK" character.
#pragma once
#include <cstddef>
#include <string>

namespace lab {
namespace utf8 {

// The code point starting at s[i] and its byte length. A byte that does not start a
// valid sequence is returned as itself with length 1 (never as U+FFFD, so it cannot
// pass for a CJK character).
unsigned decode(const std::string& s, size_t i, size_t* len);
unsigned decode(const char* p, const char* end, size_t* len);  // the same on [p, end)
std::string encode(unsigned cp);

// Calls f(code point, its bytes) for each character.
template <class F>
void for_each(const std::string& s, F f) {
    for (size_t i = 0; i < s.size();) {
        size_t len = 1;
        const unsigned cp = decode(s, i, &len);
        f(cp, s.substr(i, len));
        i += len;
    }
}

// Whether the byte starts a character (is not a continuation byte 10xxxxxx).
inline bool starts_char(char byte) { return (static_cast<unsigned char>(byte) & 0xC0) != 0x80; }
// Characters (not bytes): what a fixed-width column counts.
size_t length(const std::string& s);
// The largest n' <= n that does not cut a character (n itself when s has no boundary there).
size_t boundary_at_or_before(const std::string& s, size_t n);
// The offset of the first byte that makes `s` not UTF-8 text: invalid UTF-8, NUL, DEL or
// another control character than tab, newline and carriage return; npos when none.
size_t first_non_text_byte(const std::string& s);

// CJK: ideographs (with extension A and B and the compatibility block), radicals, CJK
// symbols and punctuation, kana, vertical and full-width forms. Such a character is a
// token of its own, may start or end a wrapped line, and needs the Chinese font.
struct Range {
    unsigned first, last;
};
constexpr Range kCjkRanges[] = {{0x2E80, 0x2FDF}, {0x3000, 0x30FF}, {0x3400, 0x4DBF}, {0x4E00, 0x9FFF},
                                {0xF900, 0xFAFF}, {0xFE30, 0xFE4F}, {0xFF00, 0xFFEF}, {0x20000, 0x2A6DF}};
bool is_cjk(unsigned cp);
bool has_cjk(const std::string& s);

}  // namespace utf8
}  // namespace lab
