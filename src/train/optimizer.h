// train/optimizer.h — Attention Lab core: Adam and the learning-rate schedules.
//
// Adam as torch.optim.Adam (bias-corrected, no weight decay), with the paper's
// β1 = 0.9, β2 = 0.98, ε = 1e-9 (§5.3), on flat float buffers:
//   m = β1·m + (1 − β1)·g,  v = β2·v + (1 − β2)·g²,
//   p −= lr/(1 − β1^t) · m / (√v / √(1 − β2^t) + ε)      (t counts from 1)
// Schedules (step counts from 1):
//   paper  lr = factor · d_model^−0.5 · min(step^−0.5, step · warmup^−1.5)   (§5.3)
//   const  lr = rate
#pragma once
#include <cstddef>

namespace lab {

struct AdamConfig {
    double beta1 = 0.9;
    double beta2 = 0.98;
    double eps = 1e-9;
};

void adam_step(float* params, float* m, float* v, const float* grads, size_t n, double lr, int step,
               const AdamConfig& config = {});

enum class LrSchedule { Paper, Const };

struct LrConfig {
    LrSchedule schedule = LrSchedule::Const;
    double rate = 0;     // const
    double factor = 0;   // paper
    double warmup = 0;   // paper, in steps
};

double learning_rate(const LrConfig& lr, int d_model, int step);

}  // namespace lab
