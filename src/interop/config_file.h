// config_file.h — Attention Lab interop: configuration files as learners write them.
//
//   JSON with the paper's base hyper-parameters: d_model, h / num_heads / n_heads,
//     d_k, d_v, seq_len, batch_size (or batch), seed, plus keys the lab does not use
//     (d_ff, N_encoder_layers, P_drop, warmup_steps, beta1, ...) listed as ignored;
//   TOML with an [attention] table: d_model, num_heads, d_k, d_v, seq_len,
//     batch_size, seed; other tables are ignored.
// d_k / d_v inconsistent with d_model / h is an error naming both values.
#pragma once
#include <string>
#include <vector>

#include "attention/config.h"

namespace lab {

struct ConfigFileResult {
    bool ok = false;                        // errors empty and config valid
    std::string format;                     // "json" | "toml"
    AttentionConfig config;                 // starts from `base`, file values applied
    std::vector<std::string> applied;       // keys taken from the file
    std::vector<std::string> ignored;       // keys the lab does not use
    std::vector<ConfigError> errors;        // parse, type and validation errors, each naming its key
};

// format_hint: a file name (".json" / ".toml" decide), "json" / "toml", or "" to sniff
// the text ('{' first: JSON, otherwise TOML).
//
// Keys (JSON top level, or TOML [attention]) are the rows of attention/config_keys.h with
// their file spellings: d_model; h = num_heads = n_heads = heads (two spellings with
// different values are an error naming both); d_k, d_v (checked against d_model / h;
// without h, h = d_model / d_k); seq_len; kv_len; batch_size = batch; seed; mask ("none"
// | "causal" | "padding" | "custom"); mask_fill ("-inf" | "-1e9"); padding_lengths [L1,
// L2, ...]; custom_mask (rows of 0/1, or "1100" strings, checked against L_q x L_kv once
// every key is read); scale, pe, bias, cross (true/false) — the keys of config_json(), so
// a manifest's config reads back. Whole numbers may be written 512 or 512.0; "512", 512.5, true,
// null, [512] are errors naming the key. Unknown keys go to `ignored` ("d_ff",
// "attention.d_ff", "api.*" for a whole TOML table). Empty, binary, truncated or
// malformed text is one error with param "file" saying the format and where (line,
// column). validate() runs only when the file itself had no error.
ConfigFileResult parse_config_file(const std::string& text, const std::string& format_hint,
                                   const AttentionConfig& base = {});

// What loading the file did to each setting, for the note under the config box and the
// CLI: which keys came from the file (their values now) and which kept the value they had
// before (mask, fill, scale, PE, biases, seq_len, ... that the file does not set), so a
// learner loading transformer_base.json sees why a causal mask is still on. Empty for a
// refused file. The derived d_k / d_v are reported as checked, not as settings.
std::vector<Msg> config_file_summary(const ConfigFileResult& r);

// The same without the final validate(): for callers that apply more settings on top
// (the CLI's flags after --config) and validate the result themselves. ok is left false.
ConfigFileResult parse_config_file_unvalidated(const std::string& text, const std::string& format_hint,
                                               const AttentionConfig& base = {});

}  // namespace lab
