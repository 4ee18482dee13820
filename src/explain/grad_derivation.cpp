// grad_derivation.cpp — Attention Lab core: how one gradient cell of the backward view
// is computed, with the forward values and gradients on screen: each rule is the
// backward of the forward op (nn/attention_backward.h, nn/layers.h) for that cell.
#include <cmath>

#include "explain/derivation.h"
#include "explain/model_cells.h"
#include "model_trace/backward_trace.h"

namespace lab {

namespace {

using namespace cells;
using T = TensorId;
using Index = std::vector<int>;
const char* const kDot = "\xc2\xb7";  // ·

std::string fv(double v) { return format_value(static_cast<float>(v)); }
std::string n(int v) { return std::to_string(v); }


// "a + b + c": every term up to 8, else the first three and how many.
std::string sum_terms(const std::vector<float>& v) {
    std::string s;
    const size_t shown = v.size() <= 8 ? v.size() : 3;
    for (size_t i = 0; i < shown; ++i) s += (i ? " + " : "") + fv(v[i]);
    return v.size() <= 8 ? s : s + " + ... (" + n(static_cast<int>(v.size())) + ")";
}

// The context of one derivation: both traces, the cell, its printed value.
struct GradCell {
    const Trace& fwd;
    const GradTrace& g;
    T id;
    const Index& idx;
    std::string head;  // "d_q[0, 3, 5] = "
    std::string v;
    const Tensor& f(T t) const { return fwd[t]; }
    const Tensor& d(T t) const { return g.grads[t]; }
};

// Does this linear read the tensor `id`? (self-attention's x feeds Q, K and V).
bool reads(const GradCell& c, const LinearRow& l) {
    const T id = c.id == T::X ? T::QueryIn : c.id == T::Memory ? T::KeyValueIn : c.id;
    const bool x_side = id == T::QueryIn || id == T::KeyValueIn;
    if (!c.g.grads.find(l.out) || !c.fwd.find(l.w)) return false;
    return l.in == id || (x_side && !c.fwd.config.cross && (l.in == T::QueryIn || l.in == T::KeyValueIn));
}

// d_in[row, r] = Σ over the linears reading it of d_out_row · W[r, :]; what the views do
// not show (the residual path, other layers) is the rest.
Msg input_grad(const GradCell& c) {
    const Tensor& grad = c.g.grads[c.id];
    const size_t r_at = flat_of(grad, c.idx) / grad.shape.back();
    const int r = c.idx.back();
    Msg m = Msg::literal(c.head);
    double parts = 0;
    bool any = false;
    for (const LinearRow& l : kLinears) {
        if (!reads(c, l)) continue;
        const Tensor& w = c.f(l.w);
        const Tensor& dy = c.d(l.out);
        double part = 0;
        for (int o = 0; o < w.shape[1]; ++o) part += static_cast<double>(row_of(dy, r_at)[o]) * row_of(w, r)[o];
        m.then(Msg::literal(std::string(any ? " + " : "") + "(" + dy.name + " " + kDot + " " + tensor_name(l.w) +
                            "^T = ")).then(dot_terms(row_of(dy, r_at), row_of(w, r), w.shape[1])).then(Msg::literal(")"));
        parts += part, any = true;
    }
    if (!any) return Msg(Str::bwd_der_from_later, c.head, c.v);
    const double rest = grad.data[flat_of(grad, c.idx)] - parts;
    if (std::fabs(rest) > 1e-5 * (1 + std::fabs(parts))) m.then(Msg(Str::bwd_der_rest, fv(rest)));
    return m.then(Msg::literal(" = " + c.v));
}

// d_w[r, o] = Σ_rows in[row, r] · d_out[row, o];  d_b[o] = Σ_rows d_out[row, o].
Msg param_grad(const GradCell& c, const LinearRow& l) {
    const Tensor& dy = c.d(l.out);
    const int o = c.idx.back();
    const std::vector<float> dcol = column_of(dy, o);
    if (c.id == l.b) return Msg::literal(c.head + "sum_rows " + dy.name + "[:, " + n(o) + "] = " + sum_terms(dcol) + " = " + c.v);
    const std::vector<float> xcol = column_of(c.f(l.in), c.idx[0]);
    return Msg::literal(c.head + tensor_name(l.in) + "[:, " + n(c.idx[0]) + "] " + kDot + " " + dy.name + "[:, " + n(o) + "] = ")
        .then(dot_terms(xcol.data(), dcol.data(), static_cast<int>(xcol.size())))
        .then(Msg::literal(" = " + c.v));
}

// Softmax backward: dS_ij = A_ij (dA_ij − Σ_k dA_ik A_ik).
Msg softmax_grad(const GradCell& c) {
    const Tensor& a = c.f(T::Weights);
    const Tensor& da = c.d(T::Weights);
    const int L = a.shape.back(), j = c.idx[3];
    const size_t r = flat_of(a, c.idx) / L;
    if (std::isnan(row_of(a, r)[0])) return Msg(Str::bwd_der_nan_row, c.head, c.v);
    double dot = 0;
    for (int k = 0; k < L; ++k) dot += static_cast<double>(row_of(da, r)[k]) * row_of(a, r)[k];
    return Msg::literal(c.head + "A_ij " + kDot + " (dA_ij - " + "\xce\xa3" + "_k dA_ik A_ik) = " + fv(row_of(a, r)[j]) + " " +
                        kDot + " (" + fv(row_of(da, r)[j]) + " - " + fv(dot) + ") = " + c.v);
}

// Per head: d_weights = d_context · vᵀ, d_v = weightsᵀ · d_context, d_q = d_scores · k, d_k = d_scoresᵀ · q.
Msg head_matmul_grad(const GradCell& c) {
    const int b = c.idx[0], h = c.idx[1], i = c.idx[2], j = c.idx[3];
    auto slice_row = [&](const Tensor& t, int r) { return t.ptr() + t.offset({b, h, r, 0}); };
    auto slice_col = [&](const Tensor& t, int col) {
        std::vector<float> out(static_cast<size_t>(t.shape[2]));
        for (int r = 0; r < t.shape[2]; ++r) out[static_cast<size_t>(r)] = t.at({b, h, r, col});
        return out;
    };
    Msg m = Msg::literal(c.head);
    if (c.id == T::Weights) {
        const Tensor& dc = c.d(T::Context);
        m.then(Msg::literal("d_context_i " + std::string(kDot) + " v_j = ")).then(dot_terms(slice_row(dc, i), slice_row(c.f(T::VHeads), j), dc.shape[3]));
    } else if (c.id == T::VHeads) {
        const std::vector<float> a = slice_col(c.f(T::Weights), i), dc = slice_col(c.d(T::Context), j);
        m.then(Msg::literal("weights[:, " + n(i) + "] " + kDot + " d_context[:, " + n(j) + "] = ")).then(dot_terms(a.data(), dc.data(), static_cast<int>(a.size())));
    } else if (c.id == T::QHeads) {
        const std::vector<float> k = slice_col(c.f(T::KHeads), j);
        m.then(Msg::literal("d_scores_i " + std::string(kDot) + " k[:, " + n(j) + "] = ")).then(dot_terms(slice_row(c.d(T::Scores), i), k.data(), static_cast<int>(k.size())));
    } else {
        const std::vector<float> ds = slice_col(c.d(T::Scores), i), q = slice_col(c.f(T::QHeads), j);
        m.then(Msg::literal("d_scores[:, " + n(i) + "] " + kDot + " q[:, " + n(j) + "] = ")).then(dot_terms(ds.data(), q.data(), static_cast<int>(q.size())));
    }
    return m.then(Msg::literal(" = " + c.v));
}

// The steps between scores and softmax, and the copies (split, concat).
Msg elementwise_grad(const GradCell& c) {
    const AttentionConfig& cfg = c.fwd.config;
    const size_t at = flat_of(c.d(c.id), c.idx);
    if (c.id == T::Scaled) {
        const Tensor& mask = c.f(T::Mask);
        const float keep = mask.shape.size() == 3 ? mask.at({c.idx[0], c.idx[2], c.idx[3]}) : mask.at({c.idx[2], c.idx[3]});
        if (cfg.masks_keys() && keep == 0.0f) return Msg(Str::bwd_der_masked_zero, c.head, c.v);
        return Msg(Str::bwd_der_kept, c.head, fv(c.d(T::Masked).data[at]), c.v);
    }
    if (c.id == T::Scores) {
        if (!cfg.scale) return Msg(Str::bwd_der_scale_off, c.head, c.v);
        return Msg::literal(c.head + "d_scaled / sqrt(d_k) = " + fv(c.d(T::Scaled).data[at]) + " / " +
                            fv(std::sqrt(static_cast<double>(cfg.d_k()))) + " = " + c.v);
    }
    const int dk = cfg.d_k();
    if (c.id == T::Context) {
        const int col = c.idx[1] * dk + c.idx[3];
        return Msg::literal(c.head + "d_concat[" + n(c.idx[0]) + ", " + n(c.idx[2]) + ", " + n(col) + "] = " + c.v);
    }
    // q, k, v: the heads' gradients (K's and V's groups' when they are shared) moved back into their columns.
    const bool groups = cfg.grouped() && c.id != T::Q;
    const char* heads = c.id == T::Q ? "d_q_heads" : c.id == T::K ? (groups ? "d_k_groups" : "d_k_heads")
                                                                  : (groups ? "d_v_groups" : "d_v_heads");
    const int col = c.idx[2];
    return Msg::literal(c.head + heads + "[" + n(c.idx[0]) + ", " + n(col / dk) + ", " + n(c.idx[1]) + ", " +
                        n(col % dk) + "] = " + c.v);
}

// LayerNorm backward for one cell: dr_c = rstd (γ_c dy_c − mean(γ dy) − n_c mean(γ dy n)).
Msg norm_grad(const GradCell& c, T input, T weight, T output) {
    const Tensor& x = c.f(input);
    const Tensor& w = c.f(weight);
    const Tensor& dy = c.d(output);
    const int d = x.shape.back(), col = c.idx.back();
    const size_t r = flat_of(x, c.idx) / d;
    double mean = 0, var = 0, m1 = 0, m2 = 0;
    for (int k = 0; k < d; ++k) mean += row_of(x, r)[k] / static_cast<double>(d);
    for (int k = 0; k < d; ++k) var += (row_of(x, r)[k] - mean) * (row_of(x, r)[k] - mean) / d;
    const double rstd = 1 / std::sqrt(var + c.g.layer_norm_eps);
    for (int k = 0; k < d; ++k) {
        const double gdy = static_cast<double>(w.data[k]) * row_of(dy, r)[k];
        m1 += gdy / d, m2 += gdy * (row_of(x, r)[k] - mean) * rstd / d;
    }
    const double nc = (row_of(x, r)[col] - mean) * rstd;
    return Msg::literal(c.head + "rstd " + kDot + " (w" + kDot + "dy - mean(w" + kDot + "dy) - n " + kDot + " mean(w" +
                        kDot + "dy" + kDot + "n)) = " + fv(rstd) + " " + kDot + " (" +
                        fv(static_cast<double>(w.data[col]) * row_of(dy, r)[col]) + " - " + fv(m1) + " - " + fv(nc) + " " +
                        kDot + " " + fv(m2) + ") = " + c.v);
}

// dL/dlogits = (probs − (1 − ε) onehot(target) − ε/V) / N.
Msg logits_grad(const GradCell& c) {
    const Tensor& p = c.f(T::Probs);
    const int V = p.shape.back(), col = c.idx.back();
    const size_t r = flat_of(p, c.idx) / V;
    const int target = static_cast<int>(c.f(T::Targets).data[r]);
    long counted = 0;
    for (size_t i = 0; i < c.f(T::Targets).size(); ++i) counted += c.g.loss_mask.empty() || c.g.loss_mask[i];
    if (!c.g.loss_mask.empty() && !c.g.loss_mask[r]) return Msg(Str::bwd_der_not_counted, c.head, c.v);
    const double eps = c.g.label_smoothing;
    const double hot = (col == target ? 1 - eps : 0) + eps / V;
    return Msg::literal(c.head + "(probs - onehot) / N = (" + fv(row_of(p, r)[col]) + " - " + fv(hot) + ") / " +
                        n(static_cast<int>(counted)) + " = " + c.v)
        .then(Msg(Str::blk_der_target, target, fv(row_of(p, r)[target])));
}

Msg block_grad(const GradCell& c) {
    const size_t at = flat_of(c.d(c.id), c.idx);
    switch (c.id) {
        case T::Residual: return norm_grad(c, T::Residual, T::NormW, T::NormOut);
        case T::FfnOut: return norm_grad(c, T::FfnResidual, T::FfnNormW, T::LayerOut);
        case T::FfnHidden:
            if (c.f(T::FfnHidden).data[at] <= 0) return Msg(Str::bwd_der_relu_off, c.head, fv(c.f(T::FfnHidden).data[at]), c.v);
            return Msg::literal(c.head + "d_ffn_relu = " + fv(c.d(T::FfnRelu).data[at]) + " = " + c.v);
        case T::Logits: return logits_grad(c);
        case T::Embed:
        case T::EmbedOut: return Msg(Str::bwd_der_embed, c.head, c.v);
        case T::Embedding: return Msg(Str::bwd_der_embedding, c.head, c.idx[0], c.v);
        case T::Output:
            return c.g.kind == LossKind::Probe ? Msg(Str::bwd_der_probe, c.head, c.v) : Msg(Str::bwd_der_output, c.head, c.v);
        default: return Msg(Str::bwd_der_from_later, c.head, c.v);
    }
}

// A shared K/V head's gradient: the sum of its query heads' (the backward of repeat_interleave).
Msg group_grad(const GradCell& c) {
    const AttentionConfig& cfg = c.fwd.config;
    const int n_share = cfg.heads / cfg.h_kv(), first = c.idx[1] * n_share;
    const std::string heads = c.id == T::KGroups ? "d_k_heads" : "d_v_heads";
    return Msg::literal(c.head + "\xce\xa3" + "_{head=" + n(first) + ".." + n(first + n_share - 1) + "} " + heads + "[" +
                        n(c.idx[0]) + ", head, " + n(c.idx[2]) + ", " + n(c.idx[3]) + "] = " + c.v);
}

}  // namespace

Msg derive_grad_cell(const Trace& forward, const GradTrace& g, TensorId id, const Index& idx) {
    const Tensor* grad = g.grads.find(id);
    if (!grad || !forward.find(id) || idx.size() != grad->shape.size()) return {};
    for (size_t i = 0; i < idx.size(); ++i)
        if (idx[i] < 0 || idx[i] >= grad->shape[i]) return {};
    const std::string v = format_value(grad->data[flat_of(*grad, idx)]);
    const GradCell c{forward, g, id, idx, cell_text(grad->name, idx) + " = ", v};
    for (const LinearRow& l : kLinears)
        if ((id == l.w || id == l.b) && g.grads.find(l.out)) return param_grad(c, l);
    switch (id) {
        case T::Masked: return softmax_grad(c);
        case T::Weights:
        case T::VHeads:
        case T::QHeads:
        case T::KHeads: return head_matmul_grad(c);
        case T::KGroups:
        case T::VGroups: return group_grad(c);
        case T::Scaled:
        case T::Scores:
        case T::Context:
        case T::Q:
        case T::K:
        case T::V: return elementwise_grad(c);
        case T::X:
        case T::Memory:
        case T::QueryIn:
        case T::KeyValueIn:
        case T::Concat:
        case T::FfnIn:
        case T::FfnRelu:
        case T::Top: return input_grad(c);
        default: return block_grad(c);
    }
}

}  // namespace lab
