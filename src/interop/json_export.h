// json_export.h — Attention Lab interop: the lab's data as JSON (nlohmann-json, built
// without exceptions): the configuration (one member per key of attention/config_keys.h), the
// stages with their shape steps and checks in a language, manifest.json and the dump
// folder (.npy per tensor plus manifest.json) that PyTorch and NumPy read.
//
// JSON lives here, not in the core: the core stays Eigen + std.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "attention/config.h"
#include "attention/config_keys.h"
#include "trace/trace.h"

namespace lab {

using Json = nlohmann::ordered_json;  // members in the order they are written

// JSON text. A string that is not UTF-8 (a key of a garbled link, echoed in a note) gets
// U+FFFD for its bad bytes, as a browser reading it would, instead of stopping the writer.
std::string json_text(const Json& j, int indent = -1);

// A number as the lab prints it: 9 significant digits, enough for every float32 to read
// back bit for bit; NaN and infinities become null (JSON has neither).
Json json_number(double v);

// Every written key of the table's rows: {"d_model": 8, "heads": 2, ...}.
Json keys_json(const std::vector<ConfigKey>& rows, const void* config);
template <class C>
Json config_json_value(const KeyTable<C>& keys, const C& c) { return keys_json(keys.rows, &c); }
inline Json config_json_value(const AttentionConfig& c) { return config_json_value(attention_keys(), c); }
std::string config_json(const AttentionConfig& c);

// [{"id", "index", "title", "steps": [{"op", "shape", "dims"}], "checks": [{"id", "label", "pass", "detail"}]}]
Json stages_json(const Trace& trace, Lang lang);
Json steps_json(const std::vector<ShapeStep>& steps, Lang lang);       // the "steps" of one stage
Json checks_json(const std::vector<InvariantCheck>& checks, Lang lang); // the "checks" of one stage
// {"name", "file", "shape", "dims"} per tensor, with the config: manifest.json's text.
std::string manifest_json(const Trace& trace);
// Creates dir if needed; on failure returns false with the reason in *error.
bool write_dump(const std::string& dir, const Trace& trace, std::string* error);

}  // namespace lab
