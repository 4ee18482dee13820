// url_state.cpp — Attention Lab core: URL hash encode/decode.
#include "url_state.h"

#include <cerrno>
#include <cstdlib>
#include <set>

#include "i18n.h"
#include "stages.h"
#include "tokens.h"

namespace lab {

namespace {

// Longer hashes are cut (and noted). The limit is above the encoding of any valid
// state (a 4096 x 4096 custom mask is 16.8 M characters, 4096 tokens < 1 M), so
// whatever the app writes into the URL reads back unchanged.
constexpr size_t kMaxHash = 32u << 20;

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    size_t start = 0;
    for (;;) {
        const size_t at = s.find(sep, start);
        out.push_back(s.substr(start, at == std::string::npos ? std::string::npos : at - start));
        if (at == std::string::npos) return out;
        start = at + 1;
    }
}

bool to_int(const std::string& text, long lo, long hi, long* out) {
    if (text.empty() || text.size() > 12) return false;
    char* end = nullptr;
    errno = 0;
    const long v = std::strtol(text.c_str(), &end, 10);
    if (errno || *end || v < lo || v > hi) return false;
    *out = v;
    return true;
}

std::string join_ints(const std::vector<int>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
    return s;
}

}  // namespace

std::string percent_encode(const std::string& s) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (unsigned char ch : s) {
        if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' ||
            ch == '.' || ch == '~') {
            out += static_cast<char>(ch);
        } else {
            out += '%';
            out += hex[ch >> 4];
            out += hex[ch & 15];
        }
    }
    return out;
}

std::string percent_decode(const std::string& s) {
    auto hexval = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1; };
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size() && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
            out += static_cast<char>(hexval(s[i + 1]) * 16 + hexval(s[i + 2]));
            i += 2;
        } else if (s[i] == '+') {
            out += ' ';
        } else {
            out += s[i];
        }
    }
    return out;
}

std::string encode_url_state(const UrlState& s) {
    const AttentionConfig& c = s.config;
    std::string h = "d_model=" + std::to_string(c.d_model) + "&heads=" + std::to_string(c.heads) +
                    "&seq_len=" + std::to_string(c.seq_len) + "&batch=" + std::to_string(c.batch) +
                    "&seed=" + std::to_string(c.seed) + "&mask=" + mask_kind_name(c.mask);
    if (c.mask == MaskKind::Padding) h += "&pad=" + join_ints(c.padding_lengths);
    if (c.mask == MaskKind::Custom) {
        std::string rows;
        for (int i = 0; i < c.L_q(); ++i) {
            if (i) rows += '.';
            for (int j = 0; j < c.L_kv(); ++j) rows += c.custom_keep[static_cast<size_t>(i) * c.L_kv() + j] ? '1' : '0';
        }
        h += "&custom=" + rows;
    }
    h += std::string("&fill=") + (c.mask_fill == MaskFill::NegInf ? "inf" : "1e9");
    h += std::string("&scale=") + (c.scale ? "1" : "0") + "&pe=" + (c.pe ? "1" : "0") + "&bias=" + (c.bias ? "1" : "0");
    h += std::string("&cross=") + (c.cross ? "1" : "0");
    if (c.cross) h += "&kv_len=" + std::to_string(c.L_kv());
    if (!s.tokens.empty()) {
        std::string joined;
        for (size_t i = 0; i < s.tokens.size(); ++i) joined += (i ? " " : "") + s.tokens[i];
        h += "&tokens=" + percent_encode(joined);
    }
    h += std::string("&stage=") + stage_infos()[s.view.stage].key + "&b=" + std::to_string(s.view.batch_item) +
         "&head=" + std::to_string(s.view.head) + "&all=" + (s.view.all_heads ? "1" : "0");
    if (!s.view.experiment.empty()) h += "&exp=" + percent_encode(s.view.experiment);
    if (!s.lang.empty()) h += "&lang=" + percent_encode(s.lang);
    return h;
}

UrlDecode decode_url_state(const std::string& hash_in) {
    UrlDecode d;
    UrlState& s = d.state;
    AttentionConfig& c = s.config;
    std::string hash = hash_in;
    if (!hash.empty() && hash[0] == '#') hash.erase(0, 1);
    if (hash.empty()) return d;
    if (hash.size() > kMaxHash) {
        d.notes.push_back(trf(Str::url_too_long, kMaxHash));
        hash.resize(kMaxHash);
    }
    std::set<std::string> seen;
    std::string custom_rows;
    auto note = [&](const std::string& text) { d.notes.push_back(trf(Str::url_note, text)); };
    for (const std::string& part : split(hash, '&')) {
        if (part.empty()) continue;
        const size_t eq = part.find('=');
        const std::string key = percent_decode(part.substr(0, eq));
        const std::string value = eq == std::string::npos ? "" : percent_decode(part.substr(eq + 1));
        const std::string shown = value.size() > 40 ? value.substr(0, 40) + "..." : value;
        if (!seen.insert(key).second) {
            note(trf(Str::url_duplicate, key.substr(0, 40)));
            continue;
        }
        auto int_key = [&](int* field, long lo, long hi) {
            long v;
            if (to_int(value, lo, hi, &v)) *field = static_cast<int>(v);
            else note(trf(Str::url_not_int, key, shown, lo, hi, *field));
        };
        auto bool_key = [&](bool* field) {
            if (value == "1" || value == "true") *field = true;
            else if (value == "0" || value == "false") *field = false;
            else note(trf(Str::url_not_bool, key, shown, *field ? "1" : "0"));
        };
        if (key == "d_model") int_key(&c.d_model, 1, 4096);
        else if (key == "heads" || key == "h") int_key(&c.heads, 1, 4096);
        else if (key == "seq_len") int_key(&c.seq_len, 1, 4096);
        else if (key == "kv_len") int_key(&c.kv_len, 0, 4096);
        else if (key == "batch") int_key(&c.batch, 1, 256);
        else if (key == "seed") {
            long v;
            if (to_int(value, 0, 2147483647, &v)) c.seed = static_cast<uint32_t>(v);
            else note(trf(Str::url_bad_seed, shown, static_cast<unsigned>(c.seed)));
        } else if (key == "mask") {
            if (value == "none") c.mask = MaskKind::None;
            else if (value == "causal") c.mask = MaskKind::Causal;
            else if (value == "padding") c.mask = MaskKind::Padding;
            else if (value == "custom") c.mask = MaskKind::Custom;
            else note(trf(Str::url_bad_mask, shown, mask_kind_name(c.mask)));
        } else if (key == "pad") {
            c.padding_lengths.clear();
            for (const std::string& item : split(value, ',')) {
                long v;
                if (!to_int(item, 0, 4096, &v)) {
                    note(trf(Str::url_bad_pad, shown));
                    c.padding_lengths.clear();
                    break;
                }
                c.padding_lengths.push_back(static_cast<int>(v));
            }
        } else if (key == "custom") {
            custom_rows = value;
        } else if (key == "fill") {
            if (value == "inf" || value == "-inf") c.mask_fill = MaskFill::NegInf;
            else if (value == "1e9" || value == "-1e9") c.mask_fill = MaskFill::NegBillion;
            else note(trf(Str::url_bad_fill, shown, mask_fill_name(c.mask_fill)));
        } else if (key == "scale") bool_key(&c.scale);
        else if (key == "pe") bool_key(&c.pe);
        else if (key == "bias") bool_key(&c.bias);
        else if (key == "cross") bool_key(&c.cross);
        else if (key == "all") bool_key(&s.view.all_heads);
        else if (key == "tokens") {
            const TokenSplit split = split_tokens(value);
            s.tokens = split.tokens;
            if (split.cut) note(trf(Str::url_token_cut, kMaxTokenBytes));
            if (split.dropped) note(trf(Str::url_tokens_dropped, kMaxTokens));
        } else if (key == "stage") {
            const int idx = stage_index(value);
            if (idx >= 0) s.view.stage = idx;
            else note(trf(Str::url_bad_stage, shown));
        } else if (key == "exp") {
            if (value.size() <= 32 && value.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") == std::string::npos)
                s.view.experiment = value;  // the app checks it names an experiment
            else note(trf(Str::url_bad_exp, shown));
        } else if (key == "lang") {
            Lang lang;
            if (parse_lang(value, &lang)) s.lang = lang_code(lang);
            else note(trf(Str::url_bad_lang, shown));
        } else if (key == "b") int_key(&s.view.batch_item, 0, 4095);
        else if (key == "head") int_key(&s.view.head, 0, 4095);
        else note(trf(Str::url_unknown_key, key.substr(0, 40)));
    }
    if (!c.cross) c.kv_len = 0;
    if (!s.tokens.empty()) c.seq_len = static_cast<int>(s.tokens.size());
    if (c.mask == MaskKind::Custom) {
        const std::vector<std::string> rows = split(custom_rows, '.');
        bool ok = static_cast<int>(rows.size()) == c.L_q();
        for (const std::string& row : rows) {
            ok = ok && static_cast<int>(row.size()) == c.L_kv();
            for (char ch : row) {
                ok = ok && (ch == '0' || ch == '1');
                c.custom_keep.push_back(ch == '1');
            }
        }
        if (!ok) {
            note(tr(Str::url_custom_mismatch));
            c.mask = MaskKind::Causal;
            c.custom_keep.clear();
        }
    }
    if (c.mask == MaskKind::Padding && static_cast<int>(c.padding_lengths.size()) != c.batch) {
        if (!c.padding_lengths.empty()) note(tr(Str::url_pad_count));
        c.padding_lengths.assign(c.batch, c.L_kv());
    }
    const std::vector<ConfigError> errors = validate(c);
    if (!errors.empty()) {
        for (const ConfigError& e : errors) note(e.param + ": " + e.message);
        d.notes.push_back(tr(Str::url_invalid_defaults));
        s.config = AttentionConfig{};
        s.tokens.clear();
    }
    if (s.view.batch_item >= s.config.batch) s.view.batch_item = 0;
    if (s.view.head >= s.config.heads) s.view.head = 0;
    return d;
}

}  // namespace lab
