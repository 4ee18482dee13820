// scans.cpp — Attention Lab core: one-pass scans over float arrays (scans.h).
#include "scans.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "vec.h"

namespace lab {

namespace {

// The last n (< one vector) values of x, padded with `pad`.
vec::Float tail(const float* x, long n, float pad) { return vec::load_part(x, static_cast<int>(n), pad); }

// Four interleaved double sums of x[i] and of x[i]², combined as (s0 + s1) + (s2 + s3).
template <class T>
Moments moments_of(const T* x, long n) {
    double s[4] = {0, 0, 0, 0}, q[4] = {0, 0, 0, 0};
    long i = 0;
    for (; i + 4 <= n; i += 4)
        for (int l = 0; l < 4; ++l) {
            const double v = x[i + l];
            s[l] += v, q[l] += v * v;
        }
    for (int l = 0; i < n; ++i, ++l) s[l] += x[i], q[l] += static_cast<double>(x[i]) * x[i];
    Moments m;
    m.sum = (s[0] + s[1]) + (s[2] + s[3]);
    m.sq = (q[0] + q[1]) + (q[2] + q[3]);
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
    double s[4] = {0, 0, 0, 0};
    long i = 0;
    for (; i + 4 <= n; i += 4)
        for (int l = 0; l < 4; ++l) s[l] += x[i + l];
    for (int l = 0; i < n; ++i, ++l) s[l] += x[i];
    return (s[0] + s[1]) + (s[2] + s[3]);
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

// Four lanes whatever the build's SIMD width, so that lane l sums the values i % 4 == l
// (as moments() does) natively and in wasm alike.
typedef float Float4 __attribute__((vector_size(16)));
typedef double Double4 __attribute__((vector_size(32)));
typedef int32_t Int4 __attribute__((vector_size(16)));

Float4 load4(const float* p) {
    Float4 v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

struct ScoreLanes {
    Double4 sum{}, sq{}, err{}, largest{};
    Int4 nonfinite{};
    void add(Float4 xf, Float4 yf, Double4 inverse) {
        const Double4 x = __builtin_convertvector(xf, Double4), y = __builtin_convertvector(yf, Double4);
        const Double4 zero{}, inf = Double4{} + HUGE_VAL;
        sum += x, sq += x * x;
        nonfinite -= (xf - xf) != (xf - xf);  // x - x is NaN for NaN and ±inf: -1 there
        // Times the reciprocal: one more rounding in double, far below the float error measured.
        const Double4 a = x * inverse;
        Double4 e = a - y;
        e = e < zero ? -e : e;
        // inf - inf and NaN - number are NaN; only the same infinity or NaN against NaN agree.
        const auto same = (a == y) | ((a != a) & (y != y));
        e = ((e != e) & ~same) ? inf : e;
        err = e > err ? e : err;
        const Double4 m = a < zero ? -a : a;
        largest = ((m > largest) & (m != inf)) ? m : largest;
    }
};

}  // namespace

ScoreScan scan_scores(const float* x, const float* y, double div, long n) {
    const Double4 inverse = Double4{} + 1.0 / div;
    ScoreLanes lanes;
    long i = 0;
    for (; i + 4 <= n; i += 4) lanes.add(load4(x + i), load4(y + i), inverse);
    if (i < n) {  // the tail in lanes 0.., the rest 0 (adds nothing, agrees, is not the largest)
        float xt[4] = {0, 0, 0, 0}, yt[4] = {0, 0, 0, 0};
        std::memcpy(xt, x + i, sizeof(float) * (n - i));
        std::memcpy(yt, y + i, sizeof(float) * (n - i));
        lanes.add(load4(xt), load4(yt), inverse);
    }
    ScoreScan r;
    r.moments.sum = (lanes.sum[0] + lanes.sum[1]) + (lanes.sum[2] + lanes.sum[3]);
    r.moments.sq = (lanes.sq[0] + lanes.sq[1]) + (lanes.sq[2] + lanes.sq[3]);
    r.moments.n = n;
    for (int l = 0; l < 4; ++l) {
        r.nonfinite += lanes.nonfinite[l];
        r.scale.err = lanes.err[l] > r.scale.err ? lanes.err[l] : r.scale.err;
        r.scale.largest = lanes.largest[l] > r.scale.largest ? lanes.largest[l] : r.scale.largest;
    }
    return r;
}

}  // namespace lab
