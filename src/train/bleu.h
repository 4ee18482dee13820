// train/bleu.h — Attention Lab core: corpus BLEU (Papineni et al. 2002), the paper's
// translation metric, over token ids (for `translate`: Chinese characters).
//
//   BLEU = BP · exp(Σ_{n=1..4} ¼ · log p_n),  p_n = Σ clipped n-gram matches / Σ hypothesis n-grams
//   BP = 1 if c > r else exp(1 − r/c)        c, r: total hypothesis and reference lengths
// Counts are summed over the corpus before dividing (corpus BLEU, not the mean of sentence
// scores); a hypothesis n-gram counts at most as often as it occurs in its reference. No
// smoothing: any p_n = 0 gives BLEU 0. One reference per sentence. Reported ×100.
#pragma once
#include <cstdint>
#include <vector>

namespace lab {

struct BleuStats {
    long matches[4] = {0, 0, 0, 0};  // clipped n-gram matches, n = 1 … 4
    long total[4] = {0, 0, 0, 0};    // hypothesis n-grams
    long hyp_len = 0, ref_len = 0;
};

// Adds one sentence pair's counts.
void bleu_add(BleuStats& s, const std::vector<int32_t>& hypothesis, const std::vector<int32_t>& reference);
double bleu_score(const BleuStats& s);  // 0 … 100

}  // namespace lab
