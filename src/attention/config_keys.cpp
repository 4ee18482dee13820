// config_keys.cpp — Attention Lab core: the keys of AttentionConfig, and what every
// reader shares about a row.
#include "attention/config_keys.h"

#include <cstdio>

namespace lab {

const KeyChoice* ConfigKey::choice_named(const std::string& text) const {
    for (const KeyChoice& ch : choices)
        if (text == ch.name || (ch.short_name && text == ch.short_name)) return &ch;
    return nullptr;
}

const KeyChoice* ConfigKey::choice_of(const void* c) const {
    const long long v = get(c);
    for (const KeyChoice& ch : choices)
        if (ch.value == v) return &ch;
    return choices.empty() ? nullptr : &choices[0];
}

bool ConfigKey::file_name_is(const std::string& key) const {
    for (const char* n : file_names)
        if (key == n) return true;
    return false;
}

bool ConfigKey::hash_name_is(const std::string& key) const {
    for (const char* n : hash_names)
        if (key == n) return true;
    return false;
}

namespace {

using C = AttentionConfig;
const C& as(const void* p) { return *static_cast<const C*>(p); }

// d_k and d_v are d_model / h in the lab: a file may state them (checked), or give one
// of them instead of h (h is derived).
Msg agree_with_heads(void* p, const char* key, long long n, bool heads_given) {
    C& c = *static_cast<C*>(p);
    if (!heads_given) {
        if (n >= 1 && c.d_model >= 1 && c.d_model % n == 0) {
            c.heads = static_cast<int>(c.d_model / n);
            return {};
        }
        return Msg(Str::io_dk_not_divisor, key, n, c.d_model);
    }
    if (c.heads >= 1 && c.d_model % c.heads == 0 && n != c.d_model / c.heads)
        return Msg(Str::io_dk_mismatch, key, n, c.d_model, c.heads, c.d_model / c.heads);
    return {};
}

KeyTable<C> make_attention_keys() {
    const double inf = HUGE_VAL, nan = std::nan("");
    KeyTable<C> t;
    t.rows = {
        whole<&C::d_model>("d_model", 1, &ConfigLimits::max_d_model).flag("--d-model"),
        whole<&C::heads>("heads", 1, &ConfigLimits::max_d_model)
            .flag("--heads").files({"h", "num_heads", "n_heads", "heads"}).hash({"heads", "h"}).about(Str::io_what_heads),
        // 0 = heads (MHA); written only when it groups, so every manifest, link and dump without it stays as it was.
        whole<&C::kv_heads>("kv_heads", 0, &ConfigLimits::max_d_model)
            .flag("--kv-heads").files({"kv_heads", "num_key_value_heads", "n_kv_heads"}).hash({"kv"})
            .about(Str::io_what_kv_heads).zero_stands_for(Str::cli_zero_kv_heads)
            .written_when([](const void* c) { return as(c).grouped(); }),
        derived("d_k", [](const void* c) -> long long { return as(c).d_k(); }, "heads", agree_with_heads),
        derived("d_v", [](const void* c) -> long long { return as(c).d_v(); }, "heads", agree_with_heads),
        whole<&C::seq_len>("seq_len", 1, &ConfigLimits::max_len).flag("--seq-len"),
        whole<&C::batch>("batch", 1, &ConfigLimits::max_batch)
            .flag("--batch").files({"batch_size", "batch"}).about(Str::io_what_batch),
        whole<&C::seed>("seed", 0, &ConfigLimits::max_seed).flag("--seed").checked_when_read(),
        choice<&C::mask>("mask", {{"none", nullptr, int(MaskKind::None)},
                                  {"causal", nullptr, int(MaskKind::Causal)},
                                  {"padding", nullptr, int(MaskKind::Padding), nan, "padding_lengths"},
                                  {"custom", nullptr, int(MaskKind::Custom), nan, "custom_mask"}})
            .flag("--mask").messages(Str::url_bad_mask, Str::io_bad_mask, Str::cli_expect_mask),
        whole_list<&C::padding_lengths>("padding_lengths", 0, &ConfigLimits::max_len)
            .hash({"pad"}).messages(Str::url_bad_pad, Str::io_padding_not_array, Str::cli_syntax_lengths)
            .written_when([](const void* c) { return as(c).mask == MaskKind::Padding; }),
        keep_rows<&C::custom_keep>("custom_mask", [](const void* c, int* rows, int* cols) { *rows = as(c).L_q(), *cols = as(c).L_kv(); })
            .hash({"custom"}).messages(Str::url_custom_mismatch, Str::io_custom_shape, Str::cli_syntax_rows)
            .written_when([](const void* c) { return as(c).mask == MaskKind::Custom; }),
        // Written only when on (0 = off), so every manifest, link and dump without them stays as it was.
        whole<&C::window>("window", 0, &ConfigLimits::max_len).flag("--window").about(Str::io_what_window)
            .written_when([](const void* c) { return as(c).window != 0; }),
        whole<&C::prefix>("prefix", 0, &ConfigLimits::max_len).flag("--prefix").about(Str::io_what_prefix)
            .written_when([](const void* c) { return as(c).prefix != 0; }),
        whole_list<&C::flash_tile>("flash_tile", 0, &ConfigLimits::max_len).flag("--flash-tile")
            .messages(Str::url_bad_flash_tile, Str::io_bad_flash_tile, Str::cli_syntax_flash_tile)
            .written_when([](const void* c) { return !as(c).flash_tile.empty(); }),
        choice<&C::mask_fill>("mask_fill", {{"-inf", "inf", int(MaskFill::NegInf), inf},
                                            {"-1e9", "1e9", int(MaskFill::NegBillion), 1e9}})
            .flag("--mask-fill").hash({"fill"}).messages(Str::url_bad_fill, Str::io_bad_mask_fill, Str::cli_expect_fill),
        on_off<&C::scale>("scale").flag("--no-scale"),
        on_off<&C::pe>("pe").flag("--no-pe"),
        on_off<&C::bias>("bias").flag("--no-bias"),
        on_off<&C::cross>("cross").flag("--cross"),
        // Written only when on, so every manifest, link and dump without it stays as it was.
        on_off<&C::raw>("raw").flag("--raw").written_when([](const void* c) { return as(c).raw; }),
        // 0 = the same as seq_len (self-attention); written as L_kv, in the hash only for cross-attention.
        whole<&C::kv_len>("kv_len", 0, &ConfigLimits::max_len)
            .flag("--kv-len").zero_stands_for(Str::cli_zero_kv_len)
            .shown_as([](const void* c) -> long long { return as(c).L_kv(); })
            .hashed_when([](const void* c) { return as(c).cross; }),
    };
    return t;
}

}  // namespace

const KeyTable<AttentionConfig>& attention_keys() {
    static const KeyTable<AttentionConfig> table = make_attention_keys();
    return table;
}

const char* mask_kind_name(MaskKind k) {
    C c;
    c.mask = k;
    return attention_keys().find("mask")->choice_of(&c)->name;
}

const char* mask_fill_name(MaskFill f) {
    C c;
    c.mask_fill = f;
    return attention_keys().find("mask_fill")->choice_of(&c)->name;
}

std::string describe_config(const std::vector<ConfigKey>& rows, const void* c) {
    std::string s;
    for (const ConfigKey& k : rows) {
        if (!k.is_written(c)) continue;
        s += (s.empty() ? "" : " ") + std::string(k.name) + "=";
        if (k.type == KeyType::Choice) {
            s += k.choice_of(c)->name;
        } else if (k.type == KeyType::WholeList) {
            const std::vector<int>& v = *k.ints_of(c);
            for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
        } else if (k.type == KeyType::KeepRows) {
            int rows = 0, cols = 0;
            k.shape(c, &rows, &cols);
            const std::vector<uint8_t>& v = *k.cells_of(c);
            for (size_t i = 0; i < v.size(); ++i) s += (i && cols > 0 && i % cols == 0 ? "." : "") + std::to_string(v[i]);
        } else if (k.type == KeyType::Text) {
            s += k.text_of(c);
        } else if (k.type == KeyType::Decimal) {
            char buf[32];
            std::snprintf(buf, sizeof buf, "%.9g", k.get_real(c));
            s += buf;
        } else {
            s += std::to_string(k.value(c));
        }
    }
    return s;
}

}  // namespace lab
