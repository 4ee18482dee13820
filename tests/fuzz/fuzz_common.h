// fuzz_common.h — shared checks for the Attention Lab libFuzzer targets.
// A failed property prints what broke and aborts, which libFuzzer reports as a
// crash and saves the input (crash-<sha1>) for tests/fuzz/regressions/.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "attention/config.h"
#include "attention/config_keys.h"
#include "base/message.h"

namespace lab_fuzz {

inline std::string en_text(const lab::Msg& m) { return lab::render(m, lab::Lang::En); }

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
         en_text(errors[0].message));
}

// Every key the configuration writes (attention/config_keys.h), as name=value.
inline std::string describe(const lab::AttentionConfig& c) { return lab::describe_config(lab::attention_keys(), c); }

// Same trace: every key that is written (padding lengths only with a padding mask, the
// keep matrix only with a custom mask, kv_len as L_kv).
inline bool same_config(const lab::AttentionConfig& a, const lab::AttentionConfig& b) {
    return lab::same_config(lab::attention_keys(), a, b);
}

}  // namespace lab_fuzz
