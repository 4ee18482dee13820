// backward_trace.cpp — Attention Lab core: the backward view's table (what each stage
// shows beside its gradient, and its backward formula), the probe loss's backward
// through a random-weight trace, and the checks gradients obey.
#include "model_trace/backward_trace.h"

#include <cmath>

#include "base/rng.h"
#include "nn/attention_backward.h"

namespace lab {

namespace {

using T = TensorId;

const BackwardInfo kAttentionBackward[kStageCount] = {
    {Str::bwd_input_formula, Str::bwd_input_why, {{T::QueryIn}, {T::KeyValueIn, false, true}}},
    {Str::bwd_project_formula, Str::bwd_project_why, {{T::Q}, {T::K}, {T::V}, {T::WQ}}},
    {Str::bwd_split_formula, Str::bwd_split_why, {{T::Q}, {T::QHeads}}},
    {Str::bwd_scores_formula, Str::bwd_scores_why, {{T::Scores}, {T::QHeads}, {T::KHeads}}},
    {Str::bwd_scale_formula, Str::bwd_scale_why, {{T::Scaled}, {T::Scores}}},
    {Str::bwd_mask_formula, Str::bwd_mask_why, {{T::Masked}, {T::Scaled}}},
    {Str::bwd_softmax_formula, Str::bwd_softmax_why, {{T::Weights}, {T::Masked}}},
    {Str::bwd_context_formula, Str::bwd_context_why, {{T::Context}, {T::Weights}, {T::VHeads}}},
    {Str::bwd_concat_formula, Str::bwd_concat_why, {{T::Concat}, {T::Context}}},
    {Str::bwd_output_formula, Str::bwd_output_why, {{T::Output}, {T::Concat}, {T::WO}}},
};

const BackwardInfo kBlockBackward[kBlockStageCount] = {
    {Str::bwd_embed_formula, Str::bwd_embed_why, {{T::EmbedOut}, {T::Embedding}}},
    {Str::bwd_add_norm_formula, Str::bwd_add_norm_why, {{T::NormOut}, {T::Residual}, {T::NormW}}},
    {Str::bwd_ffn_formula, Str::bwd_ffn_why, {{T::LayerOut}, {T::FfnOut}, {T::FfnRelu}, {T::FfnHidden}}},
    {Str::bwd_gen_formula, Str::bwd_gen_why, {{T::Logits}, {T::Probs}, {T::WGen}}},
};

std::vector<InvariantCheck>& checks_of(GradTrace* g, StageId id) { return g->checks[static_cast<int>(id)]; }
std::vector<InvariantCheck>& checks_of(GradTrace* g, BlockStageId id) { return g->block_checks[static_cast<int>(id)]; }

// Rows (the last axis) of a gradient that should sum to 0: the worst |row sum| against
// the row's own Σ|values| (float rounding grows with it). NaN rows are skipped (and
// counted by the finite check).
InvariantCheck rows_sum_to_zero(const Tensor& grad, const char* id, Str label, const std::vector<uint8_t>* skip_row) {
    const int n = grad.shape.back();
    const long rows = static_cast<long>(grad.size()) / n;
    double worst = 0, worst_scale = 0;
    long counted = 0;
    bool pass = true;
    for (long r = 0; r < rows; ++r) {
        if (skip_row && (*skip_row)[static_cast<size_t>(r)]) continue;
        double sum = 0, scale = 0;
        for (int j = 0; j < n; ++j) sum += grad.data[r * n + j], scale += std::fabs(grad.data[r * n + j]);
        if (std::isnan(sum)) continue;
        ++counted;
        pass = pass && std::fabs(sum) <= 1e-4 * scale + 1e-9;
        if (std::fabs(sum) >= worst) worst = std::fabs(sum), worst_scale = scale;
    }
    return {id, label, holds(pass), Msg(Str::bwd_chk_rows_sum_detail, worst, worst_scale, counted)};
}

// Which (b, head, i) rows of the scores keep no key (their softmax is NaN with −inf).
std::vector<uint8_t> fully_masked(const Trace& tr) {
    const Tensor& mask = tr[T::Mask];
    const AttentionConfig& c = tr.config;
    const int Lq = c.L_q(), Lkv = c.L_kv();
    std::vector<uint8_t> out(static_cast<size_t>(c.batch) * c.heads * Lq, 0);
    for (int b = 0; b < c.batch; ++b)
        for (int i = 0; i < Lq; ++i) {
            const float* keep = mask.ptr() + ((mask.shape.size() == 3 ? b : 0) * static_cast<long>(Lq) + i) * Lkv;
            bool any = !c.masks_keys();
            for (int j = 0; j < Lkv; ++j) any = any || keep[j] != 0.0f;
            for (int h = 0; h < c.heads; ++h) out[(static_cast<size_t>(b) * c.heads + h) * Lq + i] = !any;
        }
    return out;
}

void check_softmax_grads(const Trace& tr, GradTrace* g) {
    const Tensor* d_masked = g->grads.find(T::Masked);
    if (!d_masked) return;
    const std::vector<uint8_t> skip = fully_masked(tr);
    checks_of(g, StageId::Softmax).push_back(rows_sum_to_zero(*d_masked, "grad_rows_sum_to_0", Str::bwd_chk_softmax_rows, &skip));
    long bad = 0, allowed = 0;
    for (float v : d_masked->data) bad += !std::isfinite(v);
    if (tr.config.mask_fill == MaskFill::NegInf) allowed = static_cast<long>(tr.fully_masked_rows) * tr.config.L_kv();
    InvariantCheck c{"grad_finite", Msg(Str::chk_finite_label, d_masked->name), holds(bad <= allowed), {}};
    if (bad == 0) c.detail = Msg(Str::chk_finite_none, d_masked->size());
    else if (bad <= allowed) {  // NaN only in fully masked rows: expected with -inf, never shown as a pass
        c.verdict = Verdict::NanMasked;
        c.detail = Msg(Str::bwd_chk_nan_rows, bad, tr.fully_masked_rows);
    }
    else c.detail = Msg(Str::chk_finite_bad, bad, d_masked->size());
    checks_of(g, StageId::Softmax).push_back(c);
}

// Masked cells get no gradient; dL/dscores = dL/dscaled / √d_k.
void check_mask_and_scale_grads(const Trace& tr, GradTrace* g) {
    const Tensor* d_scaled = g->grads.find(T::Scaled);
    const Tensor* d_scores = g->grads.find(T::Scores);
    if (!d_scaled || !d_scores) return;
    const AttentionConfig& c = tr.config;
    const Tensor& mask = tr[T::Mask];
    const int h = c.heads, Lq = c.L_q(), Lkv = c.L_kv();
    long masked = 0, leaked = 0;
    for (int b = 0; b < c.batch && c.masks_keys(); ++b)
        for (int head = 0; head < h; ++head)
            for (int i = 0; i < Lq; ++i)
                for (int j = 0; j < Lkv; ++j) {
                    const float keep = mask.shape.size() == 3 ? mask.at({b, i, j}) : mask.at({i, j});
                    if (keep != 0.0f) continue;
                    ++masked;
                    leaked += d_scaled->at({b, head, i, j}) != 0.0f;
                }
    if (masked > 0)
        checks_of(g, StageId::Mask).push_back({"masked_get_no_grad", Str::bwd_chk_masked_label, holds(leaked == 0),
                                               Msg(Str::bwd_chk_masked_detail, masked, leaked)});
    const double div = c.scale ? std::sqrt(static_cast<double>(c.d_k())) : 1.0;
    double err = 0, scale = 0;
    for (size_t i = 0; i < d_scores->size(); ++i) {
        const double want = d_scaled->data[i] / div, got = d_scores->data[i];
        if (std::isnan(want) && std::isnan(got)) continue;
        err = std::isnan(want - got) ? INFINITY : std::fmax(err, std::fabs(want - got));
        if (std::isinf(err)) break;
        scale = std::fmax(scale, std::fabs(want));
    }
    checks_of(g, StageId::Scale).push_back({"grad_over_sqrt_dk", c.scale ? Msg::literal("dL/dscores = dL/dscaled / sqrt(d_k)")
                                                                         : Msg(Str::bwd_chk_scale_off_label),
                                            holds(err <= 1e-6 * (1 + scale)), Msg(Str::chk_max_error, err)});
}

// The block's: LayerNorm's input gradient rows sum to 0, ReLU's gate, dL/dlogits rows sum to 0.
void check_block_grads(const Trace& tr, GradTrace* g) {
    if (const Tensor* d_res = g->grads.find(T::Residual))
        checks_of(g, BlockStageId::AddNorm).push_back(rows_sum_to_zero(*d_res, "grad_rows_sum_to_0", Str::bwd_chk_norm_rows, nullptr));
    const Tensor* d_hidden = g->grads.find(T::FfnHidden);
    const Tensor* d_relu = g->grads.find(T::FfnRelu);
    if (d_hidden && d_relu && tr.find(T::FfnHidden)) {
        const Tensor& hidden = tr[T::FfnHidden];
        long off = 0, wrong = 0;
        for (size_t i = 0; i < hidden.size(); ++i) {
            const bool on = hidden.data[i] > 0;
            off += !on;
            wrong += on ? d_hidden->data[i] != d_relu->data[i] : d_hidden->data[i] != 0.0f;
        }
        checks_of(g, BlockStageId::Ffn).push_back({"relu_gate", Str::bwd_chk_relu_label, holds(wrong == 0),
                                                   Msg(Str::bwd_chk_relu_detail, off, static_cast<long>(hidden.size()), wrong)});
    }
    if (const Tensor* d_logits = g->grads.find(T::Logits))
        checks_of(g, BlockStageId::Generator).push_back(rows_sum_to_zero(*d_logits, "grad_rows_sum_to_0", Str::bwd_chk_logits_rows, nullptr));
}

void fill_normal(Tensor& t, uint64_t seed) {
    Rng rng(seed);
    for (float& v : t.data) v = static_cast<float>(rng.normal());
}

// d_out → d_concat, d_w_o, d_b_o → d_context → the five steps of every (b, head) slice.
void output_and_sdpa_backward(const Trace& tr, GradTrace& g) {
    const AttentionConfig& c = tr.config;
    const int B = c.batch, Lq = c.L_q(), Lkv = c.L_kv(), d = c.d_model, h = c.heads, dk = c.d_k(), dv = c.d_v();
    const Tensor& d_out = *g.grads.find(T::Output);
    Tensor& d_concat = add_grad(g, tr, T::Concat);
    linear_backward(d_concat.ptr(), add_grad(g, tr, T::WO).ptr(), add_grad(g, tr, T::BO).ptr(), d_out.ptr(),
                    tr[T::Concat].ptr(), tr[T::WO].ptr(), B * Lq, h * dv, d);
    Tensor& d_context = add_grad(g, tr, T::Context);
    concat_heads_backward(d_context.ptr(), d_concat.ptr(), B, h, Lq, dv);
    Tensor& d_qh = add_grad(g, tr, T::QHeads);
    Tensor& d_kh = add_grad(g, tr, T::KHeads);
    Tensor& d_vh = add_grad(g, tr, T::VHeads);
    Tensor* d_step[4] = {&add_grad(g, tr, T::Weights), &add_grad(g, tr, T::Masked), &add_grad(g, tr, T::Scaled),
                         &add_grad(g, tr, T::Scores)};
    const Tensor& mask = tr[T::Mask];
    const long block = static_cast<long>(Lq) * Lkv;
    for (long s = 0; s < static_cast<long>(B) * h; ++s) {
        const float* keep = !c.masks_keys() ? nullptr : mask.ptr() + (mask.shape.size() == 3 ? (s / h) * block : 0);
        const SdpaGradsT<float> sg{d_step[0]->ptr() + s * block, d_step[1]->ptr() + s * block,
                                   d_step[2]->ptr() + s * block, d_step[3]->ptr() + s * block};
        const long qo = s * Lq * dk, ko = s * Lkv * dk, vo = s * Lkv * dv;
        scaled_dot_product_attention_backward(d_qh.ptr() + qo, d_kh.ptr() + ko, d_vh.ptr() + vo, sg,
                                              d_context.ptr() + s * Lq * dv, tr[T::QHeads].ptr() + qo,
                                              tr[T::KHeads].ptr() + ko, tr[T::VHeads].ptr() + vo,
                                              tr[T::Weights].ptr() + s * block, keep, Lq, Lkv, dk, dv, c.scale);
    }
}

// d_q_heads … → d_q, d_k, d_v → the projections and their input (x, and memory for cross-attention).
void projection_backward(const Trace& tr, GradTrace& g) {
    const AttentionConfig& c = tr.config;
    const int B = c.batch, Lq = c.L_q(), Lkv = c.L_kv(), d = c.d_model, h = c.heads, dk = c.d_k(), dv = c.d_v();
    const int h_kv = c.h_kv(), kv = c.kv_dim();
    Tensor& d_q = add_grad(g, tr, T::Q);
    Tensor& d_k = add_grad(g, tr, T::K);
    Tensor& d_v = add_grad(g, tr, T::V);
    split_heads_backward(d_q.ptr(), g.grads[T::QHeads].ptr(), B, Lq, h, dk);
    const float* d_k_heads = g.grads[T::KHeads].ptr();
    const float* d_v_heads = g.grads[T::VHeads].ptr();
    if (c.grouped()) {  // each shared K/V head collects the gradients of the query heads that read it
        Tensor& d_kg = add_grad(g, tr, T::KGroups);
        Tensor& d_vg = add_grad(g, tr, T::VGroups);
        repeat_kv_heads_backward(d_kg.ptr(), d_k_heads, B, h_kv, h / h_kv, Lkv, dk);
        repeat_kv_heads_backward(d_vg.ptr(), d_v_heads, B, h_kv, h / h_kv, Lkv, dv);
        d_k_heads = d_kg.ptr(), d_v_heads = d_vg.ptr();
    }
    split_heads_backward(d_k.ptr(), d_k_heads, B, Lkv, h_kv, dk);
    split_heads_backward(d_v.ptr(), d_v_heads, B, Lkv, h_kv, dv);
    Tensor& d_query_in = add_grad(g, tr, T::QueryIn);
    Tensor& d_kv_in = add_grad(g, tr, T::KeyValueIn);
    // Self-attention reads one x three times: its gradient collects all three paths.
    float* kv_target = c.cross ? d_kv_in.ptr() : d_query_in.ptr();
    linear_backward(d_query_in.ptr(), add_grad(g, tr, T::WQ).ptr(), add_grad(g, tr, T::BQ).ptr(), d_q.ptr(),
                    tr[T::QueryIn].ptr(), tr[T::WQ].ptr(), B * Lq, d, d);
    linear_backward(kv_target, add_grad(g, tr, T::WK).ptr(), add_grad(g, tr, T::BK).ptr(), d_k.ptr(),
                    tr[T::KeyValueIn].ptr(), tr[T::WK].ptr(), B * Lkv, d, kv);
    linear_backward(kv_target, add_grad(g, tr, T::WV).ptr(), add_grad(g, tr, T::BV).ptr(), d_v.ptr(),
                    tr[T::KeyValueIn].ptr(), tr[T::WV].ptr(), B * Lkv, d, kv);
    if (!c.cross) d_kv_in.data = d_query_in.data;
    add_grad(g, tr, T::X).data = d_query_in.data;  // + PE, a constant
    add_grad(g, tr, T::Memory).data = d_kv_in.data;
}

}  // namespace

const BackwardInfo& backward_info(StageId id) { return kAttentionBackward[static_cast<int>(id)]; }
const BackwardInfo& backward_info(BlockStageId id) { return kBlockBackward[static_cast<int>(id)]; }

Tensor& add_grad(GradTrace& g, const Trace& forward, TensorId id) {
    if (g.grads.tensors.capacity() < static_cast<size_t>(kTensorCount)) g.grads.tensors.reserve(kTensorCount);
    const Tensor& f = forward[id];
    Tensor& t = add_tensor(g.grads, id, Tensor::zeros("", f.shape, f.dims));
    t.name = std::string("d_") + tensor_name(id);
    return t;
}

GradTrace attention_backward_trace(const Trace& tr) {
    GradTrace g;
    g.kind = LossKind::Probe;
    Tensor& d_out = add_grad(g, tr, T::Output);
    fill_normal(d_out, stream_seed(tr.config.seed, "upstream"));
    double loss = 0;
    for (size_t i = 0; i < d_out.size(); ++i) loss += static_cast<double>(tr[T::Output].data[i]) * d_out.data[i];
    g.loss = loss;
    output_and_sdpa_backward(tr, g);
    projection_backward(tr, g);
    check_backward(tr, &g);
    return g;
}

void check_backward(const Trace& forward, GradTrace* g) {
    g->checks.assign(kStageCount, {});
    g->block_checks.assign(kBlockStageCount, {});
    check_softmax_grads(forward, g);
    check_mask_and_scale_grads(forward, g);
    check_block_grads(forward, g);
}

}  // namespace lab
