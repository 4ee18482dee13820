// nn/attention_backward.cpp — Attention Lab core: backward of the attention layers,
// on Eigen maps over the same C-order buffers the forward uses.
#include "nn/attention_backward.h"

#include <cmath>

#include "base/eigen_maps.h"

namespace lab {

template <typename T>
void linear_backward(T* d_in, T* d_w, T* d_b, const T* d_out, const T* in, const T* w, int rows, int n_in,
                     int n_out) {
    const ConstMatMap<T> dy(d_out, rows, n_out);
    if (d_in) MatMap<T>(d_in, rows, n_in).noalias() += dy * ConstMatMap<T>(w, n_in, n_out).transpose();
    MatMap<T>(d_w, n_in, n_out).noalias() += ConstMatMap<T>(in, rows, n_in).transpose() * dy;
    if (d_b) VecMap<T>(d_b, n_out) += dy.colwise().sum();
}

template <typename T>
void split_heads_backward(T* d_in, const T* d_out, int B, int L, int h, int dk) {
    // The forward moved in[b, l, head·dk + j] to out[b, head, l, j]; the gradient
    // goes back the same way.
    for (int b = 0; b < B; ++b)
        for (int head = 0; head < h; ++head)
            for (int l = 0; l < L; ++l) {
                T* dst = d_in + ((static_cast<long>(b) * L + l) * h + head) * dk;
                const T* src = d_out + ((static_cast<long>(b) * h + head) * L + l) * dk;
                for (int j = 0; j < dk; ++j) dst[j] += src[j];
            }
}

template <typename T>
void repeat_kv_heads_backward(T* d_in, const T* d_out, int B, int h_kv, int n, int L, int d) {
    const long block = static_cast<long>(L) * d;
    for (long g = 0; g < static_cast<long>(B) * h_kv; ++g)
        for (int r = 0; r < n; ++r) {
            const T* src = d_out + (g * n + r) * block;
            for (long i = 0; i < block; ++i) d_in[g * block + i] += src[i];
        }
}

template <typename T>
void concat_heads_backward(T* d_in, const T* d_out, int B, int h, int L, int d_v) {
    for (int b = 0; b < B; ++b)
        for (int head = 0; head < h; ++head)
            for (int l = 0; l < L; ++l) {
                T* dst = d_in + ((static_cast<long>(b) * h + head) * L + l) * d_v;
                const T* src = d_out + ((static_cast<long>(b) * L + l) * h + head) * d_v;
                for (int j = 0; j < d_v; ++j) dst[j] += src[j];
            }
}

template <typename T>
void context_backward(T* d_weights, T* d_v, const T* d_context, const T* weights, const T* v, int L_q, int L_kv,
                      int dv) {
    const ConstMatMap<T> dc(d_context, L_q, dv);
    MatMap<T>(d_weights, L_q, L_kv).noalias() += dc * ConstMatMap<T>(v, L_kv, dv).transpose();
    MatMap<T>(d_v, L_kv, dv).noalias() += ConstMatMap<T>(weights, L_q, L_kv).transpose() * dc;
}

template <typename T>
void softmax_backward(T* d_masked, const T* d_weights, const T* weights, int L_q, int L_kv) {
    // The softmax Jacobian diag(a) − a·aᵀ applied to a row's gradient, without
    // forming it: dS = A ∘ (dA − rowsum(dA ∘ A)).
    const ConstMatMap<T> A(weights, L_q, L_kv), dA(d_weights, L_q, L_kv);
    MatMap<T> dS(d_masked, L_q, L_kv);
    for (int i = 0; i < L_q; ++i) {
        const T dot = A.row(i).dot(dA.row(i));
        dS.row(i).array() += A.row(i).array() * (dA.row(i).array() - dot);
    }
}

template <typename T>
void mask_backward(T* d_scaled, const T* d_masked, const float* keep, int L_q, int L_kv) {
    // masked_fill wrote a constant where keep == 0: no gradient flows there.
    const long n = static_cast<long>(L_q) * L_kv;
    for (long e = 0; e < n; ++e)
        if (!keep || keep[e] != 0.0f) d_scaled[e] += d_masked[e];
}

template <typename T>
void scale_backward(T* d_scores, const T* d_scaled, int L_q, int L_kv, int dk, bool scale) {
    const long n = static_cast<long>(L_q) * L_kv;
    const T root = std::sqrt(static_cast<T>(dk));
    for (long e = 0; e < n; ++e) d_scores[e] += scale ? d_scaled[e] / root : d_scaled[e];
}

template <typename T>
void scores_backward(T* d_q, T* d_k, const T* d_scores, const T* q, const T* k, int L_q, int L_kv, int dk) {
    const ConstMatMap<T> dS(d_scores, L_q, L_kv);
    MatMap<T>(d_q, L_q, dk).noalias() += dS * ConstMatMap<T>(k, L_kv, dk);
    MatMap<T>(d_k, L_kv, dk).noalias() += dS.transpose() * ConstMatMap<T>(q, L_q, dk);
}

template <typename T>
void scaled_dot_product_attention_backward(T* d_q, T* d_k, T* d_v, const SdpaGradsT<T>& grads, const T* d_context,
                                           const T* q, const T* k, const T* v, const T* weights, const float* keep,
                                           int L_q, int L_kv, int dk, int dv, bool scale) {
    for (T* block : {grads.d_weights, grads.d_masked, grads.d_scaled, grads.d_scores})
        MatMap<T>(block, L_q, L_kv).setZero();
    context_backward(grads.d_weights, d_v, d_context, weights, v, L_q, L_kv, dv);
    softmax_backward(grads.d_masked, grads.d_weights, weights, L_q, L_kv);
    mask_backward(grads.d_scaled, grads.d_masked, keep, L_q, L_kv);
    scale_backward(grads.d_scores, grads.d_scaled, L_q, L_kv, dk, scale);
    scores_backward(d_q, d_k, grads.d_scores, q, k, L_q, L_kv, dk);
}

#define LAB_INSTANTIATE(T)                                                                                       \
    template void linear_backward<T>(T*, T*, T*, const T*, const T*, const T*, int, int, int);                 \
    template void split_heads_backward<T>(T*, const T*, int, int, int, int);                                    \
    template void repeat_kv_heads_backward<T>(T*, const T*, int, int, int, int, int);                           \
    template void concat_heads_backward<T>(T*, const T*, int, int, int, int);                                   \
    template void context_backward<T>(T*, T*, const T*, const T*, const T*, int, int, int);                     \
    template void softmax_backward<T>(T*, const T*, const T*, int, int);                                        \
    template void mask_backward<T>(T*, const T*, const float*, int, int);                                       \
    template void scale_backward<T>(T*, const T*, int, int, int, bool);                                         \
    template void scores_backward<T>(T*, T*, const T*, const T*, const T*, int, int, int);                      \
    template void scaled_dot_product_attention_backward<T>(T*, T*, T*, const SdpaGradsT<T>&, const T*, const T*, \
                                                           const T*, const T*, const T*, const float*, int, int,  \
                                                           int, int, bool);
LAB_INSTANTIATE(float)
LAB_INSTANTIATE(double)
#undef LAB_INSTANTIATE

}  // namespace lab
