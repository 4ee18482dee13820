// train_cmd.h — Attention Lab CLI: `attnlab train`, a training run from flags, with
// a line per evaluation and an optional checkpoint folder (interop/checkpoint.h).
//
// The knobs' flags are the rows of train_keys() (train/train_config.h), whose
// defaults are resolved there; this parser only reads text. Invalid input exits 2
// with a message naming the flag, as `trace` does (string-table messages, printed in
// English).
#pragma once
#include <iosfwd>
#include <string>
#include <vector>

#include "attention/config.h"
#include "train/train_config.h"

namespace lab {

struct TrainCliOptions {
    TrainConfig config;
    std::string out_dir;      // --out DIR
    bool save_all = true;     // --save all|final
    bool quiet = false;       // --quiet: only the final line
};

struct TrainCliParse {
    TrainCliOptions options;
    std::vector<ConfigError> errors;  // each names its flag
    bool help = false;                // --help or -h (errors, if any, come first)
};

TrainCliParse parse_train_cli(const std::vector<std::string>& args);  // the arguments after "train"
std::string train_usage();
// Exit code: 0 trained, 1 stopped on a non-finite loss/gradient or an I/O failure, 2 bad usage.
int run_train_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace lab
