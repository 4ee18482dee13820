// experiment_common.cpp — Attention Lab core: small helpers the experiment files share
// (entropy, weights·V, concat + W^O, NaN-aware comparisons).
#include <Eigen/Core>
#include <cmath>
#include <limits>

#include "attention/attention.h"
#include "teach/experiments/experiments.h"

namespace lab {
namespace experiment_detail {

namespace {
using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
}  // namespace

double entropy(const float* p, int n) {
    double h = 0;
    for (int j = 0; j < n; ++j)
        if (p[j] > 0) h -= static_cast<double>(p[j]) * std::log(static_cast<double>(p[j]));
    return h;
}

void context_from_weights(float* context, const float* weights, const float* v_heads, int B, int h, int L_q, int L_kv,
                          int d_v) {
    for (long s = 0; s < static_cast<long>(B) * h; ++s) {
        Eigen::Map<RowMat> ctx(context + s * L_q * d_v, L_q, d_v);
        ctx.noalias() = Eigen::Map<const RowMat>(weights + s * L_q * L_kv, L_q, L_kv) *
                        Eigen::Map<const RowMat>(v_heads + s * L_kv * d_v, L_kv, d_v);
    }
}

Floats output_from_context(const Floats& context, const Trace& tr) {
    const AttentionConfig& c = tr.config;
    const int B = c.batch, h = c.heads, L = c.L_q(), dv = c.d_v(), d = c.d_model;
    Floats concat(static_cast<size_t>(B) * L * h * dv, 0.0f), out(static_cast<size_t>(B) * L * d, 0.0f);
    concat_heads(concat.data(), context.data(), B, h, L, dv);
    linear(out.data(), concat.data(), tr[TensorId::WO].ptr(), tr[TensorId::BO].ptr(), B * L, h * dv, d);
    return out;
}

double relative_diff(const Floats& a, const Floats& b) {
    double num = 0, den = 0;
    long n = 0;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
        if (!std::isfinite(a[i]) || !std::isfinite(b[i])) continue;
        const double d = static_cast<double>(a[i]) - b[i];
        num += d * d;
        den += static_cast<double>(b[i]) * b[i];
        ++n;
    }
    if (n == 0) return std::numeric_limits<double>::quiet_NaN();
    return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

long count_nan(const Floats& v) {
    long n = 0;
    for (float x : v) n += std::isnan(x);
    return n;
}

}  // namespace experiment_detail
}  // namespace lab
