// train/kv_cache.cpp — Attention Lab core: one decode step with a KV cache, the full
// recompute it is checked against, and what each costs. Every layer is the core's own
// (linear, scaled_dot_product_attention, layer_norm_forward, ...) on one row.
#include "train/kv_cache.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "attention/attention.h"
#include "attention/positional_encoding.h"
#include "nn/layers.h"

namespace lab {

namespace {

const float* param(const float* params, size_t slot) { return slot == kNoParam ? nullptr : params + slot; }

double now_ms() {
    using clock = std::chrono::steady_clock;
    return std::chrono::duration<double, std::milli>(clock::now().time_since_epoch()).count();
}

// Keys and values of `rows` input rows into a cache laid out (h_kv, capacity, d_k), from row `at` on:
// one row per key/value head (grouped-query attention caches h_kv heads, not h).
void project_into_cache(float* cache_k, float* cache_v, const float* in, int rows, int at, int capacity,
                        const AttentionSlots& a, const float* params, const ModelShape& m) {
    const int d = m.d_model, h_kv = m.h_kv(), dk = m.d_k(), kv = m.kv_dim();
    std::vector<float> k(static_cast<size_t>(rows) * kv), v(k.size());
    linear(k.data(), in, params + a.w_k, param(params, a.b_k), rows, d, kv);
    linear(v.data(), in, params + a.w_v, param(params, a.b_v), rows, d, kv);
    for (int r = 0; r < rows; ++r)
        for (int head = 0; head < h_kv; ++head) {
            const long to = (static_cast<long>(head) * capacity + at + r) * dk, from = static_cast<long>(r) * kv + head * dk;
            std::copy(k.begin() + from, k.begin() + from + dk, cache_k + to);
            std::copy(v.begin() + from, v.begin() + from + dk, cache_v + to);
        }
}

// One query row against L_kv cached keys per head: the new row of weights (h, L_kv) and the
// attention's output (d) after out_proj. q (d) split into heads is h slices of d_k; query head i
// reads cached head i / (h / h_kv) (repeat_interleave without the copy).
void attend_row(float* out, float* weights, const float* q, const float* cache_k, const float* cache_v, int L_kv,
                int capacity, const AttentionSlots& a, const float* params, const ModelShape& m, bool scale) {
    const int d = m.d_model, h = m.heads, dk = m.d_k();
    std::vector<float> concat(static_cast<size_t>(d));
    const SdpaOptions options{scale, MaskFill::NegInf, nullptr};
    for (int head = 0; head < h; ++head) {
        SdpaOutputs o;
        o.weights = weights + static_cast<long>(head) * L_kv;
        o.context = concat.data() + head * dk;  // concat_heads of one row: the heads side by side
        const long at = static_cast<long>(head / (h / m.h_kv())) * capacity * dk;
        scaled_dot_product_attention(o, q + head * dk, cache_k + at, cache_v + at, nullptr, 1, L_kv, dk, dk, options);
    }
    linear(out, concat.data(), params + a.w_out, param(params, a.b_out), 1, d, d);
}

// x = LN_k(x + sub), in place on x (d).
void add_and_norm(float* x, const float* sub, const LayerSlots& s, int k, const float* params, const ModelShape& m) {
    const int d = m.d_model;
    std::vector<float> res(static_cast<size_t>(d));
    float mean = 0, rstd = 0;
    residual_forward(res.data(), x, sub, d);
    layer_norm_forward(x, &mean, &rstd, res.data(), params + s.norm_w[k], params + s.norm_b[k], 1, d,
                       static_cast<float>(m.layer_norm_eps));
}

void ffn_row(float* out, const float* x, const LayerSlots& s, const float* params, const ModelShape& m) {
    std::vector<float> hidden(static_cast<size_t>(m.d_ff));
    linear(hidden.data(), x, params + s.w1, params + s.b1, 1, m.d_model, m.d_ff);
    relu_forward(hidden.data(), hidden.data(), m.d_ff);
    linear(out, hidden.data(), params + s.w2, params + s.b2, 1, m.d_ff, m.d_model);
}

// Row t's input: embedding·√d_model + PE[position].
void embed_row(float* x, const KvCache& cache, const ModelLayout& layout, const float* params, int32_t token,
               int position) {
    const ModelShape& m = layout.shape;
    const int d = m.d_model;
    embedding_forward(x, &token, params + layout.embedding, 1, d, static_cast<float>(std::sqrt(static_cast<double>(d))));
    if (!m.pe) return;
    const float* pe = m.learned_positions() ? params + layout.pos_embedding : cache.pe.data();
    for (int c = 0; c < d; ++c) x[c] += pe[static_cast<long>(position) * d + c];
}

}  // namespace

void kv_cache_begin(KvCache& cache, const ModelLayout& layout, const float* params, const std::vector<int32_t>& src) {
    const ModelShape& m = layout.shape;
    cache = KvCache{};
    cache.capacity = m.dec_len, cache.heads = m.h_kv(), cache.d_k = m.d_k();
    const size_t per_layer = static_cast<size_t>(cache.heads) * cache.capacity * cache.d_k;
    cache.k.assign(layout.decoder.size(), std::vector<float>(per_layer));
    cache.v = cache.k;
    cache.pe.resize(static_cast<size_t>(cache.capacity) * m.d_model);
    sinusoidal_positional_encoding(cache.pe.data(), cache.capacity, m.d_model);
    if (m.kind != ModelKind::EncoderDecoder) return;
    Workspace<float> ws;  // the encoder runs once; its memory's keys and values are cached per layer
    workspace_resize(ws, layout, 1);
    std::copy(src.begin(), src.begin() + std::min<size_t>(src.size(), ws.src.size()), ws.src.begin());
    model_encode(ws, layout, params);
    cache.src_len = cache.src_keys = m.src_len;
    if (m.pad >= 0)  // a padded source (translate): its padding keys are masked out, so only its words are read
        cache.src_keys = static_cast<int>(std::find(ws.src.begin(), ws.src.end(), m.pad) - ws.src.begin());
    const size_t cross = static_cast<size_t>(cache.heads) * m.src_len * cache.d_k;
    cache.cross_k.assign(layout.decoder.size(), std::vector<float>(cross));
    cache.cross_v = cache.cross_k;
    for (size_t l = 0; l < layout.decoder.size(); ++l)
        project_into_cache(cache.cross_k[l].data(), cache.cross_v[l].data(), ws.enc.back().ln[1].x, m.src_len, 0,
                           m.src_len, layout.decoder[l].cross_attn, params, m);
}

void kv_decode_step(DecodeStep& out, KvCache& cache, const ModelLayout& layout, const float* params, int32_t token,
                    KvBug bug) {
    const ModelShape& m = layout.shape;
    const int d = m.d_model, t = cache.len;
    out.position = t, out.token_in = token;
    std::vector<float> x(static_cast<size_t>(d)), q(x.size()), sub(x.size()), cross_w(static_cast<size_t>(m.heads) * cache.src_len);
    embed_row(x.data(), cache, layout, params, token, bug == KvBug::StalePosition ? std::max(t - 1, 0) : t);
    out.query.assign(layout.decoder.size(), {});
    out.key.assign(layout.decoder.size(), {});
    out.weights.assign(layout.decoder.size(), {});
    const bool scale = m.scale && bug != KvBug::NoScale;
    for (size_t l = 0; l < layout.decoder.size(); ++l) {
        const LayerSlots& s = layout.decoder[l];
        linear(q.data(), x.data(), params + s.self_attn.w_q, param(params, s.self_attn.b_q), 1, d, d);
        project_into_cache(cache.k[l].data(), cache.v[l].data(), x.data(), 1, t, cache.capacity, s.self_attn, params, m);
        const int L_kv = bug == KvBug::AttendBeforeAppend ? std::max(t, 1) : t + 1;
        out.query[l] = q;
        for (int h = 0; h < cache.heads; ++h) {  // the row this step appended, key/value head by head
            const float* row = cache.k[l].data() + (static_cast<size_t>(h) * cache.capacity + t) * cache.d_k;
            out.key[l].insert(out.key[l].end(), row, row + cache.d_k);
        }
        out.weights[l].assign(static_cast<size_t>(m.heads) * L_kv, 0.0f);
        attend_row(sub.data(), out.weights[l].data(), q.data(), cache.k[l].data(), cache.v[l].data(), L_kv,
                   cache.capacity, s.self_attn, params, m, scale);
        add_and_norm(x.data(), sub.data(), s, 0, params, m);
        if (s.has_cross) {
            linear(q.data(), x.data(), params + s.cross_attn.w_q, param(params, s.cross_attn.b_q), 1, d, d);
            attend_row(sub.data(), cross_w.data(), q.data(), cache.cross_k[l].data(), cache.cross_v[l].data(),
                       cache.src_keys, cache.src_len, s.cross_attn, params, m, scale);
            add_and_norm(x.data(), sub.data(), s, 1, params, m);
        }
        ffn_row(sub.data(), x.data(), s, params, m);
        add_and_norm(x.data(), sub.data(), s, s.ffn_norm(), params, m);
    }
    out.logits.assign(static_cast<size_t>(m.vocab_out), 0.0f);
    linear(out.logits.data(), x.data(), params + layout.generator_w, params + layout.generator_b, 1, d, m.vocab_out);
    out.token_out = static_cast<int32_t>(std::max_element(out.logits.begin(), out.logits.end()) - out.logits.begin());
    cache.len = t + 1;
}

double kv_bound(const ModelShape& m, const std::vector<float>& full_logits) {
    double largest = 1;
    for (float v : full_logits) largest = std::max(largest, std::fabs(static_cast<double>(v)));
    return std::ldexp(1.0, -16) * largest * std::max(1, m.layers);
}

namespace {

// The recompute's row t: model_decode on tokens 0 … t of ws.dec_in.
std::vector<float> recompute_row(Workspace<float>& ws, const ModelLayout& layout, const float* params, int t) {
    model_decode(ws, layout, params, t + 1);
    const long V = layout.shape.vocab_out;
    return std::vector<float>(ws.logits.x + t * V, ws.logits.x + (t + 1) * V);
}

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
    double worst = 0;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
        const double diff = std::fabs(static_cast<double>(a[i]) - b[i]);
        if (std::isnan(diff)) return diff;  // NaN wins (a later finite entry must not hide it): it fails the check
        worst = std::max(worst, diff);
    }
    return worst;
}

int32_t argmax(const std::vector<float>& v) {
    return static_cast<int32_t>(std::max_element(v.begin(), v.end()) - v.begin());
}

}  // namespace

DecodeRun kv_decode(const ModelLayout& layout, const float* params, const std::vector<int32_t>& src,
                    const std::vector<int32_t>& dec_in, int gen_begin, int gen_end, const DecodeOptions& options) {
    const ModelShape& m = layout.shape;
    DecodeRun run;
    run.cached = options.cache;
    if (m.kind == ModelKind::EncoderOnly || gen_end > m.dec_len || gen_end < 1 || dec_in.size() < static_cast<size_t>(m.dec_len))
        return run;
    Workspace<float> ws;
    workspace_resize(ws, layout, 1);
    std::copy(src.begin(), src.begin() + std::min<size_t>(src.size(), ws.src.size()), ws.src.begin());
    if (m.kind == ModelKind::EncoderDecoder) model_encode(ws, layout, params);
    KvCache cache;
    if (options.cache) kv_cache_begin(cache, layout, params, src);
    int32_t token = dec_in[0];
    for (int t = 0; t < gen_end; ++t) {
        if (t <= gen_begin) token = dec_in[static_cast<size_t>(t)];  // the prompt; later rows read the last prediction
        ws.dec_in[static_cast<size_t>(t)] = token;
        run.tokens.push_back(token);
        DecodeStep step;
        step.generated = t >= gen_begin;
        step.cached = decode_step_cost(m, t, true), step.full = decode_step_cost(m, t, false);
        double start = now_ms();
        if (options.cache) kv_decode_step(step, cache, layout, params, token, options.bug), step.ms = now_ms() - start;
        std::vector<float> full;
        start = now_ms();
        if (!options.cache || options.check) full = recompute_row(ws, layout, params, t), step.recompute_ms = now_ms() - start;
        if (!options.cache) step.position = t, step.token_in = token, step.logits = full, step.token_out = argmax(full);
        if (!options.cache) step.ms = step.recompute_ms;
        if (options.cache && options.check) {
            step.max_abs_diff = max_abs_diff(step.logits, full), step.bound = kv_bound(m, full);
            run.failed += !step.equal();
            if (!std::isnan(run.worst) && !(step.max_abs_diff <= run.worst)) run.worst = step.max_abs_diff;  // NaN, once in, stays
        }
        run.recompute_ms += step.recompute_ms;
        run.total_ms += step.ms;
        token = step.token_out;
        const bool stopped = step.generated && options.stop >= 0 && token == options.stop;
        run.steps.push_back(std::move(step));
        if (stopped) break;  // as Trainer::greedy_decode: the output ends at its stop token
    }
    run.tokens.push_back(token);
    return run;
}

DecodeTiming kv_decode_timing(const ModelLayout& layout, const float* params, const std::vector<int32_t>& src,
                              const std::vector<int32_t>& dec_in, int gen_begin, int gen_end, double budget_ms,
                              int min_runs) {
    DecodeOptions cached, full;
    cached.check = false, full.cache = false;
    DecodeTiming timing;
    double spent[2] = {0, 0};
    // Alternating the two paths: a slower moment of the machine falls on both.
    while (timing.runs < min_runs || spent[0] + spent[1] < budget_ms) {
        for (int path = 0; path < 2; ++path) {
            const double start = now_ms();
            kv_decode(layout, params, src, dec_in, gen_begin, gen_end, path ? full : cached);
            spent[path] += now_ms() - start;
        }
        ++timing.runs;
        if (timing.runs >= 10000) break;  // a clock that does not move (never seen) ends the loop
    }
    timing.cached_ms = spent[0] / timing.runs, timing.recompute_ms = spent[1] / timing.runs;
    return timing;
}

DecodeCost decode_step_cost(const ModelShape& m, int t, bool cached) {
    const double d = m.d_model, dff = m.d_ff, h = m.heads, dk = m.d_k(), V = m.vocab_out, N = m.layers;
    const double kv_w = m.kv_dim(), h_kv = m.h_kv();  // K's and V's width and heads (grouped-query: fewer)
    const double n = t + 1.0, rows = cached ? 1 : n;
    const bool cross = m.kind == ModelKind::EncoderDecoder;
    const double S = cross ? m.src_len : 0;
    // FLOPs per layer: projections (q, k, v, out; cross: q, out, and without the cache k, v of
    // the memory), scores and weights·V over n keys (all n rows × n keys without the cache), FFN.
    double layer = 2 * (2 * d * d + 2 * d * kv_w) * rows + 2 * 2 * h * dk * n * rows + 2 * 2 * d * dff * rows;
    if (cross) layer += 2 * 2 * d * d * rows + (cached ? 0 : 2 * 2 * d * kv_w * S) + 2 * 2 * h * dk * S * rows;
    DecodeCost c;
    c.flops = N * layer + 2 * d * V * rows;
    // Bytes: every decoder weight once, the embedding rows read, and per layer the keys and values
    // (read from the cache; without it written then read), the score matrix (h × rows × n, written
    // and read) and the activations (q, context, out, FFN hidden: written and read).
    const double attn_w = 2 * d * d + 2 * d * kv_w;
    const double weights = N * (attn_w + 2 * d * dff + (cross ? attn_w : 0)) + d * V;
    // Without the cache a grouped model also copies its n rows of groups to h heads (repeat_interleave).
    const double repeat = m.grouped() ? 2 * (h_kv + h) * n * dk : 0;
    const double kv = cached ? 2 * h_kv * n * dk + 2 * kv_w : 2 * 2 * h_kv * n * dk + repeat;
    const double acts = 2 * (3 * d + dff) * rows + 2 * h * rows * n + (cross ? 2 * h_kv * S * dk + 2 * h * rows * S : 0);
    c.bytes = 4 * (weights + rows * d + N * (kv + acts));
    return c;
}

InvariantCheck kv_step_check(const DecodeStep& step) {
    InvariantCheck c{"kv_equals_recompute", Msg(Str::chk_kv_equal_label, step.position), Verdict::Pass,
                     Msg(Str::chk_kv_equal_detail, step.max_abs_diff, step.bound)};
    if (step.max_abs_diff < 0) c.verdict = Verdict::Fact, c.detail = Msg(Str::chk_kv_not_compared);
    else if (!step.equal()) c.verdict = Verdict::Fail;
    return c;
}

double kv_cache_bytes(const ModelShape& m, int t) {
    return 2.0 * m.layers * m.h_kv() * t * m.d_k() * sizeof(float);
}

}  // namespace lab
