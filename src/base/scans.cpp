// scans.cpp — Attention Lab core: one-pass scans over float arrays (scans.h).
#include "base/scans.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "base/vec.h"

namespace lab {

namespace {

// The last n (< one vector) values of x, padded with `pad`.
vec::Float tail(const float* x, long n, float pad) { return vec::load_part(x, static_cast<int>(n), pad); }

// Sums in a fixed order whatever the build's SIMD width: value i goes to partial i % 16, and
// the partials combine as lane l = (p[l] + p[l+4]) + (p[l+8] + p[l+12]), then
// (lane 0 + lane 1) + (lane 2 + lane 3). Sixteen partials, not one: a single running
// double sum waits ~4 cycles per value for the previous addition.
constexpr int kPartials = 16;

double combine(const double* p) {
    double lane[4];
    for (int l = 0; l < 4; ++l) lane[l] = (p[l] + p[l + 4]) + (p[l + 8] + p[l + 12]);
    return (lane[0] + lane[1]) + (lane[2] + lane[3]);
}

// The double sums of x[i] and of x[i]² in that order.
template <class T>
Moments moments_of(const T* x, long n) {
    double s[kPartials] = {}, q[kPartials] = {};
    long i = 0;
    for (; i + kPartials <= n; i += kPartials)
        for (int l = 0; l < kPartials; ++l) {
            const double v = x[i + l];
            s[l] += v, q[l] += v * v;
        }
    for (int l = 0; i < n; ++i, ++l) s[l] += x[i], q[l] += static_cast<double>(x[i]) * x[i];
    Moments m;
    m.sum = combine(s);
    m.sq = combine(q);
    m.n = n;
    return m;
}

}  // namespace

double Moments::var() const {
    if (!n) return 0;
    const double v = sq / n - mean() * mean();
    return v > 0 ? v : 0;
}

Moments moments(const float* x, long n) { return moments_of(x, n); }
Moments moments(const double* x, long n) { return moments_of(x, n); }

double sum(const float* x, long n) {
    double s[kPartials] = {};
    long i = 0;
    for (; i + kPartials <= n; i += kPartials)
        for (int l = 0; l < kPartials; ++l) s[l] += x[i + l];
    for (int l = 0; i < n; ++i, ++l) s[l] += x[i];
    return combine(s);
}

long count_nonfinite(const float* x, long n) {
    vec::Int bad{};
    long i = 0;
    for (; i + vec::kLanes <= n; i += vec::kLanes) bad -= ~vec::finite(vec::load(x + i));
    long total = vec::sum_lanes(bad);
    for (; i < n; ++i) total += !std::isfinite(x[i]);
    return total;
}

Range range_with_zero(const float* x, long n) {
    vec::Float lo = vec::splat(0.0f), hi = lo;
    long i = 0;
    for (; i + vec::kLanes <= n; i += vec::kLanes) {
        const vec::Float v = vec::load(x + i);
        lo = v < lo ? v : lo;  // NaN compares false: ignored
        hi = v > hi ? v : hi;
    }
    if (i < n) {
        const vec::Float v = tail(x + i, n - i, 0.0f);
        lo = v < lo ? v : lo, hi = v > hi ? v : hi;
    }
    return {-vec::max_lanes(-lo), vec::max_lanes(hi)};
}

void count_mask_row(MaskCount& count, const float* x, const float* y, const float* keep, float fill, long n) {
    const vec::Float zero = vec::splat(0.0f), fills = vec::splat(fill);
    vec::Int dropped{}, fill_wrong{}, copy_wrong{};
    long j = 0;
    for (; j + vec::kLanes <= n; j += vec::kLanes) {
        const vec::Int kept = vec::load(keep + j) != zero;
        const vec::Float a = vec::load(x + j), b = vec::load(y + j);
        const vec::Int same = (a == b) | ((a != a) & (b != b));
        dropped -= ~kept;
        fill_wrong -= ~kept & (a != fills);
        copy_wrong -= kept & ~same;
    }
    count.dropped += vec::sum_lanes(dropped);
    count.fill_wrong += vec::sum_lanes(fill_wrong);
    count.copy_wrong += vec::sum_lanes(copy_wrong);
    for (; j < n; ++j) {
        const bool kept = keep[j] != 0.0f, same = x[j] == y[j] || (std::isnan(x[j]) && std::isnan(y[j]));
        count.dropped += !kept;
        count.fill_wrong += !kept && x[j] != fill;
        count.copy_wrong += kept && !same;
    }
}

ProbabilityRow scan_probability_row(const float* p, const float* keep, long n) {
    const vec::Float zero = vec::splat(0.0f), one = vec::splat(1.0f);
    vec::Float lo = zero, hi = zero;
    vec::Int outside{}, leaked{};
    auto add = [&](vec::Float v, vec::Float k) {
        lo = v < lo ? v : lo, hi = v > hi ? v : hi;  // NaN compares false: ignored
        outside -= ~((v >= zero) & (v <= one));      // ... and counted here
        leaked -= (k == zero) & (v != zero);
    };
    long j = 0;
    for (; j + vec::kLanes <= n; j += vec::kLanes) add(vec::load(p + j), vec::load(keep + j));
    if (j < n) add(tail(p + j, n - j, 0.0f), tail(keep + j, n - j, 1.0f));
    ProbabilityRow r;
    r.sum = sum(p, n);
    r.range = {-vec::max_lanes(-lo), vec::max_lanes(hi)};
    r.outside = vec::sum_lanes(outside), r.leaked = vec::sum_lanes(leaked);
    return r;
}

namespace {

// Four lanes whatever the build's SIMD width, four sets of them: value i goes to set
// (i / 4) % 4, lane i % 4, which is partial i % 16 of moments() natively and in wasm alike.
typedef float Float4 __attribute__((vector_size(16)));
typedef double Double4 __attribute__((vector_size(32)));
typedef int32_t Int4 __attribute__((vector_size(16)));

Float4 load4(const float* p) {
    Float4 v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

Double4 larger(Double4 a, Double4 b) { return a > b ? a : b; }  // neither is NaN

// The scores' moments (set q, lane l: partial 4q + l), their non-finite count, and the
// largest error of the scaling and largest |scores / div| seen so far.
struct ScoreLanes {
    Double4 sum[4] = {}, sq[4] = {}, err = {}, largest = {};
    Int4 nonfinite = {};
    Double4 inverse;
    explicit ScoreLanes(double div) : inverse(Double4{} + 1.0 / div) {}

    // Four values into set q: returns their scaling error and |x / div| (0 where they do not
    // count: the same NaN or infinity on both sides agrees, an infinite quotient is not "largest").
    void add(int q, Float4 xf, Float4 yf, Double4* e_out, Double4* m_out) {
        const Double4 x = __builtin_convertvector(xf, Double4), y = __builtin_convertvector(yf, Double4);
        const Double4 zero{}, inf = Double4{} + HUGE_VAL;
        sum[q] += x, sq[q] += x * x;
        nonfinite -= (xf - xf) != (xf - xf);  // x - x is NaN for NaN and ±inf: -1 there
        // Times the reciprocal: one more rounding in double, far below the float error measured.
        const Double4 a = x * inverse;
        Double4 e = a - y;
        e = e < zero ? -e : e;
        // inf - inf and NaN - number are NaN; only the same infinity or NaN against NaN agree.
        const auto same = (a == y) | ((a != a) & (y != y));
        *e_out = e <= inf ? e : (same ? zero : inf);
        const Double4 m = a < zero ? -a : a;
        *m_out = m < inf ? m : zero;
    }
    // Sixteen values, four into each set; the maxima by a tree, one step on the running ones.
    void add16(const float* x, const float* y) {
        Double4 e[4], m[4];
        for (int q = 0; q < 4; ++q) add(q, load4(x + 4 * q), load4(y + 4 * q), &e[q], &m[q]);
        err = larger(err, larger(larger(e[0], e[1]), larger(e[2], e[3])));
        largest = larger(largest, larger(larger(m[0], m[1]), larger(m[2], m[3])));
    }
    void add_one_set(int q, Float4 xf, Float4 yf) {
        Double4 e, m;
        add(q, xf, yf, &e, &m);
        err = larger(err, e), largest = larger(largest, m);
    }
};

}  // namespace

ScoreScan scan_scores(const float* x, const float* y, double div, long n) {
    ScoreLanes lanes(div);
    long i = 0;
    for (; i + 16 <= n; i += 16) lanes.add16(x + i, y + i);
    for (int q = 0; i < n; i += 4, ++q) {  // the tail in order, the last four padded with 0
        float xt[4] = {0, 0, 0, 0}, yt[4] = {0, 0, 0, 0};  // (adds nothing, agrees, is not the largest)
        std::memcpy(xt, x + i, sizeof(float) * (n - i < 4 ? n - i : 4));
        std::memcpy(yt, y + i, sizeof(float) * (n - i < 4 ? n - i : 4));
        lanes.add_one_set(q, load4(xt), load4(yt));
    }
    ScoreScan r;
    double s[kPartials], sq[kPartials];
    for (int p = 0; p < kPartials; ++p) s[p] = lanes.sum[p / 4][p % 4], sq[p] = lanes.sq[p / 4][p % 4];
    r.moments.sum = combine(s);
    r.moments.sq = combine(sq);
    r.moments.n = n;
    for (int l = 0; l < 4; ++l) {
        r.nonfinite += lanes.nonfinite[l];
        r.scale.err = lanes.err[l] > r.scale.err ? lanes.err[l] : r.scale.err;
        r.scale.largest = lanes.largest[l] > r.scale.largest ? lanes.largest[l] : r.scale.largest;
    }
    return r;
}

}  // namespace lab
