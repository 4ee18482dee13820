// url_state.cpp — Attention Lab app data: URL hash encode/decode.
#include "app/data/url_state.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "attention/config_keys.h"
#include "base/tokens.h"
#include "model_trace/block_trace.h"
#include "teach/lessons/lessons.h"
#include "trace/stages.h"

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

bool to_int(const std::string& text, long long lo, long long hi, long long* out) {
    if (text.empty() || text.size() > 12) return false;
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(text.c_str(), &end, 10);
    if (errno || *end || v < lo || v > hi) return false;
    *out = v;
    return true;
}

bool to_bool(const std::string& text, bool* out) {
    if (text == "1" || text == "true") return *out = true, true;
    if (text == "0" || text == "false") return *out = false, true;
    return false;
}

// One key=value of the hash being read.
struct Reader {
    std::vector<Msg>& notes;
    std::string key, value, shown;  // shown: the value as echoed in a note (cut to 40 characters)
    std::string custom_rows;        // read once every size is known
    std::string step_text;          // a lesson's step: read once the lesson is known
    void note(Msg m) { notes.push_back(Msg(Str::url_note, std::move(m))); }
    // A whole number in [lo, hi], else a note keeping *field.
    template <class T>
    void whole(T* field, long long lo, long long hi) {
        long long v;
        if (to_int(value, lo, hi, &v)) *field = static_cast<T>(v);
        else note(Msg(Str::url_not_int, key, shown, lo, hi, static_cast<long long>(*field)));
    }
    void on_off(bool* field) {
        if (!to_bool(value, field)) note(Msg(Str::url_not_bool, key, shown, *field ? "1" : "0"));
    }
};

void read_decimal(Reader& r, const ConfigKey& k, void* c) {
    char* end = nullptr;
    const double v = r.value.empty() || r.value.size() > 24 ? NAN : std::strtod(r.value.c_str(), &end);
    if (std::isfinite(v) && end && *end == '\0' && v >= k.lo_real && v <= k.hi_real) k.set_real(c, v);
    else r.note(Msg(Str::url_not_number, r.key, r.shown, k.lo_real, k.hi_real, k.get_real(c)));
}

// A configuration key (a row of attention/config_keys.h) as the hash writes it.
void read_config_key(Reader& r, const ConfigKey& k, void* c, const ConfigLimits& limits) {
    switch (k.type) {
        case KeyType::Whole: {
            long long v = k.get(c);
            r.whole(&v, k.lo, k.max(limits));
            k.set(c, v);
            break;
        }
        case KeyType::Decimal: read_decimal(r, k, c); break;
        case KeyType::Switch: {
            bool on = k.get(c) != 0;
            r.on_off(&on);
            k.set(c, on);
            break;
        }
        case KeyType::Choice:
            if (const KeyChoice* ch = k.choice_named(r.value)) k.set(c, ch->value);
            else r.note(Msg(k.hash_bad, r.shown, k.choice_of(c)->name));
            break;
        case KeyType::WholeList: {
            std::vector<int>& list = *k.ints(c);
            list.clear();
            for (const std::string& item : split(r.value, ',')) {
                long long v;
                if (!to_int(item, k.lo, k.max(limits), &v)) {
                    r.note(Msg(k.hash_bad, r.shown));
                    list.clear();
                    break;
                }
                list.push_back(static_cast<int>(v));
            }
            break;
        }
        case KeyType::KeepRows: r.custom_rows = r.value; break;
        case KeyType::Derived: break;
        case KeyType::Text:
            if (!k.parse_text(c, r.value)) r.note(Msg(k.hash_bad, r.shown, k.text_of(c)));
            break;
    }
}

// An experiment's or an option's name: lower-case letters, digits and '_' ("table3", "mask_len").
bool is_experiment_name(const std::string& s) {
    return !s.empty() && s.size() <= 32 && s.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") == std::string::npos;
}

// "<experiment>.<option>": a name on both sides of one dot.
bool is_experiment_option(const std::string& key) {
    const size_t dot = key.find('.');
    return dot != std::string::npos && is_experiment_name(key.substr(0, dot)) && is_experiment_name(key.substr(dot + 1));
}

// One key of the page's view in the hash (the configuration's keys are attention/config_keys.h's
// rows): its name, how a value is read into the state, and how the state writes it (appending
// "&name=value", or nothing when the key is at its default). The rows are in the order the hash
// writes them.
struct ViewKey {
    const char* name;
    void (*read)(Reader& r, UrlState& s);
    void (*write)(const UrlState& s, std::string& h);
};

void append(std::string& h, const char* name, const std::string& value) { h += std::string("&") + name + "=" + value; }
void read_tokens(Reader& r, UrlState& s) {
    const TokenSplit split = split_tokens(r.value);
    s.tokens = split.tokens;
    if (split.cut) r.note(Msg(Str::url_token_cut, kMaxTokenBytes));
    if (split.dropped) r.note(Msg(Str::url_tokens_dropped, kMaxTokens));
}
void write_tokens(const UrlState& s, std::string& h) {
    if (s.tokens.empty()) return;
    std::string joined;
    for (size_t i = 0; i < s.tokens.size(); ++i) joined += (i ? " " : "") + s.tokens[i];
    append(h, "tokens", percent_encode(joined));
}
void read_stage(Reader& r, UrlState& s) {
    const int idx = stage_index(r.value), block = block_stage_index(r.value);
    if (idx >= 0) s.view.stage = idx;
    else if (block >= 0) s.view.block_stage = block;
    else r.note(Msg(Str::url_bad_stage, r.shown));
}
void write_stage(const UrlState& s, std::string& h) {
    append(h, "stage", s.view.block_stage >= 0 ? block_stage_infos()[s.view.block_stage].key : stage_infos()[s.view.stage].key);
}
void read_sublayer(Reader& r, UrlState& s) {
    AttentionKind kind;
    if (parse_attention_kind(r.value, &kind)) s.view.sublayer = r.value;
    else r.note(Msg(Str::url_bad_sublayer, r.shown, s.view.sublayer));
}
void read_experiment(Reader& r, UrlState& s) {
    if (is_experiment_name(r.value))
        s.view.experiment = r.value;  // the app checks it names an experiment
    else r.note(Msg(Str::url_bad_exp, r.shown));
}
void write_experiment(const UrlState& s, std::string& h) {  // and its options (read by read_view_key)
    if (!s.view.experiment.empty()) append(h, "exp", percent_encode(s.view.experiment));
    for (const auto& [key, value] : s.view.experiment_options) h += "&" + percent_encode(key) + "=" + percent_encode(value);
}
void read_lesson(Reader& r, UrlState& s) {
    long long v = 0;
    if (to_int(r.value, 1, static_cast<long long>(lessons().size()), &v)) s.view.lesson = static_cast<int>(v);
    else r.note(Msg(Str::url_bad_lesson, r.shown, static_cast<int>(lessons().size())));
}
void read_lang(Reader& r, UrlState& s) {
    Lang lang;
    if (parse_lang(r.value, &lang)) s.lang = lang_code(lang);
    else r.note(Msg(Str::url_bad_lang, r.shown));
}
void write_lang(const UrlState& s, std::string& h) {
    if (!s.lang.empty()) append(h, "lang", percent_encode(s.lang));
}

const ViewKey kViewKeys[] = {
    {"tokens", read_tokens, write_tokens},
    {"stage", read_stage, write_stage},
    {"b", [](Reader& r, UrlState& s) { r.whole(&s.view.batch_item, 0, 4095); },
     [](const UrlState& s, std::string& h) { append(h, "b", std::to_string(s.view.batch_item)); }},
    {"head", [](Reader& r, UrlState& s) { r.whole(&s.view.head, 0, 4095); },
     [](const UrlState& s, std::string& h) { append(h, "head", std::to_string(s.view.head)); }},
    {"all", [](Reader& r, UrlState& s) { r.on_off(&s.view.all_heads); },
     [](const UrlState& s, std::string& h) { append(h, "all", s.view.all_heads ? "1" : "0"); }},
    {"model", [](Reader& r, UrlState& s) { r.on_off(&s.view.model); },
     [](const UrlState& s, std::string& h) { if (s.view.model) append(h, "model", "1"); }},
    {"layer", [](Reader& r, UrlState& s) { r.whole(&s.view.layer, 0, 63); },
     [](const UrlState& s, std::string& h) { if (s.view.model) append(h, "layer", std::to_string(s.view.layer)); }},
    {"sublayer", read_sublayer, [](const UrlState& s, std::string& h) { if (s.view.model) append(h, "sublayer", s.view.sublayer); }},
    {"grad", [](Reader& r, UrlState& s) { r.on_off(&s.view.backward); },
     [](const UrlState& s, std::string& h) { if (s.view.backward) append(h, "grad", "1"); }},
    {"exp", read_experiment, write_experiment},
    {"lesson", read_lesson, [](const UrlState& s, std::string& h) { if (s.view.lesson > 0) append(h, "lesson", std::to_string(s.view.lesson)); }},
    {"step", [](Reader& r, UrlState&) { r.step_text = r.value; },  // read once the lesson is known
     [](const UrlState& s, std::string& h) { if (s.view.lesson > 0) append(h, "step", std::to_string(s.view.lesson_step)); }},
    {"lang", read_lang, write_lang},
};

// A view key or an experiment's option; false when the key is neither.
bool read_view_key(Reader& r, UrlState& s) {
    for (const ViewKey& k : kViewKeys)
        if (r.key == k.name) return k.read(r, s), true;
    if (!is_experiment_option(r.key)) return false;
    s.view.experiment_options.emplace_back(r.key, r.value);
    return true;
}

// A lesson's step, 1 to its number of steps (step 1 when the hash gives none or a wrong one).
void finish_lesson_step(Reader& r, UrlState& s) {
    if (s.view.lesson <= 0) return;
    const int steps = static_cast<int>(lessons()[s.view.lesson - 1].steps.size());
    long long v = 1;
    if (!r.step_text.empty() && !to_int(r.step_text, 1, steps, &v)) {
        r.note(Msg(Str::url_bad_step, r.step_text.substr(0, 40), s.view.lesson, steps));
        v = 1;
    }
    s.view.lesson_step = static_cast<int>(v);
}

// What needs every key first: the keys' sizes against each other, then validation.
void finish(Reader& r, UrlState& s) {
    AttentionConfig& c = s.config;
    if (!c.cross) c.kv_len = 0;
    if (!s.tokens.empty()) c.seq_len = static_cast<int>(s.tokens.size());
    if (c.mask == MaskKind::Custom) {
        const std::vector<std::string> rows = split(r.custom_rows, '.');
        bool ok = static_cast<int>(rows.size()) == c.L_q();
        for (const std::string& row : rows) {
            ok = ok && static_cast<int>(row.size()) == c.L_kv();
            for (char ch : row) {
                ok = ok && (ch == '0' || ch == '1');
                c.custom_keep.push_back(ch == '1');
            }
        }
        if (!ok) {
            r.note(Str::url_custom_mismatch);
            c.mask = MaskKind::Causal;
            c.custom_keep.clear();
        }
    }
    if (c.mask == MaskKind::Padding && static_cast<int>(c.padding_lengths.size()) != c.batch) {
        if (!c.padding_lengths.empty()) r.note(Str::url_pad_count);
        c.padding_lengths = default_padding_lengths(c.batch, c.L_kv());
    }
    const std::vector<ConfigError> errors = validate(c);
    if (!errors.empty()) {
        for (const ConfigError& e : errors) r.note(Msg::literal(e.param + ": ").then(e.message));
        r.notes.push_back(Str::url_invalid_defaults);
        s.config = AttentionConfig{};
        s.tokens.clear();
    }
    if (s.view.batch_item >= s.config.batch) s.view.batch_item = 0;
    if (s.view.head >= s.config.heads) s.view.head = 0;
    finish_lesson_step(r, s);
}

// A configuration key's value as the hash writes it.
std::string hash_value(const ConfigKey& k, const void* c) {
    switch (k.type) {
        case KeyType::Switch: return k.get(c) ? "1" : "0";
        case KeyType::Decimal: {
            char buf[32];
            std::snprintf(buf, sizeof buf, "%.9g", k.get_real(c));
            return buf;
        }
        case KeyType::Choice: {
            const KeyChoice* ch = k.choice_of(c);
            return ch->short_name ? ch->short_name : ch->name;
        }
        case KeyType::Text: return k.text_of(c);
        case KeyType::WholeList: {
            std::string s;
            for (int v : *k.ints_of(c)) s += (s.empty() ? "" : ",") + std::to_string(v);
            return s;
        }
        case KeyType::KeepRows: {
            int rows = 0, cols = 0;
            k.shape(c, &rows, &cols);
            const std::vector<uint8_t>& cells = *k.cells_of(c);
            std::string s;
            for (size_t i = 0; i < cells.size(); ++i) s += std::string(i && i % cols == 0 ? "." : "") + (cells[i] ? '1' : '0');
            return s;
        }
        default: return std::to_string(k.value(c));
    }
}

}  // namespace

std::vector<std::pair<std::string, std::string>> hash_pairs(const std::vector<ConfigKey>& rows, const void* config) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const ConfigKey& k : rows)
        if (k.is_hashed(config)) out.emplace_back(k.hash_names[0], hash_value(k, config));
    return out;
}

std::string encode_keys(const std::vector<ConfigKey>& rows, const void* config) {
    std::string h;
    for (const auto& [key, value] : hash_pairs(rows, config)) h += (h.empty() ? "" : "&") + key + "=" + value;
    return h;
}

bool decode_key(const std::vector<ConfigKey>& rows, const std::string& key, const std::string& value, void* config,
                std::vector<Msg>* notes, std::string* matrix_text, const std::string& prefix) {
    for (const ConfigKey& k : rows) {
        if (!k.hash_name_is(key)) continue;
        Reader r{*notes, prefix + key, value, value.size() > 40 ? value.substr(0, 40) + "..." : value, ""};
        read_config_key(r, k, config, ConfigLimits{});
        if (k.type == KeyType::KeepRows && matrix_text) *matrix_text = r.custom_rows;
        return true;
    }
    return false;
}

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
    if (s.train) {
        std::string h = encode_keys(train_keys().rows, &s.train_config);
        write_lang(s, h);
        return h;
    }
    std::string h = encode_keys(attention_keys().rows, &s.config);
    for (const ViewKey& k : kViewKeys) k.write(s, h);
    return h;
}

namespace {

// The hash's key=value pairs, percent-decoded.
std::vector<std::pair<std::string, std::string>> hash_pairs(const std::string& hash) {
    std::vector<std::pair<std::string, std::string>> pairs;
    for (const std::string& part : split(hash, '&')) {
        if (part.empty()) continue;
        const size_t eq = part.find('=');
        pairs.push_back({percent_decode(part.substr(0, eq)), eq == std::string::npos ? "" : percent_decode(part.substr(eq + 1))});
    }
    return pairs;
}

// A Train view link: the task first (its defaults are where the other knobs start),
// then every knob; an invalid run falls back to the task's defaults with notes.
void decode_train(const std::vector<std::pair<std::string, std::string>>& pairs, Reader& r, UrlDecode& d) {
    TrainConfig task;
    std::vector<Msg> ignored;
    for (const auto& [key, value] : pairs)
        if (key == train_keys().rows[0].hash_names[0]) decode_key(train_keys().rows, key, value, &task, &ignored, nullptr);
    const TrainConfig defaults = resolve_train_config(task);
    TrainConfig& c = d.state.train_config;
    c = defaults;
    std::set<std::string> seen;
    for (const auto& [key, value] : pairs) {
        r.key = key, r.value = value, r.shown = value.size() > 40 ? value.substr(0, 40) + "..." : value;
        if (!seen.insert(key).second) r.note(Msg(Str::url_duplicate, key.substr(0, 40)));
        else if (decode_key(train_keys().rows, key, value, &c, &d.notes, nullptr)) continue;
        else if (key != "lang" || !read_view_key(r, d.state)) r.note(Msg(Str::url_unknown_key, key.substr(0, 40)));
    }
    const std::vector<ConfigError> errors = validate_train_config(c);
    if (errors.empty()) return;
    for (const ConfigError& e : errors) r.note(Msg::literal(e.param + ": ").then(e.message));
    d.notes.push_back(Str::url_invalid_defaults);
    TrainConfig fallback;
    fallback.task = c.task;
    c = resolve_train_config(fallback);
}

}  // namespace

UrlDecode decode_url_state(const std::string& hash_in) {
    UrlDecode d;
    std::string hash = hash_in;
    if (!hash.empty() && hash[0] == '#') hash.erase(0, 1);
    if (hash.empty()) return d;
    if (hash.size() > kMaxHash) {
        d.notes.push_back(Msg(Str::url_too_long, kMaxHash));
        hash.resize(kMaxHash);
    }
    const std::vector<std::pair<std::string, std::string>> pairs = hash_pairs(hash);
    Reader r{d.notes, "", "", "", ""};
    for (const auto& pair : pairs)
        if (pair.first == train_keys().rows[0].hash_names[0]) d.state.train = true;
    if (d.state.train) {
        decode_train(pairs, r, d);
        return d;
    }
    std::set<std::string> seen;
    for (const auto& [key, value] : pairs) {
        r.key = key, r.value = value, r.shown = value.size() > 40 ? value.substr(0, 40) + "..." : value;
        if (!seen.insert(r.key).second) {
            r.note(Msg(Str::url_duplicate, r.key.substr(0, 40)));
            continue;
        }
        if (decode_key(attention_keys().rows, r.key, r.value, &d.state.config, &d.notes, &r.custom_rows)) continue;
        if (!read_view_key(r, d.state)) r.note(Msg(Str::url_unknown_key, r.key.substr(0, 40)));
    }
    finish(r, d.state);
    return d;
}

}  // namespace lab
