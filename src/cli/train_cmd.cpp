// train_cmd.cpp — Attention Lab CLI: `attnlab train` (flag parsing, the training loop's
// report lines, the checkpoint folder).
#include "train_cmd.h"

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ostream>

#include "../core/train/trainer.h"
#include "../interop/checkpoint.h"

namespace lab {

std::string train_usage() {
    return "usage: attnlab train [--task copy|reverse|sort|induction] [--layers N] [--heads H] [--d-model D] [--d-ff F]\n"
           "                     [--vocab V] [--length L] [--gap G] [--batch B] [--steps S] [--seed K] [--no-scale] [--no-pe]\n"
           "                     [--no-bias] [--label-smoothing E] [--lr paper[:FACTOR[:WARMUP]]|const:RATE]\n"
           "                     [--eval-every N] [--eval-size N] [--target-exact A] [--out DIR] [--save all|final] [--quiet]\n"
           "  defaults: reverse, 1 layer (2 for induction), h 4, d_model 32, d_ff 2*d_model, V 10, L 8, B 32,\n"
           "    lr const:0.003 (paper: factor 1, warmup 4000), evaluation every 50 steps on 256 held-out sequences\n"
           "  --gap G (induction): s, a random gap of 0..G symbols, s again (default G = L); --gap 0 is s s\n"
           "  --target-exact A stops at the first evaluation whose held-out exact accuracy is at least A\n"
           "  --out DIR writes manifest.json, init/ final/ grad1/ (PyTorch state_dict names, float32 .npy),\n"
           "    batches/ (int64), loss.npy, lr.npy; --save final keeps manifest.json, final/, loss.npy, lr.npy\n";
}

namespace {

std::string shown(const std::string& v) { return v.size() > 40 ? v.substr(0, 40) + "..." : v; }

bool parse_whole(const std::string& text, long long lo, long long hi, long long* out) {
    if (text.empty() || text.size() > 18) return false;
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(text.c_str(), &end, 10);
    if (errno || *end != '\0' || v < lo || v > hi) return false;
    *out = v;
    return true;
}

bool parse_real(const std::string& text, double* out) {
    if (text.empty() || text.size() > 40) return false;
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(text.c_str(), &end);
    if (errno || *end != '\0' || !std::isfinite(v)) return false;
    *out = v;
    return true;
}

// paper | paper:FACTOR | paper:FACTOR:WARMUP | const:RATE
bool parse_lr(const std::string& text, LrConfig* lr) {
    std::vector<std::string> parts;
    size_t start = 0;
    for (size_t colon; (colon = text.find(':', start)) != std::string::npos; start = colon + 1)
        parts.push_back(text.substr(start, colon - start));
    parts.push_back(text.substr(start));
    LrConfig r;
    if (parts[0] == "paper" && parts.size() <= 3) {
        r.schedule = LrSchedule::Paper;
        if (parts.size() >= 2 && (!parse_real(parts[1], &r.factor) || r.factor <= 0)) return false;
        if (parts.size() == 3 && (!parse_real(parts[2], &r.warmup) || r.warmup < 1)) return false;
    } else if (parts[0] == "const" && parts.size() == 2) {
        r.schedule = LrSchedule::Const;
        if (!parse_real(parts[1], &r.rate) || r.rate <= 0) return false;
    } else {
        return false;
    }
    *lr = r;
    return true;
}

// The flag a validation message's parameter comes from: d_model -> --d-model.
std::string flag_of(std::string param) {
    for (char& ch : param)
        if (ch == '_') ch = '-';
    return "--" + param;
}

}  // namespace

TrainCliParse parse_train_cli(const std::vector<std::string>& args) {
    TrainCliParse p;
    TrainConfig& c = p.options.config;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& flag = args[i];
        std::string v;
        auto value = [&]() {
            if (i + 1 >= args.size()) {
                p.errors.push_back({flag, Msg::literal(flag + " needs a value")});
                return false;
            }
            v = args[++i];
            return true;
        };
        // Knobs where 0 means "default" in TrainConfig take 1 or more here.
        auto whole = [&](int* field, long long lo) {
            long long n;
            if (!value()) return;
            if (parse_whole(v, lo, 100000000, &n)) *field = static_cast<int>(n);
            else p.errors.push_back({flag, Msg::literal(flag + " '" + shown(v) + "' is not a whole number >= " + std::to_string(lo))});
        };
        auto real = [&](double* field) {
            if (!value()) return;
            if (!parse_real(v, field)) p.errors.push_back({flag, Msg::literal(flag + " '" + shown(v) + "' is not a number")});
        };
        if (flag == "--task") {
            if (value() && !parse_task(v, &c.task))
                p.errors.push_back({flag, Msg::literal("--task '" + shown(v) + "' is not one of copy, reverse, sort, induction")});
        } else if (flag == "--layers") whole(&c.layers, 1);
        else if (flag == "--heads") whole(&c.heads, 1);
        else if (flag == "--d-model") whole(&c.d_model, 1);
        else if (flag == "--d-ff") whole(&c.d_ff, 1);
        else if (flag == "--vocab") whole(&c.vocab, 1);
        else if (flag == "--length") whole(&c.length, 1);
        else if (flag == "--gap") whole(&c.gap, 0);
        else if (flag == "--batch") whole(&c.batch, 1);
        else if (flag == "--steps") whole(&c.steps, 1);
        else if (flag == "--eval-every") whole(&c.eval_every, 1);
        else if (flag == "--eval-size") whole(&c.eval_size, 1);
        else if (flag == "--seed") {
            long long n;
            if (value()) {
                if (parse_whole(v, 0, 4294967295LL, &n)) c.seed = static_cast<uint32_t>(n);
                else p.errors.push_back({flag, Msg::literal("--seed '" + shown(v) + "' is not a whole number in [0, 4294967295]")});
            }
        } else if (flag == "--label-smoothing") real(&c.label_smoothing);
        else if (flag == "--target-exact") real(&c.target_exact);
        else if (flag == "--lr") {
            if (value() && !parse_lr(v, &c.lr))
                p.errors.push_back({flag, Msg::literal("--lr '" + shown(v) + "' is not paper, paper:FACTOR, paper:FACTOR:WARMUP or "
                                                                 "const:RATE with positive numbers (e.g. const:0.003)")});
        } else if (flag == "--no-scale") c.scale = false;
        else if (flag == "--no-pe") c.pe = false;
        else if (flag == "--no-bias") c.bias = false;
        else if (flag == "--quiet") p.options.quiet = true;
        else if (flag == "--out") {
            if (value()) p.options.out_dir = v;
        } else if (flag == "--save") {
            if (value() && v != "all" && v != "final") p.errors.push_back({flag, Msg::literal("--save '" + shown(v) + "' is not all or final")});
            p.options.save_all = v != "final";
        } else if (flag == "--help" || flag == "-h") {
            p.help = true;
        } else {
            p.errors.push_back(flag.empty() ? ConfigError{"argument", Msg::literal("an empty argument was given (a stray \"\" on the command line?)")}
                                            : ConfigError{flag, Msg::literal("unknown option '" + shown(flag) + "' for train")});
        }
    }
    if (!p.errors.empty() || p.help) return p;
    for (const ConfigError& e : validate_train_config(resolve_train_config(c))) p.errors.push_back({flag_of(e.param), e.message});
    if (!p.options.out_dir.empty()) {
        const std::string problem = checkpoint_dir_problem(p.options.out_dir);
        if (!problem.empty()) p.errors.push_back({"--out", Msg::literal(problem)});
        const TrainConfig r = resolve_train_config(c);
        const double tokens = static_cast<double>(r.steps) * r.batch * (2.0 * r.length);
        if (p.options.save_all && tokens > 16e6)
            p.errors.push_back({"--steps", Msg::literal("--out with --save all keeps every batch: steps x batch x length must stay "
                                           "under 16 million tokens; use --save final or fewer --steps")});
    }
    return p;
}

namespace {

std::string fixed(double v, int digits) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

void print_header(const Trainer& t, std::ostream& out) {
    const TrainConfig& c = t.config();
    const ModelShape& m = t.layout().shape;
    out << "train " << task_name(c.task) << ": "
        << (m.kind == ModelKind::EncoderDecoder ? "encoder-decoder" : "decoder-only") << " N=" << c.layers
        << " d_model=" << c.d_model << " h=" << c.heads << " d_ff=" << c.d_ff << " V=" << c.vocab << " L=" << c.length << (c.task == TaskKind::Induction ? " gap=" + std::to_string(c.gap) : std::string())
        << " B=" << c.batch << " params=" << t.layout().total << " scale=" << (c.scale ? "on" : "off")
        << " pe=" << (c.pe ? "on" : "off") << " bias=" << (c.bias ? "on" : "off")
        << " label_smoothing=" << c.label_smoothing << " lr=" << lr_schedule_name(c.lr.schedule) << ":";
    if (c.lr.schedule == LrSchedule::Const) out << c.lr.rate;
    else out << c.lr.factor << ":" << c.lr.warmup;
    out << " seed=" << c.seed << " held-out=" << t.held_out_count() << "\n";
}

}  // namespace

int run_train_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    const TrainCliParse p = parse_train_cli(args);
    if (p.help && p.errors.empty()) {
        out << train_usage();
        return 0;
    }
    Trainer t;
    std::vector<ConfigError> errors = p.errors;
    if (errors.empty()) t.init(p.options.config, &errors);
    if (!errors.empty()) {
        for (const ConfigError& e : errors) err << "attnlab: train: " << e.param << ": " << render(e.message, Lang::En) << "\n";
        err << train_usage();
        return 2;
    }
    const bool record = !p.options.out_dir.empty() && p.options.save_all;
    CheckpointRecord rec;
    if (record) rec.init_params = t.params();
    if (!p.options.quiet) print_header(t, out);
    double train_ms = 0, eval_ms = 0, window_ms = 0;
    int window_steps = 0;
    size_t evals_seen = 0;
    while (!t.finished()) {
        const auto t0 = std::chrono::steady_clock::now();
        if (t.step(1) == 0) break;
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        double this_eval = 0;
        for (; evals_seen < t.evals().size(); ++evals_seen) this_eval += t.evals()[evals_seen].ms;
        train_ms += ms - this_eval, window_ms += ms - this_eval, eval_ms += this_eval;
        ++window_steps;
        if (record) rec.add_step(t);
        if (this_eval > 0 && !p.options.quiet) {
            const EvalReport& e = t.evals().back();
            out << "step " << e.step << "  loss " << fixed(t.losses().back(), 4) << "  held-out loss " << fixed(e.loss, 4)
                << "  token acc " << fixed(e.token_accuracy, 4) << "  exact acc " << fixed(e.exact_accuracy, 4)
                << "  steps/s " << fixed(window_steps / (window_ms / 1000.0), 1) << "\n";
            window_ms = 0, window_steps = 0;
        }
    }
    const EvalReport last = t.evals().empty() ? EvalReport{} : t.evals().back();
    out << "done: " << t.steps_done() << " steps in " << fixed(train_ms / 1000.0, 3) << " s training ("
        << fixed(t.steps_done() / (train_ms / 1000.0), 1) << " steps/s) + " << fixed(eval_ms / 1000.0, 3)
        << " s evaluation; held-out exact acc " << fixed(last.exact_accuracy, 4) << ", token acc "
        << fixed(last.token_accuracy, 4) << "\n";
    int code = 0;
    if (t.stop().cause != StopCause::None) {
        err << "attnlab: train: " << t.stop().message << "\n";
        code = 1;
    }
    if (!p.options.out_dir.empty()) {
        std::string error;
        if (!write_checkpoint(p.options.out_dir, t, rec, p.options.save_all ? CheckpointParts::All : CheckpointParts::Final,
                              &error)) {
            err << "attnlab: train: --out: " << error << "\n";
            return 1;
        }
        if (!p.options.quiet) out << "wrote checkpoint " << p.options.out_dir << "\n";
    }
    return code;
}

}  // namespace lab
