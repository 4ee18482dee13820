// score_stats.cpp — Attention Lab core: footnote 4's quantities on a run (score_stats.h).
#include "trace/score_stats.h"

#include <algorithm>
#include <vector>

#include "attention/attention.h"
#include "attention/trace_kernels.h"
#include "base/scans.h"
#include "trace/trace.h"

namespace lab {

namespace {

// Scores of every (head, i, j) of one batch item from (h, L, d_k) blocks, into their moments
// (float products as the trace's own scores; the moments in double).
Moments dot_moments(const float* qh, const float* kh, int h, int Lq, int Lkv, int dk) {
    std::vector<float> dots(static_cast<size_t>(h) * Lq * Lkv);
    for (int head = 0; head < h; ++head)
        matmul_nt(dots.data() + static_cast<long>(head) * Lq * Lkv, qh + static_cast<long>(head) * Lq * dk,
                  kh + static_cast<long>(head) * Lkv * dk, Lq, dk, Lkv);
    return moments(dots.data(), static_cast<long>(dots.size()));
}

ScoreStats stats_of(const Moments& q, const Moments& k, const Moments& scores, int dk) {
    ScoreStats s;
    s.d_k = dk;
    s.q_values = q.n, s.k_values = k.n, s.scores = scores.n;
    s.mean_q = q.mean(), s.var_q = q.var(), s.mean_k = k.mean(), s.var_k = k.var();
    s.var_scores = scores.var();
    return s;
}

}  // namespace

ScoreStats score_stats(const Trace& tr, const Moments& scores) {
    const Tensor& q = tr[TensorId::QHeads];
    const Tensor& k = tr[TensorId::KHeads];
    return stats_of(moments(q.ptr(), static_cast<long>(q.size())), moments(k.ptr(), static_cast<long>(k.size())), scores,
                    tr.config.d_k());
}

ScoreStats score_stats(const Trace& tr) {
    const Tensor& scores = tr[TensorId::Scores];
    return score_stats(tr, moments(scores.ptr(), static_cast<long>(scores.size())));
}

ScoreStats score_stats_without_pe_bias(const Trace& tr) {
    const AttentionConfig& c = tr.config;
    const int d = c.d_model, h = c.heads, dk = c.d_k(), h_kv = c.h_kv(), kv = c.kv_dim();
    const int Lq = std::min(c.L_q(), 64), Lkv = std::min(c.L_kv(), 64);
    // Batch item 0's first rows of x and memory are contiguous: (L, d_model) row-major.
    std::vector<float> q(static_cast<size_t>(Lq) * d), k(static_cast<size_t>(Lkv) * kv);
    matmul(q.data(), tr[TensorId::X].ptr(), tr[TensorId::WQ].ptr(), nullptr, Lq, d, d);
    matmul(k.data(), tr[TensorId::Memory].ptr(), tr[TensorId::WK].ptr(), nullptr, Lkv, d, kv);
    std::vector<float> qh(q.size()), kg(k.size()), kh(static_cast<size_t>(Lkv) * d);
    split_heads(qh.data(), q.data(), 1, Lq, h, dk);
    split_heads(kg.data(), k.data(), 1, Lkv, h_kv, dk);
    repeat_kv_heads(kh.data(), kg.data(), 1, h_kv, h / h_kv, Lkv, dk);  // each query head's keys
    return stats_of(moments(qh.data(), static_cast<long>(qh.size())), moments(kh.data(), static_cast<long>(kh.size())),
                    dot_moments(qh.data(), kh.data(), h, Lq, Lkv, dk), dk);
}

namespace {

// Why a variance that should be 1 is not: each reason that the numbers show.
Msg why_not_one(const AttentionConfig& c, const ScoreStats& s, double shown) {
    Msg m(Str::chk_fn4_not_one);
    const double product = s.var_q * s.var_k;
    const bool product_off = !close_to(product, 1.0), formula_off = !close_to(s.var_scores, s.predicted());
    if (product_off) m.then(Msg(Str::chk_fn4_reason_product, product));
    if (product_off && (c.pe || c.bias)) m.then(Msg(Str::chk_fn4_reason_pe_bias));
    if (formula_off && s.predicted() > 0)
        m.then(Msg(Str::chk_fn4_reason_formula, s.var_scores / s.predicted(), s.mean_q, s.mean_k, s.scores));
    if (!product_off && !formula_off) m.then(Msg(Str::chk_fn4_reason_compound, shown));
    return m;
}

// " — close to 1 ..." or " — not 1: ..." for a variance the footnote says is 1.
Msg verdict_on_one(const AttentionConfig& c, const ScoreStats& s, double shown) {
    return close_to(shown, 1.0) ? Msg(Str::chk_fn4_near_one) : why_not_one(c, s, shown);
}

Msg scaled_detail(const AttentionConfig& c, const ScoreStats& s) {
    if (!c.scale) return Msg(Str::chk_fn4_scale_off, s.var_scores, s.var_scaled());
    return std::move(Msg(Str::chk_fn4_scaled, s.var_scores, s.d_k, s.var_scaled()).then(verdict_on_one(c, s, s.var_scaled())));
}

Msg plain_detail(const AttentionConfig& c, const ScoreStats& p) {
    if (!c.pe && !c.bias) return Msg(Str::chk_fn4_already_off);
    AttentionConfig plain = c;
    plain.pe = plain.bias = false;
    Msg m(Str::chk_fn4_plain, p.mean_q, p.var_q, p.mean_k, p.var_k, p.var_scores, p.predicted(), p.var_scaled(), p.scores);
    return std::move(m.then(verdict_on_one(plain, p, p.var_scaled())));
}

}  // namespace

std::vector<InvariantCheck> footnote4_facts(const AttentionConfig& c, const ScoreStats& live, const ScoreStats& plain) {
    std::vector<InvariantCheck> facts;
    facts.push_back({"footnote4_premise", Str::chk_fn4_premise_label, Verdict::Fact,
                     Msg(Str::chk_fn4_premise, live.mean_q, live.var_q, live.mean_k, live.var_k)});
    facts.push_back({"footnote4_variance", Str::chk_fn4_variance_label, Verdict::Fact,
                     Msg(Str::chk_fn4_variance, live.var_scores, live.scores, live.d_k, live.var_q, live.var_k, live.predicted())});
    facts.push_back({"footnote4_scaled", c.scale ? Str::chk_fn4_scaled_label : Str::chk_fn4_unscaled_label, Verdict::Fact,
                     scaled_detail(c, live)});
    facts.push_back({"footnote4_without_pe_bias", Str::chk_fn4_plain_label, Verdict::Fact, plain_detail(c, plain)});
    return facts;
}

}  // namespace lab
