// grad_check.h — test helper: central finite differences in double precision
// against an analytic gradient.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "base/rng.h"
#include "train/model.h"

struct GradCheck {
    double max_err = 0;  // max |numeric - analytic|
    double max_ref = 0;  // max |numeric|
    size_t checked = 0;
    std::string worst;   // "index 3: numeric 0.25, analytic 0.5"
};

// For each index of x (all when indices is empty): (loss(x + h) - loss(x - h)) / 2h,
// compared with analytic[index]. loss() reads x by reference.
template <class Loss>
GradCheck check_grad(std::vector<double>& x, const std::vector<double>& analytic, Loss loss,
                     const std::vector<size_t>& indices = {}, double h = 1e-5) {
    GradCheck g;
    auto one = [&](size_t i) {
        const double keep = x[i];
        x[i] = keep + h;
        const double up = loss();
        x[i] = keep - h;
        const double down = loss();
        x[i] = keep;
        const double numeric = (up - down) / (2 * h);
        const double err = std::fabs(numeric - analytic[i]);
        g.max_ref = std::fmax(g.max_ref, std::fabs(numeric));
        if (err > g.max_err || std::isnan(err)) {
            g.max_err = std::isnan(err) ? INFINITY : err;
            g.worst = "index " + std::to_string(i) + ": numeric " + std::to_string(numeric) + ", analytic " +
                      std::to_string(analytic[i]);
        }
        ++g.checked;
    };
    if (indices.empty())
        for (size_t i = 0; i < x.size(); ++i) one(i);
    else
        for (size_t i : indices) one(i);
    return g;
}

// The gradient agrees when its error is below 1e-6 of its own scale (at least 1).
#define CHECK_GRAD(name, result)                                                                          \
    do {                                                                                                  \
        const GradCheck gc_ = (result);                                                                   \
        INFO(name << ": " << gc_.checked << " entries, max |numeric - analytic| " << gc_.max_err          \
                  << ", max |numeric| " << gc_.max_ref << (gc_.worst.empty() ? "" : ", worst at ") << gc_.worst); \
        CHECK(gc_.checked > 0);                                                                           \
        CHECK(gc_.max_ref > 0);                                                                           \
        CHECK(gc_.max_err <= 1e-6 * std::fmax(1.0, gc_.max_ref));                                         \
    } while (0)

inline std::vector<double> random_values(size_t n, uint64_t seed, double scale = 1.0) {
    lab::Rng rng(seed);
    std::vector<double> v(n);
    for (double& x : v) x = rng.normal() * scale;
    return v;
}

// A model's parameters initialised as PyTorch's (seed 7), with LayerNorm and the zero biases
// moved off their 1/0 start (seed 8) so that every path of a gradient check is generic.
inline std::vector<double> generic_params(const lab::ModelLayout& layout) {
    std::vector<double> params(layout.total);
    lab::init_params(params.data(), layout, 7);
    const std::vector<double> jitter = random_values(layout.total, 8, 0.1);
    for (const lab::ParamInfo& p : layout.params)
        if (p.init == lab::ParamInit::Ones || p.init == lab::ParamInit::Zeros)
            for (size_t e = 0; e < p.size; ++e) params[p.offset + e] += jitter[p.offset + e];
    return params;
}

inline double dot(const std::vector<double>& a, const std::vector<double>& b) {
    double s = 0;
    for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    return s;
}
