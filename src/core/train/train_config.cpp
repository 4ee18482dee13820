// train/train_config.cpp — Attention Lab core: training defaults and validation.
#include "train_config.h"

#include <cmath>
#include <cstdio>

namespace lab {

namespace {
// Steps that learn each task at the default sizes (measured; see README).
int default_steps(TaskKind task) {
    switch (task) {
        case TaskKind::Copy: return 400;
        case TaskKind::Reverse: return 400;
        case TaskKind::Sort: return 1000;
        case TaskKind::Induction: return 2000;
    }
    return 500;
}
}  // namespace

TrainConfig resolve_train_config(const TrainConfig& in) {
    TrainConfig c = in;
    auto fill = [](int& v, int def) { v = v ? v : def; };
    fill(c.layers, c.task == TaskKind::Induction ? 2 : 1);
    fill(c.heads, 4);
    fill(c.d_model, 32);
    fill(c.d_ff, 2 * c.d_model);
    fill(c.vocab, 10);
    fill(c.length, 8);
    if (c.gap < 0) c.gap = c.task == TaskKind::Induction ? c.length : 0;
    fill(c.batch, 32);
    fill(c.steps, default_steps(c.task));
    fill(c.eval_every, 50);
    fill(c.eval_size, 256);
    if (c.lr.rate == 0) c.lr.rate = 3e-3;
    if (c.lr.factor == 0) c.lr.factor = 1.0;
    if (c.lr.warmup == 0) c.lr.warmup = 4000;
    return c;
}

namespace {

std::string format_number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

// V^L, or a number above cap when it is larger.
double sequence_space(int vocab, int length, double cap) {
    double n = 1;
    for (int i = 0; i < length && n <= cap; ++i) n *= vocab;
    return n;
}

}  // namespace

std::vector<ConfigError> validate_train_config(const TrainConfig& c) {
    std::vector<ConfigError> errors;
    auto range = [&](const char* param, double v, double lo, double hi) {
        if (!(v >= lo && v <= hi))  // also catches NaN
            errors.push_back({param, Msg::literal(std::string(param) + " must be in [" + format_number(lo) + ", " +
                                         format_number(hi) + "], got " + format_number(v))});
    };
    range("layers", c.layers, 1, 6);
    range("d_model", c.d_model, 1, 256);
    range("heads", c.heads, 1, 64);
    range("d_ff", c.d_ff, 1, 1024);
    range("vocab", c.vocab, 2, kMaxTaskVocab);
    range("length", c.length, 2, 64);
    range("gap", c.gap, 0, 64);
    if (c.gap > 0 && c.task != TaskKind::Induction)
        errors.push_back({"gap", Msg::literal("gap applies to the induction task only (got gap=" + std::to_string(c.gap) + ")")});
    range("batch", c.batch, 1, 1024);
    range("steps", c.steps, 1, 1000000);
    range("eval_every", c.eval_every, 1, 1000000);
    range("eval_size", c.eval_size, 1, 4096);
    range("target_exact", c.target_exact, 0, 1);
    if (!(c.label_smoothing >= 0 && c.label_smoothing < 1))
        errors.push_back({"label_smoothing", Msg::literal("label_smoothing must be in [0, 1), got " + format_number(c.label_smoothing))});
    if (c.lr.schedule == LrSchedule::Const) range("lr", c.lr.rate, 1e-8, 1);
    else {
        range("lr", c.lr.factor, 1e-6, 1000);
        range("lr", c.lr.warmup, 1, 1e7);
    }
    if (!errors.empty()) return errors;
    if (c.d_model % c.heads != 0) {
        std::string valid;
        for (int h : valid_heads(c.d_model)) valid += (valid.empty() ? "" : ", ") + std::to_string(h);
        errors.push_back({"heads", Msg::literal("d_model=" + std::to_string(c.d_model) + " is not divisible by heads=" +
                                       std::to_string(c.heads) + " (valid heads: " + valid + ")")});
    }
    if (c.task == TaskKind::Induction && c.vocab < c.length)
        errors.push_back({"vocab", Msg::literal("induction draws length=" + std::to_string(c.length) + " distinct symbols: vocab=" +
                                       std::to_string(c.vocab) + " must be at least length")});
    // Held-out sequences must be distinct and leave most sequences for training.
    const double needed = 4.0 * c.eval_size;
    if (sequence_space(c.vocab, c.length, needed) < needed)
        errors.push_back({"eval_size", Msg::literal("vocab=" + std::to_string(c.vocab) + " and length=" + std::to_string(c.length) +
                                           " give only " + format_number(sequence_space(c.vocab, c.length, needed)) +
                                           " distinct sequences; eval_size=" + std::to_string(c.eval_size) +
                                           " needs at least 4x as many: raise vocab or length, or lower eval_size")});
    const ModelLayout layout = make_layout(model_shape(c));
    const double bytes = 4.0 * 2 * workspace_size(layout, c.batch + (c.eval_size < 256 ? c.eval_size : 256));
    if (bytes > 512.0 * 1024 * 1024)
        errors.push_back({"batch", Msg::literal("the activations of batch=" + std::to_string(c.batch) + " need " +
                                       format_number(std::round(bytes / (1024 * 1024))) +
                                       " MiB (limit 512 MiB): lower batch, length or d_model")});
    return errors;
}

TaskSpec task_spec(const TrainConfig& c) {
    TaskSpec s;
    s.kind = c.task;
    s.vocab = c.vocab;
    s.length = c.length;
    s.gap = c.task == TaskKind::Induction ? c.gap : 0;
    return s;
}

ModelShape model_shape(const TrainConfig& c) {
    const TaskSpec t = task_spec(c);
    ModelShape m;
    m.kind = t.model();
    m.layers = c.layers;
    m.heads = c.heads;
    m.d_model = c.d_model;
    m.d_ff = c.d_ff;
    m.vocab_size = c.vocab + 1;
    m.vocab_out = c.vocab;
    m.src_len = t.src_len();
    m.dec_len = t.dec_len();
    m.scale = c.scale;
    m.pe = c.pe;
    m.bias = c.bias;
    m.label_smoothing = c.label_smoothing;
    return m;
}

const char* lr_schedule_name(LrSchedule s) { return s == LrSchedule::Paper ? "paper" : "const"; }

}  // namespace lab
