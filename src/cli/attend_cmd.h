// attend_cmd.h — Attention Lab CLI: `attnlab attend`, a trained coref model reading a sentence
// (train/coref_probe.h): its answer and, for every layer and head, the weights from the
// pronoun (or --from) onto each token as print(attn[0, h][query]) shows them, plus the summed
// weight on each noun; with --scores, the held-out measurement of every head and the resolving one.
//
//   attnlab attend --checkpoint DIR --text "小猫追着球跑，它玩得很开心。" [--from TOKEN] [--part final|init] [--scores]
#pragma once
#include <iosfwd>
#include <string>
#include <vector>

#include "attention/config.h"

namespace lab {

std::string attend_usage();
// The flags' errors, each naming its flag (parse_cli reports them for `attnlab attend`).
std::vector<ConfigError> parse_attend_cli(const std::vector<std::string>& args);
// Exit code: 0 ok, 1 I/O failure, 2 bad usage, checkpoint or sentence (unknown tokens named).
int run_attend_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace lab
