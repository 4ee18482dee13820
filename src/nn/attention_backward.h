// nn/attention_backward.h — Attention Lab core: the backward pass of the attention
// layers of attention.h (linear, split/concat heads, scaled dot-product attention),
// one free function per forward op, gradient outputs first (llm.c style).
//
// Convention: every backward ADDS into its gradient outputs (d_x += ...), so a tensor
// read twice (a residual input, the encoder output read by every cross-attention)
// collects every contribution; a caller zeroes gradient buffers before a backward
// pass. Each exists for float (training) and double (finite-difference checks).
//
// Shapes (rows = B·L, h heads, dk = dv = d_model / h; d_q, d_k, d_v name gradients):
//   linear_backward          forward out (rows, n_out) = in (rows, n_in) · w (n_in, n_out) + b
//     d_in  (rows, n_in)    += d_out · wᵀ           (d_in may be null: an input that needs none)
//     d_w   (n_in, n_out)   += inᵀ · d_out
//     d_b   (n_out)         += Σ_rows d_out         (null when the layer has no bias)
//   split_heads_backward     forward out (B, h, L, dk) = in (B, L, h·dk) split
//     d_in  (B, L, h·dk)    += d_out moved back (concat_heads)
//   repeat_kv_heads_backward forward out (B, h_kv·n, L, d) = in (B, h_kv, L, d) repeated n times per head
//     d_in  (B, h_kv, L, d) += Σ over its n copies of d_out (each shared head collects its queries' heads)
//   concat_heads_backward    forward out (B, L, h·d_v) = in (B, h, L, d_v) side by side
//     d_in  (B, h, L, d_v)  += d_out split again (split_heads)
//   One (batch, head) slice of scaled_dot_product_attention, in reverse order:
//   context_backward         forward context (L_q, dv) = weights (L_q, L_kv) · v (L_kv, dv)
//     d_weights (L_q, L_kv) += d_context · vᵀ
//     d_v       (L_kv, dv) += weightsᵀ · d_context
//   softmax_backward         forward weights = softmax(masked, dim=-1)
//     d_masked  (L_q, L_kv) += weights ∘ (d_weights − rowsum(d_weights ∘ weights))
//     A row that was fully masked with −inf has NaN weights, so its gradient is NaN,
//     exactly as PyTorch ("SoftmaxBackward returned nan values").
//   mask_backward            forward masked = masked_fill(keep == 0, fill)
//     d_scaled  (L_q, L_kv) += d_masked where keep, nothing where masked (keep null: all kept)
//   scale_backward           forward scaled = scores / √dk (or scores when scaling is off)
//     d_scores  (L_q, L_kv) += d_scaled / √dk
//   scores_backward          forward scores = q (L_q, dk) · k (L_kv, dk)ᵀ
//     d_q (L_q, dk)        += d_scores · k
//     d_k (L_kv, dk)       += d_scoresᵀ · q
#pragma once
#include "attention/attention.h"

namespace lab {

template <typename T>
void linear_backward(T* d_in, T* d_w, T* d_b, const T* d_out, const T* in, const T* w, int rows, int n_in,
                     int n_out);

template <typename T>
void split_heads_backward(T* d_in, const T* d_out, int B, int L, int h, int dk);
template <typename T>
void repeat_kv_heads_backward(T* d_in, const T* d_out, int B, int h_kv, int n, int L, int d);
template <typename T>
void concat_heads_backward(T* d_in, const T* d_out, int B, int h, int L, int d_v);

template <typename T>
void context_backward(T* d_weights, T* d_v, const T* d_context, const T* weights, const T* v, int L_q, int L_kv,
                      int dv);
template <typename T>
void softmax_backward(T* d_masked, const T* d_weights, const T* weights, int L_q, int L_kv);
template <typename T>
void mask_backward(T* d_scaled, const T* d_masked, const float* keep, int L_q, int L_kv);
template <typename T>
void scale_backward(T* d_scores, const T* d_scaled, int L_q, int L_kv, int dk, bool scale);
template <typename T>
void scores_backward(T* d_q, T* d_k, const T* d_scores, const T* q, const T* k, int L_q, int L_kv, int dk);

// The gradients scaled_dot_product_attention_backward passes through, one
// (L_q, L_kv) block each; it overwrites them (they are its own intermediates) and
// keeps them for the page's backward view.
template <typename T>
struct SdpaGradsT {
    T* d_weights = nullptr;
    T* d_masked = nullptr;
    T* d_scaled = nullptr;
    T* d_scores = nullptr;
};

// The five backward steps of one slice in order: d_q, d_k, d_v are added to.
template <typename T>
void scaled_dot_product_attention_backward(T* d_q, T* d_k, T* d_v, const SdpaGradsT<T>& grads, const T* d_context,
                                           const T* q, const T* k, const T* v, const T* weights, const float* keep,
                                           int L_q, int L_kv, int dk, int dv, bool scale);

}  // namespace lab
