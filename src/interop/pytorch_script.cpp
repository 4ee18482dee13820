// pytorch_script.cpp — Attention Lab interop: a standalone PyTorch script that
// reproduces a trace from the lab's own numbers and checks the result.
//
// The script is the Python template interop/pytorch_script.py (compiled in at build
// time, like the shaders), filled in here: the configuration, the flags its "#@if"
// lines test, and the numbers. What the seed gives (the inputs, the weights, the biases:
// make_inputs / make_weights) the script regenerates with the same generator and checks
// against the CRC-32 of the lab's float32 bytes; what it does not (typed tokens' rows,
// trained weights) is written out. The keep mask's recipe and the lab's weights and output
// are always written out, printed with %.9g (float32 round-trips exactly). At Paper base
// the script is about 0.2 MB instead of 16 MB.
#include <cmath>
#include <cstdio>
#include <functional>

#include <cstring>

#include "interop/exports.h"
#include "lab_text_templates.h"

namespace lab {

namespace {

void append_number(std::string& out, float v) {
    if (std::isnan(v)) out += "nan";
    else if (std::isinf(v)) out += v > 0 ? "inf" : "-inf";
    else {
        char buf[32];
        const int n = std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
        out.append(buf, static_cast<size_t>(n));
    }
}

// One line per vector of the last axis, wrapped at 8 values: "    a, b, c,\n".
std::string values_text(const Tensor& t) {
    std::string s;
    s.reserve(t.data.size() * 16);
    const int last = t.shape.empty() ? 1 : t.shape.back();
    for (size_t r = 0; r * last < t.data.size(); ++r)
        for (int k = 0; k < last; ++k) {
            s += k % 8 == 0 ? "    " : " ";
            append_number(s, t.data[r * last + k]);
            s += ',';
            if (k % 8 == 7 || k + 1 == last) s += '\n';
        }
    return s;
}

// CRC-32 (the zlib / PNG polynomial) of the tensor's float32 bytes, little-endian.
uint32_t crc32(const Tensor& t) {
    uint32_t crc = 0xFFFFFFFFu;
    for (float v : t.data) {
        uint32_t bits;
        std::memcpy(&bits, &v, sizeof bits);
        for (int byte = 0; byte < 4; ++byte) {
            crc ^= (bits >> (8 * byte)) & 0xFFu;
            for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
        }
    }
    return ~crc;
}

// Which of the trace's numbers the seed gives, so the script can regenerate them.
struct Regenerable {
    bool inputs = false, weights = false, biases = false;
};
Regenerable regenerable(const Trace& tr) {
    const AttentionConfig& c = tr.config;
    const AttentionInputs in = make_inputs(c);
    const AttentionWeights w = make_weights(c);
    Regenerable r;
    r.inputs = c.raw ? in.q.data == tr[TensorId::Q].data && in.k.data == tr[TensorId::K].data && in.v.data == tr[TensorId::V].data
                     : in.x.data == tr[TensorId::X].data && (!c.cross || in.memory.data == tr[TensorId::Memory].data);
    r.weights = w.w_q.data == tr[TensorId::WQ].data && w.w_k.data == tr[TensorId::WK].data &&
                w.w_v.data == tr[TensorId::WV].data && w.w_o.data == tr[TensorId::WO].data;
    r.biases = c.bias && w.b_q.data == tr[TensorId::BQ].data && w.b_k.data == tr[TensorId::BK].data &&
               w.b_v.data == tr[TensorId::BV].data && w.b_o.data == tr[TensorId::BO].data;
    return r;
}

std::string keep_rows_text(const AttentionConfig& c) {
    std::string s;
    for (int i = 0; i < c.L_q(); ++i) {
        s += "    [";
        for (int j = 0; j < c.L_kv(); ++j)
            s += (j ? ", " : "") + std::to_string(static_cast<int>(c.custom_keep[static_cast<size_t>(i) * c.L_kv() + j]));
        s += "],\n";
    }
    return s;
}

// The template's "#@if" flags for this configuration.
bool flag(const AttentionConfig& c, const Regenerable& regen, const std::string& name) {
    const bool inf = c.mask_fill == MaskFill::NegInf, none = !c.masks_keys();
    const bool padding = c.mask == MaskKind::Padding, shared = c.masks_keys() && !padding;
    if (name == "regen_inputs") return regen.inputs;
    if (name == "regen_weights") return regen.weights;
    if (name == "regen_biases") return regen.biases;
    if (name == "scale") return c.scale;
    if (name == "grouped") return c.grouped();
    if (name == "mha") return c.scale && !c.grouped();  // multi_head_attention_forward can check it
    if (name == "pe") return c.pe;
    if (name == "bias") return c.bias;
    if (name == "cross") return c.cross;
    if (name == "raw") return c.raw;
    if (name == "mask_none") return c.mask == MaskKind::None;  // the keep matrix starts as ones
    if (name == "no_mask") return none;                         // ... and nothing masks it (no window)
    if (name == "window") return c.window > 0;
    if (name == "window_causal") return c.mask == MaskKind::Causal;
    if (name == "prefix") return c.prefix > 0;
    if (name == "flash") return c.flash_tile.size() == 2;
    if (name == "mask_causal") return c.mask == MaskKind::Causal;
    if (name == "mask_padding") return padding;
    if (name == "mask_custom") return c.mask == MaskKind::Custom;
    if (name == "mask_shared") return shared;          // one (L_q, L_kv) mask for every item
    if (name == "inf_padding") return inf && padding;  // MHA's key_padding_mask
    if (name == "inf_padding_window") return inf && padding && c.window > 0;  // ... and the window as attn_mask
    if (name == "inf_shared") return inf && shared;    // MHA's boolean attn_mask
    if (name == "masked_1e9") return !inf && !none;    // MHA's float attn_mask
    return false;
}

// The value of a {{name}} for this trace.
std::string value(const Trace& tr, const std::string& name) {
    const AttentionConfig& c = tr.config;
    TensorId id;
    if (name.compare(0, 7, "values:") == 0 && tensor_id(name.substr(7), &id)) return values_text(tr[id]);
    if (name.compare(0, 4, "crc:") == 0 && tensor_id(name.substr(4), &id)) {
        char hex[16];
        std::snprintf(hex, sizeof hex, "0x%08x", crc32(tr[id]));
        return hex;
    }
    if (name == "keep_rows") return keep_rows_text(c);
    if (name == "lengths") {
        std::string s;
        for (size_t b = 0; b < c.padding_lengths.size(); ++b) s += (b ? ", " : "") + std::to_string(c.padding_lengths[b]);
        return s;
    }
    const std::pair<const char*, std::string> simple[] = {
        {"B", std::to_string(c.batch)},  {"L_q", std::to_string(c.L_q())},    {"L_kv", std::to_string(c.L_kv())},
        {"h", std::to_string(c.heads)},  {"d_model", std::to_string(c.d_model)}, {"d_k", std::to_string(c.d_k())},
        {"seed", std::to_string(c.seed)}, {"h_kv", std::to_string(c.h_kv())}, {"mask", mask_kind_name(c.mask)}, {"window", std::to_string(c.window)},
        {"prefix", std::to_string(c.prefix)},
        {"flash_rows", c.flash_tile.size() == 2 ? std::to_string(c.flash_tile[0]) : ""},
        {"flash_cols", c.flash_tile.size() == 2 ? std::to_string(c.flash_tile[1]) : ""},   {"fill", mask_fill_name(c.mask_fill)},
        {"scale", c.scale ? "on" : "off"}, {"pe", c.pe ? "on" : "off"},       {"bias", c.bias ? "on" : "off"},
    };
    for (const auto& [key, text] : simple)
        if (name == key) return text;
    return "{{" + name + "}}";
}

// Substitutes every {{name}} of one line.
std::string substitute(const std::string& line, const std::function<std::string(const std::string&)>& value_of) {
    std::string out;
    size_t at = 0;
    for (size_t open; (open = line.find("{{", at)) != std::string::npos;) {
        const size_t close = line.find("}}", open);
        if (close == std::string::npos) break;
        out += line.substr(at, open - at) + value_of(line.substr(open + 2, close - open - 2));
        at = close + 2;
    }
    return out + line.substr(at);
}

}  // namespace

// Fills a text template: "#@if NAME" / "#@else" / "#@end" lines keep or drop what they
// enclose (nested), other "#@" lines are the template's own comments, {{name}} becomes
// value_of(name).
std::string fill_template(const char* text, const std::function<bool(const std::string&)>& flag_of,
                          const std::function<std::string(const std::string&)>& value_of) {
    std::string out;
    std::vector<std::pair<bool, bool>> open;  // per #@if: (its branch is kept, the enclosing one is)
    bool keep = true;
    const std::string all = text;
    for (size_t start = 0; start < all.size();) {
        size_t end = all.find('\n', start);
        if (end == std::string::npos) end = all.size();
        const std::string line = all.substr(start, end - start);
        start = end + 1;
        if (line.compare(0, 5, "#@if ") == 0) {
            open.push_back({flag_of(line.substr(5)), keep});
            keep = keep && open.back().first;
        } else if (line == "#@else" && !open.empty()) {
            open.back().first = !open.back().first;
            keep = open.back().second && open.back().first;
        } else if (line == "#@end" && !open.empty()) {
            keep = open.back().second;
            open.pop_back();
        } else if (line.compare(0, 2, "#@") != 0 && keep) {
            out += substitute(line, value_of) + "\n";
        }
    }
    return out;
}

std::string pytorch_script(const Trace& trace) {
    const Regenerable regen = regenerable(trace);
    return fill_template(
        kText_pytorch_script, [&](const std::string& name) { return flag(trace.config, regen, name); },
        [&](const std::string& name) { return value(trace, name); });
}

}  // namespace lab
