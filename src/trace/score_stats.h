// score_stats.h — Attention Lab core: what footnote 4 of the paper reasons with, measured
// on a run: the mean and variance of the components of q and k, and the variance of q·k.
//
// Footnote 4: if the components of q and k are independent with mean 0 and variance 1,
// q·k = Σ q_i k_i has mean 0 and variance d_k, so q·k / √d_k has variance 1. In general,
// for independent components with mean 0, var(q·k) = d_k · var(q) · var(k). The lab's
// inputs carry positional encoding and its projections biases, so its q and k are not
// mean 0 / variance 1; these numbers say by how much, and what the same seed gives with
// both switched off.
#pragma once
#include <vector>

#include "base/scans.h"
#include "trace/trace.h"

namespace lab {

struct ScoreStats {
    int d_k = 0;
    long q_values = 0, k_values = 0, scores = 0;  // how many numbers each statistic is over
    double mean_q = 0, var_q = 0, mean_k = 0, var_k = 0;  // over every component of q_heads / k_heads
    double var_scores = 0;                                // var(q·k) over every (b, head, i, j)
    // What footnote 4's formula predicts for var(q·k) from var(q) and var(k).
    double predicted() const { return d_k * var_q * var_k; }
    // The variance of q·k / √d_k: what the softmax sees when scaling is on.
    double var_scaled() const { return d_k > 0 ? var_scores / d_k : 0; }
};

// From the trace's q_heads, k_heads and scores (all of them); the scores' moments when the
// caller has them already (the invariant checks read the scores once for everything).
ScoreStats score_stats(const Trace& tr);
ScoreStats score_stats(const Trace& tr, const Moments& scores);
// The same x, memory, W^Q and W^K without positional encoding and without biases. Over at
// most the first 64 positions of batch item 0, so it costs at most half a trace.
ScoreStats score_stats_without_pe_bias(const Trace& tr);

// Footnote 4 counts as holding when a variance is within this fraction of its target.
constexpr double kFootnoteTolerance = 0.25;
inline bool close_to(double value, double target) {
    const double d = value - target;
    return (d < 0 ? -d : d) <= kFootnoteTolerance * (target < 0 ? -target : target);
}

// The scale stage's facts (Verdict::Fact): footnote 4's premise against this run's q and k,
// var(q·k) against d_k·var(q)·var(k), the variance after ÷√d_k with a sentence chosen by
// the numbers (close to 1, or not and why), and the same with PE and biases off.
std::vector<InvariantCheck> footnote4_facts(const AttentionConfig& c, const ScoreStats& live, const ScoreStats& plain);

}  // namespace lab
