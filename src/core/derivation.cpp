// derivation.cpp — Attention Lab core: hover derivations, computed from the trace's
// own tensors so the text shows the very numbers that produced the cell.
#include "derivation.h"

#include <cmath>
#include <cstdio>

#include "config.h"
#include "i18n.h"

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

namespace {

bool in_range(const Tensor& t, const std::vector<int>& index) {
    if (index.size() != t.shape.size()) return false;
    for (size_t i = 0; i < index.size(); ++i)
        if (index[i] < 0 || index[i] >= t.shape[i]) return false;
    return true;
}

size_t flat(const Tensor& t, const std::vector<int>& index) {
    size_t off = 0;
    for (size_t i = 0; i < index.size(); ++i) off = off * t.shape[i] + index[i];
    return off;
}

float keep_of(const Trace& tr, int b, int i, int j) {
    const Tensor& m = *tr.find("mask");
    return m.shape.size() == 3 ? m.at({b, i, j}) : m.at({i, j});
}

// "q_i·k_j = a0·b0 + a1·b1 + ..." — every term for small d_k, the biggest ones otherwise.
std::string dot_terms(const float* a, const float* b, int n) {
    std::string s;
    constexpr int kAllTerms = 8;
    if (n <= kAllTerms) {
        for (int c = 0; c < n; ++c)
            s += (c ? " + " : "") + format_value(a[c]) + "\xc2\xb7" + format_value(b[c]);
        return s;
    }
    // Largest |terms| first: they explain the sign of the score.
    std::vector<int> order(n);
    for (int c = 0; c < n; ++c) order[c] = c;
    for (int x = 0; x < 3; ++x)
        for (int y = x + 1; y < n; ++y)
            if (std::fabs(a[order[y]] * b[order[y]]) > std::fabs(a[order[x]] * b[order[x]])) std::swap(order[x], order[y]);
    float pos = 0, neg = 0;
    for (int c = 0; c < n; ++c) (a[c] * b[c] > 0 ? pos : neg) += a[c] * b[c];
    for (int x = 0; x < 3; ++x)
        s += (x ? " + " : "") + format_value(a[order[x]]) + "\xc2\xb7" + format_value(b[order[x]]) + " [d" +
             std::to_string(order[x]) + "]";
    return s + trf(Str::chk_der_terms_summary, n, format_value(pos), format_value(neg));
}

}  // namespace

std::string derive_cell(const Trace& tr, const std::string& name, const std::vector<int>& index) {
    const Tensor* t = tr.find(name);
    if (!t || !in_range(*t, index)) return "";
    const AttentionConfig& c = tr.config;
    const float value = t->data[flat(*t, index)];
    const std::string v = format_value(value);
    const int dk = c.d_k();

    if (name == "scores" || name == "scaled" || name == "masked" || name == "weights") {
        const int b = index[0], h = index[1], i = index[2], j = index[3];
        const float* q = tr.find("q_heads")->ptr() + tr.find("q_heads")->offset({b, h, i, 0});
        const float* k = tr.find("k_heads")->ptr() + tr.find("k_heads")->offset({b, h, j, 0});
        const float score = tr.find("scores")->at({b, h, i, j});
        const float scaled = tr.find("scaled")->at({b, h, i, j});
        const bool kept = keep_of(tr, b, i, j) != 0.0f;
        const std::string cell = "[b=" + std::to_string(b) + ", head=" + std::to_string(h) + ", i=" + std::to_string(i) +
                                 ", j=" + std::to_string(j) + "]";
        if (name == "scores")
            return "score" + cell + " = q_" + std::to_string(i) + "\xc2\xb7k_" + std::to_string(j) + " = " +
                   dot_terms(q, k, dk) + " = " + v;
        if (name == "scaled")
            return c.scale ? "scaled" + cell + " = " + format_value(score) + " / sqrt(" + std::to_string(dk) +
                                 ") = " + format_value(score) + " / " + format_value(std::sqrt(float(dk))) + " = " + v
                           : trf(Str::chk_der_scaled_off, cell, v);
        if (name == "masked") {
            if (kept) return trf(Str::chk_der_masked_kept, cell, v);
            const std::string why = c.mask == MaskKind::Causal    ? trf(Str::chk_der_why_causal, j, i)
                                    : c.mask == MaskKind::Padding ? trf(Str::chk_der_why_padding, j, c.padding_lengths[b])
                                                                  : std::string(lab::tr(Str::chk_der_why_custom));
            return trf(Str::chk_der_masked, cell, v, format_value(scaled), why);
        }
        // weights
        const Tensor& m = *tr.find("masked");
        float mx = -INFINITY, sum = 0;
        for (int jj = 0; jj < c.L_kv(); ++jj) mx = std::fmax(mx, m.at({b, h, i, jj}));
        for (int jj = 0; jj < c.L_kv(); ++jj) sum += std::exp(m.at({b, h, i, jj}) - mx);
        float row_sum = 0;
        for (int jj = 0; jj < c.L_kv(); ++jj) row_sum += t->at({b, h, i, jj});
        const float s = m.at({b, h, i, j});
        if (std::isinf(mx)) return trf(Str::chk_der_weight_nan, cell);
        return "weight" + cell + " = exp(s - max) / \xce\xa3 = exp(" + format_value(s) + " - " + format_value(mx) +
               ") / " + format_value(sum) + " = " + v + trf(Str::chk_der_row_sum, format_value(row_sum));
    }
    if (name == "concat") {
        const int col = index[2], head = col / dk, within = col % dk;
        return "concat[b=" + std::to_string(index[0]) + ", i=" + std::to_string(index[1]) + ", col=" + std::to_string(col) +
               "] = context[b, head=" + std::to_string(head) + ", i, " + std::to_string(within) + "] = " + v +
               trf(Str::chk_der_concat_column, col, head, within);
    }
    if (name == "q_heads" || name == "k_heads" || name == "v_heads") {
        const int head = index[1], j = index[3];
        return name + "[b, head=" + std::to_string(head) + ", i=" + std::to_string(index[2]) + ", " + std::to_string(j) +
               "] = " + name.substr(0, 1) + "[b, i, " + std::to_string(head * dk + j) + "] = " + v +
               trf(Str::chk_der_head_column, head, dk, j);
    }
    if (name == "context") {
        return "context[b, head=" + std::to_string(index[1]) + ", i=" + std::to_string(index[2]) + ", " +
               std::to_string(index[3]) + "] = \xce\xa3_j weights[i, j] \xc2\xb7 v[j, " + std::to_string(index[3]) +
               "] = " + v;
    }
    if (name == "output") {
        // Each head's share: its d_v columns of concat times the matching rows of W^O.
        const int b = index[0], i = index[1], col = index[2];
        const Tensor& cat = *tr.find("concat");
        const Tensor& wo = *tr.find("w_o");
        std::string s = "output[b=" + std::to_string(b) + ", i=" + std::to_string(i) + ", " + std::to_string(col) +
                        "] = b_o + \xce\xa3_heads = " + format_value(tr.find("b_o")->data[col]);
        for (int head = 0; head < c.heads && head < 16; ++head) {
            float part = 0;
            for (int r = head * dk; r < (head + 1) * dk; ++r) part += cat.at({b, i, r}) * wo.at({r, col});
            s += trf(Str::chk_der_head_part, format_value(part), head);
        }
        if (c.heads > 16) s += " + ...";
        return s + " = " + v;
    }
    if (name == "q" || name == "k" || name == "v") {
        return name + "[b=" + std::to_string(index[0]) + ", i=" + std::to_string(index[1]) + ", " + std::to_string(index[2]) +
               "] = x_i \xc2\xb7 W^" + (name == "q" ? "Q" : name == "k" ? "K" : "V") + "[:, " + std::to_string(index[2]) +
               "] + b = " + v + trf(Str::chk_der_belongs_to_head, index[2] / dk);
    }
    if (name == "query_in" || name == "key_value_in") {
        const Tensor* pe = tr.find("pe");
        const Tensor& raw = *tr.find(name == "query_in" ? "x" : "memory");
        const float x = raw.data[flat(raw, index)];
        if (!pe) return trf(Str::chk_der_pe_off, name, v);
        const int pos = index[1], col = index[2];
        return name + "[b, pos=" + std::to_string(pos) + ", " + std::to_string(col) + "] = x + PE = " + format_value(x) +
               " + " + format_value(pe->at({pos, col})) + " = " + v + "   (PE = " + (col % 2 ? "cos" : "sin") + "(" +
               std::to_string(pos) + " / 10000^(" + std::to_string(col - col % 2) + "/" + std::to_string(c.d_model) + ")))";
    }
    std::string s = name + "[";
    for (size_t i = 0; i < index.size(); ++i) s += (i ? ", " : "") + std::to_string(index[i]);
    return s + "] = " + v;
}

}  // namespace lab
