// main.cpp — Attention Lab CLI entry point: `attnlab trace ...` (cli.h), `attnlab bench` (bench.h).
#include <iostream>
#include <string>
#include <vector>

#include "bench.h"
#include "cli.h"

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (!args.empty() && args[0] == "bench")
        return lab::run_bench(std::vector<std::string>(args.begin() + 1, args.end()), "native", std::cout, std::cerr);
    return lab::run_cli(args, std::cout, std::cerr);
}
