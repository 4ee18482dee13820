// trace.cpp — Attention Lab core: the forward pass that records every stage.
#include "trace.h"

#include <chrono>
#include <cmath>

#include "attention.h"
#include "invariants.h"
#include "positional_encoding.h"
#include "rng.h"

namespace lab {

namespace {

const char* const kTensorNames[kTensorCount] = {
#define LAB_TENSOR_NAME(id, name) name,
    LAB_TRACE_TENSORS(LAB_TENSOR_NAME)
#undef LAB_TENSOR_NAME
};

}  // namespace

const char* tensor_name(TensorId id) {
    const int i = static_cast<int>(id);
    return i >= 0 && i < kTensorCount ? kTensorNames[i] : "";
}

bool tensor_id(const std::string& name, TensorId* out) {
    for (int i = 0; i < kTensorCount; ++i)
        if (name == kTensorNames[i]) return *out = static_cast<TensorId>(i), true;
    return false;
}

const InvariantCheck* find_check(const StageRecord& stage, const std::string& id) {
    for (const InvariantCheck& c : stage.checks)
        if (c.id == id) return &c;
    return nullptr;
}

void embed_token(float* out, const std::string& word, int d_model, uint32_t seed) {
    Rng rng(stream_seed(seed, "token:" + word));
    for (int i = 0; i < d_model; ++i) out[i] = static_cast<float>(rng.normal());
}

Tensor& add_tensor(Trace& tr, TensorId id, Tensor t) {
    t.name = tensor_name(id);
    tr.slot[static_cast<int>(id)] = static_cast<int>(tr.tensors.size());
    tr.tensors.push_back(std::move(t));
    return tr.tensors.back();
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

Tensor& add_zeros(Trace& tr, TensorId id, std::vector<int> shape, std::vector<std::string> dims) {
    return add_tensor(tr, id, Tensor::zeros(tensor_name(id), std::move(shape), std::move(dims)));
}

// x (+ pe rows 0..L-1 when pe is non-null), per batch item.
void add_positions(float* out, const float* x, const float* pe, int B, int L, int d) {
    for (int b = 0; b < B; ++b)
        for (int i = 0; i < L * d; ++i) {
            const long at = static_cast<long>(b) * L * d + i;
            out[at] = pe ? x[at] + pe[i] : x[at];
        }
}

ShapeStep step_of(const char* op, const Tensor& t) { return {Msg::literal(op), t.shape, t.dims}; }
ShapeStep step_of(Msg op, const Tensor& t) { return {std::move(op), t.shape, t.dims}; }

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

// The pass in progress: the trace, its sizes and the clock.
struct Pass {
    Trace& tr;
    const AttentionConfig& c;
    int B, Lq, Lkv, d, h, dk, dv;
    Stopwatch clock;
    void record(StageId id, std::vector<ShapeStep> steps) { tr.stages[static_cast<int>(id)].shape_steps = std::move(steps); }
    void timed(StageId id) { tr.stage_ms[static_cast<int>(id)] += clock.lap(); }
};

// 1. Inputs and positional encoding: what enters the projections.
void input_stage(Pass& p, const AttentionInputs& in) {
    const Tensor& x = add_tensor(p.tr, TensorId::X, in.x);
    const Tensor& memory = add_tensor(p.tr, TensorId::Memory, in.memory);
    const Tensor* pe = nullptr;
    if (p.c.pe) {
        const int L_max = p.Lq > p.Lkv ? p.Lq : p.Lkv;
        Tensor& t = add_zeros(p.tr, TensorId::Pe, {L_max, p.d}, {"L", "d_model"});
        sinusoidal_positional_encoding(t.ptr(), L_max, p.d);
        pe = &t;
    }
    Tensor& query_in = add_zeros(p.tr, TensorId::QueryIn, {p.B, p.Lq, p.d}, {"B", "L_q", "d_model"});
    add_positions(query_in.ptr(), x.ptr(), pe ? pe->ptr() : nullptr, p.B, p.Lq, p.d);
    Tensor& kv_in = add_zeros(p.tr, TensorId::KeyValueIn, {p.B, p.Lkv, p.d}, {"B", "L_kv", "d_model"});
    add_positions(kv_in.ptr(), memory.ptr(), pe ? pe->ptr() : nullptr, p.B, p.Lkv, p.d);
    p.record(StageId::Input, {step_of("x", x), step_of("x + pe", query_in)});
    p.timed(StageId::Input);
}

// 2. Projections: one d_model x d_model matrix per role, all heads at once.
void project_stage(Pass& p, const AttentionWeights& w) {
    const TensorId ids[] = {TensorId::WQ, TensorId::WK, TensorId::WV, TensorId::BQ, TensorId::BK, TensorId::BV};
    const Tensor* params[] = {&w.w_q, &w.w_k, &w.w_v, &w.b_q, &w.b_k, &w.b_v};
    for (int i = 0; i < 6; ++i) add_tensor(p.tr, ids[i], *params[i]);
    Tensor& q = add_zeros(p.tr, TensorId::Q, {p.B, p.Lq, p.d}, {"B", "L_q", "d_model"});
    Tensor& k = add_zeros(p.tr, TensorId::K, {p.B, p.Lkv, p.d}, {"B", "L_kv", "d_model"});
    Tensor& v = add_zeros(p.tr, TensorId::V, {p.B, p.Lkv, p.d}, {"B", "L_kv", "d_model"});
    p.clock.lap();  // copying the weights into the trace is bookkeeping, not the projection
    const float* query_in = p.tr[TensorId::QueryIn].ptr();
    const float* kv_in = p.tr[TensorId::KeyValueIn].ptr();
    linear(q.ptr(), query_in, w.w_q.ptr(), w.b_q.ptr(), p.B * p.Lq, p.d, p.d);
    linear(k.ptr(), kv_in, w.w_k.ptr(), w.b_k.ptr(), p.B * p.Lkv, p.d, p.d);
    linear(v.ptr(), kv_in, w.w_v.ptr(), w.b_v.ptr(), p.B * p.Lkv, p.d, p.d);
    p.record(StageId::Project, {step_of("x", p.tr[TensorId::QueryIn]), step_of("x @ W^Q + b", q)});
    p.timed(StageId::Project);
}

// 3. Split heads: (B, L, d_model) -> view (B, L, h, d_k) -> transpose(1, 2) (B, h, L, d_k).
void split_stage(Pass& p) {
    Tensor& q_heads = add_zeros(p.tr, TensorId::QHeads, {p.B, p.h, p.Lq, p.dk}, {"B", "h", "L_q", "d_k"});
    Tensor& k_heads = add_zeros(p.tr, TensorId::KHeads, {p.B, p.h, p.Lkv, p.dk}, {"B", "h", "L_kv", "d_k"});
    Tensor& v_heads = add_zeros(p.tr, TensorId::VHeads, {p.B, p.h, p.Lkv, p.dv}, {"B", "h", "L_kv", "d_v"});
    split_heads(q_heads.ptr(), p.tr[TensorId::Q].ptr(), p.B, p.Lq, p.h, p.dk);
    split_heads(k_heads.ptr(), p.tr[TensorId::K].ptr(), p.B, p.Lkv, p.h, p.dk);
    split_heads(v_heads.ptr(), p.tr[TensorId::V].ptr(), p.B, p.Lkv, p.h, p.dv);
    p.record(StageId::SplitHeads, {step_of("q", p.tr[TensorId::Q]),
                                   {Msg::literal("view(B, L_q, h, d_k)"), {p.B, p.Lq, p.h, p.dk}, {"B", "L_q", "h", "d_k"}},
                                   step_of("transpose(1, 2)", q_heads)});
    p.timed(StageId::SplitHeads);
}

// 4-8. Scaled dot-product attention, one (batch, head) slice at a time.
void attention_stages(Pass& p) {
    const std::vector<std::string> score_dims = {"B", "h", "L_q", "L_kv"};
    Tensor& scores = add_zeros(p.tr, TensorId::Scores, {p.B, p.h, p.Lq, p.Lkv}, score_dims);
    Tensor& scaled = add_zeros(p.tr, TensorId::Scaled, {p.B, p.h, p.Lq, p.Lkv}, score_dims);
    const std::vector<int> mshape = mask_shape(p.c);
    Tensor& mask = add_zeros(p.tr, TensorId::Mask, mshape,
                             mshape.size() == 3 ? std::vector<std::string>{"B", "L_q", "L_kv"}
                                                : std::vector<std::string>{"L_q", "L_kv"});
    build_keep_mask(mask.ptr(), p.c);
    Tensor& masked = add_zeros(p.tr, TensorId::Masked, {p.B, p.h, p.Lq, p.Lkv}, score_dims);
    Tensor& weights = add_zeros(p.tr, TensorId::Weights, {p.B, p.h, p.Lq, p.Lkv}, score_dims);
    Tensor& context = add_zeros(p.tr, TensorId::Context, {p.B, p.h, p.Lq, p.dv}, {"B", "h", "L_q", "d_v"});
    const Tensor& q_heads = p.tr[TensorId::QHeads];
    const Tensor& k_heads = p.tr[TensorId::KHeads];
    const Tensor& v_heads = p.tr[TensorId::VHeads];
    double sdpa_ms[5] = {};
    const SdpaOptions opts{p.c.scale, p.c.mask_fill, sdpa_ms};
    const bool use_mask = p.c.mask != MaskKind::None;
    const long block = static_cast<long>(p.Lq) * p.Lkv;
    for (long s = 0; s < static_cast<long>(p.B) * p.h; ++s) {
        const SdpaOutputs out{scores.ptr() + s * block, scaled.ptr() + s * block, masked.ptr() + s * block,
                              weights.ptr() + s * block, context.ptr() + s * p.Lq * p.dv};
        const float* keep = use_mask ? mask.ptr() + (mshape.size() == 3 ? (s / p.h) * block : 0) : nullptr;
        scaled_dot_product_attention(out, q_heads.ptr() + s * p.Lq * p.dk, k_heads.ptr() + s * p.Lkv * p.dk,
                                     v_heads.ptr() + s * p.Lkv * p.dv, keep, p.Lq, p.Lkv, p.dk, p.dv, opts);
    }
    const StageId sdpa_stages[5] = {StageId::Scores, StageId::Scale, StageId::Mask, StageId::Softmax, StageId::Context};
    for (int i = 0; i < 5; ++i) p.tr.stage_ms[static_cast<int>(sdpa_stages[i])] += sdpa_ms[i];
    p.record(StageId::Scores, {step_of("q_heads", q_heads),
                               {Msg::literal("k_heads.transpose(-2, -1)"), {p.B, p.h, p.dk, p.Lkv}, {"B", "h", "d_k", "L_kv"}},
                               step_of("q @ k^T", scores)});
    p.record(StageId::Scale, {step_of("scores", scores),
                              p.c.scale ? step_of("/ sqrt(d_k)", scaled) : step_of(Msg(Str::chk_trace_scaling_off), scaled)});
    p.record(StageId::Mask, {step_of("mask", mask), step_of("masked_fill(mask == 0, fill)", masked)});
    p.record(StageId::Softmax, {step_of("softmax(dim=-1)", weights)});
    p.record(StageId::Context, {step_of("weights", weights), step_of("v_heads", v_heads), step_of("weights @ v", context)});
    p.clock.lap();
}

// 9. Concat: transpose(1, 2) back to (B, L_q, h, d_v), then view as (B, L_q, h*d_v).
// 10. Output projection W^O mixes the heads.
void output_stages(Pass& p, const AttentionWeights& w) {
    const Tensor& context = p.tr[TensorId::Context];
    Tensor& concat = add_zeros(p.tr, TensorId::Concat, {p.B, p.Lq, p.h * p.dv}, {"B", "L_q", "h*d_v"});
    concat_heads(concat.ptr(), context.ptr(), p.B, p.h, p.Lq, p.dv);
    p.record(StageId::Concat, {step_of("context", context),
                               {Msg::literal("transpose(1, 2)"), {p.B, p.Lq, p.h, p.dv}, {"B", "L_q", "h", "d_v"}},
                               step_of("contiguous().view(B, L_q, h*d_v)", concat)});
    p.timed(StageId::Concat);
    add_tensor(p.tr, TensorId::WO, w.w_o);
    add_tensor(p.tr, TensorId::BO, w.b_o);
    Tensor& output = add_zeros(p.tr, TensorId::Output, {p.B, p.Lq, p.d}, {"B", "L_q", "d_model"});
    p.clock.lap();
    linear(output.ptr(), concat.ptr(), w.w_o.ptr(), w.b_o.ptr(), p.B * p.Lq, p.h * p.dv, p.d);
    p.record(StageId::Output, {step_of("concat", concat), step_of("concat @ W^O + b", output)});
    p.timed(StageId::Output);
}

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
    const TensorId mat_ids[] = {TensorId::WQ, TensorId::WK, TensorId::WV, TensorId::WO};
    const TensorId bias_ids[] = {TensorId::BQ, TensorId::BK, TensorId::BV, TensorId::BO};
    for (int i = 0; i < 4; ++i) {
        *mats[i] = Tensor::zeros(tensor_name(mat_ids[i]), {d, d}, {"d_in", "d_out"});
        fill_uniform(*mats[i], stream_seed(c.seed, tensor_name(mat_ids[i])), w_bound);
        *biases[i] = Tensor::zeros(tensor_name(bias_ids[i]), {d}, {"d_model"});
        if (c.bias) fill_uniform(*biases[i], stream_seed(c.seed, tensor_name(bias_ids[i])), b_bound);
    }
    return w;
}

Trace run_trace(const AttentionConfig& c, const AttentionInputs& in, const AttentionWeights& w) {
    Trace tr;
    tr.config = c;
    tr.tensors.reserve(kTensorCount);  // references into the vector stay valid while we add
    for (int s = 0; s < kStageCount; ++s) tr.stages.push_back({static_cast<StageId>(s), {}, {}});
    Pass p{tr, c, c.batch, c.L_q(), c.L_kv(), c.d_model, c.heads, c.d_k(), c.d_v(), {}};
    input_stage(p, in);
    project_stage(p, w);
    split_stage(p);
    attention_stages(p);
    output_stages(p, w);
    check_invariants(tr);
    tr.checks_ms = p.clock.lap();
    return tr;
}

Trace run_trace(const AttentionConfig& c) { return run_trace(c, make_inputs(c), make_weights(c)); }

}  // namespace lab
