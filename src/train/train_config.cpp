// train/train_config.cpp — Attention Lab core: training defaults and validation.
#include "train/train_config.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace lab {

namespace {
// Steps that learn each task at the default sizes (measured; see README).
int default_steps(TaskKind task) {
    switch (task) {
        case TaskKind::Copy: return 400;
        case TaskKind::Reverse: return 400;
        case TaskKind::Sort: return 1000;
        case TaskKind::Induction: return 2000;
        case TaskKind::Coref: return 400;
        case TaskKind::Translate: return 1500;
    }
    return 500;
}
}  // namespace

TrainConfig resolve_train_config(const TrainConfig& in) {
    TrainConfig c = in;
    auto fill = [](int& v, int def) { v = v ? v : def; };
    fill(c.layers, c.task == TaskKind::Induction || c.task == TaskKind::Coref || c.task == TaskKind::Translate ? 2 : 1);
    const bool coref = c.task == TaskKind::Coref;  // the smallest model that learns it (README: coref)
    fill(c.heads, coref ? 2 : 4);
    fill(c.d_model, coref ? 16 : 32);
    fill(c.d_ff, 2 * c.d_model);
    fill(c.vocab, 10);
    fill(c.length, 8);
    if (c.task == TaskKind::Coref) {  // fixed by the grammar
        c.vocab = static_cast<int>(coref_vocab(c.lang).tokens.size());
        c.length = coref_vocab(c.lang).max_len;
    }
    if (c.task == TaskKind::Translate) {  // fixed by the grammar: the shared vocabulary, the longest English
        c.vocab = static_cast<int>(translate_vocab().tokens.size());
        c.length = translate_vocab().src_len;
    }
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

bool read_real(const std::string& text, double* out) {
    if (text.empty() || text.size() > 40) return false;
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(text.c_str(), &end);
    if (errno || *end != '\0' || !std::isfinite(v)) return false;
    *out = v;
    return true;
}

std::string number_text(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

static_assert(ConfigLimits{}.max_vocab <= kMaxTaskVocab, "the task generators hold at most kMaxTaskVocab symbols");

using T = TrainConfig;
const T& as_train(const void* c) { return *static_cast<const T*>(c); }

KeyTable<T> make_train_keys() {
    KeyTable<T> t;
    t.rows = {
        choice<&T::task>("task", {{"copy", nullptr, int(TaskKind::Copy)},
                                  {"reverse", nullptr, int(TaskKind::Reverse)},
                                  {"sort", nullptr, int(TaskKind::Sort)},
                                  {"induction", nullptr, int(TaskKind::Induction)},
                                  {"coref", nullptr, int(TaskKind::Coref)},
                                  {"translate", nullptr, int(TaskKind::Translate)}})
            .flag("--task").hash({"train"}).messages(Str::url_bad_task, Str::io_bad_task, Str::cli_expect_task),
        choice<&T::lang>("lang", {{"zh", nullptr, int(CorefLang::Zh)}, {"en", nullptr, int(CorefLang::En)}})
            .flag("--lang").hash({}).messages(Str::url_bad_lang, Str::io_bad_lang, Str::cli_expect_lang)
            .written_when([](const void* c) { return as_train(c).task == TaskKind::Coref; }),  // not in the link: the
                                                                                                 // page's language is #lang
        whole<&T::layers>("layers", 1, &ConfigLimits::max_layers).flag("--layers"),
        whole<&T::heads>("heads", 1, &ConfigLimits::max_train_heads).flag("--heads"),
        whole<&T::kv_heads>("kv_heads", 0, &ConfigLimits::max_train_heads)
            .flag("--kv-heads").hash({"kv"}).zero_stands_for(Str::cli_zero_kv_heads)
            .written_when([](const void* c) { return as_train(c).kv_heads != 0; }),
        whole<&T::d_model>("d_model", 1, &ConfigLimits::max_train_d_model).flag("--d-model"),
        whole<&T::d_ff>("d_ff", 1, &ConfigLimits::max_d_ff).flag("--d-ff"),
        whole<&T::vocab>("vocab", 2, &ConfigLimits::max_vocab).flag("--vocab"),
        whole<&T::length>("length", 2, &ConfigLimits::max_task_len).flag("--length"),
        whole<&T::gap>("gap", 0, &ConfigLimits::max_task_len)
            .flag("--gap").hashed_when([](const void* c) { return as_train(c).task == TaskKind::Induction; }),
        whole<&T::batch>("batch", 1, &ConfigLimits::max_train_batch).flag("--batch"),
        whole<&T::steps>("steps", 1, &ConfigLimits::max_steps).flag("--steps"),
        whole<&T::seed>("seed", 0, &ConfigLimits::max_seed).flag("--seed").checked_when_read(),
        on_off<&T::scale>("scale").flag("--no-scale"),
        on_off<&T::pe>("pe").flag("--no-pe"),
        choice<&T::position>("position", {{"sinusoid", nullptr, int(PositionKind::Sinusoid)},
                                          {"learned", nullptr, int(PositionKind::Learned)}})
            .flag("--position").messages(Str::url_bad_position, Str::io_bad_position, Str::cli_expect_position)
            .written_when([](const void* c) { return as_train(c).position != PositionKind::Sinusoid; }),
        on_off<&T::bias>("bias").flag("--no-bias"),
        decimal<&T::label_smoothing>("label_smoothing", 0.0, 0.99).flag("--label-smoothing"),
        // P_drop below 1 (1 would drop everything; 1/(1 − p) grows without bound), as label_smoothing's range.
        // manifest.json always holds "dropout" (after layer_norm_eps, checkpoint.cpp); links and state() only
        // when it is not 0.
        decimal<&T::dropout>("dropout", 0.0, 0.99)
            .flag("--dropout").written_when([](const void* c) { return as_train(c).dropout != 0; }),
        text_key("lr", [](void* c, const std::string& s) { return parse_lr(s, &static_cast<T*>(c)->lr); },
                 [](const void* c) { return lr_text(as_train(c).lr); })
            .flag("--lr").messages(Str::url_bad_lr, Str::io_bad_lr, Str::cli_expect_lr),
        whole<&T::eval_every>("eval_every", 1, &ConfigLimits::max_steps).flag("--eval-every"),
        whole<&T::eval_size>("eval_size", 1, &ConfigLimits::max_eval_size).flag("--eval-size"),
        decimal<&T::target_exact>("target_exact", 0.0, 1.0)
            .flag("--target-exact").zero_stands_for(Str::cli_zero_target_exact).hashed_when([](const void* c) { return as_train(c).target_exact > 0; }),
    };
    return t;
}

// Every row's range (whole numbers a row leaves to validation, and decimals), then the
// learning rate's numbers.
void check_ranges(const T& c, const ConfigLimits& limits, std::vector<ConfigError>& errors) {
    const bool from_grammar = task_spec(c).grammar();  // its vocab and length are the grammar's, not knobs
    for (const ConfigKey& k : train_keys().rows) {
        if (from_grammar && (std::string(k.name) == "vocab" || std::string(k.name) == "length")) continue;
        if (k.type == KeyType::Whole && k.validated) {
            const long long v = k.get(&c);
            if (v < k.lo || v > k.max(limits)) errors.push_back({k.name, Msg(Str::train_range_whole, k.name, k.lo, k.max(limits), v)});
        } else if (k.type == KeyType::Decimal) {
            const double v = k.get_real(&c);
            if (!(v >= k.lo_real && v <= k.hi_real))  // also catches NaN
                errors.push_back({k.name, Msg(Str::train_range_real, k.name, k.lo_real, k.hi_real, v)});
        }
    }
    auto real = [&](double v, double lo, double hi) {
        if (!(v >= lo && v <= hi)) errors.push_back({"lr", Msg(Str::train_range_real, "lr", lo, hi, v)});
    };
    if (c.lr.schedule == LrSchedule::Const) {
        real(c.lr.rate, 1e-8, 1);
    } else {
        real(c.lr.factor, 1e-6, 1000);
        real(c.lr.warmup, 1, 1e7);
    }
}

}  // namespace

const KeyTable<TrainConfig>& train_keys() {
    static const KeyTable<TrainConfig> table = make_train_keys();
    return table;
}

std::vector<ConfigError> validate_train_config(const TrainConfig& c, const ConfigLimits& limits) {
    std::vector<ConfigError> errors;
    check_ranges(c, limits, errors);
    if (c.gap > 0 && c.task != TaskKind::Induction) errors.push_back({"gap", Msg(Str::train_gap_not_induction, c.gap)});
    if (c.position == PositionKind::Learned && !c.pe) errors.push_back({"position", Str::train_position_needs_pe});
    if (!errors.empty()) return errors;
    if (c.d_model % c.heads != 0) {
        std::string valid;
        for (int h : valid_heads(c.d_model)) valid += (valid.empty() ? "" : ", ") + std::to_string(h);
        errors.push_back({"heads", Msg(Str::cfg_heads_not_divisor, c.d_model, c.heads, valid)});
    }
    check_kv_heads_divide(errors, c.kv_heads, c.heads);
    if (c.task == TaskKind::Induction && c.vocab < c.length)
        errors.push_back({"vocab", Msg(Str::train_induction_vocab, c.length, c.vocab)});
    // Held-out sequences must be distinct and leave most sequences for training.
    const double needed = 4.0 * c.eval_size, space = task_space(task_spec(c), needed);
    if (space < needed && c.task == TaskKind::Coref)
        errors.push_back({"eval_size", Msg(Str::train_coref_space, space, c.eval_size)});
    else if (space < needed)
        errors.push_back({"eval_size", Msg(Str::train_eval_space, c.vocab, c.length, space, c.eval_size)});
    const ModelLayout layout = make_layout(model_shape(c));
    const double bytes = 4.0 * 2 * workspace_size(layout, c.batch + (c.eval_size < 256 ? c.eval_size : 256));
    if (bytes > 512.0 * 1024 * 1024)
        errors.push_back({"batch", Msg(Str::train_memory, c.batch, std::round(bytes / (1024 * 1024)))});
    return errors;
}

TaskSpec task_spec(const TrainConfig& c) {
    TaskSpec s;
    s.kind = c.task;
    s.vocab = c.vocab;
    s.length = c.length;
    s.gap = c.task == TaskKind::Induction ? c.gap : 0;
    s.lang = c.lang;
    return s;
}

ModelShape model_shape(const TrainConfig& c) {
    const TaskSpec t = task_spec(c);
    ModelShape m;
    m.kind = t.model();
    m.layers = c.layers;
    m.heads = c.heads;
    m.kv_heads = c.kv_heads == c.heads ? 0 : c.kv_heads;
    m.d_model = c.d_model;
    m.d_ff = c.d_ff;
    m.vocab_size = c.vocab + 1;
    m.vocab_out = t.classes();
    m.pad = t.padded() ? t.bos() : -1;
    m.src_len = t.src_len();
    m.dec_len = t.dec_len();
    m.scale = c.scale;
    m.pe = c.pe;
    m.position = c.position;
    m.bias = c.bias;
    m.label_smoothing = c.label_smoothing;
    m.dropout = c.dropout;
    return m;
}

const char* lr_schedule_name(LrSchedule s) { return s == LrSchedule::Paper ? "paper" : "const"; }

bool parse_lr(const std::string& text, LrConfig* lr) {
    std::vector<std::string> parts;
    size_t start = 0;
    for (size_t colon; (colon = text.find(':', start)) != std::string::npos; start = colon + 1)
        parts.push_back(text.substr(start, colon - start));
    parts.push_back(text.substr(start));
    LrConfig r;
    if (parts[0] == "paper" && parts.size() <= 3) {
        r.schedule = LrSchedule::Paper;
        if (parts.size() >= 2 && (!read_real(parts[1], &r.factor) || r.factor <= 0)) return false;
        if (parts.size() == 3 && (!read_real(parts[2], &r.warmup) || r.warmup < 1)) return false;
    } else if (parts[0] == "const" && parts.size() == 2) {
        r.schedule = LrSchedule::Const;
        if (!read_real(parts[1], &r.rate) || r.rate <= 0) return false;
    } else {
        return false;
    }
    *lr = r;
    return true;
}

std::string lr_text(const LrConfig& lr) {
    if (lr.schedule == LrSchedule::Const) return "const:" + number_text(lr.rate);
    return "paper:" + number_text(lr.factor) + ":" + number_text(lr.warmup);
}

}  // namespace lab
