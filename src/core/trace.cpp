// trace.cpp — Attention Lab core: the forward pass that records every stage.
#include "trace.h"

#include <chrono>
#include <cmath>

#include "attention.h"
#include "i18n.h"
#include "invariants.h"
#include "positional_encoding.h"
#include "rng.h"

namespace lab {

const Tensor* Trace::find(const std::string& name) const {
    for (const Tensor& t : tensors)
        if (t.name == name) return &t;
    return nullptr;
}

void embed_token(float* out, const std::string& word, int d_model, uint32_t seed) {
    Rng rng(stream_seed(seed, "token:" + word));
    for (int i = 0; i < d_model; ++i) out[i] = static_cast<float>(rng.normal());
}

namespace {

void fill_normal(Tensor& t, uint64_t seed) {
    Rng rng(seed);
    for (float& v : t.data) v = static_cast<float>(rng.normal());
}

void fill_uniform(Tensor& t, uint64_t seed, double bound) {
    Rng rng(seed);
    const float lo = static_cast<float>(-bound), span = static_cast<float>(2 * bound);
    for (float& v : t.data) v = lo + span * rng.uniform_float();
}

Tensor& add(Trace& tr, Tensor t) {
    tr.tensors.push_back(std::move(t));
    return tr.tensors.back();
}

// x (+ pe rows 0..L-1 when pe is non-null), per batch item.
void add_positions(float* out, const float* x, const float* pe, int B, int L, int d) {
    for (int b = 0; b < B; ++b)
        for (int i = 0; i < L * d; ++i) {
            const long at = static_cast<long>(b) * L * d + i;
            out[at] = pe ? x[at] + pe[i] : x[at];
        }
}

ShapeStep step_of(const std::string& op, const Tensor& t) { return {op, t.shape, t.dims}; }

// Milliseconds since the previous lap, added to one stage's total.
struct Stopwatch {
    std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
    double lap() {
        const auto now = std::chrono::steady_clock::now();
        const double ms = std::chrono::duration<double, std::milli>(now - last).count();
        last = now;
        return ms;
    }
};

}  // namespace

AttentionInputs make_inputs(const AttentionConfig& c, const std::vector<std::string>& tokens) {
    AttentionInputs in;
    in.x = Tensor::zeros("x", {c.batch, c.L_q(), c.d_model}, {"B", "L_q", "d_model"});
    fill_normal(in.x, stream_seed(c.seed, "x"));
    for (int b = 0; b < c.batch; ++b)
        for (int i = 0; i < c.L_q() && i < static_cast<int>(tokens.size()); ++i)
            embed_token(in.x.ptr() + in.x.offset({b, i, 0}), tokens[i], c.d_model, c.seed);
    in.memory = Tensor::zeros("memory", {c.batch, c.L_kv(), c.d_model}, {"B", "L_kv", "d_model"});
    if (c.cross) fill_normal(in.memory, stream_seed(c.seed, "memory"));
    else in.memory.data = in.x.data;
    return in;
}

AttentionWeights make_weights(const AttentionConfig& c) {
    AttentionWeights w;
    const int d = c.d_model;
    const double w_bound = std::sqrt(6.0 / (d + d));
    const double b_bound = 1.0 / std::sqrt(static_cast<double>(d));
    Tensor* mats[] = {&w.w_q, &w.w_k, &w.w_v, &w.w_o};
    Tensor* biases[] = {&w.b_q, &w.b_k, &w.b_v, &w.b_o};
    const char* mat_names[] = {"w_q", "w_k", "w_v", "w_o"};
    const char* bias_names[] = {"b_q", "b_k", "b_v", "b_o"};
    for (int i = 0; i < 4; ++i) {
        *mats[i] = Tensor::zeros(mat_names[i], {d, d}, {"d_in", "d_out"});
        fill_uniform(*mats[i], stream_seed(c.seed, mat_names[i]), w_bound);
        *biases[i] = Tensor::zeros(bias_names[i], {d}, {"d_model"});
        if (c.bias) fill_uniform(*biases[i], stream_seed(c.seed, bias_names[i]), b_bound);
    }
    return w;
}

Trace run_trace(const AttentionConfig& c, const AttentionInputs& in, const AttentionWeights& w) {
    const int B = c.batch, Lq = c.L_q(), Lkv = c.L_kv(), d = c.d_model, h = c.heads, dk = c.d_k(), dv = c.d_v();
    Trace tr;
    tr.config = c;
    tr.tensors.reserve(32);  // references into the vector stay valid while we add
    for (int s = 0; s < kStageCount; ++s) tr.stages.push_back({static_cast<StageId>(s), {}, {}});
    auto record = [&](StageId id, std::vector<ShapeStep> steps) { tr.stages[static_cast<int>(id)].shape_steps = std::move(steps); };

    Stopwatch clock;
    auto timed = [&](StageId id) { tr.stage_ms[static_cast<int>(id)] += clock.lap(); };

    // 1. Inputs and positional encoding: what enters the projections.
    const Tensor& x = add(tr, in.x);
    const Tensor& memory = add(tr, in.memory);
    const Tensor* pe = nullptr;
    if (c.pe) {
        const int L_max = Lq > Lkv ? Lq : Lkv;
        Tensor& t = add(tr, Tensor::zeros("pe", {L_max, d}, {"L", "d_model"}));
        sinusoidal_positional_encoding(t.ptr(), L_max, d);
        pe = &t;
    }
    Tensor& query_in = add(tr, Tensor::zeros("query_in", {B, Lq, d}, {"B", "L_q", "d_model"}));
    add_positions(query_in.ptr(), x.ptr(), pe ? pe->ptr() : nullptr, B, Lq, d);
    Tensor& kv_in = add(tr, Tensor::zeros("key_value_in", {B, Lkv, d}, {"B", "L_kv", "d_model"}));
    add_positions(kv_in.ptr(), memory.ptr(), pe ? pe->ptr() : nullptr, B, Lkv, d);
    record(StageId::Input, {step_of("x", x), step_of("x + pe", query_in)});
    timed(StageId::Input);

    // 2. Projections: one d_model x d_model matrix per role, all heads at once.
    for (const Tensor* t : {&w.w_q, &w.w_k, &w.w_v, &w.b_q, &w.b_k, &w.b_v}) add(tr, *t);
    Tensor& q = add(tr, Tensor::zeros("q", {B, Lq, d}, {"B", "L_q", "d_model"}));
    Tensor& k = add(tr, Tensor::zeros("k", {B, Lkv, d}, {"B", "L_kv", "d_model"}));
    Tensor& v = add(tr, Tensor::zeros("v", {B, Lkv, d}, {"B", "L_kv", "d_model"}));
    clock.lap();  // copying the weights into the trace is bookkeeping, not the projection
    linear(q.ptr(), query_in.ptr(), w.w_q.ptr(), w.b_q.ptr(), B * Lq, d, d);
    linear(k.ptr(), kv_in.ptr(), w.w_k.ptr(), w.b_k.ptr(), B * Lkv, d, d);
    linear(v.ptr(), kv_in.ptr(), w.w_v.ptr(), w.b_v.ptr(), B * Lkv, d, d);
    record(StageId::Project, {step_of("x", query_in), step_of("x @ W^Q + b", q)});
    timed(StageId::Project);

    // 3. Split heads: (B, L, d_model) -> view (B, L, h, d_k) -> transpose(1, 2) (B, h, L, d_k).
    Tensor& q_heads = add(tr, Tensor::zeros("q_heads", {B, h, Lq, dk}, {"B", "h", "L_q", "d_k"}));
    Tensor& k_heads = add(tr, Tensor::zeros("k_heads", {B, h, Lkv, dk}, {"B", "h", "L_kv", "d_k"}));
    Tensor& v_heads = add(tr, Tensor::zeros("v_heads", {B, h, Lkv, dv}, {"B", "h", "L_kv", "d_v"}));
    split_heads(q_heads.ptr(), q.ptr(), B, Lq, h, dk);
    split_heads(k_heads.ptr(), k.ptr(), B, Lkv, h, dk);
    split_heads(v_heads.ptr(), v.ptr(), B, Lkv, h, dv);
    record(StageId::SplitHeads, {step_of("q", q),
                                 {"view(B, L_q, h, d_k)", {B, Lq, h, dk}, {"B", "L_q", "h", "d_k"}},
                                 step_of("transpose(1, 2)", q_heads)});
    timed(StageId::SplitHeads);

    // 4-8. Scaled dot-product attention, one (batch, head) slice at a time.
    const std::vector<std::string> score_dims = {"B", "h", "L_q", "L_kv"};
    Tensor& scores = add(tr, Tensor::zeros("scores", {B, h, Lq, Lkv}, score_dims));
    Tensor& scaled = add(tr, Tensor::zeros("scaled", {B, h, Lq, Lkv}, score_dims));
    const std::vector<int> mshape = mask_shape(c);
    Tensor& mask = add(tr, Tensor::zeros("mask", mshape,
                                         mshape.size() == 3 ? std::vector<std::string>{"B", "L_q", "L_kv"}
                                                            : std::vector<std::string>{"L_q", "L_kv"}));
    build_keep_mask(mask.ptr(), c);
    Tensor& masked = add(tr, Tensor::zeros("masked", {B, h, Lq, Lkv}, score_dims));
    Tensor& weights = add(tr, Tensor::zeros("weights", {B, h, Lq, Lkv}, score_dims));
    Tensor& context = add(tr, Tensor::zeros("context", {B, h, Lq, dv}, {"B", "h", "L_q", "d_v"}));
    const bool use_mask = c.mask != MaskKind::None;
    double sdpa_ms[5] = {};
    const SdpaOptions opts{c.scale, c.mask_fill, sdpa_ms};
    clock.lap();  // allocation above is not attention work
    const long score_block = static_cast<long>(Lq) * Lkv;
    for (int b = 0; b < B; ++b)
        for (int head = 0; head < h; ++head) {
            const long slice = static_cast<long>(b) * h + head;
            SdpaOutputs out;
            out.scores = scores.ptr() + slice * score_block;
            out.scaled = scaled.ptr() + slice * score_block;
            out.masked = masked.ptr() + slice * score_block;
            out.weights = weights.ptr() + slice * score_block;
            out.context = context.ptr() + slice * Lq * dv;
            const float* keep = use_mask ? mask.ptr() + (mshape.size() == 3 ? b * score_block : 0) : nullptr;
            scaled_dot_product_attention(out, q_heads.ptr() + slice * Lq * dk, k_heads.ptr() + slice * Lkv * dk,
                                         v_heads.ptr() + slice * Lkv * dv, keep, Lq, Lkv, dk, dv, opts);
        }
    const StageId sdpa_stages[5] = {StageId::Scores, StageId::Scale, StageId::Mask, StageId::Softmax, StageId::Context};
    for (int i = 0; i < 5; ++i) tr.stage_ms[static_cast<int>(sdpa_stages[i])] += sdpa_ms[i];
    record(StageId::Scores, {step_of("q_heads", q_heads),
                             {"k_heads.transpose(-2, -1)", {B, h, dk, Lkv}, {"B", "h", "d_k", "L_kv"}},
                             step_of("q @ k^T", scores)});
    record(StageId::Scale,
           {step_of("scores", scores), step_of(c.scale ? "/ sqrt(d_k)" : lab::tr(Str::chk_trace_scaling_off), scaled)});
    record(StageId::Mask, {step_of("mask", mask), step_of("masked_fill(mask == 0, fill)", masked)});
    record(StageId::Softmax, {step_of("softmax(dim=-1)", weights)});
    record(StageId::Context, {step_of("weights", weights), step_of("v_heads", v_heads), step_of("weights @ v", context)});

    clock.lap();
    // 9. Concat: transpose(1, 2) back to (B, L_q, h, d_v), then view as (B, L_q, h*d_v).
    Tensor& concat = add(tr, Tensor::zeros("concat", {B, Lq, h * dv}, {"B", "L_q", "h*d_v"}));
    concat_heads(concat.ptr(), context.ptr(), B, h, Lq, dv);
    record(StageId::Concat, {step_of("context", context),
                             {"transpose(1, 2)", {B, Lq, h, dv}, {"B", "L_q", "h", "d_v"}},
                             step_of("contiguous().view(B, L_q, h*d_v)", concat)});
    timed(StageId::Concat);

    // 10. Output projection W^O mixes the heads.
    add(tr, w.w_o);
    add(tr, w.b_o);
    Tensor& output = add(tr, Tensor::zeros("output", {B, Lq, d}, {"B", "L_q", "d_model"}));
    clock.lap();
    linear(output.ptr(), concat.ptr(), w.w_o.ptr(), w.b_o.ptr(), B * Lq, h * dv, d);
    record(StageId::Output, {step_of("concat", concat), step_of("concat @ W^O + b", output)});
    timed(StageId::Output);

    check_invariants(tr);
    tr.checks_ms = clock.lap();
    return tr;
}

Trace run_trace(const AttentionConfig& c) { return run_trace(c, make_inputs(c), make_weights(c)); }

}  // namespace lab
