// experiment_heads.cpp — Attention Lab core: one d_model split into h heads (§3.2.2).
//
// Paper note (§3.2.2 and Table 3, row A): with d_k = d_v = d_model / h "the total
// computational cost is similar to that of single-head attention with full
// dimensionality". Varying h at fixed compute, single-head attention is 0.9 BLEU worse
// than the best setting (h = 8 for d_model = 512), and quality also drops off with too
// many heads (h = 32, d_k = 16). The lab cannot train, so it shows what changes
// mechanically: each head's weights (B, h, L_q, L_kv) and their entropy, and how much
// of the output each head carries (knockout: zero its context before the concat).
#include <cmath>
#include <vector>

#include "attention/attention.h"
#include "teach/experiments/experiments.h"

namespace lab {

using namespace experiment_detail;

std::vector<HeadsPoint> heads_experiment(const AttentionConfig& base, const std::vector<int>& heads_list) {
    const std::vector<int> list = heads_list.empty() ? std::vector<int>{1, 2, 4, 8, 16} : heads_list;
    // Inputs and weights do not depend on h (make_inputs/make_weights read d_model, the
    // lengths and the seed), so every h sees the same x and the same W^Q, W^K, W^V, W^O.
    // It compares h at a fixed d_model as the paper's Table 3 (A) does: every h as plain
    // multi-head attention, so W^K and W^V stay d_model x d_model (no shared K/V heads).
    AttentionConfig mha = base;
    mha.kv_heads = 0;
    const AttentionInputs in = make_inputs(mha);
    const AttentionWeights w = make_weights(mha);
    std::vector<HeadsPoint> out;
    for (int h : list) {
        if (h < 1 || base.d_model % h != 0) continue;
        AttentionConfig c = mha;
        c.heads = h;
        if (!validate(c).empty()) continue;
        HeadsPoint p;
        p.heads = h;
        p.d_k = c.d_k();
        p.trace = run_trace(c, in, w);
        const Tensor& weights = p.trace[TensorId::Weights];
        const Tensor& context = p.trace[TensorId::Context];
        const Floats& output = p.trace[TensorId::Output].data;
        const Tensor& b_o = p.trace[TensorId::BO];
        const int B = c.batch, Lq = c.L_q(), Lkv = c.L_kv(), dv = c.d_v(), d = c.d_model;

        // Mean entropy of each head's rows (rows with NaN, i.e. fully masked with -inf, skipped).
        p.head_entropy.assign(h, 0.0);
        for (int head = 0; head < h; ++head) {
            double sum = 0;
            long rows = 0;
            for (int b = 0; b < B; ++b)
                for (int i = 0; i < Lq; ++i) {
                    const float* row = weights.ptr() + weights.offset({b, head, i, 0});
                    bool finite = true;
                    for (int j = 0; j < Lkv && finite; ++j) finite = std::isfinite(row[j]);
                    if (!finite) continue;
                    sum += entropy(row, Lkv);
                    ++rows;
                }
            p.head_entropy[head] = rows ? sum / rows : 0.0;
        }

        // Knockout: context of head i set to 0, then the same concat and W^O as the trace.
        double norm = 0;
        for (float v : output)
            if (std::isfinite(v)) norm += static_cast<double>(v) * v;
        p.output_norm = std::sqrt(norm);
        std::vector<double> contribution_sum(output.size(), 0.0);
        for (int head = 0; head < h; ++head) {
            Floats ctx = context.data;
            for (int b = 0; b < B; ++b) {
                float* block = ctx.data() + context.offset({b, head, 0, 0});
                for (long e = 0; e < static_cast<long>(Lq) * dv; ++e) block[e] = 0.0f;
            }
            const Floats knocked = output_from_context(ctx, p.trace);
            double delta = 0;
            for (size_t e = 0; e < output.size(); ++e) {
                const double diff = static_cast<double>(output[e]) - knocked[e];
                contribution_sum[e] += diff;
                if (std::isfinite(diff)) delta += diff * diff;
            }
            p.knockout_delta.push_back(std::sqrt(delta));
        }
        // Σ_i (output - output without head i) = Σ_i head_i W^O_i = output - b_O.
        double worst = 0;
        for (size_t e = 0; e < output.size(); ++e) {
            const double err = std::fabs(contribution_sum[e] - (static_cast<double>(output[e]) - b_o.data[e % d]));
            if (std::isfinite(err)) worst = std::fmax(worst, err);
        }
        p.knockout_sum_error = worst;
        out.push_back(std::move(p));
    }
    return out;
}

}  // namespace lab
