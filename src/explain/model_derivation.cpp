// model_derivation.cpp — Attention Lab core: hover derivations for a model's block
// tensors and for every gradient of the backward view, written with the very numbers
// on screen (forward values beside their gradients) so a learner can redo each one.
#include <cmath>

#include "explain/derivation.h"
#include "explain/model_cells.h"
#include "model_trace/block_trace.h"

namespace lab {

namespace {

using namespace cells;
using T = TensorId;
using Index = std::vector<int>;
const char* const kSigma = "\xce\xa3";  // Σ
const char* const kDot = "\xc2\xb7";    // ·

std::string fv(double v) { return format_value(static_cast<float>(v)); }
std::string n(int v) { return std::to_string(v); }

bool valid(const Tensor* t, const Index& idx) {
    if (!t || idx.size() != t->shape.size()) return false;
    for (size_t i = 0; i < idx.size(); ++i)
        if (idx[i] < 0 || idx[i] >= t->shape[i]) return false;
    return true;
}

// Forward: out[row, c] = in_row · w[:, c] + b[c].
Msg linear_cell(const Trace& tr, const LinearRow& l, const Index& idx, const std::string& v) {
    const Tensor& in = tr[l.in];
    const Tensor& w = tr[l.w];
    const size_t row = flat_of(tr[l.out], idx) / tr[l.out].shape.back();
    const int c = idx.back();
    const std::vector<float> col = column_of(w, c);
    return Msg::literal(cell_text(tensor_name(l.out), idx) + " = " + tensor_name(l.in) + "_row " + kDot + " " +
                        tensor_name(l.w) + "[:, " + n(c) + "] + " + tensor_name(l.b) + "[" + n(c) + "] = ")
        .then(dot_terms(row_of(in, row), col.data(), w.shape[0]))
        .then(Msg::literal(" + " + fv(tr[l.b].data[static_cast<size_t>(c)]) + " = " + v));
}

// LayerNorm's forward for one cell, with its row's mean and variance.
Msg norm_cell(const Tensor& x, const Tensor& w, const Tensor& b, const Index& idx, const char* name, const std::string& v,
              double eps) {
    const int d = x.shape.back(), c = idx.back();
    const size_t row = flat_of(x, idx) / d;
    double mean = 0, var = 0;
    for (int k = 0; k < d; ++k) mean += row_of(x, row)[k] / static_cast<double>(d);
    for (int k = 0; k < d; ++k) var += (row_of(x, row)[k] - mean) * (row_of(x, row)[k] - mean) / d;
    return Msg::literal(cell_text(name, idx) + " = (r - mean) / sqrt(var + eps) " + kDot + " w + b = (" +
                        fv(row_of(x, row)[c]) + " - " + fv(mean) + ") / sqrt(" + fv(var) + " + " + fv(eps) + ") " +
                        kDot + " " + fv(w.data[c]) + " + " + fv(b.data[c]) + " = " + v);
}

Msg sum_cell(const char* name, const Index& idx, const char* a, float av, const char* b, float bv, const std::string& v) {
    return Msg::literal(cell_text(name, idx) + " = " + a + " + " + b + " = " + fv(av) + " + " + fv(bv) + " = " + v);
}

Msg embed_cells(const ModelTrace& m, T id, const Index& idx, const std::string& v) {
    const Trace& tr = m.trace;
    if (id == T::EmbedPe) {
        const int pos = idx[0], col = idx[1], d = tr[T::EmbedPe].shape[1];
        return Msg::literal(cell_text("embed_pe", idx) + " = " + (col % 2 ? "cos" : "sin") + "(" + n(pos) + " / 10000^(" +
                            n(col - col % 2) + "/" + n(d) + ")) = " + v);
    }
    const size_t at = flat_of(tr[T::Embed], idx);
    if (id == T::EmbedOut) {
        if (!tr.find(T::EmbedPe)) return Msg(Str::chk_der_pe_off, "embed_out", v);
        return sum_cell("embed_out", idx, "embed", tr[T::Embed].data[at], "pe", tr[T::EmbedPe].at({idx[1], idx[2]}), v);
    }
    const int d = tr[T::Embed].shape[2];
    const int token = static_cast<int>(tr[T::Tokens].at({idx[0], idx[1]}));
    const float e = tr[T::Embedding].at({token, idx[2]});
    return Msg::literal(cell_text("embed", idx) + " = E[" + n(token) + ", " + n(idx[2]) + "] " + kDot + " sqrt(" + n(d) +
                        ") = " + fv(e) + " " + kDot + " " + fv(std::sqrt(static_cast<double>(d))) + " = " + v)
        .then(Msg(Str::blk_der_token, idx[1] < static_cast<int>(m.query_tokens.size()) ? m.query_tokens[idx[1]] : n(token)));
}

Msg probs_cell(const ModelTrace& m, const Index& idx, const std::string& v) {
    const Tensor& logits = m.trace[T::Logits];
    const size_t row = flat_of(logits, idx) / logits.shape.back();
    const int V = logits.shape.back();
    double mx = -INFINITY, z = 0;
    for (int c = 0; c < V; ++c) mx = std::fmax(mx, row_of(logits, row)[c]);
    for (int c = 0; c < V; ++c) z += std::exp(row_of(logits, row)[c] - mx);
    const int target = static_cast<int>(m.trace[T::Targets].data[row]);
    return Msg::literal(cell_text("probs", idx) + " = exp(logit - max) / " + kSigma + " = exp(" +
                        fv(row_of(logits, row)[idx.back()]) + " - " + fv(mx) + ") / " + fv(z) + " = " + v)
        .then(Msg(Str::blk_der_target, target, fv(m.trace[T::Probs].data[row * V + target])));
}

}  // namespace

Msg derive_block_cell(const ModelTrace& m, TensorId id, const Index& idx) {
    const Trace& tr = m.trace;
    const Tensor* t = tr.find(id);
    if (!valid(t, idx)) return {};
    const std::string v = format_value(t->data[flat_of(*t, idx)]);
    const size_t at = flat_of(*t, idx);
    switch (id) {
        case T::Embed:
        case T::EmbedPe:
        case T::EmbedOut: return embed_cells(m, id, idx, v);
        case T::Residual: return sum_cell("residual", idx, "x", tr[T::X].data[at], "attention(x)", tr[T::Output].data[at], v);
        case T::FfnResidual: return sum_cell("ffn_residual", idx, "ffn_in", tr[T::FfnIn].data[at], "ffn_out", tr[T::FfnOut].data[at], v);
        case T::NormOut: return norm_cell(tr[T::Residual], tr[T::NormW], tr[T::NormB], idx, "norm_out", v, m.grads.layer_norm_eps);
        case T::LayerOut:
            return norm_cell(tr[T::FfnResidual], tr[T::FfnNormW], tr[T::FfnNormB], idx, "layer_out", v, m.grads.layer_norm_eps);
        case T::FfnRelu:
            return Msg::literal(cell_text("ffn_relu", idx) + " = max(0, " + fv(tr[T::FfnHidden].data[at]) + ") = " + v);
        case T::FfnHidden: return linear_cell(tr, *linear_writing(T::FfnHidden), idx, v);
        case T::FfnOut: return linear_cell(tr, *linear_writing(T::FfnOut), idx, v);
        case T::Logits: return linear_cell(tr, *linear_writing(T::Logits), idx, v);
        case T::Probs: return probs_cell(m, idx, v);
        case T::FfnIn: return Msg(Str::blk_der_ffn_in, cell_text("ffn_in", idx), v);
        case T::Top: return Msg(Str::blk_der_top, cell_text("top", idx), v);
        case T::X:
        case T::QueryIn:
        case T::Memory:
        case T::KeyValueIn: return Msg(Str::blk_der_stream, cell_text(tensor_name(id), idx), v);
        default: return derive_cell(tr, id, idx);  // the ten stages' own
    }
}

}  // namespace lab
