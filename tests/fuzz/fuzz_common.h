// fuzz_common.h — shared checks for the Attention Lab libFuzzer targets.
// A failed property prints what broke and aborts, which libFuzzer reports as a
// crash and saves the input (crash-<sha1>) for tests/fuzz/regressions/.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/config.h"

namespace lab_fuzz {

[[noreturn]] inline void fail(const std::string& what) {
    std::fprintf(stderr, "\nPROPERTY VIOLATED: %s\n", what.c_str());
    std::abort();
}

inline void require(bool ok, const std::string& what) {
    if (!ok) fail(what);
}

// A configuration a reader accepted must pass validation, exactly as the app and the CLI check it.
inline void require_valid(const lab::AttentionConfig& c, const char* who) {
    const std::vector<lab::ConfigError> errors = lab::validate(c);
    if (errors.empty()) return;
    fail(std::string(who) + " accepted a configuration that validate() rejects: " + errors[0].param + ": " +
         errors[0].message);
}

inline std::string describe(const lab::AttentionConfig& c) {
    std::string s = "d_model=" + std::to_string(c.d_model) + " heads=" + std::to_string(c.heads) +
                    " seq_len=" + std::to_string(c.seq_len) + " kv_len=" + std::to_string(c.kv_len) +
                    " batch=" + std::to_string(c.batch) + " seed=" + std::to_string(c.seed) +
                    " mask=" + lab::mask_kind_name(c.mask) + " fill=" + lab::mask_fill_name(c.mask_fill) +
                    " pad=" + std::to_string(c.padding_lengths.size()) + " custom=" + std::to_string(c.custom_keep.size()) +
                    " scale=" + std::to_string(c.scale) + " pe=" + std::to_string(c.pe) + " bias=" + std::to_string(c.bias) +
                    " cross=" + std::to_string(c.cross);
    return s;
}

// Same trace: every field that reaches the engine (padding lengths only with a
// padding mask, the keep matrix only with a custom mask, kv_len as L_kv).
inline bool same_config(const lab::AttentionConfig& a, const lab::AttentionConfig& b) {
    return a.d_model == b.d_model && a.heads == b.heads && a.seq_len == b.seq_len && a.L_kv() == b.L_kv() &&
           a.batch == b.batch && a.seed == b.seed && a.mask == b.mask && a.mask_fill == b.mask_fill &&
           (a.mask != lab::MaskKind::Padding || a.padding_lengths == b.padding_lengths) &&
           (a.mask != lab::MaskKind::Custom || a.custom_keep == b.custom_keep) && a.scale == b.scale &&
           a.pe == b.pe && a.bias == b.bias && a.cross == b.cross;
}

}  // namespace lab_fuzz
