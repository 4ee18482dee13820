// test_trace_kernels.cpp — the recorded pass's products and transpose (attention/trace_kernels.h) against
// plain loops in double, on sizes that hit every path of the blocked kernels: row counts
// around the row block (1..13), column counts around a vector and a panel (1..130), depths
// 1..65, and rows of a that end early (matmul_rows, as causal weights do). The tolerance is
// relative: float32 rounding of a sum of K products, at most ~K·2⁻²⁴·Σ|a·b|.
// Natively with FMA, each value must also be exactly the fused multiply-add chain in k order
// (the claim trace_kernels.h makes, which keeps Eigen's digits).
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "attention/trace_kernels.h"
#include "base/rng.h"

using namespace lab;

namespace {

std::vector<float> sample(Rng& rng, long n) {
    std::vector<float> v(n);
    for (float& x : v) x = rng.uniform(-1.0f, 1.0f);
    return v;
}

struct Case {
    int M, K, N;
};

// b at (k, n): b (K, N), or b (N, K) when transposed.
float b_at(const std::vector<float>& b, bool transposed, int K, int N, int k, int n) {
    return transposed ? b[static_cast<long>(n) * K + k] : b[static_cast<long>(k) * N + n];
}

// Every value of c against the double sum (and, with FMA natively, the float FMA chain).
void check_product(const std::vector<float>& c, const std::vector<float>& a, const std::vector<float>& b, const float* bias,
                   const std::vector<int>& a_end, bool transposed, const Case& s, const std::string& what) {
    long wrong = 0, inexact = 0;
    double worst = 0;
    for (int m = 0; m < s.M; ++m)
        for (int n = 0; n < s.N; ++n) {
            const int end = a_end.empty() ? s.K : a_end[m];
            double sum = 0, magnitude = 0;
            float chain = 0.0f;
            for (int k = 0; k < end; ++k) {
                const float x = a[static_cast<long>(m) * s.K + k], y = b_at(b, transposed, s.K, s.N, k, n);
                sum += static_cast<double>(x) * y, magnitude += std::fabs(static_cast<double>(x) * y);
                chain = std::fma(x, y, chain);
            }
            const float got = c[static_cast<long>(m) * s.N + n];
            const double err = std::fabs(got - (sum + (bias ? bias[n] : 0.0)));
            worst = std::fmax(worst, err);
            wrong += !(err <= 1.2e-7 * (s.K + 2) * (magnitude + (bias ? std::fabs(bias[n]) : 0.0)) + 1e-30);
            inexact += got != (bias ? chain + bias[n] : chain);
        }
    INFO(what, " M=", s.M, " K=", s.K, " N=", s.N, " worst |error| ", worst);
    CHECK(wrong == 0);
#if defined(__FMA__) && (defined(__AVX512F__) || defined(__AVX2__)) && !defined(__wasm__)
    CHECK(inexact == 0);
#else
    (void)inexact;
#endif
}

const Case kCases[] = {{1, 1, 1},  {2, 3, 5},   {5, 7, 8},    {6, 16, 15},  {7, 64, 16},  {13, 65, 17},
                       {6, 33, 64}, {12, 5, 65}, {3, 64, 100}, {20, 64, 130}, {1, 512, 48}, {9, 17, 1}};

}  // namespace

TEST_CASE("trace kernels: matmul (with and without bias) and matmul_nt equal plain loops") {
    Rng rng(11);
    for (const Case& s : kCases) {
        const std::vector<float> a = sample(rng, static_cast<long>(s.M) * s.K), b = sample(rng, static_cast<long>(s.K) * s.N),
                                 bias = sample(rng, s.N);
        std::vector<float> c(static_cast<size_t>(s.M) * s.N, -7.0f);
        matmul(c.data(), a.data(), b.data(), nullptr, s.M, s.K, s.N);
        check_product(c, a, b, nullptr, {}, false, s, "matmul");
        matmul(c.data(), a.data(), b.data(), bias.data(), s.M, s.K, s.N);
        check_product(c, a, b, bias.data(), {}, false, s, "matmul + bias");
        std::fill(c.begin(), c.end(), -7.0f);
        matmul_nt(c.data(), a.data(), b.data(), s.M, s.K, s.N);  // b read as (N, K)
        check_product(c, a, b, nullptr, {}, true, s, "matmul_nt");
    }
}

TEST_CASE("trace kernels: matmul_rows reads each row of a only up to its end") {
    Rng rng(12);
    for (const Case& s : kCases) {
        std::vector<float> a = sample(rng, static_cast<long>(s.M) * s.K);
        const std::vector<float> b = sample(rng, static_cast<long>(s.K) * s.N);
        std::vector<int> a_end(s.M);
        for (int m = 0; m < s.M; ++m) {
            a_end[m] = m % 3 == 0 ? s.K : static_cast<int>(rng.uniform(0.0f, 1.0f) * (s.K + 1)) % (s.K + 1);
            for (int k = a_end[m]; k < s.K; ++k) a[static_cast<long>(m) * s.K + k] = 0.0f;  // as softmax_rows leaves it
        }
        std::vector<float> c(static_cast<size_t>(s.M) * s.N, -7.0f);
        matmul_rows(c.data(), a.data(), b.data(), a_end.data(), s.M, s.K, s.N);
        check_product(c, a, b, nullptr, a_end, false, s, "matmul_rows");
    }
}

TEST_CASE("trace kernels: transpose moves every value, on sizes around its tile") {
    Rng rng(13);
    for (const Case& s : kCases) {
        const std::vector<float> in = sample(rng, static_cast<long>(s.M) * s.N);
        std::vector<float> out(in.size(), -7.0f);
        transpose(out.data(), in.data(), s.M, s.N);
        long wrong = 0;
        for (int r = 0; r < s.M; ++r)
            for (int c = 0; c < s.N; ++c) wrong += out[static_cast<long>(c) * s.M + r] != in[static_cast<long>(r) * s.N + c];
        INFO("rows ", s.M, " cols ", s.N);
        CHECK(wrong == 0);
    }
}
