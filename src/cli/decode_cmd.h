// decode_cmd.h — Attention Lab CLI: `attnlab decode`, a trained decoder generating token by
// token with a KV cache (train/kv_cache.h): per step the new query row's position, the
// cache's shape (B, h_kv, t, d_k) and bytes, the max |Δ| against the full causal recompute with
// its float32 bound, and the FLOPs and bytes of the step with and without the cache.
//
//   attnlab decode --checkpoint DIR [--kv-cache on|off] [--sample N] [--part final|init]
#pragma once
#include <iosfwd>
#include <string>
#include <vector>

#include "attention/config.h"

namespace lab {

std::string decode_usage();
// The flags' errors, each naming its flag (parse_cli reports them for `attnlab decode`).
std::vector<ConfigError> parse_decode_cli(const std::vector<std::string>& args);
// Exit code: 0 every step equal, 1 I/O failure or a step that differs, 2 bad usage or checkpoint.
int run_decode_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace lab
