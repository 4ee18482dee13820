// model_json.h — Attention Lab interop: a model trace (model_trace/block_trace.h) as JSON and as
// a dump folder: the block's four stages in the form of stages_json, the backward view's
// loss and checks, and every tensor with its gradient as .npy for PyTorch.
//
//   dump: <name>.npy per forward tensor, d_<name>.npy per gradient, manifest.json
//         {"config": {...the attention's}, "model": {...what was traced}, "tensors": [...], "grads": [...]}
#pragma once
#include <string>

#include "interop/json_export.h"
#include "model_trace/block_trace.h"

namespace lab {

// [{"id", "index", "title", "steps", "checks"}] for embed, add_norm, ffn, generator; index
// continues after the ten attention stages (10 … 13).
Json block_stages_json(const ModelTrace& m, Lang lang);
// {"loss_kind": "cross_entropy"|"probe", "loss", "tensors": ["d_q", ...], "checks": {"softmax": [...], ...}}
Json backward_json(const GradTrace& g, Lang lang);
bool write_model_dump(const std::string& dir, const ModelTrace& m, const Json& model_info, std::string* error);

}  // namespace lab
