// length_sweep.h — Attention Lab core: measured stage times over sequence lengths,
// the experiment behind the paper's Table 1: self-attention's QKᵀ, softmax and ·V
// grow as L² while the projections grow as L.
#pragma once
#include <vector>

#include "attention/config.h"

namespace lab {

struct SweepPoint {
    int seq_len = 0;
    double attention_ms = 0;   // scores + scale + mask + softmax + context (the L² part)
    double projection_ms = 0;  // Q, K, V and output projections (the L part)
    double attention_flops = 0, projection_flops = 0;  // from the cost model
};

// Traces per length (self-attention, base's other knobs), mean of `repeats` runs
// (scaled up for short lengths).
std::vector<SweepPoint> sweep_lengths(const AttentionConfig& base, const std::vector<int>& lengths, int repeats = 3);

// Least-squares fit of y = a * x^power through the points (x > 0): returns a.
double fit_power(const std::vector<double>& x, const std::vector<double>& y, double power);

}  // namespace lab
