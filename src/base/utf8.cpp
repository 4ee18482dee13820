// utf8.cpp — Attention Lab core: UTF-8 decoding and the CJK ranges.
#include "base/utf8.h"

namespace lab {
namespace utf8 {

namespace {
bool continuation(unsigned char c) { return (c & 0xC0) == 0x80; }
}  // namespace

unsigned decode(const std::string& s, size_t i, size_t* len) { return decode(s.data() + i, s.data() + s.size(), len); }

unsigned decode(const char* p, const char* end, size_t* len) {
    const unsigned char c = static_cast<unsigned char>(*p);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    if (p + n > end) n = 1;
    unsigned cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
    for (size_t k = 1; k < n; ++k) {
        const unsigned char cc = static_cast<unsigned char>(p[k]);
        if (!continuation(cc)) {
            n = 1, cp = c;
            break;
        }
        cp = (cp << 6) | (cc & 0x3F);
    }
    *len = n;
    return cp;
}

std::string encode(unsigned cp) {
    std::string out;
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
    return out;
}

size_t length(const std::string& s) {
    size_t n = 0;
    for (char ch : s) n += starts_char(ch);
    return n;
}

size_t boundary_at_or_before(const std::string& s, size_t n) {
    if (n >= s.size()) return s.size();
    size_t at = n;
    while (at > 0 && continuation(static_cast<unsigned char>(s[at]))) --at;
    return at > 0 ? at : n;
}

size_t first_non_text_byte(const std::string& t) {
    const size_t n = t.size();
    for (size_t k = 0; k < n;) {
        const unsigned char ch = static_cast<unsigned char>(t[k]);
        if (ch < 0x80) {
            if ((ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') || ch == 0x7F) return k;
            ++k;
            continue;
        }
        const int extra = (ch & 0xE0) == 0xC0 ? 1 : (ch & 0xF0) == 0xE0 ? 2 : (ch & 0xF8) == 0xF0 ? 3 : -1;
        if (extra < 0 || ch == 0xC0 || ch == 0xC1 || ch > 0xF4) return k;
        for (int e = 1; e <= extra; ++e)
            if (k + e >= n || !continuation(static_cast<unsigned char>(t[k + e]))) return k;
        k += 1 + extra;
    }
    return std::string::npos;
}

bool is_cjk(unsigned cp) {
    for (const Range& r : kCjkRanges)
        if (cp >= r.first && cp <= r.last) return true;
    return false;
}

bool has_cjk(const std::string& s) {
    for (size_t i = 0; i < s.size();) {
        size_t len = 1;
        if (is_cjk(decode(s, i, &len))) return true;
        i += len;
    }
    return false;
}

}  // namespace utf8
}  // namespace lab
