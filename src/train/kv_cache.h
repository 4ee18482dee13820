// train/kv_cache.h — Attention Lab core: incremental decoding with a KV cache (what
// Hugging Face calls past_key_values) on a trained decoder, checked step by step against
// the full causal recompute.
//
// A causal decoder's row t depends only on tokens 0 … t, and its keys and values at
// positions < t do not change when token t arrives. So each step computes one new row:
//   x_t (1, d)            = embedding[token]·√d_model + PE[t]
//   per decoder layer l, per head:
//     q_t, k_t, v_t (1, d) = x_t · W_q, W_k, W_v (+ b)            (only the new row)
//     cache_k[l], cache_v[l] (B = 1, h_kv, t + 1, d_k)  ← append k_t, v_t split into heads
//     weights (1, t + 1)   = softmax(q_t · cache_kᵀ / √d_k)       (no mask: every cached key is j ≤ t)
//     context (1, d_k)     = weights · cache_v
//   then out-proj, residual + LayerNorm, cross-attention (keys/values of the encoder's memory,
//   projected once), FFN, and the generator: logits (vocab_out) → greedy argmax → token t + 1.
// The full recompute (model_decode on tokens 0 … t) costs O(t²) attention per step; the
// cached step O(t). Its cache holds 2·N·h_kv·t·d_k floats (h_kv = h for multi-head attention,
// fewer with grouped-query: ModelShape::kv_heads), plus, for an encoder–decoder, the memory's 2·N·h_kv·L_src·d_k.
//
// Every cached step is compared with the recompute's row t: max |Δ| over the logits against a
// float32 bound (kv_bound). A planted bug (KvBug) must make that check fail.
#pragma once
#include <cstdint>
#include <vector>

#include "trace/trace.h"
#include "train/model.h"

namespace lab {

// Bugs a test plants in the cached path; the step check must catch each.
enum class KvBug {
    None,
    AttendBeforeAppend,  // the new query reads the cache before its own key and value are in it
    StalePosition,       // the new token gets PE[t − 1] (the cache length read after the append)
    NoScale,             // the cached path forgets ÷√d_k
};

struct KvCache {
    int len = 0;       // t: positions held
    int capacity = 0;  // positions allocated (the model's dec_len)
    int heads = 0, d_k = 0;  // heads: the cached key/value heads, h_kv
    std::vector<std::vector<float>> k, v;              // per decoder layer: (h_kv, capacity, d_k)
    std::vector<std::vector<float>> cross_k, cross_v;  // encoder–decoder, per layer: (h_kv, L_src, d_k)
    int src_len = 0;
    int src_keys = 0;  // the source keys cross-attention reads: src_len, or the words before a padded source's padding
    std::vector<float> pe;  // (capacity, d_model): the sinusoids (learned positions are parameters)
};

// FLOPs (multiply-adds counted as 2) and bytes moved (float32 weights, activations and cache,
// each read or written once) of one decode step at position t, with or without the cache.
struct DecodeCost {
    double flops = 0;
    double bytes = 0;
};
DecodeCost decode_step_cost(const ModelShape& m, int t, bool cached);
// The self-attention cache after t positions: 2·N·h_kv·t·d_k·4 bytes.
double kv_cache_bytes(const ModelShape& m, int t);

struct DecodeStep {
    int position = 0;          // t: the row this step computes
    int32_t token_in = 0;      // what row t reads (the prompt's token, or the previous prediction)
    int32_t token_out = 0;     // argmax of its logits
    bool generated = false;    // t in [gen_begin, gen_end): its output is a prediction fed back
    std::vector<float> logits;                // (vocab_out)
    std::vector<std::vector<float>> query;    // per decoder layer: (h, d_k), the new query row
    std::vector<std::vector<float>> key;      // per decoder layer: (h_kv, d_k), the key row appended to the cache
    std::vector<std::vector<float>> weights;  // per decoder layer: (h, t + 1), the one new row
    double max_abs_diff = -1;  // vs the full recompute's row t (−1: not checked)
    double bound = 0;          // kv_bound of that comparison
    bool equal() const { return max_abs_diff >= 0 && max_abs_diff <= bound; }
    DecodeCost cached, full;   // decode_step_cost at t
    double ms = 0;             // this step's time in the path decoding ran (the cached step, or the recompute)
    double recompute_ms = 0;   // the full recompute's time when it ran (the check, or decoding without the cache)
};

struct DecodeRun {
    std::vector<DecodeStep> steps;  // positions 0 … gen_end − 1
    std::vector<int32_t> tokens;    // every row's input, then the last prediction: (gen_end + 1)
    bool cached = true;             // the KV path ran (else the recompute alone)
    double total_ms = 0;            // DecodeStep::ms summed
    double recompute_ms = 0;        // DecodeStep::recompute_ms summed
    int failed = 0;                 // steps whose check failed
    double worst = 0;               // largest max |Δ|
};

struct DecodeOptions {
    bool cache = true;  // false: every step is the full recompute (nothing to compare)
    bool check = true;  // with the cache: compare each step with the recompute
    KvBug bug = KvBug::None;
    int stop = -1;      // a generated row that predicts this token ends the decode (translate: 。); -1: none
};

// The float32 bound of one step's comparison: the two paths sum the same products in a
// different order (one row against many in the projections' GEMMs), so they agree to a few
// units in the last place of the largest |logit|: 2⁻¹⁶ relative (128 ulp), times N layers.
double kv_bound(const ModelShape& m, const std::vector<float>& full_logits);

// Decodes one sample of a decoder-only or encoder–decoder model: rows 0 … gen_end − 1, where
// rows ≤ gen_begin read dec_in (the prompt) and later rows read the previous row's argmax, as
// Trainer::greedy_decode does. src: (src_len) for an encoder–decoder, else empty.
DecodeRun kv_decode(const ModelLayout& layout, const float* params, const std::vector<int32_t>& src,
                    const std::vector<int32_t>& dec_in, int gen_begin, int gen_end, const DecodeOptions& options = {});

// The time of a whole decode both ways, each repeated until `budget_ms` of the clock went to
// it (at least `min_runs` times; the page's timer ticks in 0.1 ms, one step's time is below
// it): the mean ms per decode with the cache (no check) and recomputing every step.
struct DecodeTiming {
    double cached_ms = 0, recompute_ms = 0;
    int runs = 0;  // decodes timed per path
    double speedup() const { return cached_ms > 0 ? recompute_ms / cached_ms : 0; }
};
DecodeTiming kv_decode_timing(const ModelLayout& layout, const float* params, const std::vector<int32_t>& src,
                              const std::vector<int32_t>& dec_in, int gen_begin, int gen_end, double budget_ms,
                              int min_runs = 3);

// A step's comparison as the page's badges show it (id "kv_equals_recompute"): pass when
// max |Δ| ≤ bound, fail otherwise (a NaN fails); a fact when nothing was compared.
InvariantCheck kv_step_check(const DecodeStep& step);

// One cached step alone (the bench and the page step through with it): row cache.len from token.
void kv_cache_begin(KvCache& cache, const ModelLayout& layout, const float* params, const std::vector<int32_t>& src);
void kv_decode_step(DecodeStep& out, KvCache& cache, const ModelLayout& layout, const float* params, int32_t token,
                    KvBug bug = KvBug::None);

}  // namespace lab
