// scans.h — Attention Lab core: one-pass scans over float arrays, for the invariant checks
// and footnote 4's statistics. Each reads its values once, a SIMD vector at a time (vec.h)
// where the result does not depend on the order (counts, maxima); sums of floats are kept in
// double in sixteen interleaved partial sums (value i goes to sum i % 16; one running sum
// would wait for each addition) that are combined in a fixed order, so the native build
// (8 lanes) and the wasm build (4 lanes) print the same digits.
#pragma once

namespace lab {

// How many of n values are NaN or ±inf.
long count_nonfinite(const float* x, long n);

// Sum and sum of squares of n values in double (NaN and inf propagate, as in any sum).
struct Moments {
    double sum = 0, sq = 0;
    long n = 0;
    double mean() const { return n ? sum / n : 0; }
    double var() const;  // population variance, never below 0
};
Moments moments(const float* x, long n);
Moments moments(const double* x, long n);

// The sum of n values in double, in the order described above.
double sum(const float* x, long n);

// min(0, values) and max(0, values), NaN ignored.
struct Range {
    float lo = 0, hi = 0;
};
Range range_with_zero(const float* x, long n);

// Over the j < n where keep[j] == 0: how many x[j] differ from `fill` (`fill_wrong`), and
// over the others how many x[j] differ from y[j] (NaN equals NaN: a copy keeps it). The
// number of j with keep[j] == 0 goes to `dropped`.
struct MaskCount {
    long dropped = 0, fill_wrong = 0, copy_wrong = 0;
};
void count_mask_row(MaskCount& count, const float* x, const float* y, const float* keep, float fill, long n);

// One row of probabilities: its sum (as `sum`), min(0, ·) and max(0, ·), how many values lie
// outside [0, 1] (NaN counts as outside) and how many are not 0 where keep[j] == 0.
struct ProbabilityRow {
    double sum = 0;
    Range range;
    long outside = 0, leaked = 0;
};
ProbabilityRow scan_probability_row(const float* p, const float* keep, long n);

// max |x[i] / div - y[i]| and max |x[i] / div| (infinities left out) in double. A NaN where
// the other side has a number makes the error infinite; NaN on both sides, or the same
// infinity, agree.
struct ScaleError {
    double err = 0, largest = 0;
};
// One pass over the scores x and the scaled scores y = x / div: the scores' moments and
// how many of them are not finite, and the scaling error.
struct ScoreScan {
    long nonfinite = 0;
    Moments moments;
    ScaleError scale;
};
ScoreScan scan_scores(const float* x, const float* y, double div, long n);

}  // namespace lab
