// rng.h — Attention Lab core: a small deterministic random number generator.
//
// std::normal_distribution differs between standard libraries (libstdc++ natively,
// libc++ in Emscripten), so inputs and weights would differ between the native and
// the web build. SplitMix64 + Box–Muller is a few lines and identical everywhere.
#pragma once
#include <cstdint>
#include <string>

namespace lab {

class Rng {
public:
    explicit Rng(uint64_t seed) : state_(seed) {}
    uint64_t next_u64();
    double uniform();                      // [0, 1)
    double uniform(double lo, double hi);  // [lo, hi)
    float uniform_float();                 // [0, 1) with 24 random bits: fast, for big weight matrices
    double normal();                       // N(0, 1)

private:
    uint64_t state_;
    bool has_spare_ = false;
    double spare_ = 0.0;
};

// Seed for an independent stream, e.g. stream_seed(seed, "w_q"), so adding a tensor
// never shifts the values of the others.
uint64_t stream_seed(uint64_t seed, const std::string& stream);

}  // namespace lab
