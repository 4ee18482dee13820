// attention.cpp — Attention Lab core: multi-head attention layers on Eigen maps.
#include "attention/attention.h"

#include "base/eigen_maps.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <vector>

namespace lab {

namespace {

template <typename T>
void linear_impl(T* out, const T* in, const T* w, const T* b, int rows, int d_in, int d_out) {
    MatMap<T> y(out, rows, d_out);
    y.noalias() = ConstMatMap<T>(in, rows, d_in) * ConstMatMap<T>(w, d_in, d_out);
    if (b) y.rowwise() += ConstVecMap<T>(b, d_out);
}

template <typename T>
void split_heads_impl(T* out, const T* in, int B, int L, int h, int d_k) {
    // in[b, l, head*d_k + j] -> out[b, head, l, j]: each head's d_k columns become
    // its own contiguous L×d_k block, which is what transpose(1, 2) plus a
    // contiguous copy does in PyTorch.
    for (int b = 0; b < B; ++b)
        for (int head = 0; head < h; ++head)
            for (int l = 0; l < L; ++l) {
                const T* src = in + ((static_cast<long>(b) * L + l) * h + head) * d_k;
                T* dst = out + ((static_cast<long>(b) * h + head) * L + l) * d_k;
                std::memcpy(dst, src, sizeof(T) * d_k);
            }
}

template <typename T>
void concat_heads_impl(T* out, const T* in, int B, int h, int L, int d_v) {
    // The inverse of split_heads: head blocks side by side again, per position.
    for (int b = 0; b < B; ++b)
        for (int head = 0; head < h; ++head)
            for (int l = 0; l < L; ++l) {
                const T* src = in + ((static_cast<long>(b) * h + head) * L + l) * d_v;
                T* dst = out + ((static_cast<long>(b) * L + l) * h + head) * d_v;
                std::memcpy(dst, src, sizeof(T) * d_v);
            }
}
}  // namespace

void linear(float* out, const float* in, const float* w, const float* b, int rows, int d_in, int d_out) {
    linear_impl(out, in, w, b, rows, d_in, d_out);
}
void linear(double* out, const double* in, const double* w, const double* b, int rows, int d_in, int d_out) {
    linear_impl(out, in, w, b, rows, d_in, d_out);
}
void split_heads(float* out, const float* in, int B, int L, int h, int d_k) { split_heads_impl(out, in, B, L, h, d_k); }
void split_heads(double* out, const double* in, int B, int L, int h, int d_k) { split_heads_impl(out, in, B, L, h, d_k); }
namespace {
template <typename T>
void repeat_kv_heads_impl(T* out, const T* in, int B, int h_kv, int n, int L, int d) {
    // Each (item, kv head) block of L·d values is copied n times, side by side: heads
    // g·n ... g·n + n - 1 all read group g (repeat_interleave, not repeat, which would cycle).
    const long block = static_cast<long>(L) * d;
    for (long g = 0; g < static_cast<long>(B) * h_kv; ++g)
        for (int r = 0; r < n; ++r) std::memcpy(out + (g * n + r) * block, in + g * block, sizeof(T) * block);
}
}  // namespace
void repeat_kv_heads(float* out, const float* in, int B, int h_kv, int n, int L, int d) {
    repeat_kv_heads_impl(out, in, B, h_kv, n, L, d);
}
void repeat_kv_heads(double* out, const double* in, int B, int h_kv, int n, int L, int d) {
    repeat_kv_heads_impl(out, in, B, h_kv, n, L, d);
}
void concat_heads(float* out, const float* in, int B, int h, int L, int d_v) { concat_heads_impl(out, in, B, h, L, d_v); }
void concat_heads(double* out, const double* in, int B, int h, int L, int d_v) { concat_heads_impl(out, in, B, h, L, d_v); }

namespace {
// Adds the time since the last call to step_ms[step] (when timing is on).
struct StepTimer {
    double* step_ms;
    // The clock is read only when timing is on: training calls this per (batch, head).
    std::chrono::steady_clock::time_point last = step_ms ? std::chrono::steady_clock::now()
                                                         : std::chrono::steady_clock::time_point{};
    void lap(int step) {
        if (!step_ms) return;
        const auto now = std::chrono::steady_clock::now();
        step_ms[step] += std::chrono::duration<double, std::milli>(now - last).count();
        last = now;
    }
};

template <typename T>
void sdpa_impl(const SdpaOutputsT<T>& out, const T* q, const T* k, const T* v, const float* keep, int L_q, int L_kv,
               int d_k, int d_v, const SdpaOptions& options) {
    MatMap<T> weights(out.weights, L_q, L_kv);
    StepTimer timer{options.step_ms};

    // 1. scores = q·kᵀ: how well each query matches each key.
    weights.noalias() = ConstMatMap<T>(q, L_q, d_k) * ConstMatMap<T>(k, L_kv, d_k).transpose();
    if (out.scores) MatMap<T>(out.scores, L_q, L_kv) = weights;
    timer.lap(0);

    // 2. ÷√d_k: keeps the dot products' variance near 1 whatever d_k is.
    if (options.scale) weights /= std::sqrt(static_cast<T>(d_k));
    if (out.scaled) MatMap<T>(out.scaled, L_q, L_kv) = weights;
    timer.lap(1);

    // 3. masked_fill(keep == 0, fill): masked keys get -inf (or -1e9) before the softmax.
    if (keep) {
        const T fill = mask_fill_value(options.fill);
        for (int i = 0; i < L_q; ++i)
            for (int j = 0; j < L_kv; ++j)
                if (keep[static_cast<long>(i) * L_kv + j] == 0.0f) weights(i, j) = fill;
    }
    if (out.masked) MatMap<T>(out.masked, L_q, L_kv) = weights;
    timer.lap(2);

    // 4. softmax over the last axis, subtracting the row max so exp never overflows.
    //    A row of all -inf gives max = -inf and (-inf) - (-inf) = NaN: PyTorch's result.
    //    Eigen's vectorised exp clamps its input near -88 (returning ~3e-39 for -inf),
    //    so the few far-negative entries (masked keys) are redone with std::exp, which
    //    gives exactly 0 for -inf and for a -1e9 fill, as PyTorch does. Their shifted
    //    values are kept on the stack for rows up to 256 keys (training calls this per
    //    (batch, head) and must not allocate), on the heap beyond.
    constexpr int kStackRow = 256;
    T stack_row[kStackRow];
    std::vector<T> heap_row;
    for (int i = 0; i < L_q; ++i) {
        auto row = weights.row(i).array();
        const T max = row.maxCoeff();
        row -= max;
        const bool far_negative = (row < T(-80)).any();
        T* shifted = stack_row;
        if (far_negative) {
            if (L_kv > kStackRow) {
                heap_row.resize(static_cast<size_t>(L_kv));
                shifted = heap_row.data();
            }
            for (int j = 0; j < L_kv; ++j) shifted[j] = row(j);
        }
        row = row.exp();
        // Below `zero` exp underflows to +0 in T (e^-110 < half the smallest float
        // denormal): no call needed for the masked keys of a causal row.
        const T zero = sizeof(T) == 4 ? T(-110) : T(-750);
        if (far_negative)
            for (int j = 0; j < L_kv; ++j)
                if (shifted[j] < T(-80)) row(j) = shifted[j] < zero ? T(0) : std::exp(shifted[j]);
        row /= row.sum();
    }
    timer.lap(3);

    // 5. context = weights·v: each query's weighted average of the values.
    MatMap<T>(out.context, L_q, d_v).noalias() = weights * ConstMatMap<T>(v, L_kv, d_v);
    timer.lap(4);
}

}  // namespace

void scaled_dot_product_attention(const SdpaOutputs& out, const float* q, const float* k, const float* v,
                                  const float* keep, int L_q, int L_kv, int d_k, int d_v,
                                  const SdpaOptions& options) {
    sdpa_impl(out, q, k, v, keep, L_q, L_kv, d_k, d_v, options);
}

void scaled_dot_product_attention(const SdpaOutputsT<double>& out, const double* q, const double* k, const double* v,
                                  const float* keep, int L_q, int L_kv, int d_k, int d_v,
                                  const SdpaOptions& options) {
    sdpa_impl(out, q, k, v, keep, L_q, L_kv, d_k, d_v, options);
}

std::vector<int> mask_shape(const AttentionConfig& c) {
    if (c.mask == MaskKind::Padding) return {c.batch, c.L_q(), c.L_kv()};
    return {c.L_q(), c.L_kv()};
}

MaskedBy masked_by(const AttentionConfig& c, int b, int i, int j) {
    if (c.mask == MaskKind::Causal && j < c.prefix) return MaskedBy::Kept;  // the prefix, seen both ways
    switch (c.mask) {
        case MaskKind::None: break;
        case MaskKind::Causal: if (j > i) return MaskedBy::Future; break;  // no peeking at later positions
        case MaskKind::Padding: if (j >= c.padding_lengths[b]) return MaskedBy::Padding; break;
        case MaskKind::Custom: if (c.custom_keep[static_cast<size_t>(i) * c.L_kv() + j] == 0) return MaskedBy::Custom; break;
    }
    const bool too_far = i - j >= c.window || (c.mask != MaskKind::Causal && j - i >= c.window);
    return c.window > 0 && too_far ? MaskedBy::Window : MaskedBy::Kept;
}

void build_keep_mask(float* keep, const AttentionConfig& c) {
    const int Lq = c.L_q(), Lkv = c.L_kv();
    const int items = c.mask == MaskKind::Padding ? c.batch : 1;
    for (int b = 0; b < items; ++b)
        for (int i = 0; i < Lq; ++i)
            for (int j = 0; j < Lkv; ++j)
                keep[(static_cast<long>(b) * Lq + i) * Lkv + j] = masked_by(c, b, i, j) == MaskedBy::Kept ? 1.0f : 0.0f;
}

}  // namespace lab
