// trace_tensors.h — Attention Lab core: the names of a trace's tensors, as an enum so a
// misspelt name does not compile. Order: the pipeline's (the order of a dump).
//
//   x            (B, L_q, d_model)    raw input (decoder side for cross-attention)
//   memory       (B, L_kv, d_model)   raw encoder memory (= x for self-attention)
//   pe           (L_max, d_model)     sinusoidal PE, only when pe is on
//   query_in     (B, L_q, d_model)    x + pe: what enters W^Q
//   key_value_in (B, L_kv, d_model)   memory + pe: what enters W^K and W^V
//   w_q w_k w_v w_o (d_model, d_model) as (d_in, d_out): Q = query_in · w_q + b_q
//   b_q b_k b_v b_o (d_model)         zeros when bias is off
//   q            (B, L_q, d_model);  k, v (B, L_kv, d_model)
//   q_heads      (B, h, L_q, d_k);   k_heads (B, h, L_kv, d_k);  v_heads (B, h, L_kv, d_v)
//   k_groups v_groups (B, h_kv, L_kv, d_k): grouped-query attention only (kv_heads < heads), the
//                h_kv key/value heads before repeat_interleave(h / h_kv, dim=1) makes k_heads, v_heads;
//                then w_k, w_v are (d_model, h_kv·d_k), b_k, b_v (h_kv·d_k), k, v (B, L_kv, h_kv·d_k)
//   scores scaled masked weights      (B, h, L_q, L_kv)
//   mask         (L_q, L_kv) or (B, L_q, L_kv) for padding; 1 keep, 0 masked
//   context      (B, h, L_q, d_v)
//   concat       (B, L_q, h·d_v)
//   output       (B, L_q, d_model)
// A trained model's block around the attention (model_trace/block_trace.h); only in its traces:
//   tokens (B, L) ids;  embedding (vocab_size, d_model);  embed, embed_out (B, L, d_model);  embed_pe (L, d_model)
//   residual, norm_out (B, L_q, d_model);  norm_w, norm_b (d_model): the Add & Norm after the attention
//   ffn_in, ffn_out, ffn_residual, layer_out (B, L, d_model);  ffn_hidden, ffn_relu (B, L, d_ff)
//   w_1 (d_model, d_ff), b_1 (d_ff), w_2 (d_ff, d_model), b_2, ffn_norm_w, ffn_norm_b (d_model)
//   top (B, L_dec, d_model);  w_gen (d_model, V), b_gen (V);  logits, probs (B, L_dec, V);  targets (B, L_dec)
#pragma once
#include <string>

namespace lab {

// One row per tensor: its id and its name.
#define LAB_TRACE_TENSORS(T)                                                                                     \
    T(X, "x") T(Memory, "memory") T(Pe, "pe") T(QueryIn, "query_in") T(KeyValueIn, "key_value_in") T(WQ, "w_q") \
    T(WK, "w_k") T(WV, "w_v") T(BQ, "b_q") T(BK, "b_k") T(BV, "b_v") T(Q, "q") T(K, "k") T(V, "v")              \
    T(QHeads, "q_heads") T(KGroups, "k_groups") T(VGroups, "v_groups") T(KHeads, "k_heads") T(VHeads, "v_heads")  \
    T(Scores, "scores") T(Scaled, "scaled")                                                                      \
    T(Mask, "mask") T(Masked, "masked") T(Weights, "weights") T(Context, "context") T(Concat, "concat")         \
    T(WO, "w_o") T(BO, "b_o") T(Output, "output") T(Tokens, "tokens") T(Embedding, "embedding")                \
    T(Embed, "embed") T(EmbedPe, "embed_pe") T(EmbedOut, "embed_out") T(Residual, "residual")                   \
    T(NormW, "norm_w") T(NormB, "norm_b") T(NormOut, "norm_out") T(FfnIn, "ffn_in") T(W1, "w_1") T(B1, "b_1")   \
    T(FfnHidden, "ffn_hidden") T(FfnRelu, "ffn_relu") T(W2, "w_2") T(B2, "b_2") T(FfnOut, "ffn_out")            \
    T(FfnResidual, "ffn_residual") T(FfnNormW, "ffn_norm_w") T(FfnNormB, "ffn_norm_b") T(LayerOut, "layer_out") \
    T(Top, "top") T(WGen, "w_gen") T(BGen, "b_gen") T(Logits, "logits") T(Probs, "probs") T(Targets, "targets")

enum class TensorId {
#define LAB_TENSOR_ID(id, name) id,
    LAB_TRACE_TENSORS(LAB_TENSOR_ID)
#undef LAB_TENSOR_ID
        Count_
};
constexpr int kTensorCount = static_cast<int>(TensorId::Count_);

const char* tensor_name(TensorId id);                      // "q_heads": in dumps, state() and the UI
bool tensor_id(const std::string& name, TensorId* out);   // the reverse, for names from outside

}  // namespace lab
