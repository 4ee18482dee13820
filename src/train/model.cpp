// train/model.cpp — Attention Lab core: the toy Transformer's parameter table,
// initialisation and workspace.
#include "train/model.h"

#include <cmath>

#include "attention/positional_encoding.h"
#include "base/rng.h"

namespace lab {

const AttentionKindRow kAttentionKinds[3] = {
    {AttentionKind::EncoderSelf, "enc_self", "enc", Str::attn_kind_enc_brief, Str::attn_kind_enc_name, Str::attn_kind_enc_title},
    {AttentionKind::DecoderSelf, "dec_self", "dec", Str::attn_kind_dec_brief, Str::attn_kind_dec_name, Str::attn_kind_dec_title},
    {AttentionKind::Cross, "cross", "cross", Str::attn_kind_cross_brief, Str::attn_kind_cross_name, Str::attn_kind_cross_title},
};

const AttentionKindRow& attention_kind_row(AttentionKind kind) { return kAttentionKinds[static_cast<int>(kind)]; }

const char* attention_kind_key(AttentionKind kind) { return attention_kind_row(kind).key; }

bool parse_attention_kind(const std::string& key, AttentionKind* out) {
    for (const AttentionKindRow& row : kAttentionKinds)
        if (key == row.key) return *out = row.kind, true;
    return false;
}

namespace {
struct KindNames {
    const char* name;   // manifest.json
    const char* label;  // printed
};
const KindNames kKindNames[] = {  // in ModelKind's order
    {"encoder_decoder", "encoder-decoder"}, {"decoder_only", "decoder-only"}, {"encoder_only", "encoder-only"}};
}  // namespace

const char* model_kind_name(ModelKind kind) { return kKindNames[static_cast<int>(kind)].name; }
const char* model_kind_label(ModelKind kind) { return kKindNames[static_cast<int>(kind)].label; }

const ParamInfo* ModelLayout::find(const std::string& name) const {
    for (const ParamInfo& p : params)
        if (p.name == name) return &p;
    return nullptr;
}

namespace {

struct LayoutBuilder {
    ModelLayout& layout;
    size_t add(const std::string& name, std::vector<int> torch_shape, ParamInit init, std::vector<int> block_out = {},
               int d_in = 0) {
        ParamInfo p;
        p.name = name;
        p.size = 1;
        for (int n : torch_shape) p.size *= static_cast<size_t>(n);
        p.torch_shape = std::move(torch_shape);
        p.offset = layout.total;
        p.block_out = std::move(block_out);
        p.d_in = d_in;
        p.init = init;
        layout.total += p.size;
        layout.params.push_back(p);
        return p.offset;
    }
    // An nn.Linear: weight (d_out, d_in) in PyTorch, bias (d_out).
    void linear(const std::string& prefix, int d_in, int d_out, size_t* w, size_t* b) {
        *w = add(prefix + ".weight", {d_out, d_in}, ParamInit::LinearDefault, {d_out}, d_in);
        *b = add(prefix + ".bias", {d_out}, ParamInit::LinearDefault, {}, d_in);
    }
    // nn.MultiheadAttention: in_proj Xavier-uniform, zero biases, out_proj nn.Linear's weight.
    // Grouped (kv_dim < d): in_proj holds W_q (d, d), then W_k and W_v (d, kv_dim).
    AttentionSlots attention(const std::string& prefix, const ModelShape& m) {
        const int d = m.d_model, kv = m.kv_dim();
        AttentionSlots s;
        s.w_q = add(prefix + ".in_proj_weight", {d + 2 * kv, d}, ParamInit::XavierUniform, {d, kv, kv}, d);
        s.w_k = s.w_q + static_cast<size_t>(d) * d;
        s.w_v = s.w_k + static_cast<size_t>(d) * kv;
        if (m.bias) {
            s.b_q = add(prefix + ".in_proj_bias", {d + 2 * kv}, ParamInit::Zeros);
            s.b_k = s.b_q + static_cast<size_t>(d);
            s.b_v = s.b_k + static_cast<size_t>(kv);
        }
        s.w_out = add(prefix + ".out_proj.weight", {d, d}, ParamInit::LinearDefault, {d}, d);
        if (m.bias) s.b_out = add(prefix + ".out_proj.bias", {d}, ParamInit::Zeros);
        return s;
    }
    LayerSlots layer(const std::string& prefix, const ModelShape& m, bool causal, bool has_cross) {
        LayerSlots s;
        s.causal = causal;
        s.has_cross = has_cross;
        s.self_attn = attention(prefix + ".self_attn", m);
        if (has_cross) s.cross_attn = attention(prefix + ".multihead_attn", m);
        linear(prefix + ".linear1", m.d_model, m.d_ff, &s.w1, &s.b1);
        linear(prefix + ".linear2", m.d_ff, m.d_model, &s.w2, &s.b2);
        for (int n = 0; n < (has_cross ? 3 : 2); ++n) {
            const std::string norm = prefix + ".norm" + std::to_string(n + 1);
            s.norm_w[n] = add(norm + ".weight", {m.d_model}, ParamInit::Ones);
            s.norm_b[n] = add(norm + ".bias", {m.d_model}, ParamInit::Zeros);
        }
        return s;
    }
};

}  // namespace

ModelLayout make_layout(const ModelShape& m) {
    ModelLayout layout;
    layout.shape = m;
    LayoutBuilder b{layout};
    layout.embedding = b.add("embedding.weight", {m.vocab_size, m.d_model}, ParamInit::Normal);
    if (m.learned_positions()) layout.pos_embedding = b.add("pos_embedding.weight", {m.max_len(), m.d_model}, ParamInit::NormalUnit);
    const bool encdec = m.kind == ModelKind::EncoderDecoder;
    for (int i = 0; encdec && i < m.layers; ++i) {
        const std::string prefix = "encoder.layers." + std::to_string(i);
        layout.encoder.push_back(b.layer(prefix, m, false, false));
        layout.blocks.push_back({AttentionKind::EncoderSelf, i, prefix + ".self_attn"});
    }
    for (int i = 0; i < m.layers; ++i) {
        const std::string prefix = (encdec ? "decoder.layers." : "layers.") + std::to_string(i);
        const bool causal = m.kind != ModelKind::EncoderOnly;
        layout.decoder.push_back(b.layer(prefix, m, causal, encdec));
        layout.blocks.push_back({causal ? AttentionKind::DecoderSelf : AttentionKind::EncoderSelf, i, prefix + ".self_attn"});
        if (encdec) layout.blocks.push_back({AttentionKind::Cross, i, prefix + ".multihead_attn"});
    }
    b.linear("generator", m.d_model, m.vocab_out, &layout.generator_w, &layout.generator_b);
    return layout;
}

bool in_encoder_stack(const ModelLayout& layout, int block) {
    return layout.shape.kind == ModelKind::EncoderDecoder &&
           layout.blocks[static_cast<size_t>(block)].kind == AttentionKind::EncoderSelf;
}

const AttentionSlots& attention_slots(const ModelLayout& layout, int block) {
    const AttentionBlockInfo& info = layout.blocks[static_cast<size_t>(block)];
    if (in_encoder_stack(layout, block)) return layout.encoder[static_cast<size_t>(info.layer)].self_attn;
    const LayerSlots& s = layout.decoder[static_cast<size_t>(info.layer)];
    return info.kind == AttentionKind::Cross ? s.cross_attn : s.self_attn;
}

std::string param_group(const std::string& name) {
    // "decoder.layers.1.norm2.weight" -> "decoder.layers.1"; "layers.0.linear1.bias" -> "layers.0"
    const bool stacked = name.rfind("encoder.layers.", 0) == 0 || name.rfind("decoder.layers.", 0) == 0;
    const int dots = stacked ? 3 : name.rfind("layers.", 0) == 0 ? 2 : 1;
    size_t at = 0;
    for (int i = 0; i < dots; ++i) {
        at = name.find('.', at ? at + 1 : 0);
        if (at == std::string::npos) return name;
    }
    return name.substr(0, at);
}

template <typename T>
void init_params(T* params, const ModelLayout& layout, uint64_t seed) {
    std::vector<float> torch_order;
    for (const ParamInfo& p : layout.params) {
        Rng rng(stream_seed(seed, p.name));
        torch_order.assign(p.size, 0.0f);
        const int fan_in = p.torch_shape.size() == 2 ? p.torch_shape[1] : 0;
        double bound = 0;
        if (p.init == ParamInit::XavierUniform) bound = std::sqrt(6.0 / (p.torch_shape[0] + p.torch_shape[1]));
        if (p.init == ParamInit::LinearDefault) bound = 1.0 / std::sqrt(static_cast<double>(fan_in ? fan_in : p.d_in));
        const double std_dev = 1.0 / std::sqrt(static_cast<double>(layout.shape.d_model));
        for (float& v : torch_order) {
            switch (p.init) {
                case ParamInit::Normal: v = static_cast<float>(rng.normal() * std_dev); break;
                case ParamInit::NormalUnit: v = static_cast<float>(rng.normal()); break;
                case ParamInit::XavierUniform:
                case ParamInit::LinearDefault: v = static_cast<float>(rng.uniform(-bound, bound)); break;
                case ParamInit::Zeros: v = 0.0f; break;
                case ParamInit::Ones: v = 1.0f; break;
            }
        }
        from_torch_layout(params, torch_order.data(), p);
    }
}

namespace {
// Calls f(flat index, PyTorch index) for every element of p. Linear weights: block b's
// (d_in, block_out[b]) matrix here is rows row0 … row0 + block_out[b] of PyTorch's (Σ block_out, d_in),
// row0 the outputs of the blocks before it.
template <class F>
void for_each_element(const ParamInfo& p, F f) {
    if (p.block_out.empty()) {
        for (size_t e = 0; e < p.size; ++e) f(e, e);
        return;
    }
    const size_t d_in = static_cast<size_t>(p.d_in);
    size_t row0 = 0;
    for (int out : p.block_out) {
        const size_t d_out = static_cast<size_t>(out), flat0 = row0 * d_in;
        for (size_t i = 0; i < d_in; ++i)
            for (size_t o = 0; o < d_out; ++o) f(flat0 + i * d_out + o, (row0 + o) * d_in + i);
        row0 += d_out;
    }
}
}  // namespace

template <typename T>
void to_torch_layout(float* out, const T* params, const ParamInfo& p) {
    const T* in = params + p.offset;
    for_each_element(p, [&](size_t flat, size_t torch) { out[torch] = static_cast<float>(in[flat]); });
}

template <typename T>
void from_torch_layout(T* params, const float* in, const ParamInfo& p) {
    T* out = params + p.offset;
    for_each_element(p, [&](size_t flat, size_t torch) { out[flat] = static_cast<T>(in[torch]); });
}

namespace {

// Hands out value/gradient pairs from the workspace's arenas. Run twice: once to
// count (no arenas yet), once to point the slots into the allocated arenas.
template <typename T>
struct Carver {
    Workspace<T>& ws;
    size_t used = 0;
    bool counting = true;
    void take(Slot<T>& s, long n) {
        s = counting ? Slot<T>{} : Slot<T>{ws.values.data() + used, ws.grads.data() + used};
        used += static_cast<size_t>(n);
    }
    void attention(AttentionActs<T>& a, int B, int Lq, int Lkv, const ModelShape& m) {
        const long d = m.d_model, h = m.heads, dk = m.d_k(), scores = static_cast<long>(B) * h * Lq * Lkv;
        const long kv = m.kv_dim();
        take(a.q, B * Lq * d), take(a.k, B * Lkv * kv), take(a.v, B * Lkv * kv);
        take(a.q_heads, B * h * Lq * dk), take(a.k_heads, B * h * Lkv * dk), take(a.v_heads, B * h * Lkv * dk);
        if (m.grouped()) take(a.k_groups, B * Lkv * kv), take(a.v_groups, B * Lkv * kv);  // MHA carves what it did before
        take(a.scores, scores), take(a.scaled, scores), take(a.masked, scores), take(a.weights, scores);
        take(a.context, B * h * Lq * dk), take(a.concat, B * Lq * d), take(a.out, B * Lq * d);
    }
    void layer(LayerActs<T>& a, DropoutActs<T>* dr, const LayerSlots& s, int B, int L, int L_mem, const ModelShape& m) {
        const long rows = static_cast<long>(B) * L;
        attention(a.self_attn, B, L, L, m);
        if (s.has_cross) attention(a.cross_attn, B, L, L_mem, m);
        for (int n = 0; n <= s.ffn_norm(); ++n) {
            take(a.res[n], rows * m.d_model), take(a.ln[n], rows * m.d_model);
            take(a.mean[n], rows), take(a.rstd[n], rows);
        }
        take(a.ff_h, rows * m.d_ff), take(a.ff_a, rows * m.d_ff), take(a.ff_out, rows * m.d_model);
        for (int n = 0; dr && n <= s.ffn_norm(); ++n) {
            take(dr->drop[n], rows * m.d_model);
            if (!counting) dr->keep[n].assign(static_cast<size_t>(rows * m.d_model), 0);
        }
    }
    void all(const ModelLayout& layout, int B) {
        const ModelShape& m = layout.shape;
        const long d = m.d_model;
        take(ws.src_embed, B * ws.src_len * d), take(ws.src_x, B * ws.src_len * d);
        take(ws.dec_embed, B * ws.dec_len * d), take(ws.dec_x, B * ws.dec_len * d);
        const bool drop = m.dropout > 0;
        if (drop) {
            take(ws.src_pos, B * ws.src_len * d), take(ws.dec_pos, B * ws.dec_len * d);
            if (!counting) {
                ws.src_keep.assign(static_cast<size_t>(B * ws.src_len * d), 0);
                ws.dec_keep.assign(static_cast<size_t>(B * ws.dec_len * d), 0);
            }
        }
        for (size_t i = 0; i < layout.encoder.size(); ++i)
            layer(ws.enc[i], drop ? &ws.enc_drop[i] : nullptr, layout.encoder[i], B, ws.src_len, 0, m);
        for (size_t i = 0; i < layout.decoder.size(); ++i)
            layer(ws.dec[i], drop ? &ws.dec_drop[i] : nullptr, layout.decoder[i], B, ws.dec_len, ws.src_len, m);
        take(ws.logits, static_cast<long>(B) * ws.dec_len * m.vocab_out);
        take(ws.probs, static_cast<long>(B) * ws.dec_len * m.vocab_out);
    }
};

}  // namespace

template <typename T>
void workspace_resize(Workspace<T>& ws, const ModelLayout& layout, int batch) {
    const ModelShape& m = layout.shape;
    ws.batch = batch;
    ws.src_len = m.kind == ModelKind::EncoderDecoder ? m.src_len : 0;
    ws.dec_len = m.dec_len;
    ws.cur_len = 0;
    ws.causal_keep.clear();
    ws.src.assign(static_cast<size_t>(batch) * ws.src_len, 0);
    ws.dec_in.assign(static_cast<size_t>(batch) * ws.dec_len, 0);
    ws.dec_out.assign(static_cast<size_t>(batch) * ws.dec_len, 0);
    ws.enc.assign(layout.encoder.size(), LayerActs<T>{});
    ws.dec.assign(layout.decoder.size(), LayerActs<T>{});
    // Without dropout nothing of it is allocated: the heap sees what it saw before dropout existed,
    // so default runs keep their bytes where results depend on where a buffer lands (linear_backward's
    // bias sums into grads: Eigen's head/tail columns round differently from its packet columns).
    ws.enc_drop.clear(), ws.dec_drop.clear();
    ws.src_keep.clear(), ws.dec_keep.clear();
    if (m.dropout > 0) ws.enc_drop.resize(layout.encoder.size()), ws.dec_drop.resize(layout.decoder.size());
    Carver<T> carver{ws};
    carver.all(layout, batch);
    ws.values.assign(carver.used, T(0));
    ws.grads.assign(carver.used, T(0));
    carver.used = 0;
    carver.counting = false;
    carver.all(layout, batch);
    const int L_max = ws.src_len > ws.dec_len ? ws.src_len : ws.dec_len;
    std::vector<float> pe(static_cast<size_t>(L_max) * m.d_model);
    sinusoidal_positional_encoding(pe.data(), L_max, m.d_model);
    ws.pe.assign(pe.begin(), pe.end());
}

size_t workspace_size(const ModelLayout& layout, int batch) {
    Workspace<float> ws;
    ws.src_len = layout.shape.kind == ModelKind::EncoderDecoder ? layout.shape.src_len : 0;
    ws.dec_len = layout.shape.dec_len;
    ws.enc.resize(layout.encoder.size());
    ws.dec.resize(layout.decoder.size());
    if (layout.shape.dropout > 0) ws.enc_drop.resize(layout.encoder.size()), ws.dec_drop.resize(layout.decoder.size());
    Carver<float> carver{ws};
    carver.all(layout, batch);
    return carver.used;
}

template <typename T>
const AttentionActs<T>& block_acts(const Workspace<T>& ws, const ModelLayout& layout, int block) {
    const AttentionBlockInfo& info = layout.blocks[static_cast<size_t>(block)];
    if (in_encoder_stack(layout, block)) return ws.enc[static_cast<size_t>(info.layer)].self_attn;
    const LayerActs<T>& a = ws.dec[static_cast<size_t>(info.layer)];
    return info.kind == AttentionKind::Cross ? a.cross_attn : a.self_attn;
}

#define LAB_INSTANTIATE(T)                                                                                   \
    template void init_params<T>(T*, const ModelLayout&, uint64_t);                                          \
    template void to_torch_layout<T>(float*, const T*, const ParamInfo&);                                    \
    template void from_torch_layout<T>(T*, const float*, const ParamInfo&);                                  \
    template void workspace_resize<T>(Workspace<T>&, const ModelLayout&, int);                               \
    template const AttentionActs<T>& block_acts<T>(const Workspace<T>&, const ModelLayout&, int);
LAB_INSTANTIATE(float)
LAB_INSTANTIATE(double)
#undef LAB_INSTANTIATE

}  // namespace lab
