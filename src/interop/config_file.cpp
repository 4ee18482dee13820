// config_file.cpp — Attention Lab interop: JSON and TOML configuration files.
//
// Both formats are first turned into a small list of (key, FileValue) entries, then
// one function applies them, so the two formats accept the same keys and give the
// same messages. No exceptions: nlohmann-json is used through parse(..., false) and a
// SAX handler (for the error position), toml++ through its parse_result.
#include "config_file.h"

#include <cctype>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include <nlohmann/json.hpp>
// toml++ 3.3.0 can reach TOML_ASSERT_ASSUME with malformed input (e.g. "[{a]": its
// parse_table_header() enters parse_key() on a non-key character, fixed upstream in
// marzer/tomlplusplus#301). Under clang with NDEBUG (the wasm build) that assumption is
// __builtin_assume(false), i.e. undefined behaviour; without NDEBUG it aborts. Turning
// the assumption off gives GCC's behaviour everywhere: the parser's own check right
// after it reports "expected bare key starting character or string delimiter".
#include <toml++/impl/preprocessor.h>
#undef TOML_ASSERT_ASSUME
#define TOML_ASSERT_ASSUME(expr) static_assert(true)
#include <toml++/toml.h>

#include "core/i18n.h"

namespace lab {

namespace {

// ---------------------------------------------------------------- values

// One value as written in the file, whatever the format.
struct FileValue {
    enum Kind { Int, Float, Bool, String, Null, Array, Table, Date } kind = Null;
    long long i = 0;
    double f = 0;
    bool b = false;
    std::string s;
    std::vector<FileValue> items;  // Array
    bool toml = false;             // for wording: "table" vs "object"
};

struct Entry {
    std::string key;
    FileValue value;
};

std::string shortest_double(double d) {
    if (std::isnan(d)) return "nan";
    if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
    char buf[40];
    for (int p = 1; p <= 17; ++p) {
        std::snprintf(buf, sizeof buf, "%.*g", p, d);
        if (std::strtod(buf, nullptr) == d) break;
    }
    return buf;
}

std::string quote_for_message(const std::string& s) {
    std::string out = "\"";
    for (unsigned char ch : s.substr(0, 40)) {
        if (ch == '"' || ch == '\\') out += '\\', out += static_cast<char>(ch);
        else if (ch < 0x20) out += '?';
        else out += static_cast<char>(ch);
    }
    return out + (s.size() > 40 ? "...\"" : "\"");
}

// The value as the learner wrote it, for messages: 512.5, "512", true, null, [512].
std::string render(const FileValue& v) {
    switch (v.kind) {
        case FileValue::Int: return std::to_string(v.i);
        case FileValue::Float: return shortest_double(v.f);
        case FileValue::Bool: return v.b ? "true" : "false";
        case FileValue::String: return quote_for_message(v.s);
        case FileValue::Null: return "null";
        case FileValue::Array: {
            std::string s = "[";
            for (size_t k = 0; k < v.items.size() && k < 4; ++k) s += (k ? ", " : "") + render(v.items[k]);
            return s + (v.items.size() > 4 ? ", ...]" : "]");
        }
        case FileValue::Table: return "{...}";
        case FileValue::Date: return v.s;
    }
    return "?";
}

// "a string", "true/false", ...: what the value is, for "must be X, not Y".
std::string kind_phrase(const FileValue& v) {
    switch (v.kind) {
        case FileValue::Int: return tr(Str::io_kind_int);
        case FileValue::Float: return tr(std::isfinite(v.f) ? Str::io_kind_fraction : Str::io_kind_non_finite);
        case FileValue::Bool: return tr(Str::io_kind_bool);
        case FileValue::String: return tr(Str::io_kind_string);
        case FileValue::Null: return tr(Str::io_kind_null);
        case FileValue::Array: return tr(Str::io_kind_array);
        case FileValue::Table: return tr(v.toml ? Str::io_kind_table : Str::io_kind_object);
        case FileValue::Date: return tr(Str::io_kind_date);
    }
    return tr(Str::io_kind_other);
}

// ---------------------------------------------------------------- applying entries

struct IntLimit {
    long long lo, hi;     // accepted for storing; validate() then judges the value
    const char* limit;    // the lab's practical limit, for "is too large" messages
};

class Applier {
public:
    Applier(ConfigFileResult& r) : r_(r) {}

    void error(const std::string& key, const std::string& message) { r_.errors.push_back({key, message}); }

    // Whole numbers: JSON/TOML integers, or floats with an integral value (512.0).
    bool to_int(const std::string& key, const FileValue& v, const IntLimit& lim, long long* out) {
        const std::string shown = key + "=" + render(v);
        double value = 0;
        if (v.kind == FileValue::Int) {
            value = static_cast<double>(v.i);
            if (v.i >= lim.lo && v.i <= lim.hi) {
                *out = v.i;
                return true;
            }
        } else if (v.kind == FileValue::Float) {
            if (!std::isfinite(v.f)) {
                error(key, trf(Str::io_not_whole, shown, tr(std::isnan(v.f) ? Str::io_kind_nan : Str::io_kind_infinity)));
                return false;
            }
            if (v.f != std::floor(v.f)) {
                error(key, trf(Str::io_not_whole, shown, tr(Str::io_kind_fraction)));
                return false;
            }
            value = v.f;
            if (v.f >= static_cast<double>(lim.lo) && v.f <= static_cast<double>(lim.hi)) {
                *out = static_cast<long long>(v.f);
                return true;
            }
        } else if (v.kind == FileValue::String) {
            char* end = nullptr;
            const double parsed = std::strtod(v.s.c_str(), &end);
            const bool numeric = !v.s.empty() && end && *end == '\0' && std::isfinite(parsed);
            error(key, numeric ? trf(Str::io_number_not_string_hint, shown, v.s) : trf(Str::io_number_not_string, shown));
            return false;
        } else {
            error(key, trf(Str::io_not_whole, shown, kind_phrase(v)));
            return false;
        }
        // Out of the storable range.
        if (lim.lo >= 0) error(key, trf(Str::io_int_range, shown, lim.lo, lim.hi));
        else if (value < 0) error(key, trf(Str::io_at_least_one, shown));
        else error(key, trf(Str::io_over_limit, shown, lim.limit));
        return false;
    }

    bool to_bool(const std::string& key, const FileValue& v, bool* out) {
        if (v.kind == FileValue::Bool) {
            *out = v.b;
            return true;
        }
        error(key, trf(Str::io_not_bool, key, render(v), kind_phrase(v)));
        return false;
    }

    bool to_string(const std::string& key, const FileValue& v, std::string* out) {
        if (v.kind == FileValue::String) {
            *out = v.s;
            return true;
        }
        error(key, trf(Str::io_not_string, key, render(v), kind_phrase(v)));
        return false;
    }

    void apply(const std::vector<Entry>& entries, const std::string& ignored_prefix) {
        AttentionConfig& c = r_.config;
        const IntLimit size_limit{INT_MIN, INT_MAX, "4096"};
        const IntLimit batch_limit{INT_MIN, INT_MAX, "256"};
        const IntLimit seed_limit{0, 2147483647LL, "2147483647"};  // as --seed and the page's link

        // Unknown keys first (file order): they never stop anything.
        static const char* const known[] = {"d_model", "h", "num_heads", "n_heads", "heads", "d_k", "d_v",
                                            "seq_len", "kv_len", "batch_size", "batch", "seed", "mask",
                                            "mask_fill", "padding_lengths", "custom_mask", "scale", "pe",
                                            "bias", "cross"};
        for (const Entry& e : entries) {
            bool is_known = false;
            for (const char* k : known) is_known |= e.key == k;
            if (!is_known) r_.ignored.push_back(ignored_prefix + e.key + (e.value.kind == FileValue::Table ? ".*" : ""));
            else r_.applied.push_back(e.key);
        }
        auto find = [&](const char* key) -> const FileValue* {
            for (const Entry& e : entries)
                if (e.key == key) return &e.value;
            return nullptr;
        };
        auto set_int = [&](const char* key, int* field, const IntLimit& lim) {
            long long n;
            if (const FileValue* v = find(key))
                if (to_int(key, *v, lim, &n)) *field = static_cast<int>(n);
        };
        // Aliases: every spelling present must agree.
        auto set_alias = [&](std::vector<const char*> keys, int* field, const IntLimit& lim) {
            const char* first_key = nullptr;
            long long first = 0;
            bool any = false;
            for (const char* key : keys) {
                const FileValue* v = find(key);
                long long n;
                if (!v || !to_int(key, *v, lim, &n)) {
                    any |= v != nullptr;
                    continue;
                }
                any = true;
                if (!first_key) {
                    first_key = key, first = n;
                    *field = static_cast<int>(n);
                } else if (n != first) {
                    error(first_key, trf(Str::io_alias_disagree, first_key, first, key, n,
                                         tr(field == &c.heads ? Str::io_what_heads : Str::io_what_batch)));
                }
            }
            return any;
        };

        set_int("d_model", &c.d_model, size_limit);
        const bool heads_given = set_alias({"h", "num_heads", "n_heads", "heads"}, &c.heads, size_limit);
        // d_k and d_v are derived in the lab (d_model / h): check them, or derive h from d_k.
        for (const char* key : {"d_k", "d_v"}) {
            const FileValue* v = find(key);
            long long n;
            if (!v || !to_int(key, *v, size_limit, &n)) continue;
            if (!heads_given) {
                if (n >= 1 && c.d_model >= 1 && c.d_model % n == 0) {
                    c.heads = static_cast<int>(c.d_model / n);
                } else {
                    error(key, trf(Str::io_dk_not_divisor, key, n, c.d_model));
                }
            } else if (c.heads >= 1 && c.d_model % c.heads == 0 && n != c.d_model / c.heads) {
                error(key, trf(Str::io_dk_mismatch, key, n, c.d_model, c.heads, c.d_model / c.heads));
            }
        }
        set_int("seq_len", &c.seq_len, size_limit);
        set_int("kv_len", &c.kv_len, size_limit);
        set_alias({"batch_size", "batch"}, &c.batch, batch_limit);
        if (const FileValue* v = find("seed")) {
            long long n;
            if (to_int("seed", *v, seed_limit, &n)) c.seed = static_cast<uint32_t>(n);
        }
        std::string s;
        if (const FileValue* v = find("mask"); v && to_string("mask", *v, &s)) {
            if (s == "none") c.mask = MaskKind::None;
            else if (s == "causal") c.mask = MaskKind::Causal;
            else if (s == "padding") c.mask = MaskKind::Padding;
            else if (s == "custom") c.mask = MaskKind::Custom;
            else error("mask", trf(Str::io_bad_mask, quote_for_message(s)));
        }
        if (const FileValue* v = find("mask_fill")) {
            const bool neg_inf = (v->kind == FileValue::String && (v->s == "-inf" || v->s == "inf")) ||
                                 (v->kind == FileValue::Float && std::isinf(v->f));
            const bool neg_billion = (v->kind == FileValue::String && (v->s == "-1e9" || v->s == "1e9")) ||
                                     ((v->kind == FileValue::Float || v->kind == FileValue::Int) &&
                                      std::fabs(v->kind == FileValue::Int ? static_cast<double>(v->i) : v->f) == 1e9);
            if (neg_inf) c.mask_fill = MaskFill::NegInf;
            else if (neg_billion) c.mask_fill = MaskFill::NegBillion;
            else error("mask_fill", trf(Str::io_bad_mask_fill, render(*v)));
        }
        if (const FileValue* v = find("padding_lengths")) {
            if (v->kind != FileValue::Array) {
                error("padding_lengths", trf(Str::io_padding_not_array, render(*v)));
            } else {
                std::vector<int> lengths;
                bool good = true;
                for (size_t k = 0; k < v->items.size(); ++k) {
                    long long n;
                    if (to_int("padding_lengths[" + std::to_string(k) + "]", v->items[k], size_limit, &n)) lengths.push_back(static_cast<int>(n));
                    else good = false;
                }
                if (good) c.padding_lengths = lengths;
            }
        }
        if (const FileValue* v = find("custom_mask")) apply_custom_mask(*v);
        struct { const char* key; bool* field; } flags[] = {{"scale", &c.scale}, {"pe", &c.pe}, {"bias", &c.bias}, {"cross", &c.cross}};
        for (auto& f : flags)
            if (const FileValue* v = find(f.key)) to_bool(f.key, *v, f.field);
    }

private:
    // An array of rows, each an array of 0/1 (or true/false) or a string such as "1100".
    void apply_custom_mask(const FileValue& v) {
        const char* key = "custom_mask";
        const std::string hint = tr(Str::io_custom_hint);
        if (v.kind != FileValue::Array || v.items.empty()) {
            error(key, trf(Str::io_custom_not_rows, key, render(v), hint));
            return;
        }
        std::vector<uint8_t> keep;
        size_t cols = 0;
        for (size_t i = 0; i < v.items.size(); ++i) {
            const FileValue& row = v.items[i];
            std::vector<uint8_t> cells;
            bool good = true;
            if (row.kind == FileValue::String) {
                for (char ch : row.s) {
                    if (ch == '0' || ch == '1') cells.push_back(static_cast<uint8_t>(ch - '0'));
                    else good = false;
                }
            } else if (row.kind == FileValue::Array) {
                for (const FileValue& cell : row.items) {
                    if (cell.kind == FileValue::Int && (cell.i == 0 || cell.i == 1)) cells.push_back(static_cast<uint8_t>(cell.i));
                    else if (cell.kind == FileValue::Bool) cells.push_back(cell.b ? 1 : 0);
                    else good = false;
                }
            } else {
                good = false;
            }
            if (!good || cells.empty()) {
                error(key, trf(Str::io_custom_bad_row, key, i, render(row), hint));
                return;
            }
            if (i == 0) cols = cells.size();
            if (cells.size() != cols) {
                error(key, trf(Str::io_custom_ragged, key, i, cells.size(), cols));
                return;
            }
            keep.insert(keep.end(), cells.begin(), cells.end());
        }
        AttentionConfig& c = r_.config;
        const int rows = static_cast<int>(v.items.size());
        if (rows != c.L_q() || static_cast<int>(cols) != c.L_kv()) {
            error(key, trf(Str::io_custom_shape, key, rows, cols, c.L_q(), c.L_kv()));
            return;
        }
        c.custom_keep = keep;
    }

    ConfigFileResult& r_;
};

// ---------------------------------------------------------------- text checks

void line_col(const std::string& text, size_t offset, size_t* line, size_t* col) {
    if (offset > text.size()) offset = text.size();
    *line = 1, *col = 1;
    for (size_t k = 0; k < offset; ++k) {
        if (text[k] == '\n') ++*line, *col = 1;
        else if ((static_cast<unsigned char>(text[k]) & 0xC0) != 0x80) ++*col;  // count characters, not bytes
    }
}

std::string where(const std::string& text, size_t offset) {
    size_t line, col;
    line_col(text, offset, &line, &col);
    return trf(Str::io_where, line, col);
}

// Offset of the first byte that makes the text not UTF-8 text (NUL, other control
// characters, invalid UTF-8), or npos.
size_t first_non_text_byte(const std::string& t) {
    const size_t n = t.size();
    for (size_t k = 0; k < n;) {
        const unsigned char ch = static_cast<unsigned char>(t[k]);
        if (ch < 0x80) {
            if (ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') return k;
            if (ch == 0x7F) return k;
            ++k;
            continue;
        }
        const int extra = (ch & 0xE0) == 0xC0 ? 1 : (ch & 0xF0) == 0xE0 ? 2 : (ch & 0xF8) == 0xF0 ? 3 : -1;
        if (extra < 0 || ch == 0xC0 || ch == 0xC1 || ch > 0xF4) return k;
        for (int e = 1; e <= extra; ++e)
            if (k + e >= n || (static_cast<unsigned char>(t[k + e]) & 0xC0) != 0x80) return k;
        k += 1 + extra;
    }
    return std::string::npos;
}

bool blank(const std::string& t) {
    for (char ch : t)
        if (!std::isspace(static_cast<unsigned char>(ch))) return false;
    return true;
}

std::string lower(std::string s) {
    for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
}

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// "json" when the first significant character is '{' (or '[' not opening a TOML table header).
std::string sniff(const std::string& t) {
    size_t k = 0;
    while (k < t.size()) {
        while (k < t.size() && std::isspace(static_cast<unsigned char>(t[k]))) ++k;
        if (k < t.size() && t[k] == '#') {  // TOML comment line
            while (k < t.size() && t[k] != '\n') ++k;
            continue;
        }
        break;
    }
    if (k >= t.size()) return "toml";
    if (t[k] == '{') return "json";
    if (t[k] == '[') {
        size_t j = k + 1;
        while (j < t.size() && (t[j] == ' ' || t[j] == '\t' || t[j] == '[')) ++j;
        const bool header = j < t.size() && (std::isalpha(static_cast<unsigned char>(t[j])) || t[j] == '_' || t[j] == '"');
        return header ? "toml" : "json";
    }
    return "toml";
}

// ---------------------------------------------------------------- JSON

using ojson = nlohmann::ordered_json;

// Only there to learn where nlohmann's parser stopped and why.
struct ErrorSax : nlohmann::json_sax<ojson> {
    size_t position = 0;
    std::string message;
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t&) override { return true; }
    bool string(string_t&) override { return true; }
    bool binary(binary_t&) override { return true; }
    bool start_object(std::size_t) override { return true; }
    bool key(string_t&) override { return true; }
    bool end_object() override { return true; }
    bool start_array(std::size_t) override { return true; }
    bool end_array() override { return true; }
    bool parse_error(std::size_t pos, const std::string&, const nlohmann::detail::exception& ex) override {
        position = pos;
        message = ex.what();
        return false;
    }
};

FileValue from_json(const ojson& j) {
    FileValue v;
    switch (j.type()) {
        case ojson::value_t::number_integer: v.kind = FileValue::Int, v.i = j.get<long long>(); break;
        case ojson::value_t::number_unsigned: {
            const auto u = j.get<unsigned long long>();
            if (u <= static_cast<unsigned long long>(LLONG_MAX)) v.kind = FileValue::Int, v.i = static_cast<long long>(u);
            else v.kind = FileValue::Float, v.f = static_cast<double>(u);
            break;
        }
        case ojson::value_t::number_float: v.kind = FileValue::Float, v.f = j.get<double>(); break;
        case ojson::value_t::boolean: v.kind = FileValue::Bool, v.b = j.get<bool>(); break;
        case ojson::value_t::string: v.kind = FileValue::String, v.s = j.get<std::string>(); break;
        case ojson::value_t::array:
            v.kind = FileValue::Array;
            for (const ojson& item : j) v.items.push_back(from_json(item));
            break;
        case ojson::value_t::object: v.kind = FileValue::Table; break;
        default: v.kind = FileValue::Null; break;
    }
    return v;
}

void parse_json(const std::string& text, ConfigFileResult& r) {
    const ojson doc = ojson::parse(text, nullptr, false);
    if (doc.is_discarded()) {
        ErrorSax sax;
        ojson::sax_parse(text, &sax);
        // nlohmann reports the count of characters read: the offending one is the last.
        const size_t offset = sax.position > 0 ? sax.position - 1 : 0;
        std::string why = sax.message;
        const size_t colon = why.find(": ", why.find("column"));
        if (colon != std::string::npos) why = why.substr(colon + 2);
        std::string msg = trf(Str::io_json_invalid, where(text, offset), why);
        // NaN / Infinity / -Infinity (nlohmann stops on the letter, after a '-' if any).
        auto word_at = [&](size_t at) {
            for (const char* w : {"NaN", "nan", "Infinity", "infinity", "inf", "Inf"})
                if (text.compare(at, std::strlen(w), w) == 0) return true;
            return false;
        };
        const bool non_finite = offset < text.size() && (word_at(offset) || (offset > 0 && word_at(offset - 1)) ||
                                                         (text[offset] == '-' && word_at(offset + 1)));
        if (offset >= text.size()) msg += tr(Str::io_ends_early);
        else if (non_finite) msg += tr(Str::io_json_non_finite);
        else if (sniff(text) == "toml")
            msg += tr(Str::io_looks_like_toml);
        r.errors.push_back({"file", msg});
        return;
    }
    if (!doc.is_object()) {
        r.errors.push_back({"file", trf(Str::io_json_not_object, kind_phrase(from_json(doc)))});
        return;
    }
    std::vector<Entry> entries;
    for (auto it = doc.begin(); it != doc.end(); ++it) entries.push_back({it.key(), from_json(it.value())});
    Applier(r).apply(entries, "");
}

// ---------------------------------------------------------------- TOML

FileValue from_toml(const toml::node& n) {
    FileValue v;
    v.toml = true;
    if (auto x = n.as_integer()) v.kind = FileValue::Int, v.i = x->get();
    else if (auto d = n.as_floating_point()) v.kind = FileValue::Float, v.f = d->get();
    else if (auto b = n.as_boolean()) v.kind = FileValue::Bool, v.b = b->get();
    else if (auto s = n.as_string()) v.kind = FileValue::String, v.s = s->get();
    else if (auto a = n.as_array()) {
        v.kind = FileValue::Array;
        for (const toml::node& item : *a) v.items.push_back(from_toml(item));
    } else if (n.is_table()) v.kind = FileValue::Table;
    else {  // TOML dates and times: shown as written (ISO 8601)
        v.kind = FileValue::Date;
        char buf[64] = "";
        auto date = [&](const toml::date& d) { std::snprintf(buf, sizeof buf, "%04d-%02d-%02d", d.year, d.month, d.day); };
        auto time = [&](const toml::time& t) {
            char tb[16];
            std::snprintf(tb, sizeof tb, "%02d:%02d:%02d", t.hour, t.minute, t.second);
            std::strncat(buf, tb, sizeof buf - std::strlen(buf) - 1);
        };
        if (auto d = n.as_date()) date(d->get());
        else if (auto t = n.as_time()) time(t->get());
        else if (auto dt = n.as_date_time()) {
            date(dt->get().date);
            std::strncat(buf, "T", sizeof buf - std::strlen(buf) - 1);
            time(dt->get().time);
        }
        v.s = buf;
    }
    return v;
}

// toml++ 3.3.0 reaches __builtin_unreachable() for some non-ASCII characters outside
// strings (e.g. "a = 5\xc3\xa9": is_non_ascii_horizontal_whitespace() has no case for
// U+00E9): undefined behaviour. The lab needs no non-ASCII text in TOML (keys and the
// values it reads are ASCII), so every non-ASCII character (the text is valid UTF-8 by
// now) becomes one '?' before parsing: columns stay the same, since toml++ counts
// characters; char_at() finds the original character for an error message.
std::string ascii_only(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (size_t k = 0; k < text.size();) {
        const unsigned char ch = static_cast<unsigned char>(text[k]);
        if (ch < 0x80) {
            out += static_cast<char>(ch);
            ++k;
            continue;
        }
        const size_t len = (ch & 0xE0) == 0xC0 ? 2 : (ch & 0xF0) == 0xE0 ? 3 : 4;
        out += '?';
        k += len;
    }
    return out;
}

// The original character (UTF-8) at a 1-based line/column of the text.
std::string char_at(const std::string& text, size_t line, size_t column) {
    size_t l = 1, c = 1;
    for (size_t k = 0; k < text.size();) {
        const unsigned char ch = static_cast<unsigned char>(text[k]);
        const size_t len = ch < 0x80 ? 1 : (ch & 0xE0) == 0xC0 ? 2 : (ch & 0xF0) == 0xE0 ? 3 : 4;
        if (l == line && c == column) return text.substr(k, len);
        if (ch == '\n') ++l, c = 1;
        else ++c;
        k += len;
    }
    return "";
}

void parse_toml(const std::string& original, ConfigFileResult& r) {
    const std::string text = ascii_only(original);
    toml::parse_result doc = toml::parse(std::string_view(text), std::string_view("config.toml"));
    if (!doc) {
        const toml::parse_error& e = doc.error();
        const size_t line = e.source().begin.line, column = e.source().begin.column;
        const std::string ch = char_at(original, line, column);
        const bool non_ascii = !ch.empty() && static_cast<unsigned char>(ch[0]) >= 0x80;
        std::string msg = trf(Str::io_toml_invalid, trf(Str::io_where, line, column),
                              non_ascii ? trf(Str::io_toml_non_ascii, ch) : std::string(e.description()));
        if (std::string(e.description()).find("end-of-file") != std::string::npos)
            msg += tr(Str::io_ends_early);
        else if (sniff(text) == "json")
            msg += tr(Str::io_looks_like_json);
        r.errors.push_back({"file", msg});
        return;
    }
    const toml::table& root = doc.table();
    const toml::node* attention = root.get("attention");
    std::vector<std::string> tables, top_keys;
    for (auto&& [k, node] : root) {
        if (k.str() == "attention") continue;
        if (node.is_table() || node.is_array_of_tables()) tables.push_back(std::string(k.str()));
        else top_keys.push_back(std::string(k.str()));
    }
    if (!attention || !attention->is_table()) {
        std::string msg = attention ? trf(Str::io_attention_not_table, render(from_toml(*attention))) : tr(Str::io_no_attention);
        if (!attention && !tables.empty()) {
            std::string found;
            for (size_t k = 0; k < tables.size(); ++k) found += (k ? ", [" : "[") + tables[k] + "]";
            msg += trf(Str::io_tables_found, found);
        }
        if (!top_keys.empty()) msg += trf(Str::io_move_top_keys, top_keys[0] + (top_keys.size() > 1 ? ", ..." : ""));
        r.errors.push_back({"attention", msg});
        return;
    }
    std::vector<Entry> entries;
    for (auto&& [k, node] : *attention->as_table()) entries.push_back({std::string(k.str()), from_toml(node)});
    Applier(r).apply(entries, "attention.");
    for (const std::string& k : top_keys) r.ignored.push_back(k);
    for (const std::string& t : tables) r.ignored.push_back(t + ".*");
}

}  // namespace

ConfigFileResult parse_config_file_unvalidated(const std::string& text_in, const std::string& format_hint,
                                               const AttentionConfig& base) {
    ConfigFileResult r;
    r.config = base;
    std::string text = text_in;
    if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);  // UTF-8 byte order mark

    const std::string hint = lower(format_hint);
    if (ends_with(hint, ".json") || hint == "json") r.format = "json";
    else if (ends_with(hint, ".toml") || hint == "toml") r.format = "toml";
    else r.format = sniff(text);

    const size_t bad = first_non_text_byte(text);
    if (bad != std::string::npos) {
        char byte[8];
        std::snprintf(byte, sizeof byte, "0x%02x", static_cast<unsigned>(static_cast<unsigned char>(text[bad])));
        r.errors.push_back({"file", trf(Str::io_binary, r.format == "json" ? "JSON" : "TOML", byte, where(text, bad), bad)});
        return r;
    }
    if (blank(text)) {
        r.errors.push_back({"file", tr(r.format == "json" ? Str::io_empty_json : Str::io_empty_toml)});
        return r;
    }
    if (r.format == "json") parse_json(text, r);
    else parse_toml(text, r);
    return r;
}

ConfigFileResult parse_config_file(const std::string& text, const std::string& format_hint, const AttentionConfig& base) {
    ConfigFileResult r = parse_config_file_unvalidated(text, format_hint, base);
    // Validation only judges a configuration the file fully describes: after a type
    // error the config still holds the base value and validate() would talk about it.
    if (r.errors.empty()) r.errors = validate(r.config);
    r.ok = r.errors.empty();
    return r;
}

}  // namespace lab
