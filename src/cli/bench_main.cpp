// bench_main.cpp — the benchmark as its own program, for the wasm build under Node:
//   node --no-experimental-fetch build/web/lab_bench.js [--repeats N] [--json]
#include <iostream>
#include <string>
#include <vector>

#include "cli/bench.h"

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
#ifdef __EMSCRIPTEN__
    return lab::run_bench(args, "wasm", std::cout, std::cerr);
#else
    return lab::run_bench(args, "native", std::cout, std::cerr);
#endif
}
