// main.cpp — Attention Lab CLI entry point: `attnlab trace ...` (cli.h), `attnlab bench` (bench.h).
#include <cstdlib>  // defines __GLIBC__ on glibc
#include <iostream>
#include <string>
#include <vector>

#include "cli/bench.h"
#include "cli/cli.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

int main(int argc, char** argv) {
#if defined(__GLIBC__)
    // A trace at seq_len 512 holds tensors of 8 MB. glibc serves blocks that large with
    // mmap and gives freed heap tops back to the system, so each new trace would fault
    // its pages in again (a third of a fresh trace's time). Keep freed memory for reuse,
    // as a long-running process (PyTorch's, the page's wasm heap) does anyway.
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
#endif
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (!args.empty() && args[0] == "bench")
        return lab::run_bench(std::vector<std::string>(args.begin() + 1, args.end()), "native", std::cout, std::cerr);
    return lab::run_cli(args, std::cout, std::cerr);
}
