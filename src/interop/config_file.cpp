// config_file.cpp — Attention Lab interop: JSON and TOML configuration files.
//
// Both formats are first turned into a small list of (key, FileValue) entries, then
// one function applies them, so the two formats accept the same keys and give the
// same messages. No exceptions: nlohmann-json is used through parse(..., false) and a
// SAX handler (for the error position), toml++ through its parse_result.
#include "interop/config_file.h"

#include <algorithm>

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

#include "attention/config_keys.h"
#include "base/utf8.h"

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
Str kind_phrase(const FileValue& v) {
    switch (v.kind) {
        case FileValue::Int: return Str::io_kind_int;
        case FileValue::Float: return std::isfinite(v.f) ? Str::io_kind_fraction : Str::io_kind_non_finite;
        case FileValue::Bool: return Str::io_kind_bool;
        case FileValue::String: return Str::io_kind_string;
        case FileValue::Null: return Str::io_kind_null;
        case FileValue::Array: return Str::io_kind_array;
        case FileValue::Table: return v.toml ? Str::io_kind_table : Str::io_kind_object;
        case FileValue::Date: return Str::io_kind_date;
    }
    return Str::io_kind_other;
}

// ---------------------------------------------------------------- applying entries

// Applies a file's entries to a configuration through its keys (attention/config_keys.h):
// every spelling of a key, its type and its range come from the key's row.
class Applier {
public:
    Applier(const std::vector<ConfigKey>& rows, void* config, std::vector<ConfigError>& errors)
        : rows_(rows), c_(config), errors_(errors) {}

    void apply(const std::vector<Entry>& entries) {
        entries_ = &entries;
        for (const ConfigKey& k : rows_) apply_key(k);
        for (const ConfigKey& k : rows_)  // once every size is known
            if (k.type == KeyType::KeepRows && !pending_rows_.empty()) check_rows(k);
    }

    // Whether some row reads this key.
    bool known(const std::string& key) const {
        for (const ConfigKey& k : rows_)
            if (k.file_name_is(key)) return true;
        return false;
    }

private:
    void error(const std::string& key, Msg message) { errors_.push_back({key, std::move(message)}); }

    const FileValue* find(const char* key) const {
        for (const Entry& e : *entries_)
            if (e.key == key) return &e.value;
        return nullptr;
    }

    void apply_key(const ConfigKey& k) {
        switch (k.type) {
            case KeyType::Whole: apply_whole(k); break;
            case KeyType::Decimal: apply_decimal(k); break;
            case KeyType::Switch: apply_switch(k); break;
            case KeyType::Choice: apply_choice(k); break;
            case KeyType::WholeList: apply_list(k); break;
            case KeyType::KeepRows:
                if (const FileValue* v = find(k.name)) read_rows(k, *v);
                break;
            case KeyType::Derived: apply_derived(k); break;
            case KeyType::Text: apply_text(k); break;
        }
    }

    // A string in the key's own syntax.
    void apply_text(const ConfigKey& k) {
        const FileValue* v = find(k.name);
        if (v && !(v->kind == FileValue::String && k.parse_text(c_, v->s))) error(k.name, Msg(k.file_bad, render(*v)));
    }

    // Whole numbers: JSON/TOML integers, or floats with an integral value (512.0). A key
    // validate() judges takes any int (validate() says what is too large or too small);
    // another must be in [lo, hi] here.
    bool to_int(const std::string& key, const FileValue& v, const ConfigKey& k, long long* out) {
        const long long lo = k.validated ? INT_MIN : k.lo, hi = k.validated ? INT_MAX : k.max(limits_);
        const std::string shown = key + "=" + render(v);
        double value = 0;
        if (v.kind == FileValue::Int) {
            value = static_cast<double>(v.i);
            if (v.i >= lo && v.i <= hi) return *out = v.i, true;
        } else if (v.kind == FileValue::Float) {
            if (!std::isfinite(v.f))
                return error(key, Msg(Str::io_not_whole, shown, std::isnan(v.f) ? Str::io_kind_nan : Str::io_kind_infinity)), false;
            if (v.f != std::floor(v.f)) return error(key, Msg(Str::io_not_whole, shown, Str::io_kind_fraction)), false;
            value = v.f;
            if (v.f >= static_cast<double>(lo) && v.f <= static_cast<double>(hi)) return *out = static_cast<long long>(v.f), true;
        } else if (v.kind == FileValue::String) {
            char* end = nullptr;
            const double parsed = std::strtod(v.s.c_str(), &end);
            const bool numeric = !v.s.empty() && end && *end == '\0' && std::isfinite(parsed);
            error(key, numeric ? Msg(Str::io_number_not_string_hint, shown, v.s) : Msg(Str::io_number_not_string, shown));
            return false;
        } else {
            return error(key, Msg(Str::io_not_whole, shown, kind_phrase(v))), false;
        }
        // Out of the storable range.
        if (!k.validated) error(key, Msg(Str::io_int_range, shown, lo, hi));
        else if (value < 0) error(key, Msg(Str::io_at_least_one, shown));
        else error(key, Msg(Str::io_over_limit, shown, std::to_string(k.max(limits_))));
        return false;
    }

    // Every spelling of the key that the file uses must agree; the first sets the value.
    void apply_whole(const ConfigKey& k) {
        const char* first_key = nullptr;
        long long first = 0;
        for (const char* key : k.file_names) {
            const FileValue* v = find(key);
            long long n;
            if (!v || !to_int(key, *v, k, &n)) continue;
            if (!first_key) {
                first_key = key, first = n;
                k.set(c_, n);
            } else if (n != first) {
                error(first_key, Msg(Str::io_alias_disagree, first_key, first, key, n, k.what));
            }
        }
    }

    // A key computed from others (d_k = d_model / h): checked, or used to derive them.
    void apply_derived(const ConfigKey& k) {
        bool derived_given = false;
        for (const ConfigKey& other : rows_)
            if (std::string(other.name) == k.derives)
                for (const char* key : other.file_names) derived_given |= find(key) != nullptr;
        for (const char* key : k.file_names) {
            const FileValue* v = find(key);
            long long n;
            if (!v || !to_int(key, *v, k, &n)) continue;
            Msg problem = k.agree(c_, key, n, derived_given);
            if (!problem.empty()) error(key, std::move(problem));
        }
    }

    void apply_decimal(const ConfigKey& k) {
        const FileValue* v = find(k.name);
        if (!v) return;
        const bool number = v->kind == FileValue::Int || v->kind == FileValue::Float;
        const double x = v->kind == FileValue::Int ? static_cast<double>(v->i) : v->f;
        if (number && std::isfinite(x) && x >= k.lo_real && x <= k.hi_real) return k.set_real(c_, x);
        error(k.name, Msg(Str::io_number_range, std::string(k.name) + "=" + render(*v), k.lo_real, k.hi_real));
    }

    void apply_switch(const ConfigKey& k) {
        const FileValue* v = find(k.name);
        if (!v) return;
        if (v->kind == FileValue::Bool) k.set(c_, v->b);
        else error(k.name, Msg(Str::io_not_bool, k.name, render(*v), kind_phrase(*v)));
    }

    // A name; a key whose choices have numbers (mask_fill: -inf, -1e9) takes them too.
    void apply_choice(const ConfigKey& k) {
        const FileValue* v = find(k.name);
        if (!v) return;
        bool numbers = false;
        for (const KeyChoice& ch : k.choices) numbers |= !std::isnan(ch.number);
        if (v->kind == FileValue::String) {
            if (const KeyChoice* ch = k.choice_named(v->s)) return k.set(c_, ch->value);
        } else if (numbers && (v->kind == FileValue::Float || v->kind == FileValue::Int)) {
            const double x = std::fabs(v->kind == FileValue::Int ? static_cast<double>(v->i) : v->f);
            for (const KeyChoice& ch : k.choices)
                if (x == std::fabs(ch.number)) return k.set(c_, ch.value);
        } else if (!numbers) {
            return error(k.name, Msg(Str::io_not_string, k.name, render(*v), kind_phrase(*v)));
        }
        error(k.name, Msg(k.file_bad, render(*v)));
    }

    void apply_list(const ConfigKey& k) {
        const FileValue* v = find(k.name);
        if (!v) return;
        if (v->kind != FileValue::Array) return error(k.name, Msg(k.file_bad, render(*v)));
        std::vector<int> values;
        bool good = true;
        for (size_t i = 0; i < v->items.size(); ++i) {
            long long n;
            if (to_int(std::string(k.name) + "[" + std::to_string(i) + "]", v->items[i], k, &n)) values.push_back(static_cast<int>(n));
            else good = false;
        }
        if (good) *k.ints(c_) = values;
    }

    // An array of rows, each an array of 0/1 (or true/false) or a string such as "1100".
    void read_rows(const ConfigKey& k, const FileValue& v) {
        const char* key = k.name;
        if (v.kind != FileValue::Array || v.items.empty())
            return error(key, Msg(Str::io_custom_not_rows, key, render(v), Str::io_custom_hint));
        std::vector<uint8_t> keep;
        size_t cols = 0;
        for (size_t i = 0; i < v.items.size(); ++i) {
            std::vector<uint8_t> cells;
            if (!row_cells(v.items[i], &cells) || cells.empty())
                return error(key, Msg(Str::io_custom_bad_row, key, i, render(v.items[i]), Str::io_custom_hint));
            if (i == 0) cols = cells.size();
            if (cells.size() != cols) return error(key, Msg(Str::io_custom_ragged, key, i, cells.size(), cols));
            keep.insert(keep.end(), cells.begin(), cells.end());
        }
        pending_rows_ = keep;
        pending_shape_ = {static_cast<int>(v.items.size()), cols};
    }

    static bool row_cells(const FileValue& row, std::vector<uint8_t>* cells) {
        if (row.kind == FileValue::String) {
            for (char ch : row.s) {
                if (ch != '0' && ch != '1') return false;
                cells->push_back(static_cast<uint8_t>(ch - '0'));
            }
            return true;
        }
        if (row.kind != FileValue::Array) return false;
        for (const FileValue& cell : row.items) {
            if (cell.kind == FileValue::Int && (cell.i == 0 || cell.i == 1)) cells->push_back(static_cast<uint8_t>(cell.i));
            else if (cell.kind == FileValue::Bool) cells->push_back(cell.b ? 1 : 0);
            else return false;
        }
        return true;
    }

    // The rows read must have the size the other keys give (L_q x L_kv).
    void check_rows(const ConfigKey& k) {
        int rows = 0, cols = 0;
        k.shape(c_, &rows, &cols);
        if (pending_shape_.first != rows || static_cast<int>(pending_shape_.second) != cols)
            return error(k.name, Msg(k.file_bad, k.name, pending_shape_.first, pending_shape_.second, rows, cols));
        *k.cells(c_) = pending_rows_;
    }

    const std::vector<ConfigKey>& rows_;
    void* c_;
    std::vector<ConfigError>& errors_;
    const ConfigLimits limits_;
    const std::vector<Entry>* entries_ = nullptr;
    std::vector<uint8_t> pending_rows_;
    std::pair<int, size_t> pending_shape_{0, 0};
};

// Known keys are applied, the others listed as ignored (prefix "attention." for TOML).
void apply_entries(const std::vector<Entry>& entries, const std::string& ignored_prefix, ConfigFileResult& r) {
    Applier applier(attention_keys().rows, &r.config, r.errors);
    for (const Entry& e : entries) {
        if (applier.known(e.key)) r.applied.push_back(e.key);
        else r.ignored.push_back(ignored_prefix + e.key + (e.value.kind == FileValue::Table ? ".*" : ""));
    }
    applier.apply(entries);
}

// ---------------------------------------------------------------- text checks

void line_col(const std::string& text, size_t offset, size_t* line, size_t* col) {
    if (offset > text.size()) offset = text.size();
    *line = 1, *col = 1;
    for (size_t k = 0; k < offset; ++k) {
        if (text[k] == '\n') ++*line, *col = 1;
        else if (utf8::starts_char(text[k])) ++*col;  // count characters, not bytes
    }
}

Msg where(const std::string& text, size_t offset) {
    size_t line, col;
    line_col(text, offset, &line, &col);
    return Msg(Str::io_where, line, col);
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
        Msg msg(Str::io_json_invalid, where(text, offset), why);
        // NaN / Infinity / -Infinity (nlohmann stops on the letter, after a '-' if any).
        auto word_at = [&](size_t at) {
            for (const char* w : {"NaN", "nan", "Infinity", "infinity", "inf", "Inf"})
                if (text.compare(at, std::strlen(w), w) == 0) return true;
            return false;
        };
        const bool non_finite = offset < text.size() && (word_at(offset) || (offset > 0 && word_at(offset - 1)) ||
                                                         (text[offset] == '-' && word_at(offset + 1)));
        if (offset >= text.size()) msg.then(Str::io_ends_early);
        else if (non_finite) msg.then(Str::io_json_non_finite);
        else if (sniff(text) == "toml")
            msg.then(Str::io_looks_like_toml);
        r.errors.push_back({"file", msg});
        return;
    }
    if (!doc.is_object()) {
        r.errors.push_back({"file", Msg(Str::io_json_not_object, kind_phrase(from_json(doc)))});
        return;
    }
    std::vector<Entry> entries;
    for (auto it = doc.begin(); it != doc.end(); ++it) entries.push_back({it.key(), from_json(it.value())});
    apply_entries(entries, "", r);
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
    utf8::for_each(text, [&](unsigned cp, const std::string&) { out += cp < 0x80 ? static_cast<char>(cp) : '?'; });
    return out;
}

// The original character (UTF-8) at a 1-based line/column of the text.
std::string char_at(const std::string& text, size_t line, size_t column) {
    size_t l = 1, c = 1;
    std::string found;
    utf8::for_each(text, [&](unsigned cp, const std::string& ch) {
        if (l == line && c == column && found.empty()) found = ch;
        if (cp == '\n') ++l, c = 1;
        else ++c;
    });
    return found;
}

void parse_toml(const std::string& original, ConfigFileResult& r) {
    const std::string text = ascii_only(original);
    toml::parse_result doc = toml::parse(std::string_view(text), std::string_view("config.toml"));
    if (!doc) {
        const toml::parse_error& e = doc.error();
        const size_t line = e.source().begin.line, column = e.source().begin.column;
        const std::string ch = char_at(original, line, column);
        const bool non_ascii = !ch.empty() && static_cast<unsigned char>(ch[0]) >= 0x80;
        Msg msg(Str::io_toml_invalid, Msg(Str::io_where, line, column),
                non_ascii ? Msg(Str::io_toml_non_ascii, ch) : Msg::literal(std::string(e.description())));
        if (std::string(e.description()).find("end-of-file") != std::string::npos)
            msg.then(Str::io_ends_early);
        else if (sniff(text) == "json")
            msg.then(Str::io_looks_like_json);
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
        Msg msg = attention ? Msg(Str::io_attention_not_table, render(from_toml(*attention))) : Msg(Str::io_no_attention);
        if (!attention && !tables.empty()) {
            std::string found;
            for (size_t k = 0; k < tables.size(); ++k) found += (k ? ", [" : "[") + tables[k] + "]";
            msg.then(Msg(Str::io_tables_found, found));
        }
        if (!top_keys.empty()) msg.then(Msg(Str::io_move_top_keys, top_keys[0] + (top_keys.size() > 1 ? ", ..." : "")));
        r.errors.push_back({"attention", msg});
        return;
    }
    std::vector<Entry> entries;
    for (auto&& [k, node] : *attention->as_table()) entries.push_back({std::string(k.str()), from_toml(node)});
    apply_entries(entries, "attention.", r);
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

    const size_t bad = utf8::first_non_text_byte(text);
    if (bad != std::string::npos) {
        char byte[8];
        std::snprintf(byte, sizeof byte, "0x%02x", static_cast<unsigned>(static_cast<unsigned char>(text[bad])));
        r.errors.push_back({"file", Msg(Str::io_binary, r.format == "json" ? "JSON" : "TOML", byte, where(text, bad), bad)});
        return r;
    }
    if (blank(text)) {
        r.errors.push_back({"file", r.format == "json" ? Str::io_empty_json : Str::io_empty_toml});
        return r;
    }
    if (r.format == "json") parse_json(text, r);
    else parse_toml(text, r);
    // "mask": "padding" without lengths that fit the batch: the default lengths (L, L-2, ...).
    const bool lengths_given = std::find(r.applied.begin(), r.applied.end(), "padding_lengths") != r.applied.end();
    if (r.errors.empty() && r.config.mask == MaskKind::Padding && !lengths_given &&
        static_cast<int>(r.config.padding_lengths.size()) != r.config.batch)
        r.config.padding_lengths = default_padding_lengths(r.config.batch, r.config.L_kv());
    return r;
}

std::vector<Msg> config_file_summary(const ConfigFileResult& r) {
    if (!r.ok) return {};
    const std::vector<ConfigKey>& rows = attention_keys().rows;
    auto given = [&](const ConfigKey& k) {
        for (const std::string& key : r.applied)
            if (k.file_name_is(key)) return true;
        return false;
    };
    std::string from_file, kept, checked;
    for (const ConfigKey& k : rows) {
        if (k.type == KeyType::Derived) {
            if (given(k)) checked += (checked.empty() ? "" : ", ") + std::string(k.name);
            continue;
        }
        // h given as d_k (or d_v) alone comes from the file too.
        bool from = given(k);
        for (const ConfigKey& d : rows) from |= d.type == KeyType::Derived && given(d) && std::string(d.derives) == k.name;
        const std::string text = k.type == KeyType::Switch ? std::string(k.name) + (k.get(&r.config) ? "=on" : "=off")
                                                            : describe_config({k}, &r.config);
        // A key written only when it matters (raw only when on) is no news unless the file set it.
        if (text.empty() || (!k.is_written(&r.config) && !from) || (std::string(k.name) == "kv_len" && !r.config.cross && !from)) continue;
        std::string& list = from ? from_file : kept;
        list += (list.empty() ? "" : ", ") + text;
    }
    std::vector<Msg> notes;
    if (!from_file.empty()) notes.push_back(Msg(Str::io_file_set, from_file));
    if (!from_file.empty() && !checked.empty()) notes.back().then(Msg(Str::io_file_checked, checked));
    if (!kept.empty()) notes.push_back(Msg(Str::io_file_kept, kept));
    return notes;
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
