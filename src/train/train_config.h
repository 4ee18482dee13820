// train/train_config.h — Attention Lab core: every knob of a training run in one
// struct, defaults resolved in one place, validation that names the parameter.
//
// Zero means "default" (sokol style) for the numbers; resolve_train_config fills them
// in. train_keys() is the knobs' table (attention/config_keys.h): one row per knob, read by
// `attnlab train`'s flags, the page's link (#train=reverse&layers=1&...), the
// checkpoint's manifest.json and written by all three; its ranges are the ones
// validate_train_config judges. Parameter names in messages are the rows' names
// (d_model, heads, ...); the CLI says them as its flags (--d-model, --heads, ...).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "attention/config.h"
#include "attention/config_keys.h"
#include "train/model.h"
#include "train/optimizer.h"
#include "train/tasks.h"

namespace lab {

struct TrainConfig {
    TaskKind task = TaskKind::Reverse;
    int layers = 0;      // N; 0: 1 for copy/reverse/sort, 2 for induction and coref
    int heads = 0;       // h; 0: 4 (coref: 2)
    int kv_heads = 0;    // h_kv key/value heads (grouped-query; 1: multi-query), dividing heads; 0: heads
    int d_model = 0;     // 0: 32 (coref: 16)
    int d_ff = 0;        // 0: 2·d_model
    int vocab = 0;       // V symbols; 0: 10 (BOS is id V); coref: its language's vocabulary, always
    int length = 0;      // L; 0: 8; coref: its language's longest sentence, always
    CorefLang lang = CorefLang::Zh;  // coref: the sentences' language (the page: its interface language)
    int gap = -1;        // induction: largest random gap G between s and its repeat (tasks.h);
                         // -1: L (0 is the fixed layout s s, which one layer solves by position)
    int batch = 0;       // B; 0: 32
    int steps = 0;       // 0: the task's default (enough to learn it)
    int eval_every = 0;  // 0: 50
    int eval_size = 0;   // held-out sequences; 0: 256
    double target_exact = 0;  // > 0: stop at the first evaluation with this held-out exact accuracy
    uint32_t seed = 1;
    bool scale = true;   // ÷√d_k
    bool pe = true;      // positional encoding (§3.5)
    PositionKind position = PositionKind::Sinusoid;  // with pe: sinusoids, or learned (pos_embedding.weight, Table 3 E)
    bool bias = true;    // attention projection biases
    double label_smoothing = 0;
    double dropout = 0;  // P_drop (§5.4) in training steps, in [0, 0.99]; 0: none (evaluation never drops)
    LrConfig lr;         // rate/factor/warmup 0: defaults (const 3e-3; paper factor 1, warmup 4000)
};

// The knobs, in the order manifest.json and links write them.
const KeyTable<TrainConfig>& train_keys();

TrainConfig resolve_train_config(const TrainConfig& c);
// Expects a resolved config. Empty when valid; each error names its key (train_keys()).
std::vector<ConfigError> validate_train_config(const TrainConfig& c, const ConfigLimits& limits = {});
TaskSpec task_spec(const TrainConfig& c);
ModelShape model_shape(const TrainConfig& c);

const char* lr_schedule_name(LrSchedule s);  // "paper" | "const"
// The lr key's syntax: paper | paper:FACTOR | paper:FACTOR:WARMUP | const:RATE (positive
// numbers; paper's factor and warmup 0 = default). lr_text writes what parse_lr reads.
bool parse_lr(const std::string& text, LrConfig* lr);
std::string lr_text(const LrConfig& lr);

}  // namespace lab
