// train_cmd.cpp — Attention Lab CLI: `attnlab train` (the knobs' flags are the rows of
// train_keys(), read by KeyFlags; the training loop's report lines; the checkpoint folder).
#include "cli/train_cmd.h"

#include <chrono>
#include <cstdio>
#include <ostream>

#include "cli/cli.h"
#include "interop/checkpoint.h"
#include "train/trainer.h"

namespace lab {

std::string train_usage() {
    return "usage: attnlab train [--task copy|reverse|sort|induction|coref|translate] [--lang zh|en] [--layers N] [--heads H] [--kv-heads N]\n"
           "                     [--d-model D] [--d-ff F] [--vocab V] [--length L] [--gap G] [--batch B] [--steps S] [--seed K] [--no-scale] [--no-pe]\n"
           "                     [--position sinusoid|learned] [--no-bias] [--label-smoothing E] [--dropout P]\n"
           "                     [--lr paper[:FACTOR[:WARMUP]]|const:RATE]\n"
           "                     [--eval-every N] [--eval-size N] [--target-exact A] [--out DIR] [--save all|final] [--quiet]\n"
           "  defaults: reverse, 1 layer (2 for induction), h 4, d_model 32, d_ff 2*d_model, V 10, L 8, B 32,\n"
           "    lr const:0.003 (paper: factor 1, warmup 4000), evaluation every 50 steps on 256 held-out sequences\n"
           "  --task coref: which noun the pronoun refers to (小猫追着球跑，它玩得很开心。), an encoder classifying\n"
           "    its output at the pronoun; --lang zh (default) or en; V and L come from the grammar\n"
           "  --task translate: English -> Chinese (i washed a big car at home yesterday . -> 我昨天在家洗了一辆大车。),\n"
           "    an encoder-decoder (2 layers) on one shared vocabulary, greedy decoding to 。; prints held-out BLEU\n"
           "  --gap G (induction): s, a random gap of 0..G symbols, s again (default G = L); --gap 0 is s s\n"
           "  --dropout P: P_drop in [0, 0.99] on each sublayer's output and on embeddings + PE in training steps\n"
           "    (inverted: kept values scaled by 1/(1-P); evaluation does not drop); default 0\n"
           "  --kv-heads N: K and V get N heads, each shared by heads / N query heads (grouped-query; 1 = multi-query);\n"
           "    N divides heads; 0 (default) = heads, plain multi-head attention\n"
           "  --position learned: a learned table pos_embedding.weight (max length x d_model) instead of the sinusoids\n"
           "  --target-exact A stops at the first evaluation whose held-out exact accuracy is at least A\n"
           "  --out DIR writes manifest.json, init/ final/ grad1/ (PyTorch state_dict names, float32 .npy),\n"
           "    batches/ (int64), loss.npy, lr.npy; --save final keeps manifest.json, final/, loss.npy, lr.npy\n";
}

namespace {

// A value as echoed in a message: cut like the other readers do.
std::string shown(const std::string& v) { return shown_value(v); }

// The flag a validation message's parameter comes from: its row's flag (d_model -> --d-model).
std::string flag_of(const std::string& param) {
    const ConfigKey* k = train_keys().find(param);
    return k && *k->cli_flag ? k->cli_flag : param;
}

// The flags that are not knobs: where the checkpoint goes and how much is printed.
void read_other_flag(const std::vector<std::string>& args, size_t* i, TrainCliParse& p) {
    const std::string& flag = args[*i];
    auto value = [&](std::string* v) {
        if (*i + 1 >= args.size()) return p.errors.push_back({flag, Msg(Str::cli_needs_value, flag)}), false;
        *v = args[++*i];
        return true;
    };
    std::string v;
    if (flag == "--quiet") {
        p.options.quiet = true;
    } else if (flag == "--out") {
        if (value(&v)) p.options.out_dir = v;
    } else if (flag == "--save") {
        if (!value(&v)) return;
        if (v != "all" && v != "final") p.errors.push_back({flag, Msg(Str::cli_not_one_of, flag, shown(v), Str::cli_expect_save)});
        p.options.save_all = v != "final";
    } else if (flag == "--help" || flag == "-h") {
        p.help = true;
    } else if (flag.empty()) {
        p.errors.push_back({"argument", Str::cli_empty_argument});
    } else {
        p.errors.push_back({flag, Msg(Str::cli_unknown_option, shown(flag))});
    }
}

// What needs every flag first: validation, then whether --out can take the checkpoint.
void check_run(TrainCliParse& p) {
    const TrainConfig r = resolve_train_config(p.options.config);
    const std::string grammar = r.task == TaskKind::Coref ? std::string("coref ") + coref_lang_name(r.lang) : task_name(r.task);
    for (const char* fixed_key : {"vocab", "length"}) {  // coref's and translate's come from their grammar
        const ConfigKey* k = train_keys().find(fixed_key);
        if (task_spec(r).grammar() && k->get(&p.options.config) != 0)
            p.errors.push_back({k->cli_flag, Msg(Str::train_coref_fixed, fixed_key, grammar, r.vocab, r.length)});
    }
    for (const ConfigError& e : validate_train_config(r)) p.errors.push_back({flag_of(e.param), e.message});
    if (p.options.out_dir.empty()) return;
    const Msg problem = checkpoint_dir_problem(p.options.out_dir);
    if (!problem.empty()) p.errors.push_back({"--out", problem});
    const double tokens = static_cast<double>(r.steps) * r.batch * (2.0 * r.length);
    if (p.options.save_all && tokens > 16e6) p.errors.push_back({"--steps", Str::cli_save_all_too_big});
}

}  // namespace

TrainCliParse parse_train_cli(const std::vector<std::string>& args) {
    TrainCliParse p;
    KeyFlags knobs(train_keys().rows);
    for (size_t i = 0; i < args.size(); ++i)
        if (!knobs.read(args, &i, &p.options.config, &p.errors)) read_other_flag(args, &i, p);
    if (p.errors.empty() && !p.help) check_run(p);
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
        << model_kind_label(m.kind) << " N=" << c.layers
        << " d_model=" << c.d_model << " h=" << c.heads << " d_ff=" << c.d_ff << " V=" << c.vocab << " L=" << c.length << (c.task == TaskKind::Induction ? " gap=" + std::to_string(c.gap) : std::string())
        << (c.task == TaskKind::Coref ? std::string(" lang=") + coref_lang_name(c.lang) : std::string())
        << " B=" << c.batch << " params=" << t.layout().total << " scale=" << (c.scale ? "on" : "off")
        << " pe=" << (c.pe ? (c.position == PositionKind::Learned ? "learned" : "on") : "off")
        << " bias=" << (c.bias ? "on" : "off") << " label_smoothing=" << c.label_smoothing
        << (c.dropout > 0 ? " dropout=" + fixed(c.dropout, 3) : std::string()) << " lr=" << lr_schedule_name(c.lr.schedule) << ":";
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
                << (e.bleu >= 0 ? "  BLEU " + fixed(e.bleu, 2) : std::string()) << "  steps/s " << fixed(window_steps / (window_ms / 1000.0), 1) << "\n";
            window_ms = 0, window_steps = 0;
        }
    }
    const EvalReport last = t.evals().empty() ? EvalReport{} : t.evals().back();
    out << "done: " << t.steps_done() << " steps in " << fixed(train_ms / 1000.0, 3) << " s training ("
        << fixed(t.steps_done() / (train_ms / 1000.0), 1) << " steps/s) + " << fixed(eval_ms / 1000.0, 3)
        << " s evaluation; held-out exact acc " << fixed(last.exact_accuracy, 4) << ", token acc "
        << fixed(last.token_accuracy, 4) << (last.bleu >= 0 ? ", BLEU " + fixed(last.bleu, 2) : std::string()) << "\n";
    int code = 0;
    if (t.stop().cause != StopCause::None) {
        err << "attnlab: train: " << render(t.stop().message, Lang::En) << "\n";
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
