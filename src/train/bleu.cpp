// train/bleu.cpp — Attention Lab core: corpus BLEU (see bleu.h).
#include "train/bleu.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace lab {

namespace {
using Gram = std::vector<int32_t>;

std::map<Gram, long> ngram_counts(const std::vector<int32_t>& tokens, size_t n) {
    std::map<Gram, long> counts;
    for (size_t i = 0; i + n <= tokens.size(); ++i) ++counts[Gram(tokens.begin() + static_cast<long>(i), tokens.begin() + static_cast<long>(i + n))];
    return counts;
}
}  // namespace

void bleu_add(BleuStats& s, const std::vector<int32_t>& hypothesis, const std::vector<int32_t>& reference) {
    s.hyp_len += static_cast<long>(hypothesis.size());
    s.ref_len += static_cast<long>(reference.size());
    for (size_t n = 1; n <= 4; ++n) {
        const std::map<Gram, long> hyp = ngram_counts(hypothesis, n), ref = ngram_counts(reference, n);
        for (const auto& [gram, count] : hyp) {
            const auto it = ref.find(gram);
            s.matches[n - 1] += it == ref.end() ? 0 : std::min(count, it->second);  // clipped
            s.total[n - 1] += count;
        }
    }
}

double bleu_score(const BleuStats& s) {
    double log_sum = 0;
    for (int n = 0; n < 4; ++n) {
        if (s.matches[n] == 0 || s.total[n] == 0) return 0;
        log_sum += 0.25 * std::log(static_cast<double>(s.matches[n]) / static_cast<double>(s.total[n]));
    }
    const double c = static_cast<double>(s.hyp_len), r = static_cast<double>(s.ref_len);
    const double brevity = c > r ? 1.0 : std::exp(1.0 - r / c);
    return 100.0 * brevity * std::exp(log_sum);
}

}  // namespace lab
