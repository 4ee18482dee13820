// config_keys.h — Attention Lab core: the configuration keys, one row per knob.
//
// A row says a key's names (in config files, in the URL hash, on the command line), the
// field it sets, its type and its range (from ConfigLimits). Every reader and writer
// walks the same rows: the CLI flags (cli/cli.cpp), the URL hash (app/data/url_state.cpp),
// JSON and TOML config files (interop/config_file.cpp), manifest.json and state().config
// (interop/json_export.cpp) and the tests' fixtures. Each reader owns its syntax and its
// messages per type; a row only describes the key.
//
// The table type serves any configuration struct: KeyTable<C> holds rows whose accessors
// take the struct as void*, made from member pointers by the row builders below, so a
// second struct (a training configuration) gets its own table of the same rows, e.g.
//
//   const KeyTable<TrainConfig>& train_keys() {
//       static const KeyTable<TrainConfig> t{{
//           whole<&TrainConfig::layers>("layers", 1, &ConfigLimits::max_layers).flag("--layers"),
//           decimal<&TrainConfig::label_smoothing>("label_smoothing", 0.0, 0.99).flag("--label-smoothing"),
//           choice<&TrainConfig::task>("task", {{"copy"}, {"reverse"}, {"sort"}, {"induction"}}).flag("--task")
//               .messages(...),
//       }};
//       return t;
//   }
//
// (train_keys() in train/train_config.h is that table.) KeyFlags (cli/cli.h) reads such a table's
// flags, encode_keys/decode_key (app/data/url_state.h) its link, config_json_value
// (interop/json_export.h) writes it.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "attention/config.h"
#include "base/message.h"

namespace lab {

enum class KeyType {
    Whole,      // a whole number in [lo, hi]
    Decimal,    // a real number in [lo_real, hi_real] (a rate, a label-smoothing epsilon)
    Switch,     // on / off
    Choice,     // one of a few names (an enum)
    WholeList,  // whole numbers, e.g. one padding length per batch item
    KeepRows,   // a 0/1 matrix given row by row (a custom mask)
    Derived,    // computed from other keys: written out, and checked when a file states it
    Text,       // a value in a small syntax of its own: a learning-rate schedule "paper:1:4000", "const:0.003"
};

// One value of a Choice key.
struct KeyChoice {
    const char* name;                     // in files, manifest.json, state(), the CLI: "-inf"
    const char* short_name = nullptr;     // also accepted; the URL hash writes it: "inf" (null: name)
    int value = 0;                        // the enum value
    double number = std::nan("");         // a config file may write this number (either sign) instead
    const char* detail = nullptr;         // the key the CLI reads after "name:" ("padding:4,3")
};

struct ConfigKey {
    const char* name = "";              // canonical: manifest.json, state().config, messages
    KeyType type = KeyType::Whole;
    std::vector<const char*> file_names;  // spellings in config files, in the order they are compared (all must agree)
    std::vector<const char*> hash_names;  // spellings in the URL hash, the first is written; empty: not in the hash
    const char* cli_flag = "";          // "" = none; a switch's "--no-X" turns it off, "--X" on
    long long lo = 0;                   // Whole, WholeList: the smallest value
    int ConfigLimits::*hi = nullptr;    // ... and the largest
    double lo_real = 0, hi_real = 0;    // Decimal: the range
    bool validated = true;              // validate() judges the range (readers refuse only what is no number)
    Str what = Str::Count_;             // what the number is, for "h=8 and num_heads=4 disagree (...)"
    std::vector<KeyChoice> choices;     // Choice
    Str hash_bad = Str::Count_;         // Choice: the URL-hash note for an unknown name
    Str file_bad = Str::Count_;         // Choice: the config-file error for an unknown value
    Str cli_expect = Str::Count_;       // Choice, lists: what the CLI expected ("inf or 1e9")
    const char* derives = "";           // Derived: the key a file may give instead of this one ("heads")
    Str zero_means = Str::Count_;       // Whole, Decimal: files and links read 0 as this default ("seq_len");
                                        // the CLI refuses a typed 0 (a value typed is never a default)

    // Access to the field, the struct passed as void* (see KeyTable<C>).
    long long (*get)(const void*) = nullptr;         // Whole, Switch, Choice, Derived: the stored value
    long long (*shown)(const void*) = nullptr;       // what writers write, when it differs (kv_len: L_kv)
    void (*set)(void*, long long) = nullptr;         // Whole, Switch, Choice
    double (*get_real)(const void*) = nullptr;       // Decimal
    void (*set_real)(void*, double) = nullptr;
    std::vector<int>* (*ints)(void*) = nullptr;      // WholeList
    const std::vector<int>* (*ints_of)(const void*) = nullptr;
    std::vector<uint8_t>* (*cells)(void*) = nullptr;  // KeepRows, row-major
    const std::vector<uint8_t>* (*cells_of)(const void*) = nullptr;
    void (*shape)(const void*, int* rows, int* cols) = nullptr;  // KeepRows: the size it must have
    bool (*written)(const void*) = nullptr;          // when the key is written (null: always)
    bool (*hashed)(const void*) = nullptr;           // when the URL hash writes it (null: as written)
    // Derived: a value a file states, checked against the config (or used to derive
    // `derives` when the file does not give it); returns what is wrong, or an empty message.
    Msg (*agree)(void*, const char* key, long long stated, bool derived_given) = nullptr;
    // Text: reads the value (false when it is not in the key's syntax; cli_expect says
    // what is), and writes it the same way.
    bool (*parse_text)(void*, const std::string& text) = nullptr;
    std::string (*text_of)(const void*) = nullptr;

    // Builders for the table rows.
    ConfigKey&& files(std::vector<const char*> names) && { file_names = std::move(names); return std::move(*this); }
    ConfigKey&& hash(std::vector<const char*> names) && { hash_names = std::move(names); return std::move(*this); }
    ConfigKey&& flag(const char* f) && { cli_flag = f; return std::move(*this); }
    ConfigKey&& about(Str text) && { what = text; return std::move(*this); }
    ConfigKey&& checked_when_read() && { validated = false; return std::move(*this); }
    ConfigKey&& zero_stands_for(Str meaning) && { zero_means = meaning; return std::move(*this); }
    ConfigKey&& written_when(bool (*when)(const void*)) && { written = when; return std::move(*this); }
    ConfigKey&& hashed_when(bool (*when)(const void*)) && { hashed = when; return std::move(*this); }
    ConfigKey&& shown_as(long long (*value)(const void*)) && { shown = value; return std::move(*this); }
    ConfigKey&& messages(Str hash_note, Str file_error, Str cli_hint) && {
        hash_bad = hash_note, file_bad = file_error, cli_expect = cli_hint;
        return std::move(*this);
    }

    // Helpers every reader shares.
    long long value(const void* c) const { return shown ? shown(c) : get(c); }
    long long max(const ConfigLimits& limits) const { return hi ? limits.*hi : lo; }
    bool is_written(const void* c) const { return !written || written(c); }
    bool is_hashed(const void* c) const { return !hash_names.empty() && (hashed ? hashed(c) : is_written(c)); }
    const KeyChoice* choice_named(const std::string& text) const;  // by name or short name
    const KeyChoice* choice_of(const void* c) const;               // the current one
    bool file_name_is(const std::string& key) const;
    bool hash_name_is(const std::string& key) const;
};

// The rows of one configuration struct C, in the order writers write them.
template <class C>
struct KeyTable {
    std::vector<ConfigKey> rows;
    const ConfigKey* find(const std::string& name) const {
        for (const ConfigKey& k : rows)
            if (name == k.name) return &k;
        return nullptr;
    }
};

// The keys of AttentionConfig.
const KeyTable<AttentionConfig>& attention_keys();

// Every written key as "name=value" (lists as 4,2, matrices as 10.01), for messages and tests.
std::string describe_config(const std::vector<ConfigKey>& rows, const void* c);
template <class C>
std::string describe_config(const KeyTable<C>& t, const C& c) { return describe_config(t.rows, &c); }
// The same configuration for every key that is written (what reaches the engine).
template <class C>
bool same_config(const KeyTable<C>& t, const C& a, const C& b) { return describe_config(t, a) == describe_config(t, b); }

// ---- row builders: member pointers to void* accessors ---------------------------

namespace key_detail {
template <class M>
struct Member;
template <class C, class T>
struct Member<T C::*> {
    using Class = C;
    using Type = T;
};
template <auto F>
using ClassOf = typename Member<decltype(F)>::Class;
template <auto F>
using TypeOf = typename Member<decltype(F)>::Type;

template <auto F>
long long get(const void* c) { return static_cast<long long>(static_cast<const ClassOf<F>*>(c)->*F); }
template <auto F>
void set(void* c, long long v) { static_cast<ClassOf<F>*>(c)->*F = static_cast<TypeOf<F>>(v); }
template <auto F>
double get_real(const void* c) { return static_cast<double>(static_cast<const ClassOf<F>*>(c)->*F); }
template <auto F>
void set_real(void* c, double v) { static_cast<ClassOf<F>*>(c)->*F = static_cast<TypeOf<F>>(v); }
template <auto F>
TypeOf<F>* field(void* c) { return &(static_cast<ClassOf<F>*>(c)->*F); }
template <auto F>
const TypeOf<F>* field_of(const void* c) { return &(static_cast<const ClassOf<F>*>(c)->*F); }
}  // namespace key_detail

// A key of this type, named the same in files, links and messages.
inline ConfigKey key_of(KeyType type, const char* name) {
    ConfigKey k;
    k.name = name, k.type = type, k.file_names = {name}, k.hash_names = {name};
    return k;
}
inline ConfigKey ranged(ConfigKey k, long long lo, int ConfigLimits::*hi) { return k.lo = lo, k.hi = hi, k; }
inline ConfigKey stored(ConfigKey k, long long (*get)(const void*), void (*set)(void*, long long)) { return k.get = get, k.set = set, k; }

// A whole number in [lo, limits.*hi].
template <auto F>
ConfigKey whole(const char* name, long long lo, int ConfigLimits::*hi) {
    return stored(ranged(key_of(KeyType::Whole, name), lo, hi), key_detail::get<F>, key_detail::set<F>);
}

// A real number in [lo, hi].
template <auto F>
ConfigKey decimal(const char* name, double lo, double hi) {
    ConfigKey k = key_of(KeyType::Decimal, name);
    k.lo_real = lo, k.hi_real = hi, k.get_real = key_detail::get_real<F>, k.set_real = key_detail::set_real<F>;
    return k;
}

// On / off.
template <auto F>
ConfigKey on_off(const char* name) { return stored(key_of(KeyType::Switch, name), key_detail::get<F>, key_detail::set<F>); }

// One of `choices` (an enum field).
template <auto F>
ConfigKey choice(const char* name, std::vector<KeyChoice> choices) {
    ConfigKey k = stored(key_of(KeyType::Choice, name), key_detail::get<F>, key_detail::set<F>);
    return k.choices = std::move(choices), k;
}

// Whole numbers in [lo, limits.*hi] (a std::vector<int> field).
template <auto F>
ConfigKey whole_list(const char* name, long long lo, int ConfigLimits::*hi) {
    ConfigKey k = ranged(key_of(KeyType::WholeList, name), lo, hi);
    return k.ints = key_detail::field<F>, k.ints_of = key_detail::field_of<F>, k;
}

// A 0/1 matrix (a std::vector<uint8_t> field, row-major) of the size shape() gives.
template <auto F>
ConfigKey keep_rows(const char* name, void (*shape)(const void*, int*, int*)) {
    ConfigKey k = key_of(KeyType::KeepRows, name);
    return k.shape = shape, k.cells = key_detail::field<F>, k.cells_of = key_detail::field_of<F>, k;
}

// A value computed from other keys (not in the URL hash, no flag).
inline ConfigKey derived(const char* name, long long (*value)(const void*), const char* derives,
                         Msg (*agree)(void*, const char*, long long, bool)) {
    ConfigKey k = key_of(KeyType::Derived, name);
    k.get = value, k.derives = derives, k.agree = agree, k.hash_names.clear();
    return k;
}

// A value in a syntax of its own (parse reads what format writes).
inline ConfigKey text_key(const char* name, bool (*parse)(void*, const std::string&), std::string (*format)(const void*)) {
    ConfigKey k = key_of(KeyType::Text, name);
    k.parse_text = parse, k.text_of = format;
    return k;
}

}  // namespace lab
