// test_scans.cpp — the vectorised scans of base/scans.h against plain loops, on every
// length from 0 to 40 (whole vectors and every tail), with NaN, ±inf, zeros and ordinary
// values sprinkled in; the sums against a sequential double sum.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "base/rng.h"
#include "base/scans.h"

using namespace lab;

namespace {

const float kNan = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

// n values: mostly in [-1.5, 1.5], some exactly 0, 1 or -inf, and (when `specials`) NaN and +inf.
std::vector<float> sample(Rng& rng, int n, bool specials) {
    std::vector<float> v(n);
    for (float& x : v) {
        const float u = rng.uniform(0.0f, 1.0f);
        x = rng.uniform(-1.5f, 1.5f);
        if (u < 0.1f) x = 0.0f;
        else if (u < 0.15f) x = 1.0f;
        else if (specials && u < 0.2f) x = kNan;
        else if (specials && u < 0.25f) x = kInf;
        else if (specials && u < 0.3f) x = -kInf;
    }
    return v;
}

bool same_value(float a, float b) { return a == b || (std::isnan(a) && std::isnan(b)); }

}  // namespace

TEST_CASE("scans: counts, ranges and mask counts equal plain loops on every length") {
    Rng rng(7);
    for (int n = 0; n <= 40; ++n) {
        CAPTURE(n);
        const std::vector<float> x = sample(rng, n, true), y = sample(rng, n, true), keep = sample(rng, n, false);
        long nonfinite = 0, outside = 0, leaked = 0;
        float lo = 0, hi = 0;
        MaskCount want;
        for (int i = 0; i < n; ++i) {
            nonfinite += !std::isfinite(x[i]);
            outside += !(x[i] >= 0 && x[i] <= 1);
            if (!std::isnan(x[i])) lo = std::min(lo, x[i]), hi = std::max(hi, x[i]);
            const bool kept = keep[i] != 0;
            leaked += !kept && x[i] != 0;
            want.dropped += !kept;
            want.fill_wrong += !kept && x[i] != -kInf;
            want.copy_wrong += kept && !same_value(x[i], y[i]);
        }
        CHECK(count_nonfinite(x.data(), n) == nonfinite);
        const Range r = range_with_zero(x.data(), n);
        CHECK(r.lo == lo);
        CHECK(r.hi == hi);
        const ProbabilityRow row = scan_probability_row(x.data(), keep.data(), n);
        CHECK(row.outside == outside);
        CHECK(row.leaked == leaked);
        CHECK(row.range.lo == lo);
        CHECK(row.range.hi == hi);
        CHECK(same_value(static_cast<float>(row.sum), static_cast<float>(sum(x.data(), n))));
        MaskCount got;
        count_mask_row(got, x.data(), y.data(), keep.data(), -kInf, n);
        CHECK(got.dropped == want.dropped);
        CHECK(got.fill_wrong == want.fill_wrong);
        CHECK(got.copy_wrong == want.copy_wrong);
    }
}

TEST_CASE("scans: sums and moments agree with a sequential double sum") {
    Rng rng(11);
    for (int n = 0; n <= 40; ++n) {
        const std::vector<float> x = sample(rng, n, false);
        double s = 0, sq = 0;
        for (float v : x) s += v, sq += double(v) * v;
        CAPTURE(n);
        CHECK(sum(x.data(), n) == doctest::Approx(s).epsilon(1e-14));
        const Moments m = moments(x.data(), n);
        CHECK(m.n == n);
        CHECK(m.sum == doctest::Approx(s).epsilon(1e-14));
        CHECK(m.sq == doctest::Approx(sq).epsilon(1e-14));
        CHECK(m.var() >= 0);
    }
    const float with_nan[5] = {1, 2, kNan, 3, 4};
    CHECK(std::isnan(sum(with_nan, 5)));
}

TEST_CASE("scans: one pass over the scores gives their moments and non-finite count as the separate scans do") {
    Rng rng(17);
    for (int n = 0; n <= 40; ++n) {
        const std::vector<float> x = sample(rng, n, n % 3 == 0), y = sample(rng, n, false);
        const ScoreScan scan = scan_scores(x.data(), y.data(), 2.0, n);
        const Moments m = moments(x.data(), n);
        CAPTURE(n);
        CHECK(scan.nonfinite == count_nonfinite(x.data(), n));
        CHECK(scan.moments.n == n);
        CHECK(same_value(static_cast<float>(scan.moments.sum), static_cast<float>(m.sum)));
        CHECK(same_value(static_cast<float>(scan.moments.sq), static_cast<float>(m.sq)));
        if (n % 3) CHECK(scan.moments.sum == m.sum);  // the same order of additions, bit for bit
    }
}

TEST_CASE("scans: the scaling error is the largest |x / div - y|, and NaN against a number is infinite") {
    Rng rng(13);
    for (int n = 2; n <= 40; ++n) {
        std::vector<float> x = sample(rng, n, false), y(n);
        for (int i = 0; i < n; ++i) y[i] = static_cast<float>(x[i] / 8.0);
        double err = 0, largest = 0;
        y[(n - 1) / 2] += 0.25f;  // one wrong value, at every position of a vector in turn
        for (int i = 0; i < n; ++i) {
            err = std::max(err, std::fabs(x[i] / 8.0 - y[i]));
            largest = std::max(largest, std::fabs(x[i] / 8.0));
        }
        CAPTURE(n);
        const ScaleError e = scan_scores(x.data(), y.data(), 8.0, n).scale;
        CHECK(e.err == err);
        CHECK(e.largest == largest);
        y[n - 1] = kNan;  // NaN where a number belongs
        CHECK(std::isinf(scan_scores(x.data(), y.data(), 8.0, n).scale.err));
        x[n - 1] = kNan;  // NaN on both sides agrees
        CHECK(scan_scores(x.data(), y.data(), 8.0, n).scale.err == doctest::Approx(0.25).epsilon(1e-6));
        x[n - 1] = kInf, y[n - 1] = kInf;  // the same infinity agrees, and is not the largest value
        const ScaleError inf = scan_scores(x.data(), y.data(), 8.0, n).scale;
        CHECK(inf.err == doctest::Approx(0.25).epsilon(1e-6));
        CHECK(std::isfinite(inf.largest));
    }
}
