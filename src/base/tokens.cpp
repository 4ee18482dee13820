// tokens.cpp — Attention Lab core: tokenisation for labels and embeddings.
#include "base/tokens.h"

#include "base/utf8.h"

namespace lab {

namespace {
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
                // Not mid-character; with no boundary (invalid UTF-8), at the byte limit.
                word.resize(utf8::boundary_at_or_before(word, kMaxTokenBytes));
                out.cut = true;
            }
            out.tokens.push_back(word);
        }
        word.clear();
    };
    for (size_t i = 0; i < text.size();) {
        size_t len = 1;
        const unsigned cp = utf8::decode(text, i, &len);
        if (is_space(cp)) {
            flush();
        } else if (utf8::is_cjk(cp)) {
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
