// compare.h — test helper: element-wise closeness with NaN positions required to match.
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

template <typename A, typename B>
Closeness closeness(const std::vector<A>& got, const std::vector<B>& want, double atol, double rtol) {
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
