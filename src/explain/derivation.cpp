// derivation.cpp — Attention Lab core: hover derivations, computed from the trace's
// own tensors so the text shows the very numbers that produced the cell.
#include "explain/derivation.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "attention/attention.h"
#include "attention/config.h"

namespace lab {

std::string format_value(float v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buf[32];
    const float a = std::fabs(v);
    if (a != 0 && (a < 1e-3f || a >= 1e5f)) std::snprintf(buf, sizeof buf, "%.3e", v);
    else std::snprintf(buf, sizeof buf, "%.4f", v);
    return buf;
}

Msg dot_terms(const float* a, const float* b, int count) {
    std::string s;
    constexpr int kAllTerms = 8;
    if (count <= kAllTerms) {
        for (int c = 0; c < count; ++c) s += (c ? " + " : "") + format_value(a[c]) + "\xc2\xb7" + format_value(b[c]);
        return Msg::literal(s);
    }
    // Largest |terms| first: they explain the sign of the score.
    std::vector<int> order(count);
    for (int c = 0; c < count; ++c) order[c] = c;
    for (int x = 0; x < 3; ++x)
        for (int y = x + 1; y < count; ++y)
            if (std::fabs(a[order[y]] * b[order[y]]) > std::fabs(a[order[x]] * b[order[x]])) std::swap(order[x], order[y]);
    float pos = 0, neg = 0;
    for (int c = 0; c < count; ++c) (a[c] * b[c] > 0 ? pos : neg) += a[c] * b[c];
    for (int x = 0; x < 3; ++x)
        s += (x ? " + " : "") + format_value(a[order[x]]) + "\xc2\xb7" + format_value(b[order[x]]) + " [d" + std::to_string(order[x]) + "]";
    return Msg::literal(s).then(Msg(Str::chk_der_terms_summary, count, format_value(pos), format_value(neg)));
}

namespace {

using T = TensorId;
using Index = std::vector<int>;
const char* const kDot = "\xc2\xb7";    // ·
const char* const kSigma = "\xce\xa3";  // Σ

bool in_range(const Tensor& t, const Index& index) {
    if (index.size() != t.shape.size()) return false;
    for (size_t i = 0; i < index.size(); ++i)
        if (index[i] < 0 || index[i] >= t.shape[i]) return false;
    return true;
}

size_t flat(const Tensor& t, const Index& index) {
    size_t off = 0;
    for (size_t i = 0; i < index.size(); ++i) off = off * t.shape[i] + index[i];
    return off;
}

std::string n(int v) { return std::to_string(v); }

float keep_of(const Trace& tr, int b, int i, int j) {
    const Tensor& m = tr[T::Mask];
    return m.shape.size() == 3 ? m.at({b, i, j}) : m.at({i, j});
}

// scores, scaled, masked, weights: one (b, head, i, j) cell of the attention scores.
Msg derive_score_cell(const Trace& tr, T name, const Index& idx, const std::string& v) {
    const AttentionConfig& c = tr.config;
    const int b = idx[0], h = idx[1], i = idx[2], j = idx[3], dk = c.d_k();
    const std::string cell = "[b=" + n(b) + ", head=" + n(h) + ", i=" + n(i) + ", j=" + n(j) + "]";
    const float score = tr[T::Scores].at({b, h, i, j});
    if (name == T::Scores) {
        const float* q = tr[T::QHeads].ptr() + tr[T::QHeads].offset({b, h, i, 0});
        const float* k = tr[T::KHeads].ptr() + tr[T::KHeads].offset({b, h, j, 0});
        return Msg::literal("score" + cell + " = q_" + n(i) + kDot + "k_" + n(j) + " = ")
            .then(dot_terms(q, k, dk))
            .then(Msg::literal(" = " + v));
    }
    if (name == T::Scaled) {
        if (!c.scale) return Msg(Str::chk_der_scaled_off, cell, v);
        return Msg::literal("scaled" + cell + " = " + format_value(score) + " / sqrt(" + n(dk) + ") = " +
                            format_value(score) + " / " + format_value(std::sqrt(float(dk))) + " = " + v);
    }
    if (name == T::Masked) {
        if (keep_of(tr, b, i, j) != 0.0f) return Msg(Str::chk_der_masked_kept, cell, v);
        const MaskedBy rule = masked_by(c, b, i, j);
        const Msg why = rule == MaskedBy::Future    ? Msg(Str::chk_der_why_causal, j, i)
                        : rule == MaskedBy::Padding ? Msg(Str::chk_der_why_padding, j, c.padding_lengths[b])
                        : rule == MaskedBy::Window  ? Msg(Str::chk_der_why_window, c.window, j, i, std::abs(i - j), c.window)
                                                    : Msg(Str::chk_der_why_custom);
        return Msg(Str::chk_der_masked, cell, v, format_value(tr[T::Scaled].at({b, h, i, j})), why);
    }
    // weights
    const Tensor& m = tr[T::Masked];
    float mx = -INFINITY, sum = 0, row_sum = 0;
    for (int jj = 0; jj < c.L_kv(); ++jj) mx = std::fmax(mx, m.at({b, h, i, jj}));
    for (int jj = 0; jj < c.L_kv(); ++jj) sum += std::exp(m.at({b, h, i, jj}) - mx);
    for (int jj = 0; jj < c.L_kv(); ++jj) row_sum += tr[T::Weights].at({b, h, i, jj});
    if (std::isinf(mx)) return Msg(Str::chk_der_weight_nan, cell);
    return Msg::literal("weight" + cell + " = exp(s - max) / " + kSigma + " = exp(" + format_value(m.at({b, h, i, j})) +
                        " - " + format_value(mx) + ") / " + format_value(sum) + " = " + v)
        .then(Msg(Str::chk_der_row_sum, format_value(row_sum)));
}

// output: b_o plus each head's share (its d_v columns of concat times the rows of W^O).
Msg derive_output_cell(const Trace& tr, const Index& idx, const std::string& v) {
    const AttentionConfig& c = tr.config;
    const int b = idx[0], i = idx[1], col = idx[2], dk = c.d_k();
    const Tensor& cat = tr[T::Concat];
    const Tensor& wo = tr[T::WO];
    Msg m = Msg::literal("output[b=" + n(b) + ", i=" + n(i) + ", " + n(col) + "] = b_o + " + kSigma +
                         "_heads = " + format_value(tr[T::BO].data[col]));
    for (int head = 0; head < c.heads && head < 16; ++head) {
        float part = 0;
        for (int r = head * dk; r < (head + 1) * dk; ++r) part += cat.at({b, i, r}) * wo.at({r, col});
        m.then(Msg(Str::chk_der_head_part, format_value(part), head));
    }
    if (c.heads > 16) m.then(Msg::literal(" + ..."));
    return m.then(Msg::literal(" = " + v));
}

// Where a copied or projected value came from: heads, concat, context, q/k/v, the inputs.
Msg derive_moved_cell(const Trace& tr, T name, const Index& idx, const std::string& v) {
    const AttentionConfig& c = tr.config;
    const int dk = c.d_k();
    const std::string tn = tensor_name(name);
    if (name == T::Concat) {
        const int col = idx[2], head = col / dk, within = col % dk;
        return Msg::literal("concat[b=" + n(idx[0]) + ", i=" + n(idx[1]) + ", col=" + n(col) + "] = context[b, head=" +
                            n(head) + ", i, " + n(within) + "] = " + v)
            .then(Msg(Str::chk_der_concat_column, col, head, within));
    }
    const int n_share = c.heads / c.h_kv();  // query heads per key/value group
    if (c.grouped() && (name == T::KHeads || name == T::VHeads)) {
        const int head = idx[1], group = head / n_share;
        const std::string from = name == T::KHeads ? "k_groups" : "v_groups";
        return Msg::literal(tn + "[b, head=" + n(head) + ", i=" + n(idx[2]) + ", " + n(idx[3]) + "] = " + from +
                            "[b, group=" + n(group) + ", i, " + n(idx[3]) + "] = " + v)
            .then(Msg(Str::chk_der_kv_group_of_head, head, head, n_share, group));
    }
    if (name == T::QHeads || name == T::KHeads || name == T::VHeads || name == T::KGroups || name == T::VGroups) {
        const int head = idx[1], j = idx[3];
        return Msg::literal(tn + "[b, head=" + n(head) + ", i=" + n(idx[2]) + ", " + n(j) + "] = " + tn.substr(0, 1) +
                            "[b, i, " + n(head * dk + j) + "] = " + v)
            .then(Msg(Str::chk_der_head_column, head, dk, j));
    }
    if (name == T::Context)
        return Msg::literal("context[b, head=" + n(idx[1]) + ", i=" + n(idx[2]) + ", " + n(idx[3]) + "] = " + kSigma +
                            "_j weights[i, j] " + kDot + " v[j, " + n(idx[3]) + "] = " + v);
    if (name == T::Q || name == T::K || name == T::V)
        return Msg::literal(tn + "[b=" + n(idx[0]) + ", i=" + n(idx[1]) + ", " + n(idx[2]) + "] = x_i " + kDot + " W^" +
                            (name == T::Q ? "Q" : name == T::K ? "K" : "V") + "[:, " + n(idx[2]) + "] + b = " + v)
            .then(c.grouped() && name != T::Q ? Msg(Str::chk_der_belongs_to_group, idx[2] / dk, n_share)
                                              : Msg(Str::chk_der_belongs_to_head, idx[2] / dk));
    // query_in, key_value_in
    const Tensor* pe = tr.find(T::Pe);
    const Tensor& raw = tr[name == T::QueryIn ? T::X : T::Memory];
    if (!pe) return Msg(Str::chk_der_pe_off, tn, v);
    const int pos = idx[1], col = idx[2];
    return Msg::literal(tn + "[b, pos=" + n(pos) + ", " + n(col) + "] = x + PE = " + format_value(raw.data[flat(raw, idx)]) +
                        " + " + format_value(pe->at({pos, col})) + " = " + v + "   (PE = " + (col % 2 ? "cos" : "sin") +
                        "(" + n(pos) + " / 10000^(" + n(col - col % 2) + "/" + n(c.d_model) + ")))");
}

// Raw SDPA: Q, K, V are drawn, split / concat / W^O are copies (trace.cpp); empty for the
// cells whose derivation is the multi-head one (scores, weights, context with head 0).
Msg derive_raw_cell(T name, const Index& idx, const std::string& v) {
    const std::string at = "[b=" + n(idx[0]) + ", i=" + n(idx[1]) + ", " + n(idx.back()) + "] = ";
    switch (name) {
        case T::X:
        case T::Memory:
        case T::QueryIn:
        case T::KeyValueIn:
        case T::Q:
        case T::K:
        case T::V: {
            const char* role = name == T::K ? "K" : name == T::V ? "V" : "Q";
            return Msg::literal(std::string(role) + at + v).then(Msg(Str::chk_der_raw_drawn));
        }
        case T::Concat:
        case T::Output: return Msg::literal("output" + at + v).then(Msg(Str::chk_der_raw_copy));
        case T::QHeads:
        case T::KHeads:
        case T::VHeads: {
            const char* role = name == T::KHeads ? "K" : name == T::VHeads ? "V" : "Q";
            return Msg::literal(std::string(role) + "[b=" + n(idx[0]) + ", i=" + n(idx[2]) + ", " + n(idx[3]) + "] = " + v)
                .then(Msg(Str::chk_der_raw_drawn));
        }
        default: return {};
    }
}

}  // namespace

Msg derive_cell(const Trace& tr, TensorId name, const Index& index) {
    const Tensor* t = tr.find(name);
    if (!t || !in_range(*t, index)) return {};
    const std::string v = format_value(t->data[flat(*t, index)]);
    if (tr.config.raw)
        if (Msg m = derive_raw_cell(name, index, v); !m.empty()) return m;
    switch (name) {
        case T::Scores:
        case T::Scaled:
        case T::Masked:
        case T::Weights: return derive_score_cell(tr, name, index, v);
        case T::Output: return derive_output_cell(tr, index, v);
        case T::Concat:
        case T::QHeads:
        case T::KHeads:
        case T::VHeads:
        case T::KGroups:
        case T::VGroups:
        case T::Context:
        case T::Q:
        case T::K:
        case T::V:
        case T::QueryIn:
        case T::KeyValueIn: return derive_moved_cell(tr, name, index, v);
        default: break;
    }
    std::string s = std::string(tensor_name(name)) + "[";
    for (size_t i = 0; i < index.size(); ++i) s += (i ? ", " : "") + n(index[i]);
    return Msg::literal(s + "] = " + v);
}

}  // namespace lab
