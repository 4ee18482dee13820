// attention.h — Attention Lab core: the layers of multi-head attention (§3.2) as
// free functions on raw C-order float arrays, outputs first (llm.c style).
//
// Shapes (B batch, L_q query length, L_kv key/value length, h heads,
// d_k = d_v = d_model / h):
//   linear:          out (rows, d_out) = in (rows, d_in) · w (d_in, d_out) + b (d_out)
//   split_heads:     out (B, h, L, d_k) = in (B, L, h·d_k).view(B, L, h, d_k).transpose(1, 2)
//   repeat_kv_heads: out (B, h_kv·n, L, d) = in (B, h_kv, L, d).repeat_interleave(n, dim=1)
//                    (grouped-query attention: query head i reads key/value head i / n)
//   concat_heads:    out (B, L, h·d_v) = in (B, h, L, d_v).transpose(1, 2).contiguous().view(B, L, h·d_v)
//   scaled_dot_product_attention, one (batch, head) slice:
//     q (L_q, d_k), k (L_kv, d_k), v (L_kv, d_v), keep (L_q, L_kv) or null
//     scores = q·kᵀ, scaled = scores/√d_k, masked = masked_fill(keep == 0, fill),
//     weights = softmax(masked, dim=-1), context (L_q, d_v) = weights·v
// Each layer exists for float (the page, the CLI, training) and for double (the
// training engine's finite-difference gradient checks run the same code in double).
// The backward functions live beside them in nn/attention_backward.h.
#pragma once
#include "attention/config.h"

namespace lab {

void linear(float* out, const float* in, const float* w, const float* b, int rows, int d_in, int d_out);
void linear(double* out, const double* in, const double* w, const double* b, int rows, int d_in, int d_out);

void split_heads(float* out, const float* in, int B, int L, int h, int d_k);
void split_heads(double* out, const double* in, int B, int L, int h, int d_k);
void repeat_kv_heads(float* out, const float* in, int B, int h_kv, int n, int L, int d);
void repeat_kv_heads(double* out, const double* in, int B, int h_kv, int n, int L, int d);
void concat_heads(float* out, const float* in, int B, int h, int L, int d_v);
void concat_heads(double* out, const double* in, int B, int h, int L, int d_v);

// Where scaled_dot_product_attention writes. Only weights and context are required;
// a null scores/scaled/masked skips recording that intermediate.
template <typename T>
struct SdpaOutputsT {
    T* scores = nullptr;   // (L_q, L_kv)
    T* scaled = nullptr;   // (L_q, L_kv)
    T* masked = nullptr;   // (L_q, L_kv)
    T* weights = nullptr;  // (L_q, L_kv)
    T* context = nullptr;  // (L_q, d_v)
};
using SdpaOutputs = SdpaOutputsT<float>;

struct SdpaOptions {
    bool scale = true;                     // divide by √d_k
    MaskFill fill = MaskFill::NegInf;
    // When set, milliseconds spent in each step are added to [0] scores, [1] scale,
    // [2] mask, [3] softmax, [4] context (the cost panel's per-stage timings).
    double* step_ms = nullptr;
};

// Single-head attention, Attention(Q, K, V) = softmax(QKᵀ/√d_k)V with an optional
// keep-mask (1 keep, 0 masked). The softmax subtracts the row maximum so large
// scores cannot overflow exp; a row whose keys are all masked with -inf becomes NaN,
// exactly as in PyTorch.
void scaled_dot_product_attention(const SdpaOutputs& out, const float* q, const float* k, const float* v,
                                  const float* keep, int L_q, int L_kv, int d_k, int d_v,
                                  const SdpaOptions& options = {});
void scaled_dot_product_attention(const SdpaOutputsT<double>& out, const double* q, const double* k, const double* v,
                                  const float* keep, int L_q, int L_kv, int d_k, int d_v,
                                  const SdpaOptions& options = {});

// keep (L_q, L_kv) for a mask shared by the batch, or (B, L_q, L_kv) for padding;
// mask_shape tells which. 1 = keep, 0 = masked.
std::vector<int> mask_shape(const AttentionConfig& c);
void build_keep_mask(float* keep, const AttentionConfig& c);

// The rule that hides key j from query i of batch item b, or Kept. One place for how the
// masks compose: the prefix of a prefix-LM is seen by every query (it wins); then the
// mask kind (causal: j after i; padding: j at or past item b's length; custom: its cell);
// then the sliding window (j at least W positions behind i, or ahead of it when the kind
// is not causal).
enum class MaskedBy { Kept, Future, Padding, Custom, Window };
MaskedBy masked_by(const AttentionConfig& c, int b, int i, int j);

}  // namespace lab
