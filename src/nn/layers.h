// nn/layers.h — Attention Lab core: the Transformer's other layers (§3.1–3.4), each
// a free function with its backward beside it, outputs first (llm.c style). The
// attention layers are in attention.h, their backward in attention_backward.h.
//
// Backward functions ADD into their gradient outputs (see attention_backward.h);
// forward functions overwrite their outputs. float for training, double for the
// finite-difference checks.
//
// Shapes (rows = B·L positions, d = d_model, C classes):
//   embedding_forward     out (rows, d) = table[tokens[r]] · scale          (scale = √d_model, §3.4)
//   embedding_backward    d_table (vocab, d) [tokens[r]] += d_out[r] · scale
//   add_positions_forward out (B, L, d) = in + pe (L, d) per batch item   (out may be in)
//   add_positions_backward d_in += d_out                                  (PE is a constant)
//   positions_table_backward d_pe (L, d) += Σ_b d_out (b)                 (learned positions, Table 3 row E)
//   residual_forward      out (n) = a + b
//   residual_backward     d_a += d_out, d_b += d_out
//   layer_norm_forward    out (rows, d) = (in − mean) · rstd · w + b; mean, rstd (rows) kept for backward
//                         (biased variance, rstd = 1/√(var + eps), as nn.LayerNorm)
//   layer_norm_backward   d_in (rows, d), d_w (d), d_b (d)
//   relu_forward          out (n) = max(in, 0)
//   relu_backward         d_in += d_out where in > 0
//   dropout_mask          keep (n): 0 where the e-th uniform() of Rng(seed) is below p, else 1 (§5.4;
//                         one draw per element, in order e = 0 … n − 1)
//   dropout_forward       out (n) = in · keep · 1/(1 − p)   (inverted dropout: evaluation passes through)
//                         (out may be in)
//   dropout_backward      d_in += d_out · keep · 1/(1 − p)
//   cross_entropy_forward loss = mean over the rows whose row_mask is 1 (all rows when null) of
//                         (1 − ε)·(−log p[target]) + ε/C · Σ_c (−log p[c]),
//                         p = softmax(logits (rows, C)), i.e. F.cross_entropy(..., label_smoothing=ε);
//                         probs (rows, C) kept for backward; returns the loss
//   cross_entropy_backward d_logits (rows, C) += d_loss · (p − (1 − ε)·onehot − ε/C) / counted rows
#pragma once
#include <cstdint>

namespace lab {

template <typename T>
void embedding_forward(T* out, const int32_t* tokens, const T* table, int rows, int d, T scale);
template <typename T>
void embedding_backward(T* d_table, const T* d_out, const int32_t* tokens, int rows, int d, T scale);

template <typename T>
void add_positions_forward(T* out, const T* in, const T* pe, int B, int L, int d);
template <typename T>
void add_positions_backward(T* d_in, const T* d_out, int B, int L, int d);

template <typename T>
void positions_table_backward(T* d_pe, const T* d_out, int B, int L, int d);

template <typename T>
void residual_forward(T* out, const T* a, const T* b, long n);
template <typename T>
void residual_backward(T* d_a, T* d_b, const T* d_out, long n);

template <typename T>
void layer_norm_forward(T* out, T* mean, T* rstd, const T* in, const T* w, const T* b, int rows, int d, T eps);
template <typename T>
void layer_norm_backward(T* d_in, T* d_w, T* d_b, const T* d_out, const T* in, const T* mean, const T* rstd,
                         const T* w, int rows, int d);

template <typename T>
void relu_forward(T* out, const T* in, long n);
template <typename T>
void relu_backward(T* d_in, const T* d_out, const T* in, long n);

void dropout_mask(uint8_t* keep, long n, double p, uint64_t seed);
template <typename T>
void dropout_forward(T* out, const T* in, const uint8_t* keep, long n, double p);
template <typename T>
void dropout_backward(T* d_in, const T* d_out, const uint8_t* keep, long n, double p);

template <typename T>
T cross_entropy_forward(T* probs, const T* logits, const int32_t* targets, const uint8_t* row_mask, int rows, int C,
                        T label_smoothing);
template <typename T>
void cross_entropy_backward(T* d_logits, T d_loss, const T* probs, const int32_t* targets, const uint8_t* row_mask,
                            int rows, int C, T label_smoothing);

}  // namespace lab
