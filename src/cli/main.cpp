// main.cpp — Attention Lab CLI entry point: `attnlab trace ...` (see cli.h).
#include <iostream>
#include <string>
#include <vector>

#include "cli.h"

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    return lab::run_cli(args, std::cout, std::cerr);
}
