// config.h — Attention Lab core: the knobs of one multi-head attention run, and
// their validation.
//
// Zero means "default" where it can (sokol style): kv_len = 0 means "same as
// seq_len" (self-attention). Validation never aborts: it returns every problem as
// a message that names the parameter and suggests a fix.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "base/message.h"

namespace lab {

enum class MaskKind { None, Causal, Padding, Custom };
enum class MaskFill { NegInf, NegBillion };  // masked_fill(mask == 0, -inf) or -1e9

struct AttentionConfig {
    int d_model = 8;
    int heads = 2;             // h; d_k = d_v = d_model / h
    // Grouped-query attention (Ainslie et al. 2023): h_kv key/value heads, each shared by
    // h / h_kv query heads (K and V are repeated to h heads before the scores). 0 = heads (MHA);
    // 1 = multi-query attention (Shazeer 2019). Must divide heads.
    int kv_heads = 0;
    int seq_len = 4;           // L_q: query length (decoder side for cross-attention)
    int kv_len = 0;            // L_kv: key/value length; 0 = seq_len (self-attention)
    int batch = 2;             // B
    uint32_t seed = 42;
    MaskKind mask = MaskKind::Causal;
    MaskFill mask_fill = MaskFill::NegInf;
    std::vector<int> padding_lengths;   // Padding: valid keys per batch item
    std::vector<uint8_t> custom_keep;   // Custom: L_q×L_kv row-major, 1 keep / 0 mask
    bool scale = true;         // divide scores by √d_k
    bool pe = true;            // add sinusoidal positional encoding (§3.5)
    bool bias = true;          // projection biases
    bool cross = false;        // Q from x, K and V from an encoder memory
    // Raw SDPA (tutorial 000's first example, scaled_dot_product_attention(Q, K, V)): Q, K, V
    // drawn directly with shapes (B, L_q, d_k), (B, L_kv, d_k), (B, L_kv, d_v); no positional
    // encoding, no projections, one attention. validate() asks for heads=1 and pe, bias, cross off.
    bool raw = false;
    // Masks after the paper (attention/attention.h: masked_by says how they compose). 0 = off.
    int window = 0;  // sliding window W: a query sees keys fewer than W positions away (causal: behind it)
    int prefix = 0;  // prefix-LM P (causal only): the first P positions are seen by every query, both ways
    // FlashAttention's tiles {B_r, B_c}: the context also computed by the online softmax, tile
    // by tile (attention/flash_attention.h), and checked against the naive one. Empty = off.
    std::vector<int> flash_tile;

    int d_k() const { return heads > 0 ? d_model / heads : 0; }
    int d_v() const { return d_k(); }
    int h_kv() const { return kv_heads > 0 ? kv_heads : heads; }
    bool grouped() const { return h_kv() < heads; }          // fewer K/V heads than query heads
    int kv_dim() const { return h_kv() * d_k(); }             // K's and V's width, h_kv·d_k (d_model without groups)
    int L_q() const { return seq_len; }
    int L_kv() const { return kv_len > 0 ? kv_len : seq_len; }
    // A mask is applied (masked_fill before the softmax): a mask kind, or a window alone.
    bool masks_keys() const { return mask != MaskKind::None || window > 0; }
};

struct ConfigError {
    std::string param;  // e.g. "heads"
    Msg message;        // e.g. "d_model=10 is not divisible by heads=3 (valid heads: 1, 2, 5, 10)"
};

// Upper bounds: generous for teaching, small enough that the page cannot run out of memory.
// Every reader of the configuration keys (attention/config_keys.h) takes its ranges from here.
struct ConfigLimits {
    int max_d_model = 4096;
    int max_len = 4096;
    int max_batch = 256;
    int max_seed = 2147483647;  // what a link, a file and --seed hold (an int on every platform)
    int max_scaling_keys = 1024;      // the √d_k experiment's keys per softmax (256 queries × keys × d_k up to 1024)
    int max_scaling_samples = 40000;  // ... and its (q, k) pairs per d_k
    // A training run (train/train_config.h): sizes a page trains in seconds to minutes.
    int max_layers = 6;
    int max_train_d_model = 256;
    int max_train_heads = 64;
    int max_d_ff = 1024;
    int max_vocab = 64;          // symbols (train/tasks.h: kMaxTaskVocab)
    int max_task_len = 64;       // a task's sequence length, and induction's gap
    int max_train_batch = 1024;
    int max_steps = 1000000;     // steps, and the steps between evaluations
    int max_eval_size = 4096;    // held-out sequences
    int max_table3_steps = 2000; // Table 3 in miniature (train/table3.h): steps per model ...
    int max_table3_seeds = 5;    //   ... and seeds per row (16 rows: up to 80 models)
    double max_trace_bytes = 384.0 * 1024 * 1024;
};

std::vector<ConfigError> validate(const AttentionConfig& c, const ConfigLimits& limits = {});
// The padding lengths a padding mask starts with: L_kv, L_kv - 2, L_kv - 4, ... (at least 1)
// for items 0, 1, 2, ..., so the effect shows at once (item 1 hides its last 2 keys) and no
// row is fully masked. Every place that starts a padding mask uses these.
std::vector<int> default_padding_lengths(int batch, int L_kv);
// Every divisor of d_model: the heads that would be valid.
std::vector<int> valid_heads(int d_model);
// kv_heads (0 or a divisor of heads; the trace's and the training run's one rule): false, with an
// error naming kv_heads and the valid values, when it is not.
bool check_kv_heads_divide(std::vector<ConfigError>& errors, int kv_heads, int heads);
// Bytes of all tensors one trace records (inputs, weights, every intermediate).
double estimate_trace_bytes(const AttentionConfig& c);

// The names of the mask and fill keys' choices (attention/config_keys.cpp).
const char* mask_kind_name(MaskKind k);   // "none" | "causal" | "padding" | "custom"
const char* mask_fill_name(MaskFill f);   // "-inf" | "-1e9"
float mask_fill_value(MaskFill f);

}  // namespace lab
