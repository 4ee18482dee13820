// compare.h — test helper: element-wise closeness with NaN positions required to match,
// and the agreement tolerance between two float32 computations of the lab's tensors.
#pragma once
#include <cmath>
#include <string>
#include <vector>

#include <doctest/doctest.h>

struct Closeness {
    size_t mismatches = 0;
    double max_abs_err = 0;
    std::string first;  // "index 12: got 0.5, want 0.25"
};

// got and want: any vectors of numbers (a tensor's data, std::vector<double>, ...).
template <typename GotValues, typename WantValues>
Closeness closeness(const GotValues& got, const WantValues& want, double atol, double rtol) {
    Closeness c;
    if (got.size() != want.size()) {
        c.mismatches = 1;
        c.first = "size " + std::to_string(got.size()) + " vs " + std::to_string(want.size());
        return c;
    }
    for (size_t i = 0; i < got.size(); ++i) {
        const double g = got[i], w = want[i];
        bool ok;
        if (std::isnan(w) || std::isnan(g)) ok = std::isnan(w) && std::isnan(g);
        else if (std::isinf(w) || std::isinf(g)) ok = g == w;
        else {
            const double err = std::fabs(g - w);
            c.max_abs_err = std::fmax(c.max_abs_err, err);
            ok = err <= atol + rtol * std::fabs(w);
        }
        if (!ok && c.mismatches++ == 0)
            c.first = "index " + std::to_string(i) + ": got " + std::to_string(g) + ", want " + std::to_string(w);
    }
    return c;
}

#define CHECK_CLOSE(name, got, want, tol)                                             \
    do {                                                                              \
        const Closeness cl_ = closeness((got), (want), (tol), (tol));                 \
        INFO(name << ": " << cl_.mismatches << " mismatches, max abs err " << cl_.max_abs_err \
                  << (cl_.first.empty() ? "" : ", first at ") << cl_.first);          \
        CHECK(cl_.mismatches == 0);                                                   \
    } while (0)

// Agreement of two float32 computations of the same tensor (the lab against PyTorch, or
// against the naive loops), sized for float32 sums of d terms. Two evaluations of a sum of
// n products, each rounded in its own order (another BLAS kernel, SIMD width, fused
// multiply-add or not), differ by at most about 2·n·u times the size of the terms
// (Higham's γ_n bound, u = 2^-24 the float32 unit roundoff). Every tensor of the trace lies
// behind at most two chained sums of at most d_model terms (x·W then q·kᵀ with d_k ≤ d_model;
// the context then ·W^O with h·d_v = d_model; the context's sum over keys weighs them by
// softmax weights that add to 1), hence 4·d_model·u, plus 16·u for the elementwise steps
// (÷√d_k, exp, the softmax's division: a few ulps each). An entry agrees when
//   |got − want| ≤ tol · (scale + |want|),  scale = max(1, max |want| over the tensor):
// a sum's rounding follows the size of its terms, which the tensor's largest value bounds
// better than a near-zero entry (the result of cancellation) does. d_model 8: 2.9e-6;
// 512: 1.2e-4. tests/torch/reference.py and the exported PyTorch script use the same rule.
inline double agreement_tol(int d_model) { return (4.0 * d_model + 16) * 0x1p-24; }

template <typename Values>
double agreement_scale(const Values& want) {
    double m = 1;
    for (auto v : want)
        if (std::isfinite(static_cast<double>(v))) m = std::fmax(m, std::fabs(static_cast<double>(v)));
    return m;
}

#define CHECK_AGREES(name, got, want, d_model)                                                          \
    do {                                                                                                \
        const double tol_ = agreement_tol(d_model);                                                     \
        const Closeness cl_ = closeness((got), (want), tol_ * agreement_scale(want), tol_);             \
        INFO(name << ": " << cl_.mismatches << " mismatches, max abs err " << cl_.max_abs_err           \
                  << " (tolerance " << tol_ << " relative)" << (cl_.first.empty() ? "" : ", first at ") \
                  << cl_.first);                                                                        \
        CHECK(cl_.mismatches == 0);                                                                     \
    } while (0)
