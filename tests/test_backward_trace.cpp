// test_backward_trace.cpp — the backward view's numbers (model_trace/backward_trace.h): the
// random-weight stepper's probe loss against finite differences, NaN gradients of a
// fully masked row (−inf) explained as PyTorch does, every check of the block stages and
// of the gradients failing on a corrupted tensor, and the hover derivations redoing the
// arithmetic of the numbers on screen.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "explain/derivation.h"
#include "interop/checkpoint.h"
#include "model_trace/block_trace.h"
#include "naive_model.h"

using namespace lab;
using T = TensorId;

namespace {

Trainer& reverse_model() {
    static Trainer t;
    if (!t.ready()) {
        std::vector<ConfigError> errors;
        REQUIRE(load_checkpoint(std::string(LAB_CHECKPOINT_DIR) + "/reverse", "final", &t, &errors));
    }
    return t;
}

const InvariantCheck& check_in(const std::vector<InvariantCheck>& checks, const std::string& id) {
    for (const InvariantCheck& c : checks)
        if (c.id == id) return c;
    FAIL("no check " << id);
    return checks.front();
}

// The probe loss L = Σ output ∘ R of the naive attention, with one tensor nudged.
struct ProbeModel {
    ModelLayout layout;
    naive::Vec p;
    naive::Vec xq, xkv, r;
    bool causal = false, cross = false;

    explicit ProbeModel(const Trace& tr, const GradTrace& g) {
        const AttentionConfig& c = tr.config;
        const int d = c.d_model;
        const size_t dd = static_cast<size_t>(d) * d;
        layout.shape.d_model = d;
        layout.shape.heads = c.heads;
        layout.shape.scale = c.scale;
        for (T id : {T::WQ, T::WK, T::WV, T::BQ, T::BK, T::BV, T::WO, T::BO}) p.insert(p.end(), tr[id].data.begin(), tr[id].data.end());
        slots.w_q = 0, slots.w_k = dd, slots.w_v = 2 * dd;
        slots.b_q = 3 * dd, slots.b_k = 3 * dd + d, slots.b_v = 3 * dd + 2 * d;
        slots.w_out = 3 * dd + 3 * d, slots.b_out = 4 * dd + 3 * d;
        xq.assign(tr[T::QueryIn].data.begin(), tr[T::QueryIn].data.end());
        xkv.assign(tr[T::KeyValueIn].data.begin(), tr[T::KeyValueIn].data.end());
        r.assign(g.grads[T::Output].data.begin(), g.grads[T::Output].data.end());
        causal = c.mask == MaskKind::Causal;
        cross = c.cross;
    }
    AttentionSlots slots;
    double loss(const naive::Nudge& nudge) {
        naive::Model m{layout, p, nudge};
        naive::Vec q = xq, kv = xkv;
        if (nudge.at == "x") q[nudge.index] += nudge.delta;
        if (nudge.at == "x" && !cross) kv = q;
        if (nudge.at == "memory") kv[nudge.index] += nudge.delta;
        const naive::Vec out = m.attention("a", slots, q, kv, causal);
        double l = 0;
        for (size_t i = 0; i < out.size(); ++i) l += out[i] * r[i];
        return l;
    }
};

// The derivation states the cell's value as the lab prints it.
bool ends_with_value(const std::string& text, const Tensor& t, const std::vector<int>& at) {
    size_t flat = 0;
    for (size_t i = 0; i < at.size(); ++i) flat = flat * t.shape[i] + at[i];
    return text.find("= " + format_value(t.data[flat])) != std::string::npos;
}

}  // namespace

TEST_CASE("random weights: the probe loss's gradients agree with finite differences (self causal, cross, no scaling)") {
    AttentionConfig self;
    self.batch = 1;
    self.mask = MaskKind::Causal;
    AttentionConfig cross = self;
    cross.cross = true;
    cross.kv_len = 6;
    cross.mask = MaskKind::None;
    cross.scale = false;
    const std::pair<T, const char*> tensors[] = {{T::QueryIn, "x"}, {T::Q, "a/q"}, {T::QHeads, "a/q_heads"},
                                                  {T::KHeads, "a/k_heads"}, {T::VHeads, "a/v_heads"},
                                                  {T::Scores, "a/scores"}, {T::Scaled, "a/scaled"},
                                                  {T::Masked, "a/masked"}, {T::Weights, "a/weights"},
                                                  {T::Context, "a/context"}, {T::Concat, "a/concat"}};
    for (const AttentionConfig& c : {self, cross}) {
        const Trace tr = run_trace(c);
        const GradTrace g = attention_backward_trace(tr);
        ProbeModel probe(tr, g);
        double worst = 0;
        for (const auto& [id, hook] : tensors) {
            const Tensor& grad = g.grads[id];
            double gmax = 0;
            for (float v : grad.data) gmax = std::fmax(gmax, std::fabs(v));
            for (size_t cell : {size_t(0), grad.size() / 2, grad.size() - 1}) {
                const double h = 1e-4;
                const double fd = (probe.loss({hook, cell, h}) - probe.loss({hook, cell, -h})) / (2 * h);
                worst = std::fmax(worst, std::fabs(fd - grad.data[cell]) / (gmax + 1e-7));
            }
        }
        if (c.cross) {  // the memory's gradient: only through K and V
            const Tensor& grad = g.grads[T::KeyValueIn];
            const double fd = (probe.loss({"memory", 5, 1e-4}) - probe.loss({"memory", 5, -1e-4})) / 2e-4;
            CHECK(std::fabs(fd - grad.data[5]) <= 1e-4 * (1 + std::fabs(fd)));
        }
        CAPTURE(c.cross);
        CHECK(worst <= 1e-3);
        std::string failed;
        for (const auto& checks : g.checks)
            for (const InvariantCheck& ch : checks) CHECK_MESSAGE(ch.passed(), ch.id);
    }
}

TEST_CASE("a fully masked row with -inf fill has NaN gradients, explained; -1e9 keeps them finite") {
    AttentionConfig c;
    c.d_model = 16;
    c.heads = 4;
    c.seq_len = 5;
    c.mask = MaskKind::Padding;
    c.padding_lengths = {5, 0};
    const Trace tr = run_trace(c);
    const GradTrace g = attention_backward_trace(tr);
    const Tensor& d_masked = g.grads[T::Masked];
    CHECK(std::isnan(d_masked.at({1, 2, 3, 0})));
    CHECK(std::isfinite(d_masked.at({0, 2, 3, 0})));
    CHECK(std::isnan(g.loss));
    const InvariantCheck& finite = check_in(g.checks[static_cast<int>(StageId::Softmax)], "grad_finite");
    CHECK(finite.verdict == Verdict::NanMasked);
    CHECK(render(finite.detail, Lang::En).find("SoftmaxBackward") != std::string::npos);
    const std::string why = render(derive_grad_cell(tr, g, T::Masked, {1, 2, 3, 0}), Lang::En);
    CHECK(why.find("SoftmaxBackward0") != std::string::npos);
    CHECK(render(derive_grad_cell(tr, g, T::Masked, {1, 2, 3, 0}), Lang::Zh).find("NaN") != std::string::npos);
    // The NaN reaches the values' gradient through weightsᵀ · d_context, and stops at the mask.
    CHECK(std::isnan(g.grads[T::VHeads].at({1, 2, 0, 0})));
    CHECK(g.grads[T::Scaled].at({1, 2, 3, 0}) == 0.0f);
    c.mask_fill = MaskFill::NegBillion;
    const GradTrace finite_g = attention_backward_trace(run_trace(c));
    for (float v : finite_g.grads[T::Masked].data) REQUIRE(std::isfinite(v));
}

TEST_CASE("every gradient check fails on a corrupted gradient") {
    AttentionConfig c;
    c.mask = MaskKind::Causal;
    const Trace tr = run_trace(c);
    GradTrace g = attention_backward_trace(tr);
    const auto softmax = [&]() -> const std::vector<InvariantCheck>& { return g.checks[static_cast<int>(StageId::Softmax)]; };
    const auto corrupt = [&](T id, std::vector<int> at, float v, const char* check, StageId stage) {
        GradTrace bad = g;
        Tensor& t = bad.grads.tensors[static_cast<size_t>(bad.grads.slot[static_cast<int>(id)])];
        t.data[t.offset({at[0], at[1], at[2], at[3]})] = v;
        check_backward(tr, &bad);
        CAPTURE(check);
        CHECK(check_in(g.checks[static_cast<int>(stage)], check).passed());
        CHECK_FALSE(check_in(bad.checks[static_cast<int>(stage)], check).passed());
    };
    REQUIRE(!softmax().empty());
    corrupt(T::Masked, {0, 1, 2, 0}, g.grads[T::Masked].at({0, 1, 2, 0}) + 0.5f, "grad_rows_sum_to_0", StageId::Softmax);
    corrupt(T::Masked, {0, 1, 2, 0}, NAN, "grad_finite", StageId::Softmax);
    corrupt(T::Scaled, {0, 1, 1, 3}, 0.25f, "masked_get_no_grad", StageId::Mask);  // key 3 is after query 1
    corrupt(T::Scores, {1, 0, 2, 1}, g.grads[T::Scores].at({1, 0, 2, 1}) * 2 + 0.1f, "grad_over_sqrt_dk", StageId::Scale);

    ModelTrace m;
    REQUIRE(trace_model(reverse_model(), reverse_model().held_out_sample(0), 2, &m, nullptr));
    const auto corrupt_block = [&](T id, size_t at, float v, const char* check, BlockStageId stage) {
        GradTrace bad = m.grads;
        bad.grads.tensors[static_cast<size_t>(bad.grads.slot[static_cast<int>(id)])].data[at] = v;
        check_backward(m.trace, &bad);
        CAPTURE(check);
        CHECK(check_in(m.grads.block_checks[static_cast<int>(stage)], check).passed());
        CHECK_FALSE(check_in(bad.block_checks[static_cast<int>(stage)], check).passed());
    };
    corrupt_block(T::Residual, 4, m.grads.grads[T::Residual].data[4] + 0.05f, "grad_rows_sum_to_0", BlockStageId::AddNorm);
    size_t off = 0;
    while (m.trace[T::FfnHidden].data[off] > 0) ++off;
    corrupt_block(T::FfnHidden, off, 0.01f, "relu_gate", BlockStageId::Ffn);
    corrupt_block(T::Logits, 3, m.grads.grads[T::Logits].data[3] + 0.05f, "grad_rows_sum_to_0", BlockStageId::Generator);
}

TEST_CASE("every block stage check fails on a corrupted tensor") {
    ModelTrace good;
    REQUIRE(trace_model(reverse_model(), reverse_model().held_out_sample(0), 0, &good, nullptr));
    const struct {
        T tensor;
        BlockStageId stage;
        const char* check;
    } cases[] = {
        {T::Embed, BlockStageId::Embed, "embed_is_row_times_sqrt_d"}, {T::EmbedOut, BlockStageId::Embed, "pe_added"},
        {T::Residual, BlockStageId::AddNorm, "residual_is_sum"},      {T::NormOut, BlockStageId::AddNorm, "layer_norm_matches"},
        {T::FfnRelu, BlockStageId::Ffn, "relu_is_max0"},              {T::FfnOut, BlockStageId::Ffn, "ffn_matches"},
        {T::LayerOut, BlockStageId::Ffn, "layer_norm_matches"},       {T::Logits, BlockStageId::Generator, "logits_match"},
        {T::Probs, BlockStageId::Generator, "rows_sum_to_1"},         {T::Probs, BlockStageId::Generator, "probs_are_softmax"},
    };
    for (const auto& c : cases) {
        const std::string check = c.check;
        CAPTURE(check);
        CHECK(check_in(good.stage(c.stage).checks, c.check).passed());
        ModelTrace bad = good;
        Tensor& t = bad.trace.tensors[static_cast<size_t>(bad.trace.slot[static_cast<int>(c.tensor)])];
        t.data[t.size() / 2 + 1] += 0.5f;
        check_block_stages(&bad);
        CHECK_FALSE(check_in(bad.stage(c.stage).checks, c.check).passed());
    }
    // The loss check reads the probability of each target and the engine's number.
    ModelTrace bad = good;
    Tensor& probs = bad.trace.tensors[static_cast<size_t>(bad.trace.slot[static_cast<int>(T::Probs)])];
    probs.data[static_cast<size_t>(good.trace[T::Targets].data[0])] *= 0.5f;
    check_block_stages(&bad);
    CHECK_FALSE(check_in(bad.stage(BlockStageId::Generator).checks, "loss_matches").passed());
    bad = good;
    bad.engine_loss += 0.01;
    check_block_stages(&bad);
    CHECK_FALSE(check_in(bad.stage(BlockStageId::Generator).checks, "loss_matches").passed());
}

TEST_CASE("hover derivations: every shown tensor and gradient has one, and its arithmetic holds") {
    ModelTrace m;
    Trainer& t = reverse_model();
    REQUIRE(trace_model(t, t.held_out_sample(2), 2, &m, nullptr));  // decoder.layers.0.multihead_attn
    for (const BlockStageInfo& info : block_stage_infos())
        for (const StageShow& s : info.shows) {
            const Tensor& f = m.trace[s.tensor];
            std::vector<int> at(f.shape.size(), 0);
            at.back() = f.shape.back() - 1;
            const std::string text = render(derive_block_cell(m, s.tensor, at), Lang::En);
            CAPTURE(text);
            CHECK(ends_with_value(text, f, at));
        }
    auto all_pairs = [](auto&& each) {
        for (int s = 0; s < kStageCount; ++s) each(backward_info(static_cast<StageId>(s)));
        for (int s = 0; s < kBlockStageCount; ++s) each(backward_info(static_cast<BlockStageId>(s)));
    };
    all_pairs([&](const BackwardInfo& info) {
        for (const StageShow& s : info.pairs) {
            const Tensor* g = m.grads.grads.find(s.tensor);
            if (!g) continue;
            std::vector<int> at(g->shape.size(), 0);
            at.back() = g->shape.back() - 1;
            const std::string en = render(derive_grad_cell(m.trace, m.grads, s.tensor, at), Lang::En);
            CAPTURE(en);
            CHECK(en.rfind(g->name, 0) == 0);  // it names the cell first ...
            CHECK(ends_with_value(en, *g, at));  // ... and ends with (or states) its value
            CHECK_FALSE(render(derive_grad_cell(m.trace, m.grads, s.tensor, at), Lang::Zh).empty());
        }
    });
    // Softmax backward from the numbers on screen: A ∘ (dA − rowsum(dA ∘ A)).
    const Tensor& a = m.trace[T::Weights];
    const Tensor& da = m.grads.grads[T::Weights];
    const int L = a.shape[3];
    for (int i = 0; i < a.shape[2]; ++i) {
        double dot = 0;
        for (int k = 0; k < L; ++k) dot += static_cast<double>(da.at({0, 1, i, k})) * a.at({0, 1, i, k});
        for (int j = 0; j < L; ++j) {
            const double want = a.at({0, 1, i, j}) * (da.at({0, 1, i, j}) - dot);
            CHECK(std::fabs(m.grads.grads[T::Masked].at({0, 1, i, j}) - want) <= 1e-6 * (1 + std::fabs(want)));
        }
    }
    // Cross-entropy: dlogits = (probs − onehot) / N.
    const Tensor& p = m.trace[T::Probs];
    const int V = p.shape[2], N = p.shape[1];
    for (int i = 0; i < N; ++i)
        for (int c = 0; c < V; ++c) {
            const double want = (p.at({0, i, c}) - (c == static_cast<int>(m.trace[T::Targets].at({0, i})))) / N;
            CHECK(std::fabs(m.grads.grads[T::Logits].at({0, i, c}) - want) <= 1e-7);
        }
}
