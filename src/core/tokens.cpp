// tokens.cpp — Attention Lab core: tokenisation for labels and embeddings.
#include "tokens.h"

namespace lab {

namespace {

// Code point at s[i] and its byte length (1 for invalid bytes, taken as they are).
unsigned decode_utf8(const std::string& s, size_t i, size_t* len) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    int n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    if (i + n > s.size()) n = 1;
    unsigned cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
    for (int k = 1; k < n; ++k) {
        const unsigned char cc = static_cast<unsigned char>(s[i + k]);
        if ((cc & 0xC0) != 0x80) {
            n = 1, cp = c;
            break;
        }
        cp = (cp << 6) | (cc & 0x3F);
    }
    *len = static_cast<size_t>(n);
    return cp;
}

bool is_cjk(unsigned cp) {
    return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x3000 && cp <= 0x303F) ||
           (cp >= 0xFF00 && cp <= 0xFFEF) || (cp >= 0x20000 && cp <= 0x2A6DF);
}

bool is_space(unsigned cp) { return cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || cp == '\f' || cp == '\v'; }

}  // namespace

TokenSplit split_tokens(const std::string& text) {
    TokenSplit out;
    std::string word;
    auto flush = [&]() {
        if (word.empty()) return;
        if (out.tokens.size() >= kMaxTokens) {
            out.dropped = true;
        } else {
            if (word.size() > kMaxTokenBytes) {
                size_t end = kMaxTokenBytes;
                while (end > 0 && (static_cast<unsigned char>(word[end]) & 0xC0) == 0x80) --end;  // not mid-character
                word.resize(end > 0 ? end : kMaxTokenBytes);  // no boundary in invalid UTF-8: cut at the byte limit
                out.cut = true;
            }
            out.tokens.push_back(word);
        }
        word.clear();
    };
    for (size_t i = 0; i < text.size();) {
        size_t len = 1;
        const unsigned cp = decode_utf8(text, i, &len);
        if (is_space(cp)) {
            flush();
        } else if (is_cjk(cp)) {
            flush();
            word = text.substr(i, len);
            flush();
        } else {
            word += text.substr(i, len);
        }
        i += len;
    }
    flush();
    return out;
}

}  // namespace lab
