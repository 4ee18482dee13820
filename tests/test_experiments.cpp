// test_experiments.cpp — the experiment panels' headline numbers against theory or
// exact expectations (teach/experiments/experiments.h). Tolerances are stated where they are used.
#include <doctest/doctest.h>

#include <cmath>
#include <set>

#include "teach/experiments/experiments.h"
#include "text.h"

using namespace lab;

namespace {

const MistakeSpec& spec(const char* key) {
    const MistakeSpec* m = find_mistake(key);
    REQUIRE_MESSAGE(m != nullptr, key);
    return *m;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

MistakeResult mistake(const char* key, int d_model, int heads, int seq_len, int batch, MaskFill fill = MaskFill::NegInf) {
    AttentionConfig c;
    c.d_model = d_model, c.heads = heads, c.seq_len = seq_len, c.batch = batch, c.mask_fill = fill;
    REQUIRE(validate(c).empty());
    return run_mistake(spec(key), c);
}

// The default sweep (about 0.15 s natively), computed once for the scaling tests.
const std::vector<ScalingPoint>& default_sweep() {
    static const std::vector<ScalingPoint> pts = scaling_experiment();
    return pts;
}

}  // namespace

// 1. Scaling ---------------------------------------------------------------------------

TEST_CASE("scaling: var(q.k) = d_k and var(q.k / sqrt(d_k)) = 1 (footnote 4)") {
    const std::vector<ScalingPoint>& pts = default_sweep();
    REQUIRE(pts.size() == 11);
    for (size_t i = 0; i < pts.size(); ++i) {
        const ScalingPoint& p = pts[i];
        CAPTURE(p.d_k);
        CHECK(p.d_k == (1 << i));
        // 20000 samples: the relative std error of a variance estimate is sqrt((2 + 6/d_k)/n),
        // 1.3% at d_k = 4, so 5% is > 3.8 sigma for d_k >= 4; d_k = 1, 2 (2.0%, 1.6%): 10%.
        const double tol = p.d_k >= 4 ? 0.05 : 0.10;
        CHECK(std::fabs(p.var_dot / p.d_k - 1) < tol);
        CHECK(std::fabs(p.var_scaled - 1) < tol);
    }
}

TEST_CASE("scaling: unscaled softmax saturates and its Jacobian vanishes; scaled stays put") {
    const std::vector<ScalingPoint>& pts = default_sweep();
    REQUIRE(pts.size() == 11);
    const ScalingPoint& small = pts[2];  // d_k = 4
    const ScalingPoint& big = pts.back();  // d_k = 1024
    REQUIRE(big.d_k == 1024);
    // Unscaled: 64 scores with std 32 -> nearly one-hot rows.
    CHECK(big.max_weight > 0.9);
    CHECK(big.max_weight > small.max_weight);
    CHECK(big.entropy < 0.5);                 // nats; uniform over 64 keys is ln 64 = 4.16
    CHECK(big.entropy < small.entropy);
    // Mean Jacobian norm: dominated by rows whose top two scores nearly tie, it falls only
    // like 1/sqrt(d_k): theory (and 4096-query runs) give ~0.35x the scaled value at 1024.
    CHECK(big.jacobian_norm < 0.5 * big.jacobian_norm_scaled);
    // The typical (median) row: exponentially small.
    CHECK(big.jacobian_norm_median < 0.01 * big.jacobian_norm_median_scaled);
    // Scaled: for d_k >= 4 the scaled scores are close to N(0, 1) whatever d_k (central limit;
    // at d_k = 1 the product of two normals has variance 1 but heavy tails, kurtosis 9), so
    // the statistics stay within 15% of their mean over d_k = 4..1024 (measured spread < 5%).
    double jac = 0, ent = 0, mw = 0;
    int n = 0;
    for (const ScalingPoint& p : pts)
        if (p.d_k >= 4) jac += p.jacobian_norm_scaled, ent += p.entropy_scaled, mw += p.max_weight_scaled, ++n;
    jac /= n, ent /= n, mw /= n;
    for (const ScalingPoint& p : pts) {
        CAPTURE(p.d_k);
        CHECK(p.entropy_scaled <= std::log(64.0) + 1e-9);
        if (p.d_k < 4) continue;
        CHECK(std::fabs(p.jacobian_norm_scaled / jac - 1) < 0.15);
        CHECK(std::fabs(p.entropy_scaled / ent - 1) < 0.15);
        CHECK(std::fabs(p.max_weight_scaled / mw - 1) < 0.15);
    }
}

TEST_CASE("scaling: deterministic from the seed, options honoured") {
    ScalingOptions o;
    o.samples = 500, o.max_log2_dk = 4, o.seed = 7;
    const auto a = scaling_experiment(o), b = scaling_experiment(o);
    REQUIRE(a.size() == 5);
    for (size_t i = 0; i < a.size(); ++i) {
        CHECK(a[i].var_dot == b[i].var_dot);
        CHECK(a[i].jacobian_norm == b[i].jacobian_norm);
    }
    o.seed = 8;
    CHECK(scaling_experiment(o)[4].var_dot != a[4].var_dot);
    // d_k = 1: scaling divides by 1, so scaled and unscaled agree exactly.
    CHECK(a[0].var_dot == doctest::Approx(a[0].var_scaled).epsilon(1e-12));
    CHECK(a[0].max_weight == a[0].max_weight_scaled);
}

// 2. Heads -------------------------------------------------------------------------------

TEST_CASE("heads: d_k = d_model / h, weights (B, h, L, L), same input, knockout adds up") {
    AttentionConfig base;
    base.d_model = 16, base.seq_len = 5;
    const std::vector<HeadsPoint> pts = heads_experiment(base);
    REQUIRE(pts.size() == 5);  // 1, 2, 4, 8, 16 all divide 16
    for (const HeadsPoint& p : pts) {
        CAPTURE(p.heads);
        CHECK(p.d_k == 16 / p.heads);
        CHECK(p.trace[TensorId::Weights].shape == std::vector<int>{2, p.heads, 5, 5});
        CHECK(p.trace[TensorId::QHeads].shape == std::vector<int>{2, p.heads, 5, 16 / p.heads});
        CHECK(p.trace[TensorId::X].data == pts[0].trace[TensorId::X].data);      // same input for every h
        CHECK(p.trace[TensorId::WQ].data == pts[0].trace[TensorId::WQ].data);  // and the same weights
        REQUIRE(p.head_entropy.size() == static_cast<size_t>(p.heads));
        REQUIRE(p.knockout_delta.size() == static_cast<size_t>(p.heads));
        for (int i = 0; i < p.heads; ++i) {
            CHECK(std::isfinite(p.knockout_delta[i]));
            CHECK(p.knockout_delta[i] > 0);
            CHECK(p.head_entropy[i] >= 0);
            CHECK(p.head_entropy[i] <= std::log(5.0) + 1e-9);  // at most uniform over 5 keys
        }
        CHECK(p.output_norm > 0);
        // Σ_i (output - output without head i) = output - b_O, exact up to float rounding.
        CHECK(p.knockout_sum_error < 1e-4 * (1 + p.output_norm));
    }
    // h = 1: knocking out the only head leaves b_O, so the delta is ||output - b_O||.
    const Trace& one = pts[0].trace;
    double norm = 0;
    const Tensor& out = one[TensorId::Output];
    for (size_t e = 0; e < out.size(); ++e) {
        const double d = out.data[e] - one[TensorId::BO].data[e % 16];
        norm += d * d;
    }
    CHECK(pts[0].knockout_delta[0] == doctest::Approx(std::sqrt(norm)).epsilon(1e-5));
}

TEST_CASE("heads: only valid h are run") {
    AttentionConfig base;
    base.d_model = 12;
    const auto pts = heads_experiment(base, {1, 5, 3, 0, 24});
    REQUIRE(pts.size() == 2);
    CHECK(pts[0].heads == 1);
    CHECK(pts[1].heads == 3);
    CHECK(pts[1].d_k == 4);
    AttentionConfig eight;  // d_model = 8: the default list keeps 1, 2, 4, 8
    CHECK(heads_experiment(eight).size() == 4);
}

// 3. Masks -------------------------------------------------------------------------------

TEST_CASE("masks: causal hides the future, padding hides keys, inverted causal sees only the future") {
    AttentionConfig base;  // B = 2, h = 2, L = 4, fill -inf
    const MaskComparison m = mask_experiment(base);
    REQUIRE(m.cases.size() == 7);
    const char* names[] = {"none", "causal", "padding", "custom", "inverted causal", "sliding window", "prefix-LM"};
    for (int i = 0; i < 7; ++i) CHECK(m.cases[i].name == names[i]);
    const MaskCase &none = m.cases[0], &causal = m.cases[1], &padding = m.cases[2], &custom = m.cases[3],
                   &inverted = m.cases[4];
    // Same input and weights for every case.
    for (const MaskCase& c : m.cases) CHECK(c.trace[TensorId::X].data == none.trace[TensorId::X].data);

    CHECK(none.future_nonzero == 2 * 2 * 6);  // B·h·L(L-1)/2 cells above the diagonal, all > 0
    CHECK(causal.future_nonzero == 0);
    CHECK_FALSE(causal.has_nan);
    CHECK(causal.fully_masked_rows == 0);

    // Padding lengths 4 and 2: item 1's keys 2 and 3 get weight exactly 0.
    const Tensor& pw = padding.trace[TensorId::Weights];
    for (int head = 0; head < 2; ++head)
        for (int i = 0; i < 4; ++i)
            for (int j = 2; j < 4; ++j) CHECK(pw.at({1, head, i, j}) == 0.0f);
    CHECK(pw.at({0, 0, 0, 3}) > 0.0f);

    // Band |i - j| <= 1.
    const Tensor& cw = custom.trace[TensorId::Weights];
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
            if (std::abs(i - j) > 1) CHECK(cw.at({0, 1, i, j}) == 0.0f);

    // Inverted causal with -inf: rows 0..L-2 put all their weight on j > i; the last row
    // keeps no key at all -> NaN, as PyTorch.
    const Tensor& iw = inverted.trace[TensorId::Weights];
    CHECK(inverted.has_nan);
    CHECK(inverted.fully_masked_rows == 2 * 2);  // (b, head) pairs of the last query
    for (int b = 0; b < 2; ++b)
        for (int head = 0; head < 2; ++head) {
            for (int j = 0; j < 4; ++j) CHECK(std::isnan(iw.at({b, head, 3, j})));
            for (int i = 0; i < 3; ++i) {
                double future = 0;
                for (int j = 0; j < 4; ++j) {
                    if (j > i) future += iw.at({b, head, i, j});
                    else CHECK(iw.at({b, head, i, j}) == 0.0f);
                }
                CHECK(future == doctest::Approx(1.0).epsilon(1e-6));
            }
        }
    CHECK_FALSE(m.fully_masked_why.empty());
    CHECK_FALSE(m.inverted_why.empty());
}

TEST_CASE("masks: the sliding window keeps each query's W most recent keys; a prefix-LM's prefix sees itself both ways") {
    AttentionConfig base;  // B = 2, h = 2, L = 4: window 2, prefix 2
    const MaskComparison m = mask_experiment(base);
    REQUIRE(m.cases.size() == 7);
    const Tensor& ww = m.cases[5].trace[TensorId::Weights];
    const Tensor& pw = m.cases[6].trace[TensorId::Weights];
    CHECK(m.cases[5].trace.config.window == 2);
    CHECK(m.cases[6].trace.config.prefix == 2);
    for (int b = 0; b < 2; ++b)
        for (int head = 0; head < 2; ++head)
            for (int i = 0; i < 4; ++i)
                for (int j = 0; j < 4; ++j) {
                    const bool in_window = j <= i && i - j < 2;  // written from the definition
                    CHECK((ww.at({b, head, i, j}) > 0.0f) == in_window);
                    const bool seen = j <= i || (i < 2 && j < 2);
                    CHECK((pw.at({b, head, i, j}) > 0.0f) == seen);
                }
    CHECK(m.cases[5].future_nonzero == 0);
    CHECK(m.cases[6].future_nonzero == 2 * 2 * 1);  // query 0 sees key 1, in every (b, head)
}

TEST_CASE("masks: a fully masked row is NaN with -inf and uniform with -1e9") {
    AttentionConfig base;
    const MaskComparison m = mask_experiment(base);
    const Tensor& wi = m.fully_masked_inf.trace[TensorId::Weights];
    const Tensor& wb = m.fully_masked_1e9.trace[TensorId::Weights];
    CHECK(m.fully_masked_inf.has_nan);
    CHECK_FALSE(m.fully_masked_1e9.has_nan);
    CHECK(m.fully_masked_inf.fully_masked_rows == 2 * 4);  // item 0: h·L rows
    CHECK(m.fully_masked_1e9.fully_masked_rows == 2 * 4);
    for (int head = 0; head < 2; ++head)
        for (int i = 0; i < 4; ++i)
            for (int j = 0; j < 4; ++j) {
                CHECK(std::isnan(wi.at({0, head, i, j})));
                CHECK(std::isfinite(wi.at({1, head, i, j})));  // item 1 keeps every key
                CHECK(wb.at({0, head, i, j}) == doctest::Approx(0.25).epsilon(1e-6));
            }

    // The inverted causal case with -1e9: the last row is uniform instead of NaN.
    base.mask_fill = MaskFill::NegBillion;
    const MaskComparison m9 = mask_experiment(base);
    const MaskCase& inv = m9.cases[4];
    CHECK_FALSE(inv.has_nan);
    const Tensor& iw = inv.trace[TensorId::Weights];
    for (int j = 0; j < 4; ++j) CHECK(iw.at({1, 1, 3, j}) == doctest::Approx(0.25).epsilon(1e-6));
    CHECK(m9.cases[1].future_nonzero == 0);  // -1e9 still gives exactly 0 after the softmax
}

// 4. Positional encoding -----------------------------------------------------------------

TEST_CASE("pe: PE_i . PE_j depends only on j - i; PE(0, even) = 0, PE(0, odd) = 1") {
    const PeExperiment pe = pe_experiment(64, 512, 32, {});
    CHECK(pe.length == 64);
    CHECK(pe.d_model == 512);
    CHECK(pe.train_length == 32);
    REQUIRE(pe.pe.size() == 64u * 512u);
    for (int col = 0; col < 512; ++col) CHECK(pe.pe[col] == (col % 2 == 0 ? 0.0f : 1.0f));
    CHECK(pe.similarity_depends_on_offset_only);
    CHECK(pe.max_offset_deviation < 1e-4);  // float PE values: ~sqrt(512)·6e-8 expected
    CHECK(pe.dims == std::vector<int>{0, 1, 4, 5, 20, 21});
    REQUIRE(pe.curves.size() == 6);
    for (size_t k = 0; k < pe.dims.size(); ++k)
        for (int pos = 0; pos < 64; ++pos) CHECK(pe.curves[k][pos] == pe.pe[pos * 512 + pe.dims[k]]);
    // sin² + cos² = 1 per frequency: PE_i . PE_i = d_model / 2.
    for (int i = 0; i < 64; ++i) CHECK(pe.similarity[i * 64 + i] == doctest::Approx(256.0).epsilon(1e-6));
    CHECK(pe.similarity[3 * 64 + 10] == pe.similarity[10 * 64 + 3]);
    // Positions past train_length (32) are computed like the others: still offset-only.
    CHECK(std::fabs(pe.similarity[40 * 64 + 45] - pe.similarity[0 * 64 + 5]) < 1e-4);
}

TEST_CASE("pe: dims outside d_model are dropped; an odd d_model breaks the offset property") {
    const PeExperiment small = pe_experiment(16, 8, 8, {});
    CHECK(small.dims == std::vector<int>{0, 1, 4, 5});
    CHECK(small.similarity_depends_on_offset_only);
    // An odd d_model ends on a lone sin column: sin(iw)sin(jw) is not a function of j - i.
    // For d_model = 7 that column has the lowest frequency (w = 10000^(-6/7)), so the
    // deviation over 64 positions is small (5.5e-4) but above the 1e-4 tolerance.
    const PeExperiment odd = pe_experiment(64, 7, 32, {0, 6, 9, -1});
    CHECK(odd.dims == std::vector<int>{0, 6});
    CHECK_FALSE(odd.similarity_depends_on_offset_only);
    CHECK(odd.max_offset_deviation > 1e-4);
    const PeExperiment one = pe_experiment(16, 1, 8, {});  // PE(pos, 0) = sin(pos) alone
    CHECK(one.dims == std::vector<int>{0});
    CHECK(one.max_offset_deviation > 0.5);
}

// 5. Mistakes ----------------------------------------------------------------------------
//
// The RuntimeError strings below were produced by Debian's python3-torch (torch 1.13.0a0)
// running the buggy lines on tensors of the same shapes, e.g.
//   python3 -c 'import torch; q = torch.randn(2, 4, 512); q.view(2, 4, 8, 128)'
//     RuntimeError: shape '[2, 4, 8, 128]' is invalid for input of size 4096
//   python3 -c 'import torch; q = torch.randn(2, 4, 8); q.view(2, 4, 2, 128)'
//     RuntimeError: shape '[2, 4, 2, 128]' is invalid for input of size 64
//   python3 -c 'import torch; q, k = torch.randn(2, 8, 4, 64), torch.randn(2, 8, 4, 64); q @ k'
//     RuntimeError: Expected size for first two dimensions of batch2 tensor to be: [16, 64] but got: [16, 4].
//   python3 -c 'import torch; q, k = torch.randn(2, 2, 6, 4), torch.randn(2, 2, 6, 4); q @ k'
//     RuntimeError: Expected size for first two dimensions of batch2 tensor to be: [4, 4] but got: [4, 6].
//   python3 -c 'import torch; q, k = torch.randn(3, 2, 3, 4), torch.randn(3, 2, 5, 4); q @ k'
//     RuntimeError: Expected size for first two dimensions of batch2 tensor to be: [6, 4] but got: [6, 5].
//   python3 -c 'import torch; q, k = torch.randn(2, 2, 4, 4), torch.randn(2, 2, 4, 4); print((q @ k).shape)'
//     torch.Size([2, 2, 4, 4])   (L_kv == d_k: runs)
// (4-D matmul folds (B, h) into one batch dimension and reports bmm's message.) The
// buggy weights and outputs of every running mistake were also recomputed once with
// those torch lines from the trace's q, k, v, W^O: they agree to 3e-6.

TEST_CASE("mistakes: every registry entry has a distinct key, lines and a symptom") {
    CHECK(mistakes().size() == 15);
    std::set<std::string> keys;
    AttentionConfig c;
    for (const MistakeSpec& m : mistakes()) {
        const MistakeResult r = run_mistake(m, c);
        CAPTURE(r.key);
        CHECK(r.spec == &m);
        CHECK(find_mistake(m.key) == &m);
        keys.insert(r.key);
        CHECK_FALSE(r.title.empty());
        CHECK_FALSE(render(r.buggy_line, Lang::En).empty());
        CHECK_FALSE(render(r.correct_line, Lang::En).empty());
        CHECK(render(r.buggy_line, Lang::En) != render(r.correct_line, Lang::En));
        // The comments are words of the string table: none stays a {#key}, and 中文 has its own.
        for (Lang lang : {Lang::En, Lang::Zh}) CHECK(render(r.buggy_line, lang).find("{#") == std::string::npos);
        if (render(r.buggy_line, Lang::En).find('#') != std::string::npos && r.key != "concat_without_transpose" &&
            r.key != "view_without_contiguous")  // their comments are shapes, the same in both
            CHECK(render(r.buggy_line, Lang::Zh) != render(r.buggy_line, Lang::En));
        CHECK_FALSE(r.symptom.empty());
        CHECK((r.claim.empty() == (m.claim == nullptr)));
        CHECK(r.runs == r.error.empty());
        CHECK(r.runs == r.stops_at.empty());
        if (!r.runs) CHECK(stage_index(r.stops_at) >= 0);
        // The correct run has the mistake's mask (causal, or none for an encoder's line), and is correct.
        CHECK(r.correct.config.mask == m.mask);
        // The grouped-query mistake runs with two groups of two heads (h 4 at d_model 8), the rest with h 2.
        CHECK(r.correct.config.grouped() == m.grouped);
        if (r.runs) {
            CHECK(r.weights.shape == std::vector<int>{2, m.grouped ? 4 : 2, 4, 4});
            CHECK(r.output.shape == std::vector<int>{2, 4, 8});
        }
    }
    CHECK(keys.size() == 15);
}

TEST_CASE("mistakes: softmax over the wrong axis / over heads breaks the row sums") {
    const MistakeResult axis = mistake("softmax_wrong_axis", 8, 2, 4, 2);
    REQUIRE(axis.runs);
    CHECK(axis.max_row_sum_error > 0.5);  // columns sum to 1 instead (measured 2.30)
    CHECK(axis.output_diff > 0.2);        // measured 0.93
    CHECK(axis.nan_weights == 0);

    const MistakeResult heads = mistake("softmax_over_heads", 8, 2, 4, 2);
    REQUIRE(heads.runs);
    CHECK(heads.max_row_sum_error > 0.5);  // measured 2.01
    // A future key is -inf in every head: softmax over heads of all -inf is NaN.
    CHECK(heads.nan_weights == 2 * 4 * 3);  // B · (L(L-1)/2 future cells) · h
    CHECK(heads.nan_outputs > 0);

    const MistakeResult heads9 = mistake("softmax_over_heads", 16, 4, 6, 2, MaskFill::NegBillion);
    REQUIRE(heads9.runs);
    CHECK(heads9.nan_weights == 0);
    // -1e9 in every head -> 1/h each: future weight per row = (#future keys)/h, mean 2.5/4.
    CHECK(heads9.future_weight == doctest::Approx(2.5 / 4).epsilon(1e-5));
}

TEST_CASE("mistakes: no scaling sharpens the softmax") {
    const MistakeResult small = mistake("no_scaling", 8, 2, 4, 2);
    REQUIRE(small.runs);
    CHECK(small.max_row_sum_error < 1e-5);  // still a softmax over the keys
    CHECK(small.mean_max_weight > small.correct_mean_max_weight);
    CHECK(small.output_diff > 0.05);  // d_k = 4: scores x2 (measured 0.14)
    const MistakeResult big = mistake("no_scaling", 512, 8, 4, 2);
    CHECK(big.mean_max_weight > 0.9);  // d_k = 64: scores x8 (measured 0.94 vs 0.73)
    CHECK(big.output_diff > small.output_diff);
}

TEST_CASE("mistakes: inverted mask looks only at the future; mask after softmax loses mass") {
    const MistakeResult inv = mistake("inverted_mask", 8, 2, 4, 2);
    REQUIRE(inv.runs);
    CHECK(inv.future_weight == doctest::Approx(1.0).epsilon(1e-6));  // every finite row
    CHECK(inv.nan_weights == 2 * 2 * 4);  // the last query's rows: all keys masked
    const MistakeResult inv9 = mistake("inverted_mask", 8, 2, 4, 2, MaskFill::NegBillion);
    CHECK(inv9.nan_weights == 0);
    CHECK(inv9.future_weight == doctest::Approx(0.75).epsilon(1e-6));  // rows 0..2 all future, row 3 uniform
    CHECK(inv9.output_diff > 0.5);

    const MistakeResult after = mistake("mask_after_softmax", 8, 2, 4, 2);
    REQUIRE(after.runs);
    CHECK(after.future_weight == 0);              // zeroed...
    CHECK(after.pre_mask_future_weight > 0.2);    // ...but only after the softmax spent it there (0.40)
    CHECK(after.max_row_sum_error > 0.5);         // rows sum to as little as 0.07
    CHECK(after.output_diff > 0.2);
}

TEST_CASE("mistakes: wrong split view and concat without transpose run but scramble the output") {
    const MistakeResult split = mistake("wrong_split_view", 8, 2, 4, 2);
    REQUIRE(split.runs);
    CHECK(split.error.empty());
    CHECK(split.output_diff > 0.2);  // measured 0.67
    CHECK(split.max_row_sum_error < 1e-5);  // the weights are still softmax rows
    const MistakeResult concat = mistake("concat_without_transpose", 8, 2, 4, 2);
    REQUIRE(concat.runs);
    CHECK(concat.output_diff > 0.2);  // measured 0.56
    CHECK(concat.weights.data == concat.correct[TensorId::Weights].data);  // only the concat differs
    // With one head both views coincide.
    CHECK(mistake("wrong_split_view", 8, 1, 4, 2).output_diff < 1e-6);
    CHECK(mistake("concat_without_transpose", 8, 1, 4, 2).output_diff < 1e-6);
}

TEST_CASE("mistakes: hard-coded d_k raises PyTorch's view error with the actual numbers") {
    const MistakeResult paper = mistake("hard_coded_dk", 512, 8, 4, 2);
    CHECK_FALSE(paper.runs);
    CHECK(paper.stops_at == "split_heads");
    CHECK(paper.error == "RuntimeError: shape '[2, 4, 8, 128]' is invalid for input of size 4096");
    const MistakeResult tiny = mistake("hard_coded_dk", 8, 2, 4, 2);
    CHECK(tiny.error == "RuntimeError: shape '[2, 4, 2, 128]' is invalid for input of size 64");
    // d_model / h = 128: the hard-coded value happens to be right.
    const MistakeResult lucky = mistake("hard_coded_dk", 256, 2, 3, 1);
    CHECK(lucky.runs);
    CHECK(lucky.output_diff == 0);
}

TEST_CASE("mistakes: d_k written as 128 with view(batch, -1, ...): the story agrees with the lab's own run") {
    // Paper base: every line of the tutorial's class is silent; the story's shapes are the
    // tensors the lab computed, and only the h * 128 wide concat makes W_o raise.
    const MistakeResult paper = mistake("view_infers_length", 512, 8, 10, 2);
    REQUIRE(paper.runs);
    REQUIRE(paper.story.size() == 9);
    for (size_t i = 0; i < 7; ++i) CHECK(paper.story[i].error.empty());
    CHECK(paper.story[3].shape == paper.weights.shape);  // softmax: the weights measured
    CHECK(paper.story[6].shape == paper.output.shape);   // W_o: the output measured
    const MistakeStep &wide = paper.story[7], &w_o = paper.story[8];
    CHECK(wide.branch == 1);
    CHECK_FALSE(wide.note.empty());
    // (B, L', h·128) flattened to B·L' rows against nn.Linear(512, 512)'s transposed weight.
    const int rows = wide.shape[0] * wide.shape[1], cols = wide.shape[2];
    CHECK(cols == 8 * 128);
    CHECK(rows * cols == 2 * 10 * 512);  // the view keeps every value
    CHECK(w_o.error == "RuntimeError: mat1 and mat2 shapes cannot be multiplied (" + std::to_string(rows) + "x" +
                           std::to_string(cols) + " and 512x512)");
    CHECK(contains(en(paper.claim), w_o.error.substr(14)));
    // Tiny: the first view raises and the story stops there, at the lab's error.
    const MistakeResult tiny = mistake("view_infers_length", 8, 2, 4, 2);
    REQUIRE(tiny.story.size() == 1);
    CHECK(tiny.story[0].error == tiny.error);
    // d_model / h = 128: both concats are one, nothing raises and no branch is shown.
    const MistakeResult lucky = mistake("view_infers_length", 1024, 8, 4, 1);
    CHECK(lucky.story.size() == 7);
    CHECK(lucky.story.back().error.empty());
}

TEST_CASE("mistakes: the wrong mask's length is the learner's; it raises unless it broadcasts") {
    AttentionConfig c;
    c.d_model = 512, c.heads = 8, c.seq_len = 10, c.batch = 2;
    for (int n = 1; n <= 14; ++n) {
        CAPTURE(n);
        const MistakeResult r = run_mistake(spec("mask_wrong_length"), c, MistakeOptions{n});
        CHECK(r.mask_length == n);
        CHECK(r.story[0].shape == std::vector<int>{n, n});
        if (n == 1 || n == 10) {
            // (1, 1) hides nothing: as if unmasked; (10, 10) is the causal mask itself.
            REQUIRE(r.runs);
            c.mask = n == 1 ? MaskKind::None : MaskKind::Causal;
            const Trace independent = run_trace(c, make_inputs(c), make_weights(c));
            const Tensor& want = independent[TensorId::Output];
            REQUIRE(r.output.data.size() == want.data.size());
            double worst = 0;
            for (size_t i = 0; i < want.data.size(); ++i) worst = std::fmax(worst, std::fabs(r.output.data[i] - want.data[i]));
            CHECK(worst <= 1e-6);
            CHECK((r.future_weight > 0.1) == (n == 1));
            CHECK(r.story.back().shape == std::vector<int>{2, 10, 512});
            continue;
        }
        CHECK_FALSE(r.runs);
        CHECK(r.stops_at == "mask");
        // masked_fill names the mask a; in place and added, the scores are a.
        const std::string mask_first = "(" + std::to_string(n) + ") must match the size of tensor b (10)";
        const std::string scores_first = "(10) must match the size of tensor b (" + std::to_string(n) + ")";
        CHECK(contains(r.error, mask_first));
        CHECK(contains(r.story[2].error, scores_first));
        CHECK(contains(r.story[3].error, scores_first));
        CHECK(contains(render(r.buggy_line, Lang::En), "torch.ones(" + std::to_string(n) + ", " + std::to_string(n) + ")"));
    }
    // Only this mistake builds a mask for another length (the page shows its knob for that alone).
    for (const MistakeSpec& m : mistakes()) CHECK((run_mistake(m, c).mask_length > 0) == (std::string(m.key) == "mask_wrong_length"));
    // Without a choice the length follows the keys: half of them.
    c.mask = MaskKind::Causal;
    for (int L : {4, 6, 10, 16}) {
        c.seq_len = L;
        CHECK(run_mistake(spec("mask_wrong_length"), c).mask_length == L / 2);
    }
}

TEST_CASE("mistakes: q @ k raises bmm's error unless L_kv == d_k") {
    const MistakeResult paper = mistake("k_instead_of_kt", 512, 8, 4, 2);
    CHECK_FALSE(paper.runs);
    CHECK(paper.stops_at == "scores");
    CHECK(paper.error ==
          "RuntimeError: Expected size for first two dimensions of batch2 tensor to be: [16, 64] but got: [16, 4].");
    const MistakeResult six = mistake("k_instead_of_kt", 8, 2, 6, 2);
    CHECK(six.error == "RuntimeError: Expected size for first two dimensions of batch2 tensor to be: [4, 4] but got: [4, 6].");
    AttentionConfig cross;
    cross.batch = 3, cross.seq_len = 3, cross.kv_len = 5, cross.cross = true;
    CHECK(run_mistake(spec("k_instead_of_kt"), cross).error ==
          "RuntimeError: Expected size for first two dimensions of batch2 tensor to be: [6, 4] but got: [6, 5].");
    // L_kv = d_k = 4 (the default config): q @ k is square and runs, with a wrong result.
    const MistakeResult square = mistake("k_instead_of_kt", 8, 2, 4, 2);
    CHECK(square.runs);
    CHECK(square.output_diff > 0.2);  // measured 0.55
    CHECK(square.max_row_sum_error < 1e-5);
}

TEST_CASE("mistakes: NaN everywhere is reported, not hidden") {
    // Cross-attention L_q = 3 < L_kv = 5 with a causal mask: keys 3, 4 are masked for every
    // query, so softmax over the queries (dim=-2) of those columns is NaN, and every output.
    AttentionConfig cross;
    cross.batch = 3, cross.seq_len = 3, cross.kv_len = 5, cross.cross = true;
    const MistakeResult r = run_mistake(spec("softmax_wrong_axis"), cross);
    REQUIRE(r.runs);
    CHECK(r.nan_outputs == static_cast<long>(r.output.size()));
    CHECK(std::isnan(r.output_diff));
    CHECK(en(r.symptom).find("NaN") != std::string::npos);
}

// 6. Encoder vs decoder ------------------------------------------------------------------

TEST_CASE("encoder vs decoder: three traces with their masks and shapes") {
    AttentionConfig base;  // B = 2, h = 2, d_model = 8
    const std::vector<AttentionKindTrace> kinds = encoder_decoder_experiment(base, 6, 4);
    REQUIRE(kinds.size() == 3);
    CHECK(kinds[0].name == "encoder self-attention");
    CHECK(kinds[1].name == "decoder masked self-attention");
    CHECK(kinds[2].name == "encoder-decoder attention");
    const Trace &enc = kinds[0].trace, &dec = kinds[1].trace, &cross = kinds[2].trace;
    CHECK(enc[TensorId::Weights].shape == std::vector<int>{2, 2, 6, 6});
    CHECK(dec[TensorId::Weights].shape == std::vector<int>{2, 2, 4, 4});
    CHECK(cross[TensorId::Weights].shape == std::vector<int>{2, 2, 4, 6});  // (B, h, L_dec, L_enc)
    CHECK(enc.config.mask == MaskKind::None);
    CHECK(dec.config.mask == MaskKind::Causal);
    CHECK(cross.config.mask == MaskKind::None);
    CHECK(cross.config.cross);
    // Shared inputs: the encoder reads the source the cross-attention uses as memory,
    // the decoder the target the cross-attention queries with.
    CHECK(enc[TensorId::X].data == cross[TensorId::Memory].data);
    CHECK(dec[TensorId::X].data == cross[TensorId::X].data);
    const Tensor& dw = dec[TensorId::Weights];
    for (int i = 0; i < 4; ++i)
        for (int j = i + 1; j < 4; ++j) CHECK(dw.at({0, 1, i, j}) == 0.0f);
    const Tensor& cw = cross[TensorId::Weights];
    for (float w : cw.data) CHECK(w > 0.0f);  // no mask: every decoder position sees every source position
    CHECK(encoder_decoder_experiment(base, 0, 4).empty());
}
