// test_engine.cpp — every stage of the engine against the naive loop reference.
#include <doctest/doctest.h>

#include "attention/attention.h"
#include "compare.h"
#include "naive_reference.h"
#include "trace/invariants.h"
#include "trace/trace.h"

#include "text.h"

using namespace lab;

namespace {

// The keep mask expanded to (B, Lq, Lkv), whatever the trace's rank.
std::vector<float> keep_per_item(const Trace& tr) {
    const Tensor& m = tr[TensorId::Mask];
    const AttentionConfig& c = tr.config;
    if (m.shape.size() == 3) return {m.data.begin(), m.data.end()};
    std::vector<float> out;
    for (int b = 0; b < c.batch; ++b) out.insert(out.end(), m.data.begin(), m.data.end());
    return out;
}

void check_against_naive(const AttentionConfig& c) {
    const Trace tr = run_trace(c);
    auto t = [&](TensorId id) { return std::vector<float>(tr[id].data.begin(), tr[id].data.end()); };
    const naive::Result r =
        naive::attention(t(TensorId::QueryIn), t(TensorId::KeyValueIn), t(TensorId::WQ), t(TensorId::WK), t(TensorId::WV), t(TensorId::WO), t(TensorId::BQ), t(TensorId::BK),
                         t(TensorId::BV), t(TensorId::BO), keep_per_item(tr), c.batch, c.L_q(), c.L_kv(), c.d_model, c.heads, c.scale,
                         mask_fill_value(c.mask_fill));
    CHECK_AGREES("q", t(TensorId::Q), r.q, c.d_model);
    CHECK_AGREES("k", t(TensorId::K), r.k, c.d_model);
    CHECK_AGREES("v", t(TensorId::V), r.v, c.d_model);
    CHECK_AGREES("q_heads", t(TensorId::QHeads), r.q_heads, c.d_model);
    CHECK_AGREES("k_heads", t(TensorId::KHeads), r.k_heads, c.d_model);
    CHECK_AGREES("v_heads", t(TensorId::VHeads), r.v_heads, c.d_model);
    CHECK_AGREES("scores", t(TensorId::Scores), r.scores, c.d_model);
    CHECK_AGREES("scaled", t(TensorId::Scaled), r.scaled, c.d_model);
    CHECK_AGREES("masked", t(TensorId::Masked), r.masked, c.d_model);
    CHECK_AGREES("weights", t(TensorId::Weights), r.weights, c.d_model);
    CHECK_AGREES("context", t(TensorId::Context), r.context, c.d_model);
    CHECK_AGREES("concat", t(TensorId::Concat), r.concat, c.d_model);
    CHECK_AGREES("output", t(TensorId::Output), r.output, c.d_model);
}

}  // namespace

TEST_CASE("engine matches the naive reference stage by stage") {
    AttentionConfig c;  // Tiny: B=2, L=4, d_model=8, h=2, causal
    SUBCASE("tiny causal") { check_against_naive(c); }
    SUBCASE("no mask, no bias, no pe") {
        c.mask = MaskKind::None, c.bias = false, c.pe = false;
        check_against_naive(c);
    }
    SUBCASE("unscaled") {
        c.scale = false;
        check_against_naive(c);
    }
    SUBCASE("padding with -1e9 and a fully masked item") {
        c.mask = MaskKind::Padding, c.padding_lengths = {3, 0}, c.mask_fill = MaskFill::NegBillion;
        check_against_naive(c);
    }
    SUBCASE("padding with -inf and a fully masked item gives NaN rows") {
        c.mask = MaskKind::Padding, c.padding_lengths = {4, 0};
        check_against_naive(c);
    }
    SUBCASE("custom mask") {
        c.mask = MaskKind::Custom, c.custom_keep = {1, 0, 0, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1};
        check_against_naive(c);
    }
    SUBCASE("cross-attention L_q=4, L_kv=6, h=1") {
        c.cross = true, c.kv_len = 6, c.heads = 1, c.mask = MaskKind::None;
        check_against_naive(c);
    }
    SUBCASE("paper base: d_model=512, h=8, L=10, B=2") {
        c.d_model = 512, c.heads = 8, c.seq_len = 10;
        check_against_naive(c);
    }
    SUBCASE("odd sizes: d_model=15, h=5, L=7, B=3, seed 7") {
        c.d_model = 15, c.heads = 5, c.seq_len = 7, c.batch = 3, c.seed = 7;
        check_against_naive(c);
    }
    // More query rows than one block of the attention steps (64 natively, trace.cpp), and a
    // per-item mask: each block must find its own rows of the mask, of q and of the weights.
    SUBCASE("several row blocks: L=150 (64 + 64 + 22), padding 150 and 70, d_model=24, h=3") {
        c.d_model = 24, c.heads = 3, c.seq_len = 150, c.mask = MaskKind::Padding, c.padding_lengths = {150, 70};
        check_against_naive(c);
    }
    SUBCASE("several row blocks, causal, cross: L_q=130, L_kv=97, B=1") {
        c.d_model = 16, c.heads = 2, c.seq_len = 130, c.cross = true, c.kv_len = 97, c.batch = 1;
        check_against_naive(c);
    }
}

TEST_CASE("scaled_dot_product_attention alone: a hand-checked 2x2 example") {
    // q = [[1,0],[0,1]], k = [[1,0],[0,1]], v = [[1,2],[3,4]], d_k = 2, no mask.
    // scores = I; scaled = I / sqrt(2); row 0 weights = softmax([0.7071, 0]).
    const float q[] = {1, 0, 0, 1}, k[] = {1, 0, 0, 1}, v[] = {1, 2, 3, 4};
    float scores[4], scaled[4], weights[4], context[4];
    SdpaOutputs out;
    out.scores = scores, out.scaled = scaled, out.weights = weights, out.context = context;
    scaled_dot_product_attention(out, q, k, v, nullptr, 2, 2, 2, 2);
    const double a = std::exp(1 / std::sqrt(2.0)), p0 = a / (a + 1);
    CHECK(scores[0] == 1.0f);
    CHECK(scores[1] == 0.0f);
    CHECK(scaled[0] == doctest::Approx(0.70710678).epsilon(1e-6));
    CHECK(weights[0] == doctest::Approx(p0).epsilon(1e-6));
    CHECK(weights[1] == doctest::Approx(1 - p0).epsilon(1e-6));
    CHECK(context[0] == doctest::Approx(p0 * 1 + (1 - p0) * 3).epsilon(1e-6));
    CHECK(context[3] == doctest::Approx(p0 * 4 + (1 - p0) * 2).epsilon(1e-6));
}

TEST_CASE("softmax is stable for huge scores (inputs x 1e4)") {
    const float q[] = {1e4f, -2e4f, 3e4f, 1e4f}, k[] = {1e4f, 1e4f, -1e4f, 2e4f}, v[] = {1, 2, 3, 4};
    float weights[4], context[4];
    SdpaOutputs out;
    out.weights = weights, out.context = context;
    scaled_dot_product_attention(out, q, k, v, nullptr, 2, 2, 2, 2);
    for (float w : weights) CHECK(std::isfinite(w));
    CHECK(weights[0] + weights[1] == doctest::Approx(1.0));
    CHECK(weights[2] + weights[3] == doctest::Approx(1.0));
}

TEST_CASE("causal mask keeps j <= i; future weights are exactly zero") {
    AttentionConfig c;
    c.seq_len = 5;
    const Trace tr = run_trace(c);
    const Tensor& m = tr[TensorId::Mask];
    const Tensor& w = tr[TensorId::Weights];
    REQUIRE(m.shape == std::vector<int>{5, 5});
    for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 5; ++j) {
            CHECK(m.at({i, j}) == (j <= i ? 1.0f : 0.0f));
            if (j > i) CHECK(w.at({1, 1, i, j}) == 0.0f);
        }
    CHECK(w.at({0, 0, 0, 0}) == 1.0f);  // the first token can only see itself
}

TEST_CASE("invariants are computed from the numbers") {
    AttentionConfig c;
    SUBCASE("a good trace passes everything") {
        const Trace tr = run_trace(c);
        int checks = 0;
        for (const StageRecord& s : tr.stages)
            for (const InvariantCheck& ch : s.checks) {
                INFO(ch.id << ": " << en(ch.detail));
                CHECK((ch.passed() || ch.verdict == Verdict::Fact));
                checks += ch.is_check();
            }
        CHECK(checks >= 15);
        CHECK(tr.fully_masked_rows == 0);
    }
    SUBCASE("fully masked rows are counted and reported, NaN only there") {
        c.mask = MaskKind::Padding, c.padding_lengths = {4, 0};
        const Trace tr = run_trace(c);
        CHECK(tr.fully_masked_rows == 2 * 4);  // item 1: 2 heads x 4 queries
        const InvariantCheck* fully = find_check(tr.stage(StageId::Mask), "no_fully_masked_rows");
        REQUIRE(fully);
        CHECK(fully->verdict == Verdict::Fail);
        CHECK(en(fully->detail).find("NaN") != std::string::npos);
        for (const auto& ch : tr.stage(StageId::Softmax).checks) CHECK(ch.passed());
        const InvariantCheck* finite = find_check(tr.stage(StageId::Output), "finite");
        REQUIRE(finite);
        CHECK(finite->verdict == Verdict::NanMasked);  // NaN only in those rows: explained, not a pass
        CHECK(find_check(tr.stage(StageId::Concat), "concat_inverts_split")->passed());  // NaN copied as NaN is in place
        CHECK(std::isnan(tr[TensorId::Output].at({1, 0, 0})));
        CHECK(std::isfinite(tr[TensorId::Output].at({0, 3, 7})));
    }
    SUBCASE("-1e9 gives uniform weights on fully masked rows") {
        c.mask = MaskKind::Padding, c.padding_lengths = {4, 0}, c.mask_fill = MaskFill::NegBillion;
        const Trace tr = run_trace(c);
        for (int j = 0; j < 4; ++j) CHECK(tr[TensorId::Weights].at({1, 0, 2, j}) == doctest::Approx(0.25));
        const InvariantCheck* fully = find_check(tr.stage(StageId::Mask), "no_fully_masked_rows");
        REQUIRE(fully);
        CHECK(en(fully->detail).find("uniform") != std::string::npos);
    }
    SUBCASE("a corrupted weight fails the rows-sum-to-1 badge") {
        Trace tr = run_trace(c);
        for (auto& s : tr.stages) s.checks.clear();
        const_cast<Tensor&>(tr[TensorId::Weights]).data[1] += 0.5f;  // row 0 of (0, 0) now sums to 1.5
        check_invariants(tr);
        const InvariantCheck* rows = find_check(tr.stage(StageId::Softmax), "rows_sum_to_1");
        REQUIRE(rows);
        CHECK(rows->verdict == Verdict::Fail);
    }
}
