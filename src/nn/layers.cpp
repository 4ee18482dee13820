// nn/layers.cpp — Attention Lab core: embedding, positions, residual, LayerNorm, ReLU,
// dropout and cross-entropy, forward and backward.
#include "nn/layers.h"

#include <cmath>

#include "base/eigen_maps.h"
#include "base/rng.h"

namespace lab {

template <typename T>
void embedding_forward(T* out, const int32_t* tokens, const T* table, int rows, int d, T scale) {
    for (int r = 0; r < rows; ++r)
        VecMap<T>(out + static_cast<long>(r) * d, d) = ConstVecMap<T>(table + static_cast<long>(tokens[r]) * d, d) * scale;
}

template <typename T>
void embedding_backward(T* d_table, const T* d_out, const int32_t* tokens, int rows, int d, T scale) {
    // A token used at several positions collects all their gradients (scatter-add).
    for (int r = 0; r < rows; ++r)
        VecMap<T>(d_table + static_cast<long>(tokens[r]) * d, d) += ConstVecMap<T>(d_out + static_cast<long>(r) * d, d) * scale;
}

template <typename T>
void add_positions_forward(T* out, const T* in, const T* pe, int B, int L, int d) {
    const long block = static_cast<long>(L) * d;
    for (int b = 0; b < B; ++b)
        for (long e = 0; e < block; ++e) out[b * block + e] = in[b * block + e] + pe[e];
}

template <typename T>
void add_positions_backward(T* d_in, const T* d_out, int B, int L, int d) {
    const long n = static_cast<long>(B) * L * d;
    for (long e = 0; e < n; ++e) d_in[e] += d_out[e];
}

template <typename T>
void positions_table_backward(T* d_pe, const T* d_out, int B, int L, int d) {
    const long block = static_cast<long>(L) * d;
    for (int b = 0; b < B; ++b)
        for (long e = 0; e < block; ++e) d_pe[e] += d_out[b * block + e];
}

template <typename T>
void residual_forward(T* out, const T* a, const T* b, long n) {
    for (long e = 0; e < n; ++e) out[e] = a[e] + b[e];
}

template <typename T>
void residual_backward(T* d_a, T* d_b, const T* d_out, long n) {
    for (long e = 0; e < n; ++e) {
        d_a[e] += d_out[e];
        d_b[e] += d_out[e];
    }
}

template <typename T>
void layer_norm_forward(T* out, T* mean, T* rstd, const T* in, const T* w, const T* b, int rows, int d, T eps) {
    for (int r = 0; r < rows; ++r) {
        const T* x = in + static_cast<long>(r) * d;
        T* y = out + static_cast<long>(r) * d;
        T m = 0;
        for (int j = 0; j < d; ++j) m += x[j];
        m /= d;
        T var = 0;
        for (int j = 0; j < d; ++j) var += (x[j] - m) * (x[j] - m);
        var /= d;  // biased, as nn.LayerNorm
        const T s = T(1) / std::sqrt(var + eps);
        for (int j = 0; j < d; ++j) y[j] = (x[j] - m) * s * w[j] + b[j];
        mean[r] = m;
        rstd[r] = s;
    }
}

template <typename T>
void layer_norm_backward(T* d_in, T* d_w, T* d_b, const T* d_out, const T* in, const T* mean, const T* rstd,
                         const T* w, int rows, int d) {
    // With x̂ = (x − mean)·rstd and g = d_out ∘ w (the gradient reaching x̂):
    //   d_x = rstd · (g − mean(g) − x̂ · mean(g ∘ x̂)).
    for (int r = 0; r < rows; ++r) {
        const T* x = in + static_cast<long>(r) * d;
        const T* dy = d_out + static_cast<long>(r) * d;
        T* dx = d_in + static_cast<long>(r) * d;
        T g_mean = 0, gx_mean = 0;
        for (int j = 0; j < d; ++j) {
            const T xhat = (x[j] - mean[r]) * rstd[r];
            const T g = dy[j] * w[j];
            g_mean += g;
            gx_mean += g * xhat;
            d_w[j] += dy[j] * xhat;
            d_b[j] += dy[j];
        }
        g_mean /= d;
        gx_mean /= d;
        for (int j = 0; j < d; ++j) {
            const T xhat = (x[j] - mean[r]) * rstd[r];
            dx[j] += rstd[r] * (dy[j] * w[j] - g_mean - xhat * gx_mean);
        }
    }
}

template <typename T>
void relu_forward(T* out, const T* in, long n) {
    for (long e = 0; e < n; ++e) out[e] = in[e] > T(0) ? in[e] : T(0);
}

template <typename T>
void relu_backward(T* d_in, const T* d_out, const T* in, long n) {
    for (long e = 0; e < n; ++e)
        if (in[e] > T(0)) d_in[e] += d_out[e];
}

template <typename T>
T cross_entropy_forward(T* probs, const T* logits, const int32_t* targets, const uint8_t* row_mask, int rows, int C,
                        T label_smoothing) {
    // log p = logit − max − log Σ exp(logit − max), as log_softmax computes it.
    double total = 0;
    int counted = 0;
    for (int r = 0; r < rows; ++r) {
        const T* z = logits + static_cast<long>(r) * C;
        T* p = probs + static_cast<long>(r) * C;
        T max = z[0];
        for (int c = 1; c < C; ++c) max = z[c] > max ? z[c] : max;
        T sum = 0;
        for (int c = 0; c < C; ++c) sum += std::exp(z[c] - max);
        const T log_sum = std::log(sum);
        T sum_neg_logp = 0;
        for (int c = 0; c < C; ++c) {
            const T logp = z[c] - max - log_sum;
            p[c] = std::exp(logp);
            sum_neg_logp -= logp;
        }
        if (row_mask && !row_mask[r]) continue;
        const T nll = -(z[targets[r]] - max - log_sum);
        total += static_cast<double>((T(1) - label_smoothing) * nll + label_smoothing / C * sum_neg_logp);
        ++counted;
    }
    return counted ? static_cast<T>(total / counted) : T(0);
}

template <typename T>
void cross_entropy_backward(T* d_logits, T d_loss, const T* probs, const int32_t* targets, const uint8_t* row_mask,
                            int rows, int C, T label_smoothing) {
    int counted = 0;
    for (int r = 0; r < rows; ++r) counted += !row_mask || row_mask[r];
    if (!counted) return;
    const T scale = d_loss / counted, spread = label_smoothing / C;
    for (int r = 0; r < rows; ++r) {
        if (row_mask && !row_mask[r]) continue;
        const T* p = probs + static_cast<long>(r) * C;
        T* dz = d_logits + static_cast<long>(r) * C;
        for (int c = 0; c < C; ++c) dz[c] += scale * (p[c] - spread - (c == targets[r] ? T(1) - label_smoothing : T(0)));
    }
}

void dropout_mask(uint8_t* keep, long n, double p, uint64_t seed) {
    Rng rng(seed);
    for (long e = 0; e < n; ++e) keep[e] = rng.uniform() < p ? 0 : 1;
}

namespace {
// 1/(1 − p) as PyTorch's dropout computes it: 1 − p in double, rounded to T, then divided.
template <typename T>
T kept_scale(double p) {
    return T(1) / static_cast<T>(1.0 - p);
}
}  // namespace

template <typename T>
void dropout_forward(T* out, const T* in, const uint8_t* keep, long n, double p) {
    const T scale = kept_scale<T>(p);
    for (long e = 0; e < n; ++e) out[e] = keep[e] ? in[e] * scale : T(0);
}

template <typename T>
void dropout_backward(T* d_in, const T* d_out, const uint8_t* keep, long n, double p) {
    const T scale = kept_scale<T>(p);
    for (long e = 0; e < n; ++e)
        if (keep[e]) d_in[e] += d_out[e] * scale;
}

#define LAB_INSTANTIATE(T)                                                                                        \
    template void embedding_forward<T>(T*, const int32_t*, const T*, int, int, T);                               \
    template void embedding_backward<T>(T*, const T*, const int32_t*, int, int, T);                              \
    template void add_positions_forward<T>(T*, const T*, const T*, int, int, int);                               \
    template void add_positions_backward<T>(T*, const T*, int, int, int);                                        \
    template void positions_table_backward<T>(T*, const T*, int, int, int);                                      \
    template void residual_forward<T>(T*, const T*, const T*, long);                                             \
    template void dropout_forward<T>(T*, const T*, const uint8_t*, long, double);                                \
    template void dropout_backward<T>(T*, const T*, const uint8_t*, long, double);                               \
    template void residual_backward<T>(T*, T*, const T*, long);                                                  \
    template void layer_norm_forward<T>(T*, T*, T*, const T*, const T*, const T*, int, int, T);                  \
    template void layer_norm_backward<T>(T*, T*, T*, const T*, const T*, const T*, const T*, const T*, int, int); \
    template void relu_forward<T>(T*, const T*, long);                                                           \
    template void relu_backward<T>(T*, const T*, const T*, long);                                                \
    template T cross_entropy_forward<T>(T*, const T*, const int32_t*, const uint8_t*, int, int, T);              \
    template void cross_entropy_backward<T>(T*, T, const T*, const int32_t*, const uint8_t*, int, int, T);
LAB_INSTANTIATE(float)
LAB_INSTANTIATE(double)
#undef LAB_INSTANTIATE

}  // namespace lab
