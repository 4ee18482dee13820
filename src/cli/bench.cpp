// bench.cpp — Attention Lab benchmark (see bench.h).
#include "bench.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ostream>

#include "../core/cost_model.h"
#include "../core/json_writer.h"
#include "../core/trace.h"

#ifdef __EMSCRIPTEN__
#include <emscripten/heap.h>
#else
#include <sys/resource.h>
#endif

namespace lab {

namespace {

double peak_memory_mb() {
#ifdef __EMSCRIPTEN__
    return emscripten_get_heap_size() / (1024.0 * 1024.0);  // wasm memory only grows: its size is the peak
#else
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss / 1024.0;  // kilobytes on Linux
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

int run_bench(const std::vector<std::string>& args, const std::string& build, std::ostream& out, std::ostream& err) {
    BenchOptions opt;
    opt.build = build;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--json") opt.json = true;
        else if (args[i] == "--repeats" && i + 1 < args.size()) opt.repeats = std::atoi(args[++i].c_str());
        else {
            err << "attnlab bench: unknown option '" << args[i] << "' (options: --repeats N, --json)\n";
            return 2;
        }
    }
    if (opt.repeats < 0 || opt.repeats > 100000) {
        err << "attnlab bench: --repeats must be between 1 and 100000\n";
        return 2;
    }
    JsonWriter w;
    w.begin_object().key("build").value(build).key("cases").begin_array();
    if (!opt.json)
        out << "attention benchmark (" << build << "): full trace = inputs, weights excluded; per-stage times exclude checks\n";
    for (const BenchCase& bc : default_bench_cases()) {
        const AttentionConfig& c = bc.config;
        const AttentionInputs in = make_inputs(c);
        const AttentionWeights wts = make_weights(c);
        const double flops = total_cost(c).flops;
        const int repeats = opt.repeats > 0 ? opt.repeats : (flops > 1e8 ? 15 : flops > 1e6 ? 200 : 2000);
        run_trace(c, in, wts);  // warm-up: first-touch page faults, caches
        std::vector<double> total;
        std::vector<std::vector<double>> stage(kStageCount);
        for (int r = 0; r < repeats; ++r) {
            const auto t0 = std::chrono::steady_clock::now();
            const Trace tr = run_trace(c, in, wts);
            total.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
            for (int s = 0; s < kStageCount; ++s) stage[s].push_back(tr.stage_ms[s]);
        }
        const Summary t = summarize(total);
        double compute_ms = 0;
        std::vector<Summary> per(kStageCount);
        for (int s = 0; s < kStageCount; ++s) per[s] = summarize(stage[s]), compute_ms += per[s].median;
        const double gflops = flops / (compute_ms * 1e6);
        const double mem = peak_memory_mb();
        if (opt.json) {
            w.begin_object().key("name").value(bc.name).key("repeats").value(repeats);
            w.key("trace_ms").begin_object().key("median").value(t.median).key("p10").value(t.p10).key("p90").value(t.p90).key("min").value(t.min).end_object();
            w.key("compute_ms").value(compute_ms).key("gflops").value(gflops).key("flops").value(flops);
            w.key("peak_memory_mb").value(mem);
            w.key("stages").begin_object();
            for (int s = 0; s < kStageCount; ++s)
                w.key(stage_infos()[s].key).begin_object().key("median").value(per[s].median).key("p90").value(per[s].p90).end_object();
            w.end_object().end_object();
        } else {
            char line[256];
            std::snprintf(line, sizeof line,
                          "\n%s  (%d repeats)\n  full trace  median %.3f ms  p10 %.3f  p90 %.3f  min %.3f\n"
                          "  compute     %.3f ms  %.2f GFLOPS  (%.3g FLOPs)   peak memory %.1f MB\n",
                          bc.name.c_str(), repeats, t.median, t.p10, t.p90, t.min, compute_ms, gflops, flops, mem);
            out << line;
            for (int s = 0; s < kStageCount; ++s) {
                std::snprintf(line, sizeof line, "    %-12s median %9.4f ms   p90 %9.4f ms\n", stage_infos()[s].key,
                              per[s].median, per[s].p90);
                out << line;
            }
        }
    }
    w.end_array().end_object();
    if (opt.json) out << w.str() << "\n";
    return 0;
}

}  // namespace lab
