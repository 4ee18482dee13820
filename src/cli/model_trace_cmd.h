// model_trace_cmd.h — Attention Lab CLI: `attnlab trace --checkpoint DIR`, the stepper on
// a trained model (model_trace/block_trace.h): one attention of the checkpoint's model on a
// held-out sample, its ten stages and the block's four, their checks, and with --out
// every tensor and its gradient as .npy files for PyTorch (tests/torch/check_model_trace.py).
//
//   attnlab trace --checkpoint DIR [--part final|init] [--block N | --layer L --sublayer enc_self|dec_self|cross]
//                 [--sample I] [--format table|json] [--out DIR]
#pragma once
#include <iosfwd>
#include <string>
#include <vector>

#include "attention/config.h"

namespace lab {

struct ModelTraceOptions {
    std::string checkpoint;    // --checkpoint DIR
    std::string part = "final";
    int block = -1;            // --block N: index into the model's attentions (-1: from --layer/--sublayer)
    int layer = 0;
    std::string sublayer;      // "" = the model's first attention of --layer
    int sample = 0;            // --sample I: held-out sample
    std::string format = "table";
    std::string out_dir;
};

struct ModelTraceParse {
    ModelTraceOptions options;
    std::vector<ConfigError> errors;  // each names its flag
};

// Does a `trace` command line ask for a model (it names --checkpoint)?
bool is_model_trace(const std::vector<std::string>& args);
std::string model_trace_usage();
ModelTraceParse parse_model_trace_cli(const std::vector<std::string>& args);  // the arguments after "trace"
// Exit code: 0 ok, 1 I/O failure, 2 bad usage, checkpoint, block or sample.
int run_model_trace_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace lab
