// train/model.h — Attention Lab core: the paper's Transformer (§3.1–3.4) at toy size,
// its parameters, activations, forward and backward.
//
// Two shapes of model:
//   encoder–decoder  src (B, L_src) → embedding·√d_model (+PE) → N encoder layers → memory
//                    dec_in (B, L_dec) → embedding·√d_model (+PE) → N decoder layers (reading memory)
//                    → generator → logits (B·L_dec, vocab_out)
//   decoder-only     dec_in (B, L_dec) → embedding·√d_model (+PE) → N layers of causal
//                    self-attention + FFN → generator → logits
//   encoder-only     dec_in (B, L_dec) → embedding·√d_model (+PE) → N layers of unmasked
//                    self-attention + FFN → generator → logits (a classifier: the loss mask picks
//                    the positions whose output is classified, e.g. the pronoun of `coref`).
//                    Keys holding the padding token (ModelShape::pad) are masked out, per item,
//                    as src_key_padding_mask (an encoder–decoder with pad: its encoder's keys
//                    and cross-attention's keys, src_ and memory_key_padding_mask). Its layers are the decoder-only ones without the
//                    causal mask ("layers.0", kept in ModelLayout::decoder / Workspace::dec,
//                    the stack that feeds the generator), its attentions EncoderSelf blocks.
// Positions (§3.5, when ModelShape::pe): the sinusoidal table, or a learned one
// (ModelShape::position, Table 3 row E): "pos_embedding.weight" (max(src_len, dec_len), d_model),
// shared by the encoder and the decoder as the sinusoids are, added to embedding·√d_model.
// Dropout (§5.4, ModelShape::dropout = P_drop, in a pass with Workspace::train only): inverted
// dropout on embedding·√d_model + PE (each stack's input) and on every sublayer's output before
// its residual add: x = LN(x + Dropout(Sublayer(x))). The masks are drawn per site, in the order
// of the site's elements (row-major (B, L, d)), site S of a pass from
//   Rng(stream_seed(Workspace::dropout_seed, S)),  S = "src_x" | "dec_x" | PREFIX ".self_attn" |
//   PREFIX ".multihead_attn" | PREFIX ".ffn"  (PREFIX "encoder.layers.0", "decoder.layers.1", "layers.0")
// element e dropped when that Rng's e-th uniform() < P_drop (dropout_mask, nn/layers.h). The
// trainer seeds step t's pass with stream_seed(seed, "dropout step t") (trainer.cpp); the PyTorch
// replay (tests/torch/train_reference.py) re-derives the same masks from its own SplitMix64.
// Layers are post-LN as the paper (and nn.TransformerEncoderLayer/DecoderLayer with
// norm_first=False):
//   encoder layer  x = LN1(x + SelfAttn(x)),            x = LN2(x + FFN(x))
//   decoder layer  x = LN1(x + CausalSelfAttn(x)),      x = LN2(x + CrossAttn(x, memory)),
//                  x = LN3(x + FFN(x))
//   FFN(x) = linear2(relu(linear1(x))), LayerNorm eps 1e-5, no final stack LayerNorm.
// Attention is the core's path (attention.h): linear → split_heads →
// scaled_dot_product_attention per (batch, head) → concat_heads → linear.
//
// Parameters live in one flat buffer, named and shaped as PyTorch's state_dict keys
// (ParamInfo). Linear weights are stored the core's way, (d_in, d_out) so that
// y = x · w + b, per block: in_proj_weight (3d, d) in PyTorch is three (d, d)
// blocks W_q, W_k, W_v here; to_torch_layout / from_torch_layout convert.
// Grouped-query attention (ModelShape::kv_heads = h_kv < h): W_k and W_v are (d, h_kv·d_k), so
// in_proj_weight is (d + 2·h_kv·d_k, d); the split makes k_groups, v_groups (B, h_kv, L, d_k),
// repeat_interleave'd to h heads (query head i reads group i / (h / h_kv)) before the scores.
// nn.MultiheadAttention has no shared heads: the same model is an MHA whose K/V rows are the
// groups' rows repeated (what the PyTorch replay and the exported script load).
//
// Everything is a template on the scalar: float trains, double checks gradients.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/i18n.h"

#include "base/tensor.h"

namespace lab {

enum class ModelKind { EncoderDecoder, DecoderOnly, EncoderOnly };
enum class PositionKind { Sinusoid, Learned };
const char* model_kind_name(ModelKind kind);   // manifest.json's "model": "encoder_decoder" | "decoder_only" | "encoder_only"
const char* model_kind_label(ModelKind kind);  // as printed: "encoder-decoder" | "decoder-only" | "encoder-only"

struct ModelShape {
    ModelKind kind = ModelKind::EncoderDecoder;
    int layers = 1;      // N (encoder and decoder each, or decoder-only layers)
    int heads = 4;       // h
    int kv_heads = 0;    // h_kv key/value heads, each shared by h / h_kv query heads (GQA; 1: MQA); 0: h (MHA)
    int d_model = 32;
    int d_ff = 64;
    int vocab_size = 11;  // embedding rows: the V symbols and BOS (id V)
    int vocab_out = 10;   // generator classes: the V symbols
    int src_len = 8;      // encoder length (encoder–decoder only)
    int dec_len = 8;      // decoder length
    int pad = -1;         // encoder-only: the padding token id, masked out as a key (-1: none)
    bool scale = true;    // ÷√d_k
    bool pe = true;       // positional encoding (§3.5)
    PositionKind position = PositionKind::Sinusoid;  // with pe: the sinusoids, or pos_embedding.weight (learned)
    bool bias = true;     // attention projection biases (in_proj_bias, out_proj.bias)
    double layer_norm_eps = 1e-5;
    double label_smoothing = 0.0;
    double dropout = 0.0;  // P_drop of a training pass (Workspace::train); 0: no dropout, nothing carved for it

    int d_k() const { return d_model / heads; }
    int h_kv() const { return kv_heads > 0 ? kv_heads : heads; }
    bool grouped() const { return h_kv() < heads; }
    int kv_dim() const { return h_kv() * d_k(); }  // K's and V's width: h_kv·d_k (d_model without groups)
    bool learned_positions() const { return pe && position == PositionKind::Learned; }
    int max_len() const { return kind == ModelKind::EncoderDecoder && src_len > dec_len ? src_len : dec_len; }
};

// Normal: N(0, 1/d_model) (the token embedding, scaled by √d_model); NormalUnit: N(0, 1), nn.Embedding's
// default (the learned positions, added unscaled).
enum class ParamInit { Normal, XavierUniform, LinearDefault, Zeros, Ones, NormalUnit };

constexpr size_t kNoParam = static_cast<size_t>(-1);

struct ParamInfo {
    std::string name;              // state_dict key, e.g. "decoder.layers.0.multihead_attn.in_proj_weight"
    std::vector<int> torch_shape;  // e.g. {96, 32}
    size_t offset = 0;             // into the flat buffer
    size_t size = 0;
    // Linear weights: block b is (d_in, block_out[b]) here, rows Σ_{c<b} block_out[c] … of
    // (Σ block_out, d_in) in PyTorch; empty for every other parameter.
    std::vector<int> block_out;
    int d_in = 0;
    ParamInit init = ParamInit::Zeros;
};

enum class AttentionKind { EncoderSelf, DecoderSelf, Cross };

// One row per attention kind, in the enum's order: every reader spells a kind from here.
struct AttentionKindRow {
    AttentionKind kind;
    const char* key;   // URL hash, CLI --sublayer, state JSON, rectangle ids: "enc_self"
    const char* code;  // the lessons' list of heads, the same in both languages: "enc"
    Str brief;         // a lesson option: "encoder self"
    Str name;          // the stepper's sublayer button: "decoder masked self"
    Str title;         // the Train view's map of a block: "encoder self-attention, layer %d"
};
extern const AttentionKindRow kAttentionKinds[3];
const AttentionKindRow& attention_kind_row(AttentionKind kind);
const char* attention_kind_key(AttentionKind kind);  // the row's key
bool parse_attention_kind(const std::string& key, AttentionKind* out);  // false: no row has `key`

// Offsets of one multi-head attention's parameters (kNoParam: no bias). in_proj_weight is
// (d + 2·kv_dim, d) in PyTorch: W_q (d, d), W_k and W_v (d, kv_dim) here, one after the other.
struct AttentionSlots {
    size_t w_q = kNoParam, w_k = kNoParam, w_v = kNoParam;  // (d_in, d_out) each; w_q is in_proj_weight's offset
    size_t b_q = kNoParam, b_k = kNoParam, b_v = kNoParam;  // (d), (kv_dim), (kv_dim); b_q is in_proj_bias's
    size_t w_out = kNoParam;  // (d, d)
    size_t b_out = kNoParam;  // (d)
};

struct LayerSlots {
    bool causal = false;     // self-attention masked to j <= i
    bool has_cross = false;  // encoder–decoder attention after the self-attention
    AttentionSlots self_attn, cross_attn;
    size_t w1 = kNoParam, b1 = kNoParam, w2 = kNoParam, b2 = kNoParam;
    size_t norm_w[3] = {kNoParam, kNoParam, kNoParam}, norm_b[3] = {kNoParam, kNoParam, kNoParam};
    int ffn_norm() const { return has_cross ? 2 : 1; }  // which LayerNorm follows the FFN
};

// One attention of the model, for the page: its kind, layer and state_dict prefix.
struct AttentionBlockInfo {
    AttentionKind kind;
    int layer;
    std::string name;  // "encoder.layers.0.self_attn", "decoder.layers.1.multihead_attn", "layers.0.self_attn"
};

struct ModelLayout {
    ModelShape shape;
    std::vector<ParamInfo> params;  // in state_dict order
    size_t total = 0;               // floats in the flat buffer
    size_t embedding = kNoParam, generator_w = kNoParam, generator_b = kNoParam;
    size_t pos_embedding = kNoParam;  // learned positions (max_len, d), right after embedding.weight
    std::vector<LayerSlots> encoder, decoder;  // decoder-only and encoder-only models use decoder
    std::vector<AttentionBlockInfo> blocks;     // encoder self, then per decoder layer self (and cross)

    const ParamInfo* find(const std::string& name) const;
};

ModelLayout make_layout(const ModelShape& shape);
const AttentionSlots& attention_slots(const ModelLayout& layout, int block);
// Whether layout.blocks[block] is in an encoder–decoder model's encoder stack (ModelLayout::encoder,
// Workspace::enc); every other attention is in the stack that feeds the generator (decoder).
bool in_encoder_stack(const ModelLayout& layout, int block);
// The layer a parameter belongs to: "embedding", "encoder.layers.0", "decoder.layers.1",
// "layers.0", "generator".
std::string param_group(const std::string& name);

// PyTorch's initialisation (see ParamInit) from the core's deterministic RNG, one
// stream per parameter name: embedding N(0, 1/d_model), in_proj Xavier-uniform on
// (3d, d), attention biases 0, other linears U(±1/√fan_in), LayerNorm 1 and 0.
template <typename T>
void init_params(T* params, const ModelLayout& layout, uint64_t seed);

// One parameter between the flat buffer and PyTorch's layout (C order, torch_shape).
template <typename T>
void to_torch_layout(float* out, const T* params, const ParamInfo& p);
template <typename T>
void from_torch_layout(T* params, const float* in, const ParamInfo& p);

// A value and its gradient, carved from the workspace's two arenas.
template <typename T>
struct Slot {
    T* x = nullptr;
    T* d = nullptr;
};

template <typename T>
struct AttentionActs {
    Slot<T> q, k, v;                    // (B·L_q, d), (B·L_kv, kv_dim)
    Slot<T> q_heads, k_heads, v_heads;  // (B, h, L, d_k); grouped: k, v's heads repeated from the groups
    Slot<T> k_groups, v_groups;         // grouped only: (B, h_kv, L_kv, d_k)
    Slot<T> scores, scaled, masked;     // (B, h, L_q, L_kv); values only when Workspace::record
    Slot<T> weights;                    // (B, h, L_q, L_kv)
    Slot<T> context;                    // (B, h, L_q, d_k)
    Slot<T> concat, out;                // (B·L_q, d)
};

template <typename T>
struct LayerActs {
    AttentionActs<T> self_attn, cross_attn;
    Slot<T> res[3], ln[3];      // (B·L, d): x + sublayer(x), then LayerNorm of it
    Slot<T> mean[3], rstd[3];   // (B·L)
    Slot<T> ff_h, ff_a;         // (B·L, d_ff): linear1, relu
    Slot<T> ff_out;             // (B·L, d)
    const Slot<T>& output(const LayerSlots& s) const { return ln[s.ffn_norm()]; }
};

// One layer's dropout (ModelShape::dropout > 0), used in a Workspace::train pass only:
// sublayer k's output after dropout, the residual's addend (B·L, d), and its mask (1 = kept).
// Kept apart from LayerActs so that a model without dropout allocates exactly what it did
// before dropout existed (see workspace_resize).
template <typename T>
struct DropoutActs {
    Slot<T> drop[3];
    std::vector<uint8_t> keep[3];
};

// Everything one batch needs, sized once (no allocation per step). Not copyable:
// the slots point into its arenas.
template <typename T>
struct Workspace {
    int batch = 0;
    int src_len = 0, dec_len = 0;  // full lengths
    int cur_len = 0;               // decoder positions of the last decode (≤ dec_len)
    std::vector<int32_t> src;      // (B, src_len)
    std::vector<int32_t> dec_in;   // (B, dec_len)
    std::vector<int32_t> dec_out;  // (B, dec_len) targets
    std::vector<uint8_t> loss_mask;  // (B, dec_len); empty = every position
    std::vector<uint8_t> head_keep;  // blocks × heads, 0 = knocked out; empty = all heads
    bool record = false;           // also keep scores, scaled, masked
    bool train = false;            // a training pass: dropout (ModelShape::dropout) is on
    uint64_t dropout_seed = 0;     // the masks of a train pass (see the top of this file)
    Slot<T> src_embed, src_x, dec_embed, dec_x;  // embedding·√d, then + PE (then dropout in a train pass)
    Slot<T> src_pos, dec_pos;      // dropout > 0: embedding·√d + PE before dropout (a train pass only)
    std::vector<uint8_t> src_keep, dec_keep;  // ... and the masks
    std::vector<LayerActs<T>> enc, dec;
    std::vector<DropoutActs<T>> enc_drop, dec_drop;  // per layer when ModelShape::dropout > 0, else empty
    Slot<T> logits, probs;         // (B·cur_len, vocab_out)
    T loss = 0;
    std::vector<T> pe;             // (max length, d): the sinusoids (learned positions are parameters)
    std::vector<float> causal_keep;  // (cur_len, cur_len)
    std::vector<float> pad_keep;     // encoder-only: (B, L, L), 0 where the key is the padding token
    std::vector<float> src_pad_keep;  // encoder–decoder with padding: the encoder's (B, L_src, L_src) ...
    std::vector<float> memory_keep;   // ... and the cross-attention's (B, cur_len, L_src)
    AlignedVector<T> values, grads;  // the arenas (aligned: see tensor.h)

    Workspace() = default;
    Workspace(const Workspace&) = delete;
    Workspace& operator=(const Workspace&) = delete;
};

template <typename T>
void workspace_resize(Workspace<T>& ws, const ModelLayout& layout, int batch);
// Values (and as many gradients) workspace_resize allocates for a batch.
size_t workspace_size(const ModelLayout& layout, int batch);

// Encoder stack on ws.src (encoder–decoder only).
template <typename T>
void model_encode(Workspace<T>& ws, const ModelLayout& layout, const T* params);
// Decoder stack and generator on the first `len` positions of ws.dec_in (causal, so
// positions < len do not depend on the rest): logits (B·len, vocab_out).
template <typename T>
void model_decode(Workspace<T>& ws, const ModelLayout& layout, const T* params, int len);
// Cross-entropy of the logits of a full-length decode against ws.dec_out.
template <typename T>
T model_loss(Workspace<T>& ws, const ModelLayout& layout);
// encode + decode(dec_len) + loss.
template <typename T>
T model_forward(Workspace<T>& ws, const ModelLayout& layout, const T* params);
// After model_forward: grads (layout.total) = dLoss/dparams; also fills every
// activation's gradient in ws (the page's backward view).
template <typename T>
void model_backward(Workspace<T>& ws, const ModelLayout& layout, const T* params, T* grads);

// The attention acts of layout.blocks[i] inside a workspace.
template <typename T>
const AttentionActs<T>& block_acts(const Workspace<T>& ws, const ModelLayout& layout, int block);

// What layout.blocks[i] read in the last forward pass (item b = 0 starts at the pointers).
template <typename T>
struct BlockInputs {
    const T* query_in = nullptr;  // (B·L_q, d)
    const T* kv_in = nullptr;     // (B·L_kv, d)
    int L_q = 0, L_kv = 0;
    bool causal = false;
};
template <typename T>
BlockInputs<T> block_inputs(const Workspace<T>& ws, const ModelLayout& layout, int block);

}  // namespace lab
