// exports.cpp — Attention Lab interop: tensors and traces as CSV / JSON text, and
// the file names they are saved under. Numbers are printed with %.9g, which is
// enough digits for every float32 to read back bit for bit.
#include "interop/exports.h"

#include <cmath>
#include <cstdio>

#include "interop/json_export.h"

namespace lab {

namespace {

void append_float(std::string& out, float v, const char* nan, const char* pos_inf, const char* neg_inf) {
    if (std::isnan(v)) {
        out += nan;
        return;
    }
    if (std::isinf(v)) {
        out += v > 0 ? pos_inf : neg_inf;
        return;
    }
    char buf[32];
    const int n = std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
    out.append(buf, static_cast<size_t>(n));
}

// Nested JSON arrays for dims [axis, rank) starting at flat offset `at`.
Json nested(const Tensor& t, size_t axis, size_t at, size_t stride) {
    const int n = t.shape[axis];
    Json out = Json::array();
    const size_t inner = stride / static_cast<size_t>(n);
    for (int k = 0; k < n; ++k)
        out.push_back(axis + 1 == t.shape.size() ? json_number(t.data[at + k]) : nested(t, axis + 1, at + k * inner, inner));
    return out;
}

}  // namespace

std::string tensor_csv(const Tensor& t) {
    std::string out = "# " + t.name + " " + shape_named(t) + "\n";
    const size_t rank = t.shape.size();
    if (rank == 0 || t.data.empty()) return out;
    const int last = t.shape[rank - 1];
    const std::string last_dim = t.dims.size() == rank ? t.dims[rank - 1] : "d";
    // Header: one column per leading index, then one per position along the last axis.
    for (size_t a = 0; a + 1 < rank; ++a) out += (t.dims.size() == rank ? t.dims[a] : "i" + std::to_string(a)) + ",";
    for (int k = 0; k < last; ++k) out += (k ? "," : "") + last_dim + "[" + std::to_string(k) + "]";
    out += "\n";
    out.reserve(out.size() + t.data.size() * 14);
    const size_t rows = t.data.size() / static_cast<size_t>(last);
    std::vector<int> index(rank > 0 ? rank - 1 : 0, 0);
    for (size_t r = 0; r < rows; ++r) {
        for (int i : index) out += std::to_string(i) + ",";
        for (int k = 0; k < last; ++k) {
            if (k) out += ',';
            append_float(out, t.data[r * last + k], "nan", "inf", "-inf");
        }
        out += '\n';
        for (int a = static_cast<int>(index.size()) - 1; a >= 0; --a) {  // odometer over the leading dims
            if (++index[a] < t.shape[a]) break;
            index[a] = 0;
        }
    }
    return out;
}

namespace {

Json tensor_json_value(const Tensor& t) {
    Json data;
    if (t.shape.empty()) data = json_number(t.data.empty() ? 0.0f : t.data[0]);
    else if (t.data.empty()) data = Json::array();
    else data = nested(t, 0, 0, t.data.size());
    return {{"name", t.name}, {"shape", t.shape}, {"dims", t.dims}, {"data", data}};
}

}  // namespace

std::string tensor_json(const Tensor& t) { return json_text(tensor_json_value(t)); }

std::string trace_json(const Trace& trace, Lang lang) {
    Json tensors = Json::array();
    for (const Tensor& t : trace.tensors) tensors.push_back(tensor_json_value(t));
    const Json out = {{"config", config_json_value(trace.config)},
                      {"stages", stages_json(trace, lang)},
                      {"fully_masked_rows", trace.fully_masked_rows},
                      {"tensors", tensors}};
    return json_text(out);
}

std::string export_file_name(const AttentionConfig& c, const std::string& what, const std::string& ext) {
    std::string name = "attn_d" + std::to_string(c.d_model) + "_h" + std::to_string(c.heads) + "_L" + std::to_string(c.L_q());
    if (c.L_kv() != c.L_q()) name += "x" + std::to_string(c.L_kv());
    name += "_B" + std::to_string(c.batch) + "_" + mask_kind_name(c.mask);
    if (c.masks_keys() && c.mask_fill == MaskFill::NegBillion) name += "1e9";
    if (c.cross) name += "_cross";
    if (!c.scale) name += "_noscale";
    if (!c.pe) name += "_nope";
    if (!c.bias) name += "_nobias";
    name += "_s" + std::to_string(c.seed);
    // Only characters that are safe in every file system and shell.
    std::string tail;
    for (char ch : what) {
        const bool safe = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' || ch == '-';
        tail += safe ? ch : '_';
    }
    if (!tail.empty()) name += "_" + tail;
    const std::string e = !ext.empty() && ext[0] == '.' ? ext.substr(1) : ext;
    return e.empty() ? name : name + "." + e;
}

}  // namespace lab
