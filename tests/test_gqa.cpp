// test_gqa.cpp — grouped-query and multi-query attention (kv_heads) in the trace: the knob's
// validation, the repeat against plain loops, kv_heads = heads as plain MHA, and the backward
// through the repeat against finite differences.
#include <doctest/doctest.h>

#include <cmath>

#include "attention/config.h"
#include "base/message.h"
#include "trace/cost_model.h"
#include "trace/invariants.h"
#include "model_trace/backward_trace.h"
#include "trace/trace.h"

using namespace lab;

namespace {

AttentionConfig grouped_config(int heads, int kv_heads) {
    AttentionConfig c;
    c.d_model = 16, c.heads = heads, c.kv_heads = kv_heads, c.seq_len = 5;
    return c;
}

// Σ output · upstream, the probe loss attention_backward_trace differentiates.
double probe_loss(const Trace& tr, const Tensor& upstream) {
    double loss = 0;
    for (size_t i = 0; i < upstream.size(); ++i) loss += double(tr[TensorId::Output].data[i]) * upstream.data[i];
    return loss;
}

}  // namespace

TEST_CASE("kv_heads must divide heads; raw SDPA has none; the message names the knob") {
    for (int bad : {3, 5, -1}) {
        const std::vector<ConfigError> e = validate(grouped_config(4, bad));
        REQUIRE(e.size() == 1);
        CHECK(e[0].param == "kv_heads");
        CHECK(render(e[0].message, Lang::En).find("valid kv_heads: 1, 2, 4") != std::string::npos);
    }
    CHECK(validate(grouped_config(4, 2)).empty());
    CHECK(validate(grouped_config(4, 1)).empty());
    CHECK(validate(grouped_config(4, 4)).empty());
    AttentionConfig raw;
    raw.raw = true, raw.heads = 1, raw.pe = raw.bias = false, raw.kv_heads = 1;
    CHECK(validate(raw).empty());  // kv_heads = heads: nothing grouped
}

TEST_CASE("k_heads and v_heads: query head i holds group i / (h / h_kv) of K and V, by plain loops") {
    for (int kv : {1, 2}) {
        INFO("kv_heads=" << kv);
        const AttentionConfig c = grouped_config(4, kv);
        const Trace tr = run_trace(c);
        const int B = c.batch, L = c.L_kv(), dk = c.d_k(), n = c.heads / kv;
        const Tensor &k = tr[TensorId::K], &kh = tr[TensorId::KHeads], &vh = tr[TensorId::VHeads], &v = tr[TensorId::V];
        CHECK(k.shape == std::vector<int>{B, L, kv * dk});
        CHECK(tr[TensorId::WK].shape == std::vector<int>{c.d_model, kv * dk});
        CHECK(tr[TensorId::KGroups].shape == std::vector<int>{B, kv, L, dk});
        for (int b = 0; b < B; ++b)
            for (int head = 0; head < c.heads; ++head)
                for (int l = 0; l < L; ++l)
                    for (int j = 0; j < dk; ++j) {
                        const int col = (head / n) * dk + j;
                        CHECK(kh.at({b, head, l, j}) == k.at({b, l, col}));
                        CHECK(vh.at({b, head, l, j}) == v.at({b, l, col}));
                    }
        for (const StageRecord& s : tr.stages)
            for (const InvariantCheck& ch : s.checks) CHECK_MESSAGE(ch.verdict != Verdict::Fail, ch.id);
    }
}

TEST_CASE("kv_heads = heads is plain multi-head attention, value for value") {
    const Trace mha = run_trace(grouped_config(4, 0)), same = run_trace(grouped_config(4, 4));
    CHECK(mha[TensorId::Output].data == same[TensorId::Output].data);
    CHECK(same.find(TensorId::KGroups) == nullptr);
}

TEST_CASE("the backward through the repeat: d_w_k against finite differences of the probe loss") {
    const AttentionConfig c = grouped_config(4, 2);
    const AttentionInputs in = make_inputs(c);
    const AttentionWeights w = make_weights(c);
    const Trace tr = run_trace(c, in, w);
    const GradTrace g = attention_backward_trace(tr);
    const Tensor& upstream = g.grads[TensorId::Output];
    const Tensor& d_wk = g.grads[TensorId::WK];
    REQUIRE(d_wk.shape == w.w_k.shape);
    const float eps = 1e-2f;
    for (size_t at : {size_t(0), size_t(37), size_t(101)}) {
        AttentionWeights up = w, down = w;
        up.w_k.data[at] += eps, down.w_k.data[at] -= eps;
        const double fd = (probe_loss(run_trace(c, in, up), upstream) - probe_loss(run_trace(c, in, down), upstream)) / (2 * eps);
        INFO("w_k[" << at << "]: analytic " << d_wk.data[at] << ", finite difference " << fd);
        CHECK(std::abs(d_wk.data[at] - fd) <= 2e-3 + 2e-2 * std::abs(fd));
    }
}

TEST_CASE("the cost model counts W^K and W^V at h_kv·d_k columns and the repeat's copy") {
    AttentionConfig mha = grouped_config(4, 0), gqa = grouped_config(4, 2);  // d 16, L 5, B 2; kv_dim 16 and 8
    const double B = 2, L = 5, d = 16;
    CHECK(stage_cost(mha, StageId::Project).flops == 3 * (2 * B * L * d * d + B * L * d));
    CHECK(stage_cost(gqa, StageId::Project).flops == 2 * B * L * d * d + B * L * d + 2 * (2 * B * L * d * 8 + B * L * 8));
    CHECK(stage_cost(gqa, StageId::Project).bytes == 4 * (2 * B * L * d + 2 * B * L * (d + 8) + d * d + 2 * d * 8));
    // The split: views and transposes as before, plus the repeat reading 2 groups and writing 4 heads, for K and V.
    CHECK(stage_cost(mha, StageId::SplitHeads).bytes == 4 * 2 * B * 3 * L * d);
    CHECK(stage_cost(gqa, StageId::SplitHeads).bytes == 4 * 2 * B * (L * d + 2 * L * 8) + 4 * 2 * (B * L * 8 + B * 4 * L * 4));
    // From the scores on, nothing changes: every query head still has its own (copied) K and V.
    for (StageId s : {StageId::Scores, StageId::Softmax, StageId::Context, StageId::Output})
        CHECK(stage_cost(gqa, s).flops == stage_cost(mha, s).flops);
}
