// cli.h — Attention Lab CLI `attnlab`: argument parsing and the commands, as a
// library so the tests can call them with their own streams.
#pragma once
#include <iosfwd>
#include <string>
#include <vector>

#include "../core/config.h"

namespace lab {

struct CliOptions {
    std::string command;       // "trace" | "export-script" | "train" | "help" (train's own options: train_cmd.h)
    AttentionConfig config;
    std::string out_dir;       // trace --out DIR: write .npy + manifest.json
    std::string out_file;      // export-script --out FILE.py ("" = standard output)
    std::string format = "table";
    std::vector<std::string> config_files;  // --config FILE, in order (flags after one override it)
};

struct CliParse {
    CliOptions options;
    std::vector<ConfigError> errors;  // parse and validation errors, each naming its flag or parameter
    std::vector<std::string> notes;   // not errors: e.g. config-file keys the lab ignores
};

CliParse parse_cli(const std::vector<std::string>& args);  // args without the program name
std::string cli_usage();

// Runs a command; returns the process exit code (0 ok, 1 I/O failure, 2 bad usage or config).
int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace lab
