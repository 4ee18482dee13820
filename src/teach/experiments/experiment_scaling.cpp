// experiment_scaling.cpp — Attention Lab core: why the scores are divided by √d_k
// (§3.2.1 and footnote 4).
//
// Footnote 4: if the components of q and k are independent with mean 0 and variance 1,
// q·k = Σ_{m<d_k} q_m k_m has mean 0 and variance d_k. Large scores push the softmax
// towards one-hot rows, where its Jacobian diag(p) - p pᵀ is nearly 0 (tiny gradients).
// Dividing by √d_k brings the variance back to 1 whatever d_k is.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <string>

#include "base/rng.h"
#include "teach/experiments/experiments.h"

namespace lab {

namespace {

using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Two 24-bit uniforms from one 64-bit draw (what two Rng::uniform_float calls give from
// two draws): u1 in (0, 1] so that its logarithm stays finite, u2 in [0, 1).
void uniform_pairs(Eigen::ArrayXf& u1, Eigen::ArrayXf& u2, Rng& rng) {
    const float unit = 1.0f / 16777216.0f;  // 2^-24
    for (Eigen::Index i = 0; i < u1.size(); ++i) {
        const uint64_t bits = rng.next_u64();
        u1(i) = 1.0f - static_cast<float>(bits >> 40) * unit;
        u2(i) = static_cast<float>((bits >> 16) & 0xFFFFFF) * unit;
    }
}

// n independent N(0, 1) values: Box–Muller on the Rng's uniforms, vectorised by Eigen.
// (Rng::normal computes the same transform in double, one value at a time; at ~30 ns a
// value it is too slow for the millions of draws of the sweep.) Both outputs of each
// pair, r cos θ and r sin θ, are used: they are independent standard normals.
void fill_normal(float* out, int n, Rng& rng) {
    const int pairs = (n + 1) / 2;
    Eigen::ArrayXf u1(pairs), u2(pairs);
    uniform_pairs(u1, u2, rng);
    const Eigen::ArrayXf r = (-2.0f * u1.log()).sqrt();
    const Eigen::ArrayXf theta = 6.28318530717958647692f * u2;
    const Eigen::ArrayXf a = r * theta.cos(), b = r * theta.sin();
    for (int i = 0; i < pairs; ++i) {
        out[2 * i] = a(i);
        if (2 * i + 1 < n) out[2 * i + 1] = b(i);
    }
}

// n products q_m·k_m of independent N(0, 1) pairs. Box–Muller's pair q_m = r cos θ,
// k_m = r sin θ (r² = -2 ln u1, θ = 2π u2) is two independent standard normals, and their
// product is r² sin θ cos θ = -ln(u1) · sin(2θ): one log and one sin per component of q·k,
// vectorised by Eigen, instead of materialising q and k (the sweep needs samples × 1024).
// (Marsaglia's polar method needs no sin but its rejection loop does not vectorise: it
// was 2x slower natively, 2x faster in wasm without SIMD maths; native speed won.)
void fill_normal_products(Eigen::ArrayXf& out, Rng& rng) {
    Eigen::ArrayXf u1(out.size()), u2(out.size());
    uniform_pairs(u1, u2, rng);
    out = -u1.log() * (12.56637061435917295384f * u2).sin();
}

struct SoftmaxStats {
    double max_weight = 0, entropy = 0, jacobian = 0, jacobian_median = 0;
};

// Mean over the rows of `scores` (queries × keys, already scaled or not) of the softmax's
// largest weight, entropy and ||diag(p) - p pᵀ||_F.
SoftmaxStats softmax_stats(const RowMat& scores) {
    SoftmaxStats s;
    const int rows = static_cast<int>(scores.rows()), n = static_cast<int>(scores.cols());
    std::vector<double> p(n), norms(rows);
    for (int i = 0; i < rows; ++i) {
        const double mx = scores.row(i).maxCoeff();
        double sum = 0;
        for (int j = 0; j < n; ++j) sum += p[j] = std::exp(scores(i, j) - mx);
        double pmax = 0, h = 0, s2 = 0, s3 = 0;
        for (int j = 0; j < n; ++j) {
            const double pj = p[j] / sum;
            pmax = std::max(pmax, pj);
            if (pj > 0) h -= pj * std::log(pj);
            s2 += pj * pj;
            s3 += pj * pj * pj;
        }
        // ||diag(p) - p pᵀ||_F² = Σp² - 2Σp³ + (Σp²)²  (diagonal p - p², off-diagonal -p_i p_j)
        s.max_weight += pmax;
        s.entropy += h;
        norms[i] = std::sqrt(std::max(0.0, s2 - 2 * s3 + s2 * s2));
        s.jacobian += norms[i];
    }
    std::nth_element(norms.begin(), norms.begin() + rows / 2, norms.end());
    s.jacobian_median = norms[rows / 2];
    s.max_weight /= rows;
    s.entropy /= rows;
    s.jacobian /= rows;
    return s;
}

}  // namespace

std::vector<ScalingPoint> scaling_experiment(const ScalingOptions& options) {
    // Sample size. For S = q·k with q, k ~ N(0, I_{d_k}): Var S = d_k and the fourth central
    // moment is 3 d_k² + 6 d_k, so the sample variance has a relative standard error of
    // sqrt((2 + 6/d_k) / n). With n = 20000 that is 1.3% at d_k = 4 and 1.0% for large d_k:
    // a 5% tolerance on var_dot ≈ d_k (and var_scaled ≈ 1) is >= 3.8 sigma for every d_k >= 4.
    // One n for every d_k; the pairs share draws across d_k (each d_k uses the first d_k
    // components of the same 1024-dim q and k), which leaves every d_k's estimate unbiased
    // and keeps the sweep at n · 1024 products (about 0.1 s natively).
    const int n = options.samples > 0 ? options.samples : 20000;
    const int keys = options.keys > 0 ? options.keys : 64;
    const int queries = options.queries > 0 ? options.queries : 256;
    const uint32_t seed = options.seed != 0 ? options.seed : 1;
    const int max_log2 = std::min(options.max_log2_dk > 0 ? options.max_log2_dk : 10, 16);
    const int max_dk = 1 << max_log2;
    const int points = max_log2 + 1;

    std::vector<ScalingPoint> out(points);
    for (int p = 0; p < points; ++p) out[p].d_k = 1 << p;

    // 1. Variance of q·k and of q·k/√d_k over n pairs.
    {
        Rng rng(stream_seed(seed, "scaling:pairs"));
        Eigen::ArrayXf products(max_dk);  // q_m k_m, m < max_dk, for one (q, k) pair
        std::vector<double> sum(points, 0), sumsq(points, 0), sum_s(points, 0), sumsq_s(points, 0);
        std::vector<double> inv_sqrt(points);
        for (int p = 0; p < points; ++p) inv_sqrt[p] = 1.0 / std::sqrt(static_cast<double>(out[p].d_k));
        for (int s = 0; s < n; ++s) {
            fill_normal_products(products, rng);
            double dot = 0;  // q[:d_k]·k[:d_k], d_k = 1, 2, 4, ...: each adds the block [d_k/2, d_k)
            for (int p = 0; p < points; ++p) {
                const int from = p == 0 ? 0 : out[p].d_k / 2;
                dot += products.segment(from, out[p].d_k - from).sum();
                const double sc = dot * inv_sqrt[p];
                sum[p] += dot, sumsq[p] += dot * dot, sum_s[p] += sc, sumsq_s[p] += sc * sc;
            }
        }
        const double dn = n;
        for (int p = 0; p < points; ++p) {
            out[p].var_dot = n > 1 ? (sumsq[p] - sum[p] * sum[p] / dn) / (dn - 1) : 0;
            out[p].var_scaled = n > 1 ? (sumsq_s[p] - sum_s[p] * sum_s[p] / dn) / (dn - 1) : 0;
        }
    }

    // 2. Softmax of `queries` rows over `keys` random keys, with and without the scaling.
    for (int p = 0; p < points; ++p) {
        const int dk = out[p].d_k;
        Rng rng(stream_seed(seed, "scaling:softmax:" + std::to_string(dk)));
        RowMat Q(queries, dk), K(keys, dk);
        fill_normal(Q.data(), queries * dk, rng);
        fill_normal(K.data(), keys * dk, rng);
        const RowMat scores = Q * K.transpose();
        const SoftmaxStats raw = softmax_stats(scores);
        const SoftmaxStats sc = softmax_stats(scores / std::sqrt(static_cast<float>(dk)));
        out[p].max_weight = raw.max_weight;
        out[p].entropy = raw.entropy;
        out[p].jacobian_norm = raw.jacobian;
        out[p].max_weight_scaled = sc.max_weight;
        out[p].entropy_scaled = sc.entropy;
        out[p].jacobian_norm_scaled = sc.jacobian;
        out[p].jacobian_norm_median = raw.jacobian_median;
        out[p].jacobian_norm_median_scaled = sc.jacobian_median;
    }
    return out;
}

const KeyTable<ScalingOptions>& scaling_option_keys() {
    using O = ScalingOptions;
    static const KeyTable<O> table{{
        whole<&O::keys>("keys", 2, &ConfigLimits::max_scaling_keys),
        whole<&O::samples>("samples", 100, &ConfigLimits::max_scaling_samples),
        whole<&O::seed>("seed", 1, &ConfigLimits::max_seed),
    }};
    return table;
}

}  // namespace lab
