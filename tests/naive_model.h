// naive_model.h — an independent, deliberately plain forward pass of the toy
// Transformer (train/model.h) for one sample, in double precision with nested loops,
// sharing no code with src/core (it reads the parameters through the layout's offsets,
// which are data). Any intermediate can be nudged as it is computed, so a central
// finite difference of the loss with respect to that tensor checks a displayed gradient.
//
// Hook names: "<layer prefix>/<what>" for a layer ("encoder.layers.0/norm0",
// ".../res1", ".../ffn_hidden", ".../ffn_relu", ".../ffn_out"), "<attention name>/<tensor>"
// for an attention ("decoder.layers.0.multihead_attn/weights": q, k, v, q_heads, k_heads,
// v_heads, scores, scaled, masked, weights, context, concat, output), and "src_embed",
// "src_x", "dec_embed", "dec_x", "logits".
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "train/model.h"

namespace naive {

using Vec = std::vector<double>;

struct Nudge {
    std::string at;     // a hook name, or "" for none
    size_t index = 0;   // into that tensor (C order)
    double delta = 0;
};

struct Model {
    const lab::ModelLayout& layout;
    Vec p;  // the flat parameters, in double
    Nudge nudge;
    mutable std::vector<uint8_t> pad_key{};  // encoder-only: 1 where the key is the padding token (set by loss)

    int d() const { return layout.shape.d_model; }
    void hook(const std::string& name, Vec& v) const {
        if (name == nudge.at && nudge.index < v.size()) v[nudge.index] += nudge.delta;
    }
    // y (L, n_out) = x (L, n_in) · W (n_in, n_out as stored) + b; b may be kNoParam.
    Vec linear(const Vec& x, size_t w, size_t b, int n_in, int n_out) const {
        const size_t L = x.size() / n_in;
        Vec y(L * n_out);
        for (size_t i = 0; i < L; ++i)
            for (int o = 0; o < n_out; ++o) {
                double s = b == lab::kNoParam ? 0 : p[b + o];
                for (int c = 0; c < n_in; ++c) s += x[i * n_in + c] * p[w + static_cast<size_t>(c) * n_out + o];
                y[i * n_out + o] = s;
            }
        return y;
    }
    Vec layer_norm(const Vec& x, size_t w, size_t b) const {
        const int d = this->d();
        Vec y(x.size());
        for (size_t r = 0; r < x.size() / d; ++r) {
            double mean = 0, var = 0;
            for (int c = 0; c < d; ++c) mean += x[r * d + c] / d;
            for (int c = 0; c < d; ++c) var += (x[r * d + c] - mean) * (x[r * d + c] - mean) / d;
            for (int c = 0; c < d; ++c)
                y[r * d + c] = (x[r * d + c] - mean) / std::sqrt(var + layout.shape.layer_norm_eps) * p[w + c] + p[b + c];
        }
        return y;
    }
    // (L, width) -> (h, L, d_k): head hh is columns [g·d_k, (g+1)·d_k) of x, g = hh / per_group
    // (grouped-query K and V: per_group query heads read one key/value head; 1 otherwise).
    Vec split(const Vec& x, int h, int width, int per_group = 1) const {
        const int dk = d() / h;
        const size_t L = x.size() / width;
        Vec out(static_cast<size_t>(h) * L * dk);
        for (int hh = 0; hh < h; ++hh)
            for (size_t i = 0; i < L; ++i)
                for (int c = 0; c < dk; ++c) out[(hh * L + i) * dk + c] = x[i * width + (hh / per_group) * dk + c];
        return out;
    }
    Vec attention(const std::string& name, const lab::AttentionSlots& s, const Vec& xq, const Vec& xkv, bool causal) const;
    Vec sublayer_end(const std::string& prefix, int k, const Vec& x, const Vec& sub, const lab::LayerSlots& s) const {
        Vec r(x.size());
        for (size_t i = 0; i < x.size(); ++i) r[i] = x[i] + sub[i];
        hook(prefix + "/res" + std::to_string(k), r);
        Vec y = layer_norm(r, s.norm_w[k], s.norm_b[k]);
        hook(prefix + "/norm" + std::to_string(k), y);
        return y;
    }
    Vec ffn(const std::string& prefix, const Vec& x, const lab::LayerSlots& s) const {
        const int f = layout.shape.d_ff;
        Vec h = linear(x, s.w1, s.b1, d(), f);
        hook(prefix + "/ffn_hidden", h);
        for (double& v : h) v = v > 0 ? v : 0;
        hook(prefix + "/ffn_relu", h);
        Vec out = linear(h, s.w2, s.b2, f, d());
        hook(prefix + "/ffn_out", out);
        return out;
    }
    Vec embed(const std::string& name, const std::vector<int32_t>& tokens) const {
        const int d = this->d();
        Vec x(tokens.size() * d);
        for (size_t i = 0; i < tokens.size(); ++i)
            for (int c = 0; c < d; ++c) x[i * d + c] = p[layout.embedding + tokens[i] * d + c] * std::sqrt(double(d));
        hook(name + "_embed", x);
        for (size_t i = 0; layout.shape.pe && i < tokens.size(); ++i)
            for (int c = 0; c < d; ++c) {
                const double angle = i / std::pow(10000.0, (c - c % 2) / double(d));
                x[i * d + c] += c % 2 ? std::cos(angle) : std::sin(angle);
            }
        hook(name + "_x", x);
        return x;
    }
    double loss(const std::vector<int32_t>& src, const std::vector<int32_t>& dec_in, const std::vector<int32_t>& dec_out,
                const std::vector<uint8_t>& loss_mask) const;
};

inline Vec Model::attention(const std::string& name, const lab::AttentionSlots& s, const Vec& xq, const Vec& xkv,
                            bool causal) const {
    const int d = this->d(), h = layout.shape.heads, dk = d / h, kv = layout.shape.kv_dim(), n = h / layout.shape.h_kv();
    const size_t Lq = xq.size() / d, Lk = xkv.size() / d;
    Vec q = linear(xq, s.w_q, s.b_q, d, d), k = linear(xkv, s.w_k, s.b_k, d, kv), v = linear(xkv, s.w_v, s.b_v, d, kv);
    hook(name + "/q", q), hook(name + "/k", k), hook(name + "/v", v);
    Vec qh = split(q, h, d), kh = split(k, h, kv, n), vh = split(v, h, kv, n);
    hook(name + "/q_heads", qh), hook(name + "/k_heads", kh), hook(name + "/v_heads", vh);
    Vec scores(h * Lq * Lk), scaled, masked, weights(h * Lq * Lk), context(h * Lq * dk), concat(Lq * d);
    for (int hh = 0; hh < h; ++hh)
        for (size_t i = 0; i < Lq; ++i)
            for (size_t j = 0; j < Lk; ++j) {
                double sum = 0;
                for (int c = 0; c < dk; ++c) sum += qh[(hh * Lq + i) * dk + c] * kh[(hh * Lk + j) * dk + c];
                scores[(hh * Lq + i) * Lk + j] = sum;
            }
    hook(name + "/scores", scores);
    scaled = scores;
    if (layout.shape.scale)
        for (double& x : scaled) x /= std::sqrt(double(dk));
    hook(name + "/scaled", scaled);
    masked = scaled;
    for (int hh = 0; causal && hh < h; ++hh)
        for (size_t i = 0; i < Lq; ++i)
            for (size_t j = i + 1; j < Lk; ++j) masked[(hh * Lq + i) * Lk + j] = -std::numeric_limits<double>::infinity();
    for (size_t j = 0; pad_key.size() == Lk && j < Lk; ++j)  // src_key_padding_mask
        for (size_t r = 0; pad_key[j] && r < h * Lq; ++r) masked[r * Lk + j] = -std::numeric_limits<double>::infinity();
    hook(name + "/masked", masked);
    for (size_t r = 0; r < h * Lq; ++r) {
        double mx = -std::numeric_limits<double>::infinity(), z = 0;
        for (size_t j = 0; j < Lk; ++j) mx = std::fmax(mx, masked[r * Lk + j]);
        for (size_t j = 0; j < Lk; ++j) z += std::exp(masked[r * Lk + j] - mx);
        for (size_t j = 0; j < Lk; ++j) weights[r * Lk + j] = std::exp(masked[r * Lk + j] - mx) / z;
    }
    hook(name + "/weights", weights);
    for (int hh = 0; hh < h; ++hh)
        for (size_t i = 0; i < Lq; ++i)
            for (int c = 0; c < dk; ++c) {
                double sum = 0;
                for (size_t j = 0; j < Lk; ++j) sum += weights[(hh * Lq + i) * Lk + j] * vh[(hh * Lk + j) * dk + c];
                context[(hh * Lq + i) * dk + c] = sum;
            }
    hook(name + "/context", context);
    for (int hh = 0; hh < h; ++hh)
        for (size_t i = 0; i < Lq; ++i)
            for (int c = 0; c < dk; ++c) concat[i * d + hh * dk + c] = context[(hh * Lq + i) * dk + c];
    hook(name + "/concat", concat);
    Vec out = linear(concat, s.w_out, s.b_out, d, d);
    hook(name + "/output", out);
    return out;
}

inline double Model::loss(const std::vector<int32_t>& src, const std::vector<int32_t>& dec_in,
                          const std::vector<int32_t>& dec_out, const std::vector<uint8_t>& loss_mask) const {
    const lab::ModelLayout& L = layout;
    Vec mem;
    // Padding keys out (src_key_padding_mask): an encoder-only model's tokens, a padded encoder–decoder's
    // source (its encoder and cross-attention; memory_key_padding_mask).
    std::vector<uint8_t> src_pad(L.shape.pad >= 0 ? src.size() : 0, 0);
    for (size_t j = 0; j < src_pad.size(); ++j) src_pad[j] = src[j] == L.shape.pad;
    if (L.shape.kind == lab::ModelKind::EncoderDecoder) {
        pad_key = src_pad;
        mem = embed("src", src);
        for (size_t i = 0; i < L.encoder.size(); ++i) {
            const std::string pre = "encoder.layers." + std::to_string(i);
            const lab::LayerSlots& s = L.encoder[i];
            mem = sublayer_end(pre, 0, mem, attention(pre + ".self_attn", s.self_attn, mem, mem, false), s);
            mem = sublayer_end(pre, 1, mem, ffn(pre, mem, s), s);
        }
    }
    Vec x = embed("dec", dec_in);
    const bool encdec = L.shape.kind == lab::ModelKind::EncoderDecoder;
    const bool encoder_only = L.shape.kind == lab::ModelKind::EncoderOnly;  // unmasked, padding keys out
    std::vector<uint8_t> dec_pad(encoder_only ? dec_in.size() : 0, 0);
    for (size_t j = 0; j < dec_pad.size(); ++j) dec_pad[j] = dec_in[j] == L.shape.pad;
    for (size_t i = 0; i < L.decoder.size(); ++i) {
        const std::string pre = (encdec ? "decoder.layers." : "layers.") + std::to_string(i);
        const lab::LayerSlots& s = L.decoder[i];
        pad_key = dec_pad;
        x = sublayer_end(pre, 0, x, attention(pre + ".self_attn", s.self_attn, x, x, !encoder_only), s);
        pad_key = src_pad;
        if (s.has_cross) x = sublayer_end(pre, 1, x, attention(pre + ".multihead_attn", s.cross_attn, x, mem, false), s);
        x = sublayer_end(pre, s.ffn_norm(), x, ffn(pre, x, s), s);
    }
    const int V = L.shape.vocab_out;
    Vec logits = linear(x, L.generator_w, L.generator_b, d(), V);
    hook("logits", logits);
    const double eps = L.shape.label_smoothing;
    double total = 0;
    int counted = 0;
    for (size_t i = 0; i < dec_out.size(); ++i) {
        if (!loss_mask.empty() && !loss_mask[i]) continue;
        double mx = -std::numeric_limits<double>::infinity(), z = 0, all = 0;
        for (int c = 0; c < V; ++c) mx = std::fmax(mx, logits[i * V + c]);
        for (int c = 0; c < V; ++c) z += std::exp(logits[i * V + c] - mx);
        for (int c = 0; c < V; ++c) all -= logits[i * V + c] - mx - std::log(z);
        total += (1 - eps) * -(logits[i * V + dec_out[i]] - mx - std::log(z)) + eps / V * all;
        ++counted;
    }
    return total / counted;
}

}  // namespace naive
