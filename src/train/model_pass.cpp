// train/model_pass.cpp — Attention Lab core: the toy Transformer's forward and
// backward passes, sublayer by sublayer, each forward beside its backward.
#include <algorithm>
#include <cmath>

#include "attention/attention.h"
#include "attention/config.h"
#include "base/rng.h"
#include "nn/attention_backward.h"
#include "nn/layers.h"
#include "train/model.h"

namespace lab {

namespace {

template <typename T>
const T* param(const T* params, size_t slot) {
    return slot == kNoParam ? nullptr : params + slot;
}
template <typename T>
T* param(T* params, size_t slot) {
    return slot == kNoParam ? nullptr : params + slot;
}

// What one attention reads: its input rows, its mask and which heads are on.
template <typename T>
struct AttentionCall {
    const T* query_in;  // (B·L_q, d)
    const T* kv_in;     // (B·L_kv, d)
    int B, L_q, L_kv;
    const float* keep;        // (L_q, L_kv) or null
    long keep_stride;         // 0: one keep for every item; L_q·L_kv: item b's keep at keep + b·keep_stride
    const uint8_t* head_keep; // (h) or null: 0 zeroes that head's context (knockout)
};

template <typename T>
const float* item_keep(const AttentionCall<T>& c, int b) {
    return c.keep ? c.keep + b * c.keep_stride : nullptr;
}

// Multi-head attention: the core's linear → split_heads → scaled_dot_product_attention
// → concat_heads → linear, with W_q, W_k, W_v the three blocks of in_proj. Grouped-query
// (h_kv < h): k, v (B·L_kv, h_kv·d_k) split into k_groups, v_groups, repeat_interleave'd to h heads.
template <typename T>
void attention_forward(AttentionActs<T>& a, const AttentionSlots& p, const T* params, const AttentionCall<T>& c,
                       const ModelShape& m, bool record) {
    const int d = m.d_model, h = m.heads, dk = m.d_k(), kv = m.kv_dim(), h_kv = m.h_kv();
    linear(a.q.x, c.query_in, params + p.w_q, param(params, p.b_q), c.B * c.L_q, d, d);
    linear(a.k.x, c.kv_in, params + p.w_k, param(params, p.b_k), c.B * c.L_kv, d, kv);
    linear(a.v.x, c.kv_in, params + p.w_v, param(params, p.b_v), c.B * c.L_kv, d, kv);
    split_heads(a.q_heads.x, a.q.x, c.B, c.L_q, h, dk);
    if (m.grouped()) {
        split_heads(a.k_groups.x, a.k.x, c.B, c.L_kv, h_kv, dk);
        split_heads(a.v_groups.x, a.v.x, c.B, c.L_kv, h_kv, dk);
        repeat_kv_heads(a.k_heads.x, a.k_groups.x, c.B, h_kv, h / h_kv, c.L_kv, dk);
        repeat_kv_heads(a.v_heads.x, a.v_groups.x, c.B, h_kv, h / h_kv, c.L_kv, dk);
    } else {
        split_heads(a.k_heads.x, a.k.x, c.B, c.L_kv, h, dk);
        split_heads(a.v_heads.x, a.v.x, c.B, c.L_kv, h, dk);
    }
    const long score_block = static_cast<long>(c.L_q) * c.L_kv;
    const SdpaOptions options{m.scale, MaskFill::NegInf, nullptr};
    for (int b = 0; b < c.B; ++b)
        for (int head = 0; head < h; ++head) {
            const long s = static_cast<long>(b) * h + head;
            SdpaOutputsT<T> out;
            if (record) {
                out.scores = a.scores.x + s * score_block;
                out.scaled = a.scaled.x + s * score_block;
                out.masked = a.masked.x + s * score_block;
            }
            out.weights = a.weights.x + s * score_block;
            out.context = a.context.x + s * c.L_q * dk;
            scaled_dot_product_attention(out, a.q_heads.x + s * c.L_q * dk, a.k_heads.x + s * c.L_kv * dk,
                                         a.v_heads.x + s * c.L_kv * dk, item_keep(c, b), c.L_q, c.L_kv, dk, dk, options);
            if (c.head_keep && !c.head_keep[head]) std::fill(out.context, out.context + c.L_q * dk, T(0));
        }
    concat_heads(a.concat.x, a.context.x, c.B, h, c.L_q, dk);
    linear(a.out.x, a.concat.x, params + p.w_out, param(params, p.b_out), c.B * c.L_q, d, d);
}

// d k_heads, d v_heads (B, h, L_kv, d_k) → d k, d v (B·L_kv, kv_dim): through the repeat (a group's
// gradient is the sum of its query heads') when grouped, then the split.
template <typename T>
void kv_heads_backward(AttentionActs<T>& a, const AttentionCall<T>& c, const ModelShape& m) {
    const int h = m.heads, dk = m.d_k(), h_kv = m.h_kv();
    if (!m.grouped()) {
        split_heads_backward(a.k.d, a.k_heads.d, c.B, c.L_kv, h, dk);
        split_heads_backward(a.v.d, a.v_heads.d, c.B, c.L_kv, h, dk);
        return;
    }
    repeat_kv_heads_backward(a.k_groups.d, a.k_heads.d, c.B, h_kv, h / h_kv, c.L_kv, dk);
    repeat_kv_heads_backward(a.v_groups.d, a.v_heads.d, c.B, h_kv, h / h_kv, c.L_kv, dk);
    split_heads_backward(a.k.d, a.k_groups.d, c.B, c.L_kv, h_kv, dk);
    split_heads_backward(a.v.d, a.v_groups.d, c.B, c.L_kv, h_kv, dk);
}

// Adds dLoss/d(query_in) to d_query_in and dLoss/d(kv_in) to d_kv_in (the same
// buffer for self-attention), the projections' gradients to grads.
template <typename T>
void attention_backward(T* d_query_in, T* d_kv_in, T* grads, AttentionActs<T>& a, const AttentionSlots& p,
                        const T* params, const AttentionCall<T>& c, const ModelShape& m) {
    const int d = m.d_model, h = m.heads, dk = m.d_k(), kv = m.kv_dim();
    linear_backward(a.concat.d, grads + p.w_out, param(grads, p.b_out), a.out.d, a.concat.x, params + p.w_out,
                    c.B * c.L_q, d, d);
    concat_heads_backward(a.context.d, a.concat.d, c.B, h, c.L_q, dk);
    const long score_block = static_cast<long>(c.L_q) * c.L_kv;
    for (int b = 0; b < c.B; ++b)
        for (int head = 0; head < h; ++head) {
            if (c.head_keep && !c.head_keep[head]) continue;  // a knocked-out head passes nothing back
            const long s = static_cast<long>(b) * h + head, qo = s * c.L_q * dk, ko = s * c.L_kv * dk;
            SdpaGradsT<T> g{a.weights.d + s * score_block, a.masked.d + s * score_block,
                            a.scaled.d + s * score_block, a.scores.d + s * score_block};
            scaled_dot_product_attention_backward(a.q_heads.d + qo, a.k_heads.d + ko, a.v_heads.d + ko, g,
                                                  a.context.d + qo, a.q_heads.x + qo, a.k_heads.x + ko,
                                                  a.v_heads.x + ko, a.weights.x + s * score_block, item_keep(c, b), c.L_q,
                                                  c.L_kv, dk, dk, m.scale);
        }
    split_heads_backward(a.q.d, a.q_heads.d, c.B, c.L_q, h, dk);
    kv_heads_backward(a, c, m);
    linear_backward(d_query_in, grads + p.w_q, param(grads, p.b_q), a.q.d, c.query_in, params + p.w_q, c.B * c.L_q, d, d);
    linear_backward(d_kv_in, grads + p.w_k, param(grads, p.b_k), a.k.d, c.kv_in, params + p.w_k, c.B * c.L_kv, d, kv);
    linear_backward(d_kv_in, grads + p.w_v, param(grads, p.b_v), a.v.d, c.kv_in, params + p.w_v, c.B * c.L_kv, d, kv);
}

// Which heads of layout.blocks[block] are on (null: all).
template <typename T>
const uint8_t* heads_of(const Workspace<T>& ws, const ModelShape& m, int block) {
    return ws.head_keep.empty() ? nullptr : ws.head_keep.data() + static_cast<size_t>(block) * m.heads;
}

// The inputs of one layer: rows x (B·L, d), encoder memory (B·L_mem, d) for
// cross-attention, the index of its first attention in layout.blocks, and its name
// (stack "encoder.layers." | "decoder.layers." | "layers.", index) for its dropout sites.
template <typename T>
struct LayerCall {
    const T* x;
    const T* memory;
    int B, L, L_mem;
    int first_block;
    const char* stack;
    int index;
};

// Whether this pass drops (a training pass of a model with P_drop > 0).
template <typename T>
bool dropping(const Workspace<T>& ws, const ModelShape& m) {
    return ws.train && m.dropout > 0;
}

// The seed of one dropout site's mask in this pass (model.h: "src_x", "decoder.layers.0.ffn", ...).
template <typename T>
uint64_t site_seed(const Workspace<T>& ws, const std::string& site) {
    return stream_seed(ws.dropout_seed, site);
}

template <typename T>
AttentionCall<T> self_call(const Workspace<T>& ws, const LayerSlots& s, const LayerCall<T>& c, const ModelShape& m) {
    // Padding keys are masked out, one keep per item: the encoder of a padded encoder–decoder
    // task, or an encoder-only model's layers (the decoder's self-attention is causal).
    const std::vector<float>& pad = c.stack[0] == 'e' ? ws.src_pad_keep : ws.pad_keep;  // "encoder.layers."
    if (!pad.empty() && !s.causal)
        return {c.x, c.x, c.B, c.L, c.L, pad.data(), static_cast<long>(c.L) * c.L, heads_of(ws, m, c.first_block)};
    return {c.x, c.x, c.B, c.L, c.L, s.causal ? ws.causal_keep.data() : nullptr, 0, heads_of(ws, m, c.first_block)};
}
template <typename T>
AttentionCall<T> cross_call(const Workspace<T>& ws, const LayerActs<T>& a, const LayerCall<T>& c, const ModelShape& m) {
    const bool padded = !ws.memory_keep.empty();  // the source's padding keys masked out, per item
    return {a.ln[0].x, c.memory, c.B, c.L, c.L_mem, padded ? ws.memory_keep.data() : nullptr,
            padded ? static_cast<long>(c.L) * c.L_mem : 0, heads_of(ws, m, c.first_block + 1)};
}

// dr: the layer's dropout (a train pass with dropout), else null.
template <typename T>
void layer_forward(LayerActs<T>& a, DropoutActs<T>* dr, const LayerSlots& s, const T* params, const LayerCall<T>& c,
                   const Workspace<T>& ws, const ModelShape& m) {
    const int rows = c.B * c.L, d = m.d_model;
    const long n = static_cast<long>(rows) * d;
    const T eps = static_cast<T>(m.layer_norm_eps);
    // x = LN_k(x + sublayer(x)), or with dropout x = LN_k(x + Dropout(sublayer(x))) (§5.4)
    auto sublayer_end = [&](int k, const T* x, const T* sub, const char* site) {
        if (dr) {
            dropout_mask(dr->keep[k].data(), n, m.dropout, site_seed(ws, c.stack + std::to_string(c.index) + "." + site));
            dropout_forward(dr->drop[k].x, sub, dr->keep[k].data(), n, m.dropout);
            sub = dr->drop[k].x;
        }
        residual_forward(a.res[k].x, x, sub, n);
        layer_norm_forward(a.ln[k].x, a.mean[k].x, a.rstd[k].x, a.res[k].x, params + s.norm_w[k], params + s.norm_b[k],
                           rows, d, eps);
        return a.ln[k].x;
    };
    attention_forward(a.self_attn, s.self_attn, params, self_call(ws, s, c, m), m, ws.record);
    const T* x = sublayer_end(0, c.x, a.self_attn.out.x, "self_attn");
    if (s.has_cross) {
        attention_forward(a.cross_attn, s.cross_attn, params, cross_call(ws, a, c, m), m, ws.record);
        x = sublayer_end(1, x, a.cross_attn.out.x, "multihead_attn");
    }
    linear(a.ff_h.x, x, params + s.w1, params + s.b1, rows, d, m.d_ff);
    relu_forward(a.ff_a.x, a.ff_h.x, static_cast<long>(rows) * m.d_ff);
    linear(a.ff_out.x, a.ff_a.x, params + s.w2, params + s.b2, rows, m.d_ff, d);
    sublayer_end(s.ffn_norm(), x, a.ff_out.x, "ffn");
}

// From the gradient of the layer's output (a.output(s).d): adds to d_x (the layer's
// input) and d_memory (cross-attention's keys and values).
template <typename T>
void layer_backward(T* d_x, T* d_memory, T* grads, LayerActs<T>& a, const DropoutActs<T>* dr, const LayerSlots& s,
                    const T* params, const LayerCall<T>& c, const Workspace<T>& ws, const ModelShape& m) {
    const int rows = c.B * c.L, d = m.d_model;
    const long n = static_cast<long>(rows) * d;
    auto sublayer_end_backward = [&](int k, T* d_in, T* d_sub) {
        layer_norm_backward(a.res[k].d, grads + s.norm_w[k], grads + s.norm_b[k], a.ln[k].d, a.res[k].x, a.mean[k].x,
                            a.rstd[k].x, params + s.norm_w[k], rows, d);
        if (!dr) return residual_backward(d_in, d_sub, a.res[k].d, n);
        residual_backward(d_in, dr->drop[k].d, a.res[k].d, n);
        dropout_backward(d_sub, dr->drop[k].d, dr->keep[k].data(), n, m.dropout);  // through the forward's mask
    };
    const int f = s.ffn_norm();
    T* d_ffn_in = s.has_cross ? a.ln[1].d : a.ln[0].d;
    const T* ffn_in = s.has_cross ? a.ln[1].x : a.ln[0].x;
    sublayer_end_backward(f, d_ffn_in, a.ff_out.d);
    linear_backward(a.ff_a.d, grads + s.w2, grads + s.b2, a.ff_out.d, a.ff_a.x, params + s.w2, rows, m.d_ff, d);
    relu_backward(a.ff_h.d, a.ff_a.d, a.ff_h.x, static_cast<long>(rows) * m.d_ff);
    linear_backward(d_ffn_in, grads + s.w1, grads + s.b1, a.ff_h.d, ffn_in, params + s.w1, rows, d, m.d_ff);
    if (s.has_cross) {
        sublayer_end_backward(1, a.ln[0].d, a.cross_attn.out.d);
        attention_backward(a.ln[0].d, d_memory, grads, a.cross_attn, s.cross_attn, params, cross_call(ws, a, c, m), m);
    }
    sublayer_end_backward(0, d_x, a.self_attn.out.d);
    attention_backward(d_x, d_x, grads, a.self_attn, s.self_attn, params, self_call(ws, s, c, m), m);
}

// One stack's input: its embedding slots, the sum before dropout, the mask, and the dropout site.
template <typename T>
struct EmbedSlots {
    Slot<T>& embedded;  // embedding·√d_model
    Slot<T>& x;         // + PE (then dropout in a train pass): what the first layer reads
    Slot<T>& pos;       // a train pass with dropout: + PE, before dropout
    std::vector<uint8_t>& keep;
    const char* site;   // "src_x" | "dec_x"
};

// Token embedding ·√d_model (§3.4), then + PE (§3.5) when on: the sinusoids or the learned
// table; then dropout in a train pass (§5.4). tokens (B, stride) of which the first L positions
// are used.
template <typename T>
void embed_forward(const EmbedSlots<T>& e, const int32_t* tokens, int stride, const T* params, const Workspace<T>& ws,
                   const ModelLayout& layout, int L) {
    const ModelShape& m = layout.shape;
    const T scale = static_cast<T>(std::sqrt(static_cast<double>(m.d_model)));
    for (int b = 0; b < ws.batch; ++b)
        embedding_forward(e.embedded.x + static_cast<long>(b) * L * m.d_model, tokens + static_cast<long>(b) * stride,
                          params + layout.embedding, L, m.d_model, scale);
    const long n = static_cast<long>(ws.batch) * L * m.d_model;
    const bool drop = dropping(ws, m);
    T* sum = drop ? e.pos.x : e.x.x;
    const T* pe = m.learned_positions() ? params + layout.pos_embedding : ws.pe.data();
    if (m.pe) add_positions_forward(sum, e.embedded.x, pe, ws.batch, L, m.d_model);
    else std::copy(e.embedded.x, e.embedded.x + n, sum);
    if (!drop) return;
    dropout_mask(e.keep.data(), n, m.dropout, site_seed(ws, e.site));
    dropout_forward(e.x.x, sum, e.keep.data(), n, m.dropout);
}

template <typename T>
void embed_backward(T* grads, const EmbedSlots<T>& e, const int32_t* tokens, int stride, const Workspace<T>& ws,
                    const ModelLayout& layout, int L) {
    const ModelShape& m = layout.shape;
    const long n = static_cast<long>(ws.batch) * L * m.d_model;
    const bool drop = dropping(ws, m);
    if (drop) dropout_backward(e.pos.d, e.x.d, e.keep.data(), n, m.dropout);
    const T* d_sum = drop ? e.pos.d : e.x.d;
    Slot<T>& embedded = e.embedded;
    add_positions_backward(embedded.d, d_sum, ws.batch, L, m.d_model);  // also right without PE: sum = embedded
    if (m.learned_positions())
        positions_table_backward(grads + layout.pos_embedding, d_sum, ws.batch, L, m.d_model);
    const T scale = static_cast<T>(std::sqrt(static_cast<double>(m.d_model)));
    for (int b = 0; b < ws.batch; ++b)
        embedding_backward(grads + layout.embedding, embedded.d + static_cast<long>(b) * L * m.d_model,
                           tokens + static_cast<long>(b) * stride, L, m.d_model, scale);
}

template <typename T>
LayerCall<T> encoder_call(const Workspace<T>& ws, int i) {
    const T* x = i == 0 ? ws.src_x.x : ws.enc[static_cast<size_t>(i) - 1].ln[1].x;
    return {x, nullptr, ws.batch, ws.src_len, 0, i, "encoder.layers.", i};
}
template <typename T>
LayerCall<T> decoder_call(const Workspace<T>& ws, const ModelLayout& layout, int i) {
    const T* x = i == 0 ? ws.dec_x.x : ws.dec[static_cast<size_t>(i) - 1].output(layout.decoder[static_cast<size_t>(i) - 1]).x;
    const T* memory = ws.enc.empty() ? nullptr : ws.enc.back().ln[1].x;
    const bool encdec = layout.shape.kind == ModelKind::EncoderDecoder;
    const int per_layer = encdec ? 2 : 1;
    return {x, memory, ws.batch, ws.cur_len, ws.src_len, static_cast<int>(layout.encoder.size()) + per_layer * i,
            encdec ? "decoder.layers." : "layers.", i};
}

// Layer i's dropout in this pass (null when it does not drop).
template <typename T>
DropoutActs<T>* enc_dropout(Workspace<T>& ws, const ModelShape& m, size_t i) {
    return dropping(ws, m) ? &ws.enc_drop[i] : nullptr;
}
template <typename T>
DropoutActs<T>* dec_dropout(Workspace<T>& ws, const ModelShape& m, size_t i) {
    return dropping(ws, m) ? &ws.dec_drop[i] : nullptr;
}

// With a padding token (ModelShape::pad): item b's keep (L_q, L_kv) is 0 in the columns whose
// key, tokens[b·stride + j], is the padding token (src_key_padding_mask, memory_key_padding_mask).
void build_pad_keep(std::vector<float>& keep, const std::vector<int32_t>& tokens, int stride, int B, int L_q, int L_kv,
                    int pad) {
    keep.resize(static_cast<size_t>(B) * L_q * L_kv);
    for (int b = 0; b < B; ++b)
        for (int j = 0; j < L_kv; ++j) {
            const float k = tokens[static_cast<size_t>(b) * stride + j] == pad ? 0.0f : 1.0f;
            for (int i = 0; i < L_q; ++i) keep[(static_cast<size_t>(b) * L_q + i) * L_kv + j] = k;
        }
}

// The decoder's padding keeps for `len` positions: an encoder-only model's self-attention
// (its keys are dec_in), an encoder–decoder's cross-attention (its keys are src); empty without padding.
template <typename T>
void build_decoder_pad_keeps(Workspace<T>& ws, const ModelShape& m, int len) {
    ws.pad_keep.clear();
    ws.memory_keep.clear();
    if (m.pad < 0) return;
    if (m.kind == ModelKind::EncoderOnly) build_pad_keep(ws.pad_keep, ws.dec_in, ws.dec_len, ws.batch, len, len, m.pad);
    if (m.kind == ModelKind::EncoderDecoder)
        build_pad_keep(ws.memory_keep, ws.src, ws.src_len, ws.batch, len, ws.src_len, m.pad);
}

// The encoder's and the decoder's input slots.
template <typename T>
EmbedSlots<T> src_slots(Workspace<T>& ws) {
    return {ws.src_embed, ws.src_x, ws.src_pos, ws.src_keep, "src_x"};
}
template <typename T>
EmbedSlots<T> dec_slots(Workspace<T>& ws) {
    return {ws.dec_embed, ws.dec_x, ws.dec_pos, ws.dec_keep, "dec_x"};
}

}  // namespace

template <typename T>
void model_encode(Workspace<T>& ws, const ModelLayout& layout, const T* params) {
    ws.src_pad_keep.clear();
    if (layout.shape.pad >= 0)
        build_pad_keep(ws.src_pad_keep, ws.src, ws.src_len, ws.batch, ws.src_len, ws.src_len, layout.shape.pad);
    embed_forward(src_slots(ws), ws.src.data(), ws.src_len, params, ws, layout, ws.src_len);
    for (size_t i = 0; i < layout.encoder.size(); ++i)
        layer_forward(ws.enc[i], enc_dropout(ws, layout.shape, i), layout.encoder[i], params,
                      encoder_call(ws, static_cast<int>(i)), ws, layout.shape);
}

template <typename T>
void model_decode(Workspace<T>& ws, const ModelLayout& layout, const T* params, int len) {
    const ModelShape& m = layout.shape;
    build_decoder_pad_keeps(ws, m, len);
    if (ws.causal_keep.size() != static_cast<size_t>(len) * len) {
        AttentionConfig causal;
        causal.mask = MaskKind::Causal;
        causal.seq_len = len;
        ws.causal_keep.assign(static_cast<size_t>(len) * len, 0.0f);
        build_keep_mask(ws.causal_keep.data(), causal);  // the stepper's causal mask: keep j <= i
    }
    ws.cur_len = len;
    embed_forward(dec_slots(ws), ws.dec_in.data(), ws.dec_len, params, ws, layout, len);
    for (size_t i = 0; i < layout.decoder.size(); ++i)
        layer_forward(ws.dec[i], dec_dropout(ws, m, i), layout.decoder[i], params,
                      decoder_call(ws, layout, static_cast<int>(i)), ws, m);
    const T* top = ws.dec.back().output(layout.decoder.back()).x;
    linear(ws.logits.x, top, params + layout.generator_w, params + layout.generator_b, ws.batch * len, m.d_model,
           m.vocab_out);
}

template <typename T>
T model_loss(Workspace<T>& ws, const ModelLayout& layout) {
    const ModelShape& m = layout.shape;
    ws.loss = cross_entropy_forward(ws.probs.x, ws.logits.x, ws.dec_out.data(),
                                    ws.loss_mask.empty() ? nullptr : ws.loss_mask.data(), ws.batch * ws.dec_len,
                                    m.vocab_out, static_cast<T>(m.label_smoothing));
    return ws.loss;
}

template <typename T>
T model_forward(Workspace<T>& ws, const ModelLayout& layout, const T* params) {
    if (layout.shape.kind == ModelKind::EncoderDecoder) model_encode(ws, layout, params);
    model_decode(ws, layout, params, ws.dec_len);
    return model_loss(ws, layout);
}

template <typename T>
void model_backward(Workspace<T>& ws, const ModelLayout& layout, const T* params, T* grads) {
    const ModelShape& m = layout.shape;
    std::fill(grads, grads + layout.total, T(0));
    std::fill(ws.grads.begin(), ws.grads.end(), T(0));
    const int rows = ws.batch * ws.dec_len;
    cross_entropy_backward(ws.logits.d, T(1), ws.probs.x, ws.dec_out.data(),
                           ws.loss_mask.empty() ? nullptr : ws.loss_mask.data(), rows, m.vocab_out,
                           static_cast<T>(m.label_smoothing));
    LayerActs<T>& top = ws.dec.back();
    const LayerSlots& top_slots = layout.decoder.back();
    linear_backward(top.ln[top_slots.ffn_norm()].d, grads + layout.generator_w, grads + layout.generator_b, ws.logits.d,
                    top.output(top_slots).x, params + layout.generator_w, rows, m.d_model, m.vocab_out);
    T* d_memory = ws.enc.empty() ? nullptr : ws.enc.back().ln[1].d;
    for (int i = static_cast<int>(layout.decoder.size()) - 1; i >= 0; --i) {
        const size_t u = static_cast<size_t>(i);
        T* d_x = i == 0 ? ws.dec_x.d : ws.dec[u - 1].ln[layout.decoder[u - 1].ffn_norm()].d;
        layer_backward(d_x, d_memory, grads, ws.dec[u], dec_dropout(ws, m, u), layout.decoder[u], params,
                       decoder_call(ws, layout, i), ws, m);
    }
    embed_backward(grads, dec_slots(ws), ws.dec_in.data(), ws.dec_len, ws, layout, ws.dec_len);
    for (int i = static_cast<int>(layout.encoder.size()) - 1; i >= 0; --i) {
        const size_t u = static_cast<size_t>(i);
        T* d_x = i == 0 ? ws.src_x.d : ws.enc[u - 1].ln[1].d;
        layer_backward(d_x, static_cast<T*>(nullptr), grads, ws.enc[u], enc_dropout(ws, m, u), layout.encoder[u],
                       params, encoder_call(ws, i), ws, m);
    }
    if (!layout.encoder.empty()) embed_backward(grads, src_slots(ws), ws.src.data(), ws.src_len, ws, layout, ws.src_len);
}

template <typename T>
BlockInputs<T> block_inputs(const Workspace<T>& ws, const ModelLayout& layout, int block) {
    const AttentionBlockInfo& info = layout.blocks[static_cast<size_t>(block)];
    if (in_encoder_stack(layout, block)) {
        const LayerCall<T> c = encoder_call(ws, info.layer);
        return {c.x, c.x, c.L, c.L, false};
    }
    const LayerCall<T> c = decoder_call(ws, layout, info.layer);
    if (info.kind != AttentionKind::Cross) return {c.x, c.x, c.L, c.L, info.kind == AttentionKind::DecoderSelf};
    return {ws.dec[static_cast<size_t>(info.layer)].ln[0].x, c.memory, c.L, c.L_mem, false};
}

#define LAB_INSTANTIATE(T)                                                            \
    template BlockInputs<T> block_inputs<T>(const Workspace<T>&, const ModelLayout&, int); \
    template void model_encode<T>(Workspace<T>&, const ModelLayout&, const T*);       \
    template void model_decode<T>(Workspace<T>&, const ModelLayout&, const T*, int);  \
    template T model_loss<T>(Workspace<T>&, const ModelLayout&);                      \
    template T model_forward<T>(Workspace<T>&, const ModelLayout&, const T*);         \
    template void model_backward<T>(Workspace<T>&, const ModelLayout&, const T*, T*);
LAB_INSTANTIATE(float)
LAB_INSTANTIATE(double)
#undef LAB_INSTANTIATE

}  // namespace lab
