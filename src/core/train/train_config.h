// train/train_config.h — Attention Lab core: every knob of a training run in one
// struct, defaults resolved in one place, validation that names the parameter.
//
// Zero means "default" (sokol style) for the numbers; resolve_train_config fills them
// in. Parameter names in messages are the CLI's flags without dashes' prefix
// (d_model, heads, ...); the CLI prints them as --d-model, --heads, ...
// Messages are plain English for now (the CLI is their only reader); they move to
// the shared configuration-key table with the page.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "../config.h"
#include "model.h"
#include "optimizer.h"
#include "tasks.h"

namespace lab {

struct TrainConfig {
    TaskKind task = TaskKind::Reverse;
    int layers = 0;      // N; 0: 1 for copy/reverse/sort, 2 for induction
    int heads = 0;       // h; 0: 4
    int d_model = 0;     // 0: 32
    int d_ff = 0;        // 0: 2·d_model
    int vocab = 0;       // V symbols; 0: 10 (BOS is id V)
    int length = 0;      // L; 0: 8
    int gap = -1;        // induction: largest random gap G between s and its repeat (tasks.h);
                         // -1: L (0 is the fixed layout s s, which one layer solves by position)
    int batch = 0;       // B; 0: 32
    int steps = 0;       // 0: the task's default (enough to learn it)
    int eval_every = 0;  // 0: 50
    int eval_size = 0;   // held-out sequences; 0: 256
    double target_exact = 0;  // > 0: stop at the first evaluation with this held-out exact accuracy
    uint32_t seed = 1;
    bool scale = true;   // ÷√d_k
    bool pe = true;      // sinusoidal positional encoding
    bool bias = true;    // attention projection biases
    double label_smoothing = 0;
    LrConfig lr;         // rate/factor/warmup 0: defaults (const 3e-3; paper factor 1, warmup 4000)
};

TrainConfig resolve_train_config(const TrainConfig& c);
// Expects a resolved config. Empty when valid.
std::vector<ConfigError> validate_train_config(const TrainConfig& c);
TaskSpec task_spec(const TrainConfig& c);
ModelShape model_shape(const TrainConfig& c);

const char* lr_schedule_name(LrSchedule s);  // "paper" | "const"

}  // namespace lab
