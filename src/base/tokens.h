// tokens.h — Attention Lab core: text to tokens, the same way everywhere (the
// tokens field, the URL hash). Words split on whitespace; CJK characters and CJK
// punctuation are tokens of their own (Chinese has no spaces between words); a
// token is at most kMaxTokenBytes long, cut on a UTF-8 character boundary.
#pragma once
#include <string>
#include <vector>

namespace lab {

constexpr size_t kMaxTokenBytes = 64;
constexpr size_t kMaxTokens = 4096;

struct TokenSplit {
    std::vector<std::string> tokens;
    bool cut = false;      // some token was longer than kMaxTokenBytes
    bool dropped = false;  // more than kMaxTokens tokens
};

TokenSplit split_tokens(const std::string& text);

}  // namespace lab
