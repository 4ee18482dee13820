// trace.cpp — Attention Lab core: the forward pass that records every stage.
#include "trace/trace.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "attention/attention.h"
#include "attention/positional_encoding.h"
#include "attention/trace_kernels.h"
#include "base/rng.h"
#include "trace/invariants.h"

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

void drop_head_axis(std::vector<int>* shape, std::vector<std::string>* dims) {
    for (size_t i = 0; i < dims->size() && i < shape->size(); ++i)
        if ((*dims)[i] == "h") {
            dims->erase(dims->begin() + static_cast<long>(i));
            shape->erase(shape->begin() + static_cast<long>(i));
            return;
        }
}

const char* stage_status_name(StageStatus s) { return s == StageStatus::Skipped ? "skipped" : "run"; }

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

// The pass in progress: the trace, its sizes, the clock, and the tensors of the trace it
// recomputes, whose buffers it reuses (a knob change keeps most sizes: no allocation, no
// zero-fill, no page faults, and a positional encoding of the same shape is already right).
struct Pass {
    Trace& tr;
    const AttentionConfig& c;
    int B, Lq, Lkv, d, h, dk, dv;
    std::vector<Tensor> old;
    int old_slot[kTensorCount];
    Stopwatch clock;

    Pass(Trace& trace, const AttentionConfig& config)
        : tr(trace), c(config), B(c.batch), Lq(c.L_q()), Lkv(c.L_kv()), d(c.d_model), h(c.heads), dk(c.d_k()), dv(c.d_v()),
          old(std::move(trace.tensors)) {
        std::copy(trace.slot, trace.slot + kTensorCount, old_slot);
        tr.config = c;
        tr.tensors.clear();
        tr.tensors.reserve(kTensorCount);  // references into the vector stay valid while we add
        std::fill(tr.slot, tr.slot + kTensorCount, -1);
        tr.stages.clear();
        for (int s = 0; s < kStageCount; ++s) tr.stages.push_back({static_cast<StageId>(s), {}, {}});
        tr.fully_masked_rows = 0;
        std::fill(tr.stage_ms, tr.stage_ms + kStageCount, 0.0);
        tr.checks_ms = 0;
        clock.lap();
    }
    // The previous trace's tensor under this id, or null.
    Tensor* previous(TensorId id) { return old_slot[static_cast<int>(id)] < 0 ? nullptr : &old[old_slot[static_cast<int>(id)]]; }
    // A tensor of this shape for a stage to write every value of: the previous trace's
    // buffer when it has the size (its stale values are overwritten), else a new one
    // (the previous buffer freed first, so memory peaks at one trace).
    Tensor& output(TensorId id, std::vector<int> shape, std::vector<std::string> dims) {
        Floats data;
        if (Tensor* prev = previous(id)) data.swap(prev->data);
        if (data.size() != element_count(shape)) {
            Floats().swap(data);
            data.resize(element_count(shape));
        }
        Tensor t;
        t.name = tensor_name(id);
        t.shape = std::move(shape);
        t.dims = std::move(dims);
        t.data.swap(data);
        tr.slot[static_cast<int>(id)] = static_cast<int>(tr.tensors.size());
        tr.tensors.push_back(std::move(t));
        return tr.tensors.back();
    }
    // A copy of an input or a parameter.
    Tensor& copy(TensorId id, const Tensor& from) {
        Tensor& t = output(id, from.shape, from.dims);
        std::copy(from.data.begin(), from.data.end(), t.data.begin());
        return t;
    }
    // The values of a tensor this pass has made, to write.
    float* values(TensorId id) { return tr.tensors[tr.slot[static_cast<int>(id)]].ptr(); }
    void record(StageId id, std::vector<ShapeStep> steps) { tr.stages[static_cast<int>(id)].shape_steps = std::move(steps); }
    void timed(StageId id) { tr.stage_ms[static_cast<int>(id)] += clock.lap(); }
};

// 1. Inputs and positional encoding: what enters the projections.
void input_stage(Pass& p, const AttentionInputs& in) {
    const Tensor& x = p.copy(TensorId::X, in.x);
    const Tensor& memory = p.copy(TensorId::Memory, in.memory);
    const Tensor* pe = nullptr;
    if (p.c.pe) {
        const int L_max = p.Lq > p.Lkv ? p.Lq : p.Lkv;
        const Tensor* had = p.previous(TensorId::Pe);
        const bool same = had && had->shape == std::vector<int>{L_max, p.d};  // a function of its shape alone
        Tensor& t = p.output(TensorId::Pe, {L_max, p.d}, {"L", "d_model"});
        if (!same) sinusoidal_positional_encoding(t.ptr(), L_max, p.d);
        pe = &t;
    }
    Tensor& query_in = p.output(TensorId::QueryIn, {p.B, p.Lq, p.d}, {"B", "L_q", "d_model"});
    add_positions(query_in.ptr(), x.ptr(), pe ? pe->ptr() : nullptr, p.B, p.Lq, p.d);
    Tensor& kv_in = p.output(TensorId::KeyValueIn, {p.B, p.Lkv, p.d}, {"B", "L_kv", "d_model"});
    add_positions(kv_in.ptr(), memory.ptr(), pe ? pe->ptr() : nullptr, p.B, p.Lkv, p.d);
    p.record(StageId::Input, {step_of("x", x), step_of("x + pe", query_in)});
    p.timed(StageId::Input);
}

// K's and V's last axis: d_model, or h_kv·d_k when key/value heads are shared (GQA).
const char* kv_axis(const AttentionConfig& c) { return c.grouped() ? "h_kv*d_k" : "d_model"; }

// 2. Projections: one d_model x d_model matrix per role, all heads at once (W^K and W^V are
// d_model x h_kv·d_k when h_kv key/value heads are shared).
void project_stage(Pass& p, const AttentionWeights& w) {
    const TensorId ids[] = {TensorId::WQ, TensorId::WK, TensorId::WV, TensorId::BQ, TensorId::BK, TensorId::BV};
    const Tensor* params[] = {&w.w_q, &w.w_k, &w.w_v, &w.b_q, &w.b_k, &w.b_v};
    for (int i = 0; i < 6; ++i) p.copy(ids[i], *params[i]);
    const int kv = p.c.kv_dim();
    Tensor& q = p.output(TensorId::Q, {p.B, p.Lq, p.d}, {"B", "L_q", "d_model"});
    Tensor& k = p.output(TensorId::K, {p.B, p.Lkv, kv}, {"B", "L_kv", kv_axis(p.c)});
    Tensor& v = p.output(TensorId::V, {p.B, p.Lkv, kv}, {"B", "L_kv", kv_axis(p.c)});
    p.clock.lap();  // copying the weights into the trace is bookkeeping, not the projection
    const float* query_in = p.tr[TensorId::QueryIn].ptr();
    const float* kv_in = p.tr[TensorId::KeyValueIn].ptr();
    matmul(q.ptr(), query_in, w.w_q.ptr(), w.b_q.ptr(), p.B * p.Lq, p.d, p.d);
    matmul(k.ptr(), kv_in, w.w_k.ptr(), w.b_k.ptr(), p.B * p.Lkv, p.d, kv);
    matmul(v.ptr(), kv_in, w.w_v.ptr(), w.b_v.ptr(), p.B * p.Lkv, p.d, kv);
    std::vector<ShapeStep> steps = {step_of("x", p.tr[TensorId::QueryIn]), step_of("x @ W^Q + b", q)};
    if (p.c.grouped()) steps.push_back(step_of("x @ W^K + b", k));
    p.record(StageId::Project, std::move(steps));
    p.timed(StageId::Project);
}

// 3. Split heads: (B, L, d_model) -> view (B, L, h, d_k) -> transpose(1, 2) (B, h, L, d_k).
// With h_kv shared key/value heads, K and V split into h_kv groups, each then repeated for
// the h / h_kv query heads that read it.
void split_stage(Pass& p) {
    const int h_kv = p.c.h_kv(), n = p.h / h_kv;
    Tensor& q_heads = p.output(TensorId::QHeads, {p.B, p.h, p.Lq, p.dk}, {"B", "h", "L_q", "d_k"});
    Tensor& k_heads = p.output(TensorId::KHeads, {p.B, p.h, p.Lkv, p.dk}, {"B", "h", "L_kv", "d_k"});
    Tensor& v_heads = p.output(TensorId::VHeads, {p.B, p.h, p.Lkv, p.dv}, {"B", "h", "L_kv", "d_v"});
    split_heads(q_heads.ptr(), p.tr[TensorId::Q].ptr(), p.B, p.Lq, p.h, p.dk);
    std::vector<ShapeStep> steps = {step_of("q", p.tr[TensorId::Q]),
                                    {Msg::literal("view(B, L_q, h, d_k)"), {p.B, p.Lq, p.h, p.dk}, {"B", "L_q", "h", "d_k"}},
                                    step_of("transpose(1, 2)", q_heads)};
    if (!p.c.grouped()) {
        split_heads(k_heads.ptr(), p.tr[TensorId::K].ptr(), p.B, p.Lkv, p.h, p.dk);
        split_heads(v_heads.ptr(), p.tr[TensorId::V].ptr(), p.B, p.Lkv, p.h, p.dv);
    } else {
        Tensor& k_groups = p.output(TensorId::KGroups, {p.B, h_kv, p.Lkv, p.dk}, {"B", "h_kv", "L_kv", "d_k"});
        Tensor& v_groups = p.output(TensorId::VGroups, {p.B, h_kv, p.Lkv, p.dv}, {"B", "h_kv", "L_kv", "d_v"});
        split_heads(k_groups.ptr(), p.tr[TensorId::K].ptr(), p.B, p.Lkv, h_kv, p.dk);
        split_heads(v_groups.ptr(), p.tr[TensorId::V].ptr(), p.B, p.Lkv, h_kv, p.dv);
        repeat_kv_heads(k_heads.ptr(), k_groups.ptr(), p.B, h_kv, n, p.Lkv, p.dk);
        repeat_kv_heads(v_heads.ptr(), v_groups.ptr(), p.B, h_kv, n, p.Lkv, p.dv);
        steps.push_back(step_of("k", p.tr[TensorId::K]));
        steps.push_back({Msg::literal("view(B, L_kv, h_kv, d_k)"), {p.B, p.Lkv, h_kv, p.dk}, {"B", "L_kv", "h_kv", "d_k"}});
        steps.push_back(step_of("transpose(1, 2)", k_groups));
        steps.push_back(step_of("repeat_interleave(h // h_kv, dim=1)", k_heads));
    }
    p.record(StageId::SplitHeads, std::move(steps));
    p.timed(StageId::SplitHeads);
}

// Where each keep row's kept keys end (its last kept key + 1; 0 when it keeps none):
// from there on masked_fill writes only the fill.
std::vector<int> kept_ends(const Tensor& mask) {
    const int Lkv = mask.shape.back();
    std::vector<int> ends(mask.size() / Lkv);
    for (size_t r = 0; r < ends.size(); ++r) {
        int end = Lkv;
        while (end > 0 && mask.data[r * Lkv + end - 1] == 0.0f) --end;
        ends[r] = end;
    }
    return ends;
}

// The mask tensor, and the shape records of steps 4-8.
Tensor& mask_tensor(Pass& p) {
    const std::vector<int> mshape = mask_shape(p.c);
    Tensor& mask = p.output(TensorId::Mask, mshape,
                            mshape.size() == 3 ? std::vector<std::string>{"B", "L_q", "L_kv"}
                                               : std::vector<std::string>{"L_q", "L_kv"});
    build_keep_mask(mask.ptr(), p.c);
    return mask;
}

void record_attention_steps(Pass& p) {
    const Trace& tr = p.tr;
    const Tensor &scores = tr[TensorId::Scores], &scaled = tr[TensorId::Scaled], &weights = tr[TensorId::Weights];
    p.record(StageId::Scores, {step_of("q_heads", tr[TensorId::QHeads]),
                               {Msg::literal("k_heads.transpose(-2, -1)"), {p.B, p.h, p.dk, p.Lkv}, {"B", "h", "d_k", "L_kv"}},
                               step_of("q @ k^T", scores)});
    p.record(StageId::Scale, {step_of("scores", scores),
                              p.c.scale ? step_of("/ sqrt(d_k)", scaled) : step_of(Msg(Str::chk_trace_scaling_off), scaled)});
    p.record(StageId::Mask, {step_of("mask", tr[TensorId::Mask]), step_of("masked_fill(mask == 0, fill)", tr[TensorId::Masked])});
    p.record(StageId::Softmax, {step_of("softmax(dim=-1)", weights)});
    p.record(StageId::Context, {step_of("weights", weights), step_of("v_heads", tr[TensorId::VHeads]),
                                step_of("weights @ v", tr[TensorId::Context])});
}

// 4-8. Scaled dot-product attention, one (batch, head) slice at a time and, within it, a
// block of kBlockRows query rows at a time, each step timed. A block's rows of the four
// score-shaped tensors (4 × 128 KB at L_kv = 512) stay in the core's cache from one step
// to the next; a whole slice (4 × 1 MB) would go out to memory between steps, unless the
// products want whole slices (kProductBlockRows, trace_kernels.h).
constexpr int kBlockRows = kProductBlockRows;

struct AttentionBlock {
    long slice;      // (batch item, head)
    int row0, rows;  // query rows [row0, row0 + rows)
};

// k_t: the slice's k_heads transposed, (d_k, L_kv).
void attention_block(Pass& p, const AttentionBlock& at, const float* k_t, const int* kept_end, int* weights_end) {
    const Trace& tr = p.tr;
    const long block = static_cast<long>(p.Lq) * p.Lkv, first = at.slice * block + static_cast<long>(at.row0) * p.Lkv,
               n = static_cast<long>(at.rows) * p.Lkv;
    float *sc = p.values(TensorId::Scores) + first, *scl = p.values(TensorId::Scaled) + first,
          *msk = p.values(TensorId::Masked) + first, *wt = p.values(TensorId::Weights) + first;
    const float* q_rows = tr[TensorId::QHeads].ptr() + (at.slice * p.Lq + at.row0) * p.dk;
    matmul(sc, q_rows, k_t, nullptr, at.rows, p.dk, p.Lkv);
    p.timed(StageId::Scores);
    if (p.c.scale) divide(scl, sc, n, std::sqrt(static_cast<float>(p.dk)));
    else std::copy(sc, sc + n, scl);
    p.timed(StageId::Scale);
    const Tensor& mask = tr[TensorId::Mask];
    const bool use_mask = p.c.masks_keys();
    const long item = mask.shape.size() == 3 ? at.slice / p.h : 0;
    const float* keep = use_mask ? mask.ptr() + item * block + static_cast<long>(at.row0) * p.Lkv : nullptr;
    masked_fill(msk, scl, keep, at.rows, p.Lkv, mask_fill_value(p.c.mask_fill));
    p.timed(StageId::Mask);
    softmax_rows(wt, weights_end, msk, use_mask ? kept_end + item * p.Lq + at.row0 : nullptr, at.rows, p.Lkv);
    p.timed(StageId::Softmax);
    float* context = p.values(TensorId::Context) + (at.slice * p.Lq + at.row0) * p.dv;
    matmul_rows(context, wt, tr[TensorId::VHeads].ptr() + at.slice * p.Lkv * p.dv, weights_end, at.rows, p.Lkv, p.dv);
    p.timed(StageId::Context);
}

void attention_stages(Pass& p) {
    const std::vector<std::string> score_dims = {"B", "h", "L_q", "L_kv"};
    for (TensorId id : {TensorId::Scores, TensorId::Scaled})
        p.output(id, {p.B, p.h, p.Lq, p.Lkv}, score_dims);
    const Tensor& mask = mask_tensor(p);
    for (TensorId id : {TensorId::Masked, TensorId::Weights})
        p.output(id, {p.B, p.h, p.Lq, p.Lkv}, score_dims);
    p.output(TensorId::Context, {p.B, p.h, p.Lq, p.dv}, {"B", "h", "L_q", "d_v"});
    const std::vector<int> kept_end = p.c.masks_keys() ? kept_ends(mask) : std::vector<int>{};
    std::vector<int> weights_end(static_cast<size_t>(p.Lq));
    thread_local std::vector<float> k_t;  // kept between passes: a scratch buffer made and freed
    k_t.resize(static_cast<size_t>(p.dk) * p.Lkv);  // among the tensors' would split the heap's free chunks
    p.clock.lap();
    for (long s = 0; s < static_cast<long>(p.B) * p.h; ++s) {
        transpose(k_t.data(), p.tr[TensorId::KHeads].ptr() + s * p.Lkv * p.dk, p.Lkv, p.dk);  // timed with the scores
        for (int row0 = 0; row0 < p.Lq; row0 += kBlockRows)
            attention_block(p, {s, row0, std::min(kBlockRows, p.Lq - row0)}, k_t.data(), kept_end.data(),
                            weights_end.data() + row0);
    }
    record_attention_steps(p);
    p.clock.lap();
}

// 9. Concat: transpose(1, 2) back to (B, L_q, h, d_v), then view as (B, L_q, h*d_v).
// 10. Output projection W^O mixes the heads.
void output_stages(Pass& p, const AttentionWeights& w) {
    const Tensor& context = p.tr[TensorId::Context];
    Tensor& concat = p.output(TensorId::Concat, {p.B, p.Lq, p.h * p.dv}, {"B", "L_q", "h*d_v"});
    concat_heads(concat.ptr(), context.ptr(), p.B, p.h, p.Lq, p.dv);
    p.record(StageId::Concat, {step_of("context", context),
                               {Msg::literal("transpose(1, 2)"), {p.B, p.Lq, p.h, p.dv}, {"B", "L_q", "h", "d_v"}},
                               step_of("contiguous().view(B, L_q, h*d_v)", concat)});
    p.timed(StageId::Concat);
    p.copy(TensorId::WO, w.w_o);
    p.copy(TensorId::BO, w.b_o);
    Tensor& output = p.output(TensorId::Output, {p.B, p.Lq, p.d}, {"B", "L_q", "d_model"});
    p.clock.lap();
    matmul(output.ptr(), concat.ptr(), w.w_o.ptr(), w.b_o.ptr(), p.B * p.Lq, p.h * p.dv, p.d);
    p.record(StageId::Output, {step_of("concat", concat), step_of("concat @ W^O + b", output)});
    p.timed(StageId::Output);
}


// ---- raw SDPA (config.raw): tutorial 000's scaled_dot_product_attention(Q, K, V) ----------
// The same tensors as a multi-head pass, so every reader finds what it reads: x is Q, the
// projections and W^O are identity with zero biases (q = Q, output = context), and h = 1
// makes split and concat copies. The shape records use the tutorial's 3-D shapes and names.

void skip(Pass& p, StageId id, Str why) {
    StageRecord& r = p.tr.stages[static_cast<int>(id)];
    r.status = StageStatus::Skipped;
    r.skipped_because = Msg(why);
}

// An identity matrix (d_in, d_out) and a zero bias, recorded under the weights' names.
void identity_weights(Pass& p, TensorId w, TensorId b) {
    Tensor& m = p.output(w, {p.d, p.d}, {"d_in", "d_out"});
    std::fill(m.data.begin(), m.data.end(), 0.0f);
    for (int i = 0; i < p.d; ++i) m.data[static_cast<size_t>(i) * p.d + i] = 1.0f;
    Tensor& bias = p.output(b, {p.d}, {"d_model"});
    std::fill(bias.data.begin(), bias.data.end(), 0.0f);
}

// 1-3: Q, K, V drawn directly; no projection, no split.
void raw_input_stages(Pass& p, const AttentionInputs& in) {
    for (TensorId id : {TensorId::X, TensorId::Memory, TensorId::QueryIn, TensorId::KeyValueIn}) p.copy(id, in.q);
    p.record(StageId::Input, {step_of("Q", in.q), step_of("K", in.k), step_of("V", in.v)});
    p.timed(StageId::Input);
    identity_weights(p, TensorId::WQ, TensorId::BQ);
    identity_weights(p, TensorId::WK, TensorId::BK);
    identity_weights(p, TensorId::WV, TensorId::BV);
    const Tensor& q = p.copy(TensorId::Q, in.q);
    p.copy(TensorId::K, in.k);
    p.copy(TensorId::V, in.v);
    p.record(StageId::Project, {step_of("Q", q)});
    skip(p, StageId::Project, Str::raw_skip_project);
    p.timed(StageId::Project);
    split_stage(p);  // h = 1: a copy under the names the attention stages read
    p.record(StageId::SplitHeads, {step_of("Q", q)});
    skip(p, StageId::SplitHeads, Str::raw_skip_split);
}

// A step in the tutorial's shape: the trace's (B, 1, ...) without its head axis.
ShapeStep without_heads(const char* op, const Tensor& t) {
    ShapeStep s = step_of(op, t);
    drop_head_axis(&s.shape, &s.dims);
    return s;
}

// 4-8 as tutorial 000 writes them: scores (B, L_q, L_kv), output (B, L_q, d_v).
void record_raw_attention_steps(Pass& p) {
    const Trace& tr = p.tr;
    const Tensor &scores = tr[TensorId::Scores], &scaled = tr[TensorId::Scaled], &weights = tr[TensorId::Weights];
    p.record(StageId::Scores, {step_of("Q", tr[TensorId::Q]),
                               {Msg::literal("K.transpose(-2, -1)"), {p.B, p.dk, p.Lkv}, {"B", "d_k", "L_kv"}},
                               without_heads("Q @ K.transpose(-2, -1)", scores)});
    ShapeStep scaled_step = without_heads("/ math.sqrt(d_k)", scaled);
    if (!p.c.scale) scaled_step.op = Msg(Str::chk_trace_scaling_off);
    p.record(StageId::Scale, {without_heads("scores", scores), scaled_step});
    p.record(StageId::Mask, {step_of("mask", tr[TensorId::Mask]),
                             without_heads("masked_fill(mask == 0, fill)", tr[TensorId::Masked])});
    p.record(StageId::Softmax, {without_heads("F.softmax(scores, dim=-1)", weights)});
    p.record(StageId::Context, {without_heads("attn_weights", weights), step_of("V", tr[TensorId::V]),
                                without_heads("attn_weights @ V", tr[TensorId::Context])});
}

// 9-10: nothing to concatenate (h = 1: a copy), no W^O (identity: output = context).
void raw_output_stages(Pass& p) {
    const Tensor& context = p.tr[TensorId::Context];
    Tensor& concat = p.output(TensorId::Concat, {p.B, p.Lq, p.dv}, {"B", "L_q", "d_v"});
    concat_heads(concat.ptr(), context.ptr(), p.B, 1, p.Lq, p.dv);
    p.record(StageId::Concat, {without_heads("output", context)});
    skip(p, StageId::Concat, Str::raw_skip_concat);
    p.timed(StageId::Concat);
    identity_weights(p, TensorId::WO, TensorId::BO);
    Tensor& output = p.copy(TensorId::Output, concat);
    p.record(StageId::Output, {step_of("output", output)});
    skip(p, StageId::Output, Str::raw_skip_output);
    p.timed(StageId::Output);
}

}  // namespace

bool inputs_fit(const AttentionConfig& a, const AttentionConfig& c) {
    return a.seed == c.seed && a.batch == c.batch && a.L_q() == c.L_q() && a.L_kv() == c.L_kv() &&
           a.d_model == c.d_model && a.cross == c.cross && a.raw == c.raw;
}

namespace {

// Q, K, V as tutorial 000 draws them (torch.randn), from the lab's seeded generator; x is Q.
void make_raw_inputs(const AttentionConfig& c, AttentionInputs& in) {
    in.q = Tensor::zeros("q", {c.batch, c.L_q(), c.d_k()}, {"B", "L_q", "d_k"});
    in.k = Tensor::zeros("k", {c.batch, c.L_kv(), c.d_k()}, {"B", "L_kv", "d_k"});
    in.v = Tensor::zeros("v", {c.batch, c.L_kv(), c.d_v()}, {"B", "L_kv", "d_v"});
    fill_normal(in.q, stream_seed(c.seed, "raw:q"));
    fill_normal(in.k, stream_seed(c.seed, "raw:k"));
    fill_normal(in.v, stream_seed(c.seed, "raw:v"));
    in.x = in.q, in.x.name = "x";  // what the input stage records as x (run_trace reads q, k, v)
    in.memory = in.q, in.memory.name = "memory";
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
    if (c.raw) make_raw_inputs(c, in);
    return in;
}

AttentionWeights make_weights(const AttentionConfig& c) {
    AttentionWeights w;
    const int d = c.d_model, kv = c.kv_dim();
    const double b_bound = 1.0 / std::sqrt(static_cast<double>(d));
    Tensor* mats[] = {&w.w_q, &w.w_k, &w.w_v, &w.w_o};
    Tensor* biases[] = {&w.b_q, &w.b_k, &w.b_v, &w.b_o};
    const TensorId mat_ids[] = {TensorId::WQ, TensorId::WK, TensorId::WV, TensorId::WO};
    const TensorId bias_ids[] = {TensorId::BQ, TensorId::BK, TensorId::BV, TensorId::BO};
    for (int i = 0; i < 4; ++i) {
        const int d_out = i == 1 || i == 2 ? kv : d;  // W^K, W^V: h_kv·d_k columns
        const double w_bound = std::sqrt(6.0 / (d + d_out));  // Xavier uniform: fan_in + fan_out
        *mats[i] = Tensor::zeros(tensor_name(mat_ids[i]), {d, d_out}, {"d_in", "d_out"});
        fill_uniform(*mats[i], stream_seed(c.seed, tensor_name(mat_ids[i])), w_bound);
        *biases[i] = Tensor::zeros(tensor_name(bias_ids[i]), {d_out}, {d_out == d ? "d_model" : "h_kv*d_k"});
        if (c.bias) fill_uniform(*biases[i], stream_seed(c.seed, tensor_name(bias_ids[i])), b_bound);
    }
    return w;
}

void run_trace(Trace& tr, const AttentionConfig& c, const AttentionInputs& in, const AttentionWeights& w) {
    {
        Pass p(tr, c);
        if (c.raw) {
            raw_input_stages(p, in);
            attention_stages(p);
            record_raw_attention_steps(p);
            raw_output_stages(p);
        } else {
            input_stage(p, in);
            project_stage(p, w);
            split_stage(p);
            attention_stages(p);
            output_stages(p, w);
        }
    }  // the previous trace's unused tensors are freed here
    tr.flash = FlashRecord{};
    if (c.flash_tile.size() == 2)
        flash_forward(&tr.flash, tr[TensorId::Masked].ptr(), tr[TensorId::VHeads].ptr(), c.batch * c.heads, c.L_q(), c.L_kv(),
                      c.d_v(), c.flash_tile[0], c.flash_tile[1]);
    const auto t0 = std::chrono::steady_clock::now();
    check_invariants(tr);
    tr.checks_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

Trace run_trace(const AttentionConfig& c, const AttentionInputs& in, const AttentionWeights& w) {
    Trace tr;
    run_trace(tr, c, in, w);
    return tr;
}

Trace run_trace(const AttentionConfig& c) { return run_trace(c, make_inputs(c), make_weights(c)); }

}  // namespace lab
