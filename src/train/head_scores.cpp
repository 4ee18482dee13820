// train/head_scores.cpp — Attention Lab core: previous-token and induction scores of a
// decoder-only model's heads (head_scores.h).
#include "train/head_scores.h"

#include <algorithm>

namespace lab {

std::vector<HeadScore> induction_head_scores(Trainer& t, int samples) {
    std::vector<HeadScore> scores;
    if (!t.ready() || t.task().model() != ModelKind::DecoderOnly) return scores;
    const ModelLayout& layout = t.layout();
    const int H = layout.shape.heads, L = t.task().length, blocks = static_cast<int>(layout.blocks.size());
    for (int b = 0; b < blocks; ++b)
        for (int h = 0; h < H; ++h) scores.push_back({b, layout.blocks[static_cast<size_t>(b)].layer, h, 0, 0});
    std::vector<double> prev_rows(scores.size(), 0), ind_rows(scores.size(), 0);
    const int n = std::min(samples, t.held_out_count());
    for (int i = 0; i < n; ++i) {
        const Sample s = t.held_out_sample(i);
        const int gap = t.task().gap > 0 ? s.draws[static_cast<size_t>(L)] : 0, repeat = L + gap;
        for (int b = 0; b < blocks; ++b) {
            const AttentionMap m = t.attention_map(s, b);
            for (int h = 0; h < H; ++h) {
                const size_t at = static_cast<size_t>(b) * H + h;
                auto w = [&](int q, int k) { return m.weights[(static_cast<size_t>(h) * m.L_q + q) * m.L_kv + k]; };
                for (int q = 1; q < m.L_q; ++q) scores[at].previous_token += w(q, q - 1), prev_rows[at] += 1;
                for (int k = 0; k + 1 < L && repeat + k < m.L_q; ++k) scores[at].induction += w(repeat + k, k + 1), ind_rows[at] += 1;
            }
        }
    }
    for (size_t i = 0; i < scores.size(); ++i) {
        scores[i].previous_token /= std::max(1.0, prev_rows[i]);
        scores[i].induction /= std::max(1.0, ind_rows[i]);
    }
    return scores;
}

}  // namespace lab
