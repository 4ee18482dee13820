// naive_reference.h — an independent, deliberately plain multi-head attention:
// nested loops in double precision straight from the paper's formulas, sharing no
// code with src/core. The engine's tensors are compared against it stage by stage.
#pragma once
#include <cmath>
#include <limits>
#include <vector>

namespace naive {

struct Result {
    // All C order, shapes as in src/trace/trace.h.
    std::vector<double> q, k, v, q_heads, k_heads, v_heads, scores, scaled, masked, weights, context, concat, output;
};

// x: (B, Lq, d), mem: (B, Lkv, d) after PE; w_*: (d, d) as (d_in, d_out); keep: (B, Lq, Lkv).
inline Result attention(const std::vector<float>& x, const std::vector<float>& mem, const std::vector<float>& wq,
                        const std::vector<float>& wk, const std::vector<float>& wv, const std::vector<float>& wo,
                        const std::vector<float>& bq, const std::vector<float>& bk, const std::vector<float>& bv,
                        const std::vector<float>& bo, const std::vector<float>& keep, int B, int Lq, int Lkv, int d, int h,
                        bool scale, double fill) {
    const int dk = d / h;
    Result r;
    auto project = [&](const std::vector<float>& in, int L, const std::vector<float>& w, const std::vector<float>& b) {
        std::vector<double> out(static_cast<size_t>(B) * L * d);
        for (int bi = 0; bi < B; ++bi)
            for (int i = 0; i < L; ++i)
                for (int o = 0; o < d; ++o) {
                    double s = b[o];
                    for (int c = 0; c < d; ++c) s += double(in[(size_t(bi) * L + i) * d + c]) * w[size_t(c) * d + o];
                    out[(size_t(bi) * L + i) * d + o] = s;
                }
        return out;
    };
    r.q = project(x, Lq, wq, bq);
    r.k = project(mem, Lkv, wk, bk);
    r.v = project(mem, Lkv, wv, bv);
    // heads[b][hh][i][j] = flat[b][i][hh*dk + j]
    auto split = [&](const std::vector<double>& flat, int L) {
        std::vector<double> out(flat.size());
        for (int bi = 0; bi < B; ++bi)
            for (int hh = 0; hh < h; ++hh)
                for (int i = 0; i < L; ++i)
                    for (int j = 0; j < dk; ++j)
                        out[((size_t(bi) * h + hh) * L + i) * dk + j] = flat[(size_t(bi) * L + i) * d + hh * dk + j];
        return out;
    };
    r.q_heads = split(r.q, Lq);
    r.k_heads = split(r.k, Lkv);
    r.v_heads = split(r.v, Lkv);
    const size_t n_scores = size_t(B) * h * Lq * Lkv;
    r.scores.resize(n_scores);
    r.scaled.resize(n_scores);
    r.masked.resize(n_scores);
    r.weights.resize(n_scores);
    r.context.resize(size_t(B) * h * Lq * dk);
    for (int bi = 0; bi < B; ++bi)
        for (int hh = 0; hh < h; ++hh)
            for (int i = 0; i < Lq; ++i) {
                const size_t row = ((size_t(bi) * h + hh) * Lq + i) * Lkv;
                for (int j = 0; j < Lkv; ++j) {
                    double s = 0;
                    for (int c = 0; c < dk; ++c)
                        s += r.q_heads[((size_t(bi) * h + hh) * Lq + i) * dk + c] *
                             r.k_heads[((size_t(bi) * h + hh) * Lkv + j) * dk + c];
                    r.scores[row + j] = s;
                    r.scaled[row + j] = scale ? s / std::sqrt(double(dk)) : s;
                    const bool kept = keep[(size_t(bi) * Lq + i) * Lkv + j] != 0;
                    r.masked[row + j] = kept ? r.scaled[row + j] : fill;
                }
                double mx = -std::numeric_limits<double>::infinity();
                for (int j = 0; j < Lkv; ++j) mx = std::fmax(mx, r.masked[row + j]);
                double z = 0;
                for (int j = 0; j < Lkv; ++j) z += std::exp(r.masked[row + j] - mx);
                for (int j = 0; j < Lkv; ++j) r.weights[row + j] = std::exp(r.masked[row + j] - mx) / z;
                if (std::isinf(mx)) // every key masked with -inf: PyTorch gives NaN
                    for (int j = 0; j < Lkv; ++j) r.weights[row + j] = std::numeric_limits<double>::quiet_NaN();
                for (int c = 0; c < dk; ++c) {
                    double s = 0;
                    for (int j = 0; j < Lkv; ++j) s += r.weights[row + j] * r.v_heads[((size_t(bi) * h + hh) * Lkv + j) * dk + c];
                    r.context[((size_t(bi) * h + hh) * Lq + i) * dk + c] = s;
                }
            }
    r.concat.resize(size_t(B) * Lq * d);
    for (int bi = 0; bi < B; ++bi)
        for (int i = 0; i < Lq; ++i)
            for (int hh = 0; hh < h; ++hh)
                for (int c = 0; c < dk; ++c)
                    r.concat[(size_t(bi) * Lq + i) * d + hh * dk + c] = r.context[((size_t(bi) * h + hh) * Lq + i) * dk + c];
    r.output.resize(size_t(B) * Lq * d);
    for (int bi = 0; bi < B; ++bi)
        for (int i = 0; i < Lq; ++i)
            for (int o = 0; o < d; ++o) {
                double s = bo[o];
                for (int c = 0; c < d; ++c) s += r.concat[(size_t(bi) * Lq + i) * d + c] * wo[size_t(c) * d + o];
                r.output[(size_t(bi) * Lq + i) * d + o] = s;
            }
    return r;
}

}  // namespace naive
