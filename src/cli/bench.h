// bench.h — Attention Lab benchmark: median and spread of the full trace and of
// each stage for the measured shapes (default_bench_cases), GFLOPS from the cost
// model, peak memory.
// Runs natively (`attnlab bench`) and compiled to wasm under Node (lab_bench.js),
// so both builds print comparable figures. Figures only: nothing here passes or fails.
#pragma once
#include <iosfwd>
#include <string>
#include <vector>

#include "attention/config.h"

namespace lab {

struct BenchCase {
    std::string name;  // "B1_L512_d512_h8_causal"
    AttentionConfig config;
};

struct BenchOptions {
    int repeats = 0;    // 0 = default per case (more for small cases)
    bool json = false;  // one JSON object instead of a table
    std::string build;  // "native" | "wasm", printed with the figures
};

std::vector<BenchCase> default_bench_cases();
int run_bench(const std::vector<std::string>& args, const std::string& build, std::ostream& out, std::ostream& err);

}  // namespace lab
