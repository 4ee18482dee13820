// config.cpp — Attention Lab core: configuration validation.
#include "attention/config.h"

#include "attention/flash_attention.h"

#include <cmath>
#include <limits>
#include <sstream>


namespace lab {

std::vector<int> default_padding_lengths(int batch, int L_kv) {
    std::vector<int> lengths;
    for (int b = 0; b < batch; ++b) lengths.push_back(L_kv - 2 * b >= 1 ? L_kv - 2 * b : 1);
    return lengths;
}

std::vector<int> valid_heads(int d_model) {
    std::vector<int> out;
    for (int h = 1; h <= d_model; ++h)
        if (d_model % h == 0) out.push_back(h);
    return out;
}

double estimate_trace_bytes(const AttentionConfig& c) {
    const double B = c.batch, Lq = c.L_q(), Lkv = c.L_kv(), d = c.d_model, h = c.heads;
    const double kv = c.grouped() ? c.kv_dim() : 0;  // K, V's width, and their heads before the repeat
    const double activations = B * Lq * d * 8 + B * Lkv * (d * 8 + kv * 2);  // inputs, projections, heads, context, concat, output
    const double weights = 4 * d * d + 4 * d + (Lq > Lkv ? Lq : Lkv) * d;    // W, b, PE
    const double score_like = 4 * B * h * Lq * Lkv + B * Lq * Lkv;         // scores, scaled, masked, weights, mask
    return 4.0 * (activations + weights + score_like) + flash_record_bytes(c);
}

namespace {

std::string join(const std::vector<int>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s;
}

// "12.50 MiB", "384 MiB", "4.3 TiB": the unit that keeps the number readable.
std::string mib(double bytes) {
    const char* units[] = {"MiB", "GiB", "TiB", "PiB"};
    double v = bytes / (1024.0 * 1024.0);
    int u = 0;
    while (v >= 1024 && u < 3) v /= 1024, ++u;
    std::ostringstream os;
    os.precision(v < 10 ? 2 : 0);
    os << std::fixed << v << " " << units[u];
    return os.str();
}

void check_range(std::vector<ConfigError>& errors, const char* param, int value, int hi, Str what) {
    if (value < 1)
        errors.push_back({param, Msg(Str::cfg_too_small, param, value, what)});
    else if (value > hi)
        errors.push_back({param, Msg(Str::cfg_too_large, param, value, hi, what)});
}

// Raw SDPA has no x, no projections and no head axis: the knobs that act on them must be
// off, each refusal naming its knob (a link or file that says raw=1 and heads=8 is a mistake
// to show, not to repair silently).
void check_raw(std::vector<ConfigError>& errors, const AttentionConfig& c) {
    if (!c.raw) return;
    if (c.heads != 1) errors.push_back({"heads", Msg(Str::cfg_raw_heads, c.heads)});
    if (c.pe) errors.push_back({"pe", Msg(Str::cfg_raw_pe)});
    if (c.bias) errors.push_back({"bias", Msg(Str::cfg_raw_bias)});
    if (c.cross) errors.push_back({"cross", Msg(Str::cfg_raw_cross)});
}

// The window and the prefix compose with the mask kinds (attention/attention.h: masked_by): a
// custom mask already names every cell, and a prefix-LM is a causal mask.
void check_window(std::vector<ConfigError>& errors, const AttentionConfig& c, const ConfigLimits& limits) {
    if (c.window < 0 || c.window > limits.max_len)
        errors.push_back({"window", Msg(Str::cfg_window_range, c.window, limits.max_len)});
    else if (c.window > 0 && c.mask == MaskKind::Custom)
        errors.push_back({"window", Msg(Str::cfg_window_custom, c.window)});
    if (c.prefix < 0 || c.prefix > c.L_kv())
        errors.push_back({"prefix", Msg(Str::cfg_prefix_range, c.prefix, c.L_kv())});
    else if (c.prefix > 0 && c.mask != MaskKind::Causal)
        errors.push_back({"prefix", Msg(Str::cfg_prefix_causal, c.prefix, mask_kind_name(c.mask))});
}

// Grouped-query attention: h_kv key/value heads, each shared by h / h_kv query heads.
void check_kv_heads(std::vector<ConfigError>& errors, const AttentionConfig& c) {
    if (!check_kv_heads_divide(errors, c.kv_heads, c.heads)) return;
    if (c.raw && c.grouped()) errors.push_back({"kv_heads", Msg(Str::cfg_raw_kv_heads, c.kv_heads)});
}

// FlashAttention's tiles: a query tile of B_r rows and a key tile of B_c keys, each at least 1
// and at most the length it cuts.
void check_flash_tile(std::vector<ConfigError>& errors, const AttentionConfig& c) {
    const std::vector<int>& t = c.flash_tile;
    if (t.empty()) return;
    if (t.size() != 2) errors.push_back({"flash_tile", Msg(Str::cfg_flash_tile_count, t.size())});
    else if (t[0] < 1 || t[0] > c.L_q() || t[1] < 1 || t[1] > c.L_kv())
        errors.push_back({"flash_tile", Msg(Str::cfg_flash_tile_range, t[0], t[1], c.L_q(), c.L_kv())});
}

}  // namespace

bool check_kv_heads_divide(std::vector<ConfigError>& errors, int kv_heads, int heads) {
    if (kv_heads == 0 || kv_heads == heads) return true;
    if (kv_heads > 0 && kv_heads < heads && heads % kv_heads == 0) return true;
    errors.push_back({"kv_heads", Msg(Str::cfg_kv_heads_divisor, kv_heads, heads, join(valid_heads(heads)))});
    return false;
}

std::vector<ConfigError> validate(const AttentionConfig& c, const ConfigLimits& limits) {
    std::vector<ConfigError> errors;
    check_range(errors, "d_model", c.d_model, limits.max_d_model, Str::cfg_what_d_model);
    check_range(errors, "heads", c.heads, limits.max_d_model, Str::cfg_what_heads);
    check_range(errors, "seq_len", c.seq_len, limits.max_len, Str::cfg_what_seq_len);
    if (c.kv_len != 0) check_range(errors, "kv_len", c.kv_len, limits.max_len, Str::cfg_what_kv_len);
    check_range(errors, "batch", c.batch, limits.max_batch, Str::cfg_what_batch);
    if (!errors.empty()) return errors;  // the checks below need sane sizes

    if (c.d_model % c.heads != 0)
        errors.push_back({"heads", Msg(Str::cfg_heads_not_divisor, c.d_model, c.heads, join(valid_heads(c.d_model)))});
    check_raw(errors, c);
    if (!c.cross && c.kv_len != 0 && c.kv_len != c.seq_len)
        errors.push_back({"kv_len", Msg(Str::cfg_kv_len_self, c.kv_len, c.seq_len)});
    if (c.mask == MaskKind::Padding) {
        if (static_cast<int>(c.padding_lengths.size()) != c.batch) {
            errors.push_back({"padding_lengths", Msg(Str::cfg_padding_count, c.padding_lengths.size(), c.batch, c.L_kv(),
                                                     c.L_kv() > 1 ? c.L_kv() - 1 : 1)});
        } else {
            for (size_t b = 0; b < c.padding_lengths.size(); ++b) {
                const int len = c.padding_lengths[b];
                if (len < 0 || len > c.L_kv())
                    errors.push_back({"padding_lengths", Msg(Str::cfg_padding_range, len, b, c.L_kv())});
            }
        }
    }
    if (c.mask == MaskKind::Custom) {
        const size_t want = static_cast<size_t>(c.L_q()) * static_cast<size_t>(c.L_kv());
        if (c.custom_keep.size() != want)
            errors.push_back({"custom_mask", Msg(Str::cfg_custom_cells, c.custom_keep.size(), c.L_q(), c.L_kv(), want)});
    }
    check_window(errors, c, limits);
    check_kv_heads(errors, c);
    check_flash_tile(errors, c);
    const double bytes = estimate_trace_bytes(c);
    if (bytes > limits.max_trace_bytes)
        errors.push_back({"seq_len", Msg(Str::cfg_trace_too_big, mib(bytes), mib(limits.max_trace_bytes))});
    return errors;
}

float mask_fill_value(MaskFill f) {
    return f == MaskFill::NegInf ? -std::numeric_limits<float>::infinity() : -1e9f;
}

}  // namespace lab
