// cli_run.h — test helper: runs `attnlab` in-process and captures its streams.
#pragma once
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"

struct CliRun {
    int code;
    std::string out, err;
};

inline CliRun run(const std::vector<std::string>& args) {
    std::ostringstream out, err;
    const int code = lab::run_cli(args, out, err);
    return {code, out.str(), err.str()};
}
