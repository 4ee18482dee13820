// rng.cpp — Attention Lab core: SplitMix64 and Box–Muller.
#include "base/rng.h"

#include <cmath>

namespace lab {

uint64_t Rng::next_u64() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double Rng::uniform() { return static_cast<double>(next_u64() >> 11) * (1.0 / 9007199254740992.0); }

float Rng::uniform_float() { return static_cast<float>(next_u64() >> 40) * (1.0f / 16777216.0f); }

double Rng::uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

double Rng::normal() {
    if (has_spare_) {
        has_spare_ = false;
        return spare_;
    }
    // 1 - u keeps the logarithm's argument in (0, 1].
    const double u1 = 1.0 - uniform();
    const double u2 = uniform();
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double theta = 6.283185307179586 * u2;
    spare_ = r * std::sin(theta);
    has_spare_ = true;
    return r * std::cos(theta);
}

uint64_t stream_seed(uint64_t seed, const std::string& stream) {
    // FNV-1a over the stream name, mixed with the seed.
    uint64_t h = 0xcbf29ce484222325ull;
    for (unsigned char c : stream) h = (h ^ c) * 0x100000001b3ull;
    Rng mix(seed ^ h);
    return mix.next_u64();
}

}  // namespace lab
