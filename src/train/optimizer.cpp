// train/optimizer.cpp — Attention Lab core: Adam and the schedules.
#include "train/optimizer.h"

#include <algorithm>
#include <cmath>

namespace lab {

void adam_step(float* params, float* m, float* v, const float* grads, size_t n, double lr, int step,
               const AdamConfig& config) {
    // The same order of operations as torch.optim.Adam's single-tensor loop: the
    // scalars are computed in double, the element-wise work in float.
    const float b1 = static_cast<float>(config.beta1), b2 = static_cast<float>(config.beta2);
    const float one_minus_b1 = static_cast<float>(1.0 - config.beta1), one_minus_b2 = static_cast<float>(1.0 - config.beta2);
    const double bias_correction1 = 1.0 - std::pow(config.beta1, step);
    const double bias_correction2 = 1.0 - std::pow(config.beta2, step);
    const float step_size = static_cast<float>(lr / bias_correction1);
    const float bias_correction2_sqrt = static_cast<float>(std::sqrt(bias_correction2));
    const float eps = static_cast<float>(config.eps);
    for (size_t i = 0; i < n; ++i) {
        const float g = grads[i];
        m[i] = m[i] * b1 + g * one_minus_b1;
        v[i] = v[i] * b2 + one_minus_b2 * g * g;
        const float denom = std::sqrt(v[i]) / bias_correction2_sqrt + eps;
        params[i] -= step_size * (m[i] / denom);
    }
}

double learning_rate(const LrConfig& lr, int d_model, int step) {
    if (lr.schedule == LrSchedule::Const) return lr.rate;
    const double s = step;
    return lr.factor / std::sqrt(static_cast<double>(d_model)) * std::min(1.0 / std::sqrt(s), s * std::pow(lr.warmup, -1.5));
}

}  // namespace lab
