// bench.cpp — Attention Lab benchmark (see bench.h).
#include "cli/bench.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ostream>

#include "cli/cli.h"
#include "interop/json_export.h"
#include "trace/cost_model.h"
#include "trace/trace.h"
#include "train/kv_cache.h"
#include "train/trainer.h"

#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>
#include <emscripten/heap.h>
#else
#include <ctime>
#include <fstream>
#include <string>

#include <sys/resource.h>
#endif

namespace lab {

namespace {

#ifdef __EMSCRIPTEN__
// The process's CPU time under Node (every thread of it: the compute runs on one), NaN elsewhere.
EM_JS(double, js_cpu_ms, (), {
    if (typeof process === "object" && process.cpuUsage) {
        const u = process.cpuUsage();
        return (u.user + u.system) / 1000;
    }
    return NaN;
});
#endif

double peak_memory_mb() {
#ifdef __EMSCRIPTEN__
    return emscripten_get_heap_size() / (1024.0 * 1024.0);  // wasm memory only grows: its size is the peak
#else
    // VmHWM is this program's own peak; getrusage's ru_maxrss would carry over the peak of
    // the process that started it (Linux keeps it across exec), e.g. a Python with torch loaded.
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("VmHWM:", 0) == 0) return std::atof(line.c_str() + 6) / 1024.0;  // kB
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss / 1024.0;  // kilobytes on Linux
#endif
}

// CPU milliseconds this process has used: on a machine shared with other work, the time
// the computation itself took (wall time also counts the waits for a core).
double cpu_ms() {
#ifdef __EMSCRIPTEN__
    return js_cpu_ms();
#else
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
#endif
}

struct Summary {
    double median = 0, p10 = 0, p90 = 0, min = 0;
};

Summary summarize(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    auto at = [&](double q) { return v[static_cast<size_t>(q * (v.size() - 1) + 0.5)]; };
    return {at(0.5), at(0.1), at(0.9), v.front()};
}

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

AttentionConfig make(int B, int L, int d, int h, MaskKind mask) {
    AttentionConfig c;
    c.batch = B, c.seq_len = L, c.d_model = d, c.heads = h, c.mask = mask;
    return c;
}

}  // namespace

std::vector<BenchCase> default_bench_cases() {
    return {{"B1_L512_d512_h8_causal", make(1, 512, 512, 8, MaskKind::Causal)},
            {"B2_L10_d512_h8_causal", make(2, 10, 512, 8, MaskKind::Causal)},
            {"B2_L4_d8_h2_causal", make(2, 4, 8, 2, MaskKind::Causal)}};
}

namespace {

struct CaseResult {
    int repeats = 0;
    Summary trace, trace_cpu, recompute, recompute_cpu;
    double checks_ms = 0;
    std::vector<Summary> stages;
    double compute_ms = 0, flops = 0, gflops = 0, memory_mb = 0;
};

CaseResult measure(const AttentionConfig& c, int repeats_option) {
    CaseResult r;
    const AttentionInputs in = make_inputs(c);
    const AttentionWeights wts = make_weights(c);
    r.flops = total_cost(c).flops;
    r.repeats = repeats_option > 0 ? repeats_option : (r.flops > 1e8 ? 15 : r.flops > 1e6 ? 200 : 2000);
    run_trace(c, in, wts);  // warm-up: first-touch page faults, caches
    std::vector<double> total, in_place, cpu;
    std::vector<std::vector<double>> stage(kStageCount);
    for (int i = 0; i < r.repeats; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        const double c0 = cpu_ms();
        {
            const Trace tr = run_trace(c, in, wts);
            for (int s = 0; s < kStageCount; ++s) stage[s].push_back(tr.stage_ms[s]);
        }  // freed inside the timing, as a caller's trace is
        cpu.push_back(cpu_ms() - c0);
        total.push_back(ms_since(t0));
    }
    Trace kept = run_trace(c, in, wts);  // the page's knob change: the same sizes, buffers reused
    std::vector<double> in_place_cpu;
    for (int i = 0; i < r.repeats; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        const double c0 = cpu_ms();
        run_trace(kept, c, in, wts);
        in_place_cpu.push_back(cpu_ms() - c0);
        in_place.push_back(ms_since(t0));
    }
    r.trace = summarize(total);
    r.trace_cpu = summarize(cpu);
    r.recompute = summarize(in_place);
    r.recompute_cpu = summarize(in_place_cpu);
    r.checks_ms = kept.checks_ms;
    for (int s = 0; s < kStageCount; ++s) r.stages.push_back(summarize(stage[s])), r.compute_ms += r.stages[s].median;
    r.gflops = r.flops / (r.compute_ms * 1e6);
    r.memory_mb = peak_memory_mb();
    return r;
}

Json case_json(const BenchCase& bc, const CaseResult& r) {
    Json stages = Json::object();
    for (int s = 0; s < kStageCount; ++s)
        stages[stage_infos()[s].key] = {{"median", json_number(r.stages[s].median)}, {"p90", json_number(r.stages[s].p90)}};
    const Summary& t = r.trace;
    return {{"name", bc.name},
            {"repeats", r.repeats},
            {"trace_ms", {{"median", json_number(t.median)}, {"p10", json_number(t.p10)}, {"p90", json_number(t.p90)}, {"min", json_number(t.min)}}},
            {"trace_cpu_ms", {{"median", json_number(r.trace_cpu.median)}, {"p90", json_number(r.trace_cpu.p90)}}},
            {"recompute_ms", {{"median", json_number(r.recompute.median)}, {"p90", json_number(r.recompute.p90)}}},
            {"recompute_cpu_ms", {{"median", json_number(r.recompute_cpu.median)}}},
            {"checks_ms", json_number(r.checks_ms)},
            {"compute_ms", json_number(r.compute_ms)},
            {"gflops", json_number(r.gflops)},
            {"flops", json_number(r.flops)},
            {"peak_memory_mb", json_number(r.memory_mb)},
            {"stages", stages}};
}

void print_case(const BenchCase& bc, const CaseResult& r, std::ostream& out) {
    char line[512];
    std::snprintf(line, sizeof line,
                  "\n%s  (%d repeats)\n  full trace  median %.3f ms  p10 %.3f  p90 %.3f  min %.3f   CPU time median %.3f ms\n"
                  "  in place    median %.3f ms  p90 %.3f   CPU time median %.3f ms  (a knob change: the buffers reused)\n"
                  "  compute     %.3f ms  %.2f GFLOPS  (%.3g FLOPs)   checks %.3f ms   peak memory %.1f MB\n",
                  bc.name.c_str(), r.repeats, r.trace.median, r.trace.p10, r.trace.p90, r.trace.min, r.trace_cpu.median, r.recompute.median,
                  r.recompute.p90, r.recompute_cpu.median, r.compute_ms, r.gflops, r.flops, r.checks_ms, r.memory_mb);
    out << line;
    for (int s = 0; s < kStageCount; ++s) {
        std::snprintf(line, sizeof line, "    %-12s median %9.4f ms   p90 %9.4f ms\n", stage_infos()[s].key,
                      r.stages[s].median, r.stages[s].p90);
        out << line;
    }
}

// Training at the CLI's defaults for the reverse task, evaluated once at the end: steps
// per second and peak memory. Run before the trace cases, so the peak is training's own.
struct TrainResult {
    int steps = 0;
    double steps_per_s = 0, memory_mb = 0;
};

TrainResult measure_training(int steps) {
    TrainConfig c;
    c.task = TaskKind::Reverse, c.steps = steps, c.eval_every = steps;
    Trainer t;
    std::vector<ConfigError> errors;
    TrainResult r;
    if (!t.init(c, &errors)) return r;
    const auto t0 = std::chrono::steady_clock::now();
    r.steps = t.step(steps);
    r.steps_per_s = r.steps / (ms_since(t0) / 1000.0);
    r.memory_mb = peak_memory_mb();
    return r;
}

// Decoding t = 512 tokens of a random decoder-only model (N 2, h 4, d_model 64, d_ff 128)
// token by token, with the KV cache and with the full causal recompute at every step
// (train/kv_cache.h): milliseconds each and the speed-up; the last step (t = 511, a cache of
// 512 positions) alone as well.
struct DecodeResult {
    int tokens = 0;
    double cached_ms = 0, recompute_ms = 0, last_cached_ms = 0, last_recompute_ms = 0;
};

DecodeResult measure_decode(int tokens) {
    ModelShape m;
    m.kind = ModelKind::DecoderOnly, m.layers = 2, m.heads = 4, m.d_model = 64, m.d_ff = 128;
    m.vocab_size = 17, m.vocab_out = 16, m.dec_len = tokens;
    const ModelLayout layout = make_layout(m);
    std::vector<float> params(layout.total);
    init_params(params.data(), layout, 1);
    std::vector<int32_t> prompt(static_cast<size_t>(tokens), 0);
    for (int i = 0; i < tokens; ++i) prompt[static_cast<size_t>(i)] = i % 16;
    DecodeOptions o;
    o.check = false;
    DecodeResult r;
    DecodeRun run = kv_decode(layout, params.data(), {}, prompt, tokens - 1, tokens, o);
    r.tokens = static_cast<int>(run.steps.size());
    r.cached_ms = run.total_ms, r.last_cached_ms = run.steps.empty() ? 0 : run.steps.back().ms;
    o.cache = false;
    run = kv_decode(layout, params.data(), {}, prompt, tokens - 1, tokens, o);
    r.recompute_ms = run.total_ms, r.last_recompute_ms = run.steps.empty() ? 0 : run.steps.back().ms;
    return r;
}

void print_decode(const DecodeResult& d, std::ostream& out) {
    char line[320];
    std::snprintf(line, sizeof line,
                  "decoding %d tokens (decoder-only, N 2, h 4, d_model 64): KV cache %.1f ms, full recompute each step "
                  "%.1f ms, speed-up %.1fx; the step at t = %d alone: %.3f ms vs %.3f ms (%.1fx)\n",
                  d.tokens, d.cached_ms, d.recompute_ms, d.cached_ms > 0 ? d.recompute_ms / d.cached_ms : 0.0, d.tokens - 1,
                  d.last_cached_ms, d.last_recompute_ms, d.last_cached_ms > 0 ? d.last_recompute_ms / d.last_cached_ms : 0.0);
    out << line;
}

}  // namespace

int run_bench(const std::vector<std::string>& args, const std::string& build, std::ostream& out, std::ostream& err) {
    BenchOptions opt;
    opt.build = build;
    for (size_t i = 0; i < args.size(); ++i) {
        long long n = 0;
        if (args[i] == "--json") {
            opt.json = true;
        } else if (args[i] == "--repeats" && i + 1 < args.size() && parse_whole(args[i + 1], 1, 100000, &n)) {
            opt.repeats = static_cast<int>(n), ++i;
        } else if (args[i] == "--repeats") {  // 0 included: it would mean "each case's default"
            const std::string v = i + 1 < args.size() ? shown_value(args[i + 1]) : "";
            err << "attnlab bench: --repeats '" << v << "' is not a whole number in [1, 100000] (leave --repeats out "
                << "for each case's default)\n";
            return 2;
        } else {
            err << "attnlab bench: unknown option '" << shown_value(args[i]) << "' (options: --repeats N, --json)\n";
            return 2;
        }
    }
    Json cases = Json::array();
    const TrainResult train = measure_training(200);
    const DecodeResult decode = measure_decode(512);
    if (!opt.json) {
        print_decode(decode, out);
        char line[200];
        std::snprintf(line, sizeof line,
                      "training (reverse, CLI defaults, %d steps incl. one evaluation): %.1f steps/s, peak memory %.1f MB\n",
                      train.steps, train.steps_per_s, train.memory_mb);
        out << line;
        out << "attention benchmark (" << build << "): full trace = inputs, weights excluded; per-stage times exclude checks;"
            << " peak memory = " << (build == "wasm" ? "the wasm heap's size" : "peak RSS") << " so far\n";
    }
    for (const BenchCase& bc : default_bench_cases()) {
        const CaseResult r = measure(bc.config, opt.repeats);
        if (opt.json) cases.push_back(case_json(bc, r));
        else print_case(bc, r, out);
    }
    const Json training = {{"steps", train.steps}, {"steps_per_s", json_number(train.steps_per_s)},
                           {"peak_memory_mb", json_number(train.memory_mb)}};
    const Json decoding = {{"tokens", decode.tokens}, {"cached_ms", json_number(decode.cached_ms)},
                           {"recompute_ms", json_number(decode.recompute_ms)},
                           {"last_step_cached_ms", json_number(decode.last_cached_ms)},
                           {"last_step_recompute_ms", json_number(decode.last_recompute_ms)}};
    if (opt.json)
        out << json_text(Json{{"build", build}, {"training", training}, {"decode", decoding}, {"cases", cases}}) << "\n";
    return 0;
}

}  // namespace lab
