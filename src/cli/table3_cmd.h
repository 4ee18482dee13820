// table3_cmd.h — Attention Lab CLI: `attnlab table3`, the paper's Table 3 re-run in miniature on
// the translate task (train/table3.h): every row × seed trained (on threads natively), the table
// printed with the paper's figures and a verdict per row, and optionally written as CSV.
//
//   attnlab table3 [--steps N] [--seeds K] [--eval-size N] [--rows base,A1,...] [--threads T] [--csv FILE]
#pragma once
#include <iosfwd>
#include <string>
#include <vector>

#include "attention/config.h"

namespace lab {

std::string table3_usage();
std::vector<ConfigError> parse_table3_cli(const std::vector<std::string>& args);  // each names its flag
// Exit code: 0 every model trained to finite figures, 1 a model stopped non-finite or the CSV
// could not be written, 2 bad usage.
int run_table3_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace lab
