// dump.h — Attention Lab core: a trace as JSON and as files — .npy per tensor plus
// manifest.json, the format the PyTorch checker (tests/torch/check_dump.py) and NumPy read.
#pragma once
#include <string>

#include "json_writer.h"
#include "trace.h"

namespace lab {

// The config as a JSON object, keys as in manifest.json ("d_model", "heads", ...).
void write_config(JsonWriter& w, const AttentionConfig& c);
std::string config_json(const AttentionConfig& c);
// Stages as a JSON array: id, title, shape steps (op, shape, dims), invariant checks.
void write_stages(JsonWriter& w, const Trace& trace);
// manifest.json's text: {"config": {...}, "tensors": [{"name", "file", "shape", "dims"}]}.
std::string manifest_json(const Trace& trace);
// Creates dir if needed; on failure returns false with the reason in *error.
bool write_dump(const std::string& dir, const Trace& trace, std::string* error);

}  // namespace lab
