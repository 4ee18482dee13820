// cli.cpp — Attention Lab CLI: `attnlab trace` prints the tutorial-style shape table
// and the invariant results, and with --out dumps every tensor for PyTorch;
// `attnlab export-script` writes a standalone PyTorch script that checks the trace.
// Both read a JSON or TOML config file with --config FILE (later flags override it).
// The configuration's flags are the keys of attention/config_keys.h; messages are the
// string table's, printed in English.
#include "cli/cli.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <ostream>
#include <set>
#include <utility>

#include "attention/config_keys.h"
#include "base/utf8.h"
#include "cli/attend_cmd.h"
#include "cli/decode_cmd.h"
#include "cli/table3_cmd.h"
#include "cli/model_trace_cmd.h"
#include "cli/train_cmd.h"
#include "interop/config_file.h"
#include "interop/exports.h"
#include "interop/json_export.h"
#include "interop/npy.h"
#include "interop/torch_print.h"
#include "trace/trace.h"

namespace lab {

std::string english(const Msg& m) { return render(m, Lang::En); }

std::string cli_usage() {
    return "usage: attnlab trace [--config FILE] [--d-model N] [--heads N] [--seq-len N] [--kv-len N] [--batch N]\n"
           "                     [--seed N] [--mask none|causal|padding[:L1,L2,...]|custom:ROW/ROW/...] [--mask-fill inf|1e9]\n"
           "                     [--no-scale] [--no-pe] [--no-bias] [--cross] [--raw] [--window W] [--prefix P]\n"
           "                     [--kv-heads N] [--flash-tile R,C] [--format table|json] [--out DIR]\n"
           "                     [--print TENSOR [--item B] [--head H]]\n"
           "       attnlab export-script [the same flags as trace] [--out FILE.py]\n"
           "       attnlab train [--task copy|reverse|sort|induction|coref] [...]   (attnlab train --help)\n"
           "       attnlab attend --checkpoint DIR --text SENTENCE [--from TOKEN]   (a coref model reads it)\n"
           "       attnlab decode --checkpoint DIR [--kv-cache on|off] [--sample N]  (token by token, KV cache checked)\n"
           "       attnlab table3 [--steps N] [--seeds K] [--rows base,A1,...] [--csv FILE]  (Table 3 in miniature; --help)\n"
           "       attnlab help\n"
           "  custom mask rows are 0/1 strings, one per query, e.g. custom:1000/1100/1110/1111\n"
           "  --mask padding alone gives item b the length L - 2b (at least 1): L, L-2, ...\n"
           "  --raw runs scaled_dot_product_attention(Q, K, V) on Q, K, V drawn directly (the tutorials' first example),\n"
           "    no projections or heads: with --heads 1 --no-pe --no-bias, e.g. --raw --d-model 64 --heads 1 --no-pe\n"
           "    --no-bias --mask none for their (2, 4, 64) tensors\n"
           "  --kv-heads N gives K and V N heads, each shared by heads / N query heads (grouped-query attention;\n"
           "    1 = multi-query); N must divide --heads\n"
           "  --config FILE reads a .json (d_model, h, d_k, seq_len, batch_size, seed, ...) or a .toml with an\n"
           "    [attention] table; flags after it override the file, keys the lab does not use are listed as a note\n"
           "  --print TENSOR prints one tensor of the trace (weights, scores, q_heads, output, mask, ...) the way\n"
           "    print(t[B, H]) does in PyTorch: --item picks the batch item, --head the head (both 0 by default)\n"
           "  export-script writes a standalone PyTorch script (standard output without --out) that recomputes the\n"
           "    trace with torch and exits 0 when PyTorch agrees with the lab\n";
}

namespace {

// For a key validate() judges, the CLI reads any number up to this as a number and lets
// validate() name the lab's limit; a longer one is "not a whole number".
constexpr long long kWholeMax = 1 << 20;
constexpr size_t kMaxConfigBytes = 1 << 20;  // like the page: a config file is small

std::string shown(const std::string& v) { return shown_value(v); }
bool parse_int(const std::string& text, long long lo, long long hi, long long* out) { return parse_whole(text, lo, hi, out); }

bool read_rows(const std::string& text, std::vector<std::vector<uint8_t>>* rows) {
    std::vector<uint8_t> row;
    for (char ch : text + "/") {
        if (ch == '/') {
            if (row.empty()) return false;
            rows->push_back(row);
            row.clear();
        } else if (ch == '0' || ch == '1') {
            row.push_back(static_cast<uint8_t>(ch - '0'));
        } else {
            return false;
        }
    }
    return true;
}

bool parse_real(const std::string& text, double lo, double hi, double* out) {
    if (text.empty() || text.size() > 24) return false;
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (*end != '\0' || !std::isfinite(v) || v < lo || v > hi) return false;
    *out = v;
    return true;
}

}  // namespace

bool parse_whole(const std::string& text, long long lo, long long hi, long long* out) {
    if (text.empty() || text.size() > 18) return false;
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(text.c_str(), &end, 10);
    if (errno || *end != '\0' || v < lo || v > hi) return false;
    *out = v;
    return true;
}

std::string shown_value(const std::string& v) { return v.size() > 40 ? v.substr(0, 40) + "..." : v; }

long long KeyFlags::hi(const ConfigKey& k) const { return k.validated ? kWholeMax : k.max(ConfigLimits{}); }

bool KeyFlags::read_list(const ConfigKey& k, const std::string& text, void* c) const {
    std::vector<int>& out = *k.ints(c);
    out.clear();
    for (size_t start = 0; start <= text.size();) {
        const size_t comma = text.find(',', start);
        long long v;
        if (!parse_int(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start), k.lo, hi(k), &v))
            return false;
        out.push_back(static_cast<int>(v));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return !out.empty();
}

// "--mask padding:4,3": a choice, and after its colon the value of the key it names.
void KeyFlags::read_choice(const ConfigKey& k, const std::string& flag, const std::string& v, void* c,
                           std::vector<ConfigError>* errors) {
    for (const KeyChoice& ch : k.choices) {
        const std::string prefix = std::string(ch.name) + ":";
        if (v == ch.name || (ch.short_name && v == ch.short_name)) {  // "--mask padding": default lengths (finish())
            k.set(c, ch.value);
            for (const ConfigKey& detail : keys_)
                if (ch.detail && std::string(detail.name) == ch.detail && detail.type == KeyType::WholeList) detail.ints(c)->clear();
            return;
        }
        if (!ch.detail || v.compare(0, prefix.size(), prefix) != 0) continue;
        k.set(c, ch.value);
        const std::string rest = v.substr(prefix.size());
        for (const ConfigKey& detail : keys_) {
            if (std::string(detail.name) != ch.detail) continue;
            rows_.clear();
            const bool ok = detail.type == KeyType::KeepRows ? read_rows(rest, &rows_) : read_list(detail, rest, c);
            if (!ok) errors->push_back({flag, Msg(Str::cli_bad_detail, flag, shown(v), detail.cli_expect)});
            if (detail.type == KeyType::KeepRows) rows_key_ = &detail, rows_flag_ = flag;
        }
        return;
    }
    errors->push_back({flag, Msg(Str::cli_not_one_of, flag, shown(v), k.cli_expect)});
}

// A number typed for a Whole or Decimal key: refused outside its range, and refused as 0
// where config files and links read 0 as a default (a value typed is never a default).
void KeyFlags::read_number(const ConfigKey& k, const std::string& flag, const std::string& v, void* c,
                           std::vector<ConfigError>* errors) const {
    const bool zero_is_default = k.zero_means != Str::Count_;
    if (k.type == KeyType::Decimal) {
        double x;
        if (!parse_real(v, k.lo_real, k.hi_real, &x))
            errors->push_back({flag, Msg(Str::cli_not_number, flag, shown(v), k.lo_real, k.hi_real)});
        else if (x == 0 && zero_is_default)
            errors->push_back({flag, Msg(Str::cli_zero_real, flag, k.zero_means, k.hi_real, flag)});
        else
            k.set_real(c, x);
        return;
    }
    long long n;
    if (!parse_int(v, k.lo, hi(k), &n)) errors->push_back({flag, Msg(Str::cli_not_whole, flag, shown(v), k.lo, hi(k))});
    else if (n == 0 && zero_is_default) errors->push_back({flag, Msg(Str::cli_zero_whole, flag, k.zero_means, 1LL, k.max(ConfigLimits{}), flag)});
    else k.set(c, n);
}

bool KeyFlags::read(const std::vector<std::string>& args, size_t* i, void* c, std::vector<ConfigError>* errors) {
    const std::string& flag = args[*i];
    for (const ConfigKey& k : keys_) {
        if (!*k.cli_flag || flag != k.cli_flag) continue;
        given_.push_back(flag);
        if (k.type == KeyType::Switch) {
            k.set(c, flag.compare(0, 5, "--no-") != 0);
            return true;
        }
        if (*i + 1 >= args.size()) return errors->push_back({flag, Msg(Str::cli_needs_value, flag)}), true;
        const std::string& v = args[++*i];
        if (k.type == KeyType::Choice) read_choice(k, flag, v, c, errors);
        else if (k.type == KeyType::WholeList) {  // "--flash-tile 2,2"
            if (!read_list(k, v, c)) errors->push_back({flag, Msg(Str::cli_bad_detail, flag, shown(v), k.cli_expect)});
        } else if (k.type == KeyType::Text) {
            if (!k.parse_text(c, v)) errors->push_back({flag, Msg(Str::cli_not_one_of, flag, shown(v), k.cli_expect)});
        } else read_number(k, flag, v, c, errors);
        return true;
    }
    return false;
}

void KeyFlags::finish(void* c, std::vector<ConfigError>* errors) {
    if (!rows_key_ || rows_.empty()) return;
    int rows = 0, cols = 0;
    rows_key_->shape(c, &rows, &cols);
    std::vector<uint8_t>& cells = *rows_key_->cells(c);
    cells.clear();
    bool ragged = false;
    for (const auto& row : rows_) {
        ragged |= row.size() != rows_[0].size();
        cells.insert(cells.end(), row.begin(), row.end());
    }
    if (ragged || static_cast<int>(rows_.size()) != rows || static_cast<int>(rows_[0].size()) != cols)
        errors->push_back({rows_flag_, Msg(Str::cli_rows_shape, rows, cols)});
}

bool KeyFlags::given(const std::string& flag) const {
    for (const std::string& g : given_)
        if (g == flag) return true;
    return false;
}

namespace {

// The arguments being read.
struct FlagReader {
    const std::vector<std::string>& args;
    size_t i;
    CliParse& p;
    KeyFlags keys;
    void error(const std::string& param, Msg m) { p.errors.push_back({param, std::move(m)}); }
    // The flag's value (the next argument), or false with an error.
    bool value(const std::string& flag, std::string* v) {
        if (i + 1 >= args.size()) return error(flag, Msg(Str::cli_needs_value, flag)), false;
        *v = args[++i];
        return true;
    }
};

// --config FILE: the file applies on top of the flags so far; flags after it override it.
void read_config_file(const std::string& path, AttentionConfig& c, FlagReader& r) {
    r.p.options.config_files.push_back(path);
    std::string text, error;
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) return r.error("--config", Msg(Str::cli_config_directory, path));
    if (!read_file(path, &text, &error, kMaxConfigBytes)) return r.error("--config", Msg::literal(error));
    const ConfigFileResult f = parse_config_file_unvalidated(text, path, c);
    for (const ConfigError& e : f.errors)
        r.error(e.param == "file" ? "--config " + path : "--config " + path + ": " + e.param, e.message);
    if (!f.errors.empty()) return;
    c = f.config;
    r.keys.forget_rows();  // a custom mask given before the file no longer applies
    ConfigFileResult judged = f;
    judged.ok = true;  // the flags after it are judged with the rest
    for (const Msg& m : config_file_summary(judged)) r.p.notes.push_back(Msg::literal(path + ": ").then(m));
    if (f.ignored.empty()) return;
    std::string keys;
    for (const std::string& k : f.ignored) keys += (keys.empty() ? "" : ", ") + k;
    r.p.notes.push_back(Msg(Str::cli_ignored_keys, path, keys));
}

// The flags that are not configuration keys.
void read_other_flag(const std::string& flag, AttentionConfig& c, FlagReader& r) {
    std::string v;
    if (flag == "--out") {
        if (r.value(flag, &v)) (r.p.options.command == "export-script" ? r.p.options.out_file : r.p.options.out_dir) = v;
    } else if (flag == "--config") {
        if (r.value(flag, &v)) read_config_file(v, c, r);
    } else if (flag == "--print") {
        r.value(flag, &r.p.options.print_tensor);
    } else if (flag == "--item" || flag == "--head") {
        long long n = 0;
        if (!r.value(flag, &v)) return;
        if (!parse_int(v, 0, kWholeMax, &n)) return r.error(flag, Msg(Str::cli_not_whole, flag, shown(v), 0LL, kWholeMax));
        (flag == "--item" ? r.p.options.print_item : r.p.options.print_head) = static_cast<int>(n);
    } else if (flag == "--format") {
        if (!r.value(flag, &v)) return;
        if (v == "table" || v == "json") r.p.options.format = v;
        else r.error(flag, Msg(Str::cli_not_one_of, flag, shown(v), Str::cli_expect_format));
    } else if (flag.empty()) {
        r.error("argument", Str::cli_empty_argument);
    } else {
        r.error(flag, Msg(Str::cli_unknown_option, shown(flag)));
    }
}

// What needs every flag first: --kv-len without --cross, the custom rows' size, then validate().
void finish(AttentionConfig& c, FlagReader& r) {
    if (r.keys.given("--kv-len") && !c.cross && c.kv_len != 0 && c.kv_len != c.seq_len)
        r.error("--kv-len", Str::cli_kv_len_needs_cross);
    if (c.mask == MaskKind::Custom) r.keys.finish(&c, &r.p.errors);  // --mask custom:... (a file's is checked there)
    if (c.mask == MaskKind::Padding && c.padding_lengths.empty()) c.padding_lengths = default_padding_lengths(c.batch, c.L_kv());
    if (!r.p.errors.empty()) return;
    for (ConfigError& e : validate(c)) r.p.errors.push_back(e);
}

}  // namespace

namespace {

// The commands that read their own flags, one row each: parse_cli takes its errors from `parse`,
// run_cli hands the arguments after the name to `run`, so the two can never disagree on which
// command a line is (a command known to one and not the other was a fuzz finding).
struct Subcommand {
    const char* name;
    bool (*applies)(const std::vector<std::string>& args);  // null: the name alone decides
    std::vector<ConfigError> (*parse)(const std::vector<std::string>& rest);
    int (*run)(const std::vector<std::string>& rest, std::ostream& out, std::ostream& err);
};

std::vector<ConfigError> train_errors(const std::vector<std::string>& rest) { return parse_train_cli(rest).errors; }
std::vector<ConfigError> model_trace_errors(const std::vector<std::string>& rest) {
    return parse_model_trace_cli(rest).errors;
}

const Subcommand kSubcommands[] = {
    {"train", nullptr, train_errors, run_train_cli},             // train_cmd.h
    {"attend", nullptr, parse_attend_cli, run_attend_cli},       // a coref checkpoint reads a sentence
    {"decode", nullptr, parse_decode_cli, run_decode_cli},       // token by token with a KV cache
    {"table3", nullptr, parse_table3_cli, run_table3_cli},       // Table 3 in miniature on translate
    {"trace", is_model_trace, model_trace_errors, run_model_trace_cli},  // trace --checkpoint DIR
};

const Subcommand* subcommand_of(const std::vector<std::string>& args) {
    if (args.empty()) return nullptr;
    for (const Subcommand& sub : kSubcommands)
        if (args[0] == sub.name && (!sub.applies || sub.applies(args))) return &sub;
    return nullptr;
}

}  // namespace

CliParse parse_cli(const std::vector<std::string>& args) {
    CliParse p;
    AttentionConfig& c = p.options.config;
    p.options.command = args.empty() ? "help" : args[0];
    if (p.options.command == "help" || p.options.command == "--help" || p.options.command == "-h") {
        p.options.command = "help";
        return p;
    }
    if (const Subcommand* sub = subcommand_of(args)) {  // its own flags: the row's parser
        p.errors = sub->parse(std::vector<std::string>(args.begin() + 1, args.end()));
        return p;
    }
    if (p.options.command != "trace" && p.options.command != "export-script") {
        p.errors.push_back({"command", Msg(Str::cli_unknown_command, shown(args[0]))});
        return p;
    }
    FlagReader r{args, 1, p, KeyFlags(attention_keys().rows)};
    for (; r.i < args.size(); ++r.i)
        if (!r.keys.read(args, &r.i, &c, &p.errors)) read_other_flag(args[r.i], c, r);
    if (p.errors.empty()) finish(c, r);
    return p;
}

namespace {

std::string pad(std::string s, size_t width) {
    // Width in characters, not bytes: the table uses a few UTF-8 symbols.
    const size_t chars = utf8::length(s);
    if (chars < width) s.append(width - chars, ' ');
    return s;
}

std::string fixed(double v, int digits = 4) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

// --flash-tile: the walk of item 0, head 0's first query tile, key tile by key tile (the
// running max, sum and rescale of each row), the naive row's max and sum beside, and the
// bytes an HBM would move.
void print_flash(const Trace& tr, std::ostream& out) {
    const FlashRecord& f = tr.flash;
    const AttentionConfig& c = tr.config;
    out << "\nonline softmax, tile by tile (FlashAttention-2's loop order): B_r=" << f.Br << " query rows, B_c=" << f.Bc
        << " keys per tile; item 0, head 0, query rows 0.." << std::min(f.Br, c.L_q()) - 1 << "\n";
    out << pad("  keys", 12) << pad("row", 5) << pad("m (running max)", 18) << pad("l (running sum)", 18) << "rescale e^(m_old - m_new)\n";
    const float* s = tr[TensorId::Masked].ptr();
    for (const FlashTile& t : f.tiles) {
        if (t.slice != 0 || t.row0 != 0) break;
        for (int r = 0; r < t.rows; ++r)
            out << pad(r ? "" : "  " + std::to_string(t.col0) + ".." + std::to_string(t.col0 + t.cols - 1), 12)
                << pad(std::to_string(r), 5) << pad(fixed(t.m[r]), 18) << pad(fixed(t.l[r]), 18) << fixed(t.rescale[r]) << "\n";
    }
    for (int r = 0; r < std::min(f.Br, c.L_q()); ++r) {  // the naive softmax's max and sum over the whole row
        const SoftmaxRowStats naive = naive_row_stats(s + static_cast<long>(r) * c.L_kv(), c.L_kv());
        out << pad(r ? "" : "  naive", 12) << pad(std::to_string(r), 5) << pad(fixed(naive.m), 18) << fixed(naive.l) << "\n";
    }
    const FlashBytes b = flash_bytes(c);
    out << "HBM bytes (float32, all items and heads): naive " << static_cast<long long>(b.naive) << " (S and P written and read), tiled "
        << static_cast<long long>(b.tiled) << " (K, V read once per query tile): " << fixed(b.naive / b.tiled, 2) << "x fewer\n";
}

void print_table(const Trace& tr, std::ostream& out) {
    const AttentionConfig& c = tr.config;
    out << (c.raw ? "raw scaled dot-product attention (Q, K, V drawn directly)  d_model=" : "multi-head attention  d_model=") << c.d_model << "  h=" << c.heads
        << (c.grouped() ? "  kv_heads=" + std::to_string(c.h_kv()) + (c.h_kv() == 1 ? " (multi-query)" : " (grouped-query)") : "") << "  d_k=d_v=" << c.d_k()
        << "  B=" << c.batch << "  L_q=" << c.L_q() << "  L_kv=" << c.L_kv() << "  mask=" << mask_kind_name(c.mask)
        << (c.window ? "  window=" + std::to_string(c.window) : "") << (c.prefix ? "  prefix=" + std::to_string(c.prefix) : "")
        << "  fill=" << mask_fill_name(c.mask_fill) << "  scale=" << (c.scale ? "on" : "off")
        << "  pe=" << (c.pe ? "on" : "off") << "  bias=" << (c.bias ? "on" : "off")
        << "  " << (c.cross ? "cross-attention" : "self-attention") << "  seed=" << c.seed << "\n\n";
    out << pad("#", 4) << pad("stage", 14) << pad("step", 36) << "shape\n";
    const auto& infos = stage_infos();
    for (size_t s = 0; s < tr.stages.size(); ++s) {
        bool first = true;
        for (const ShapeStep& st : tr.stages[s].shape_steps) {
            out << pad(first ? std::to_string(s + 1) : "", 4) << pad(first ? infos[s].key : "", 14)
                << pad(english(st.op), 36) << shape_named(st.shape, st.dims) << "\n";
            first = false;
        }
        if (tr.stages[s].status == StageStatus::Skipped) out << pad("", 18) << english(tr.stages[s].skipped_because) << "\n";
    }
    out << "\ninvariants (NaN: only in fully-masked rows, not a pass; fact: shown, not a check)\n";
    const char* const mark[] = {"ok  ", "FAIL", "NaN ", "fact"};  // in Verdict's order
    int counted[4] = {};
    for (size_t s = 0; s < tr.stages.size(); ++s)
        for (const InvariantCheck& ch : tr.stages[s].checks) {
            ++counted[static_cast<int>(ch.verdict)];
            out << "  " << mark[static_cast<int>(ch.verdict)] << "  " << pad(infos[s].key, 12) << english(ch.label) << ": "
                << english(ch.detail) << "\n";
        }
    const int pass = counted[0], checks = pass + counted[1] + counted[2];
    out << pass << " of " << checks << " invariants hold";
    if (counted[2]) out << " (" << counted[2] << " show NaN from fully-masked rows)";
    out << "; " << counted[3] << " facts are not checks\n";
    if (tr.flash.on()) print_flash(tr, out);
}

void print_json(const Trace& tr, std::ostream& out) {
    const Json j = {{"config", config_json_value(tr.config)},
                    {"stages", stages_json(tr, Lang::En)},
                    {"fully_masked_rows", tr.fully_masked_rows}};
    out << json_text(j) << "\n";
}

// --print TENSOR: the slice t[item, head] (the leading B and h dimensions fixed) printed as
// PyTorch prints it, under a comment saying what was taken. 2 when the tensor or an index
// does not exist.
int print_tensor(const CliOptions& o, const Trace& tr, std::ostream& out, std::ostream& err) {
    TensorId id;
    if (!tensor_id(o.print_tensor, &id)) {
        std::string names;
        for (const Tensor& t : tr.tensors) names += (names.empty() ? "" : ", ") + t.name;
        return err << "attnlab: --print: " << english(Msg(Str::cli_print_unknown, o.print_tensor, names)) << "\n", 2;
    }
    const Tensor* t = tr.find(id);
    if (!t) return err << "attnlab: --print: " << english(Msg(Str::cli_print_absent, o.print_tensor)) << "\n", 2;
    std::vector<int> index;
    std::string taken;
    size_t dim = 0;
    const std::pair<const char*, int> picks[] = {{"B", o.print_item}, {"h", o.print_head}};
    for (const auto& [name, given] : picks) {
        const char* flag = name[0] == 'B' ? "--item" : "--head";
        if (dim >= t->dims.size() || t->dims[dim] != name) {
            if (given >= 0) err << "attnlab: note: " << english(Msg(Str::cli_print_no_dim, t->name, name, shape_named(*t), flag)) << "\n";
            continue;
        }
        const int at = std::max(0, given), size = t->shape[dim];
        if (at >= size) {
            const Str range = name[0] == 'B' ? Str::cli_print_item_range : Str::cli_print_head_range;
            return err << "attnlab: " << flag << " " << english(Msg(range, at, size, size - 1)) << "\n", 2;
        }
        index.push_back(at);
        taken += (taken.empty() ? "" : ", ") + std::string(name[0] == 'B' ? "batch item " : "head ") + std::to_string(at);
        ++dim;
    }
    const std::vector<int> shape(t->shape.begin() + dim, t->shape.end());
    const std::vector<std::string> dims(t->dims.begin() + dim, t->dims.end());
    size_t start = 0, count = 1;
    for (size_t d = 0; d < t->shape.size(); ++d) start = start * t->shape[d] + (d < index.size() ? index[d] : 0);
    for (int n : shape) count *= static_cast<size_t>(n);
    std::string subscript;
    for (size_t i = 0; i < index.size(); ++i) subscript += (i ? ", " : "") + std::to_string(index[i]);
    out << t->name << (index.empty() ? "" : "[" + subscript + "]") << "  # " << (taken.empty() ? "" : taken + ": ")
        << shape_named(shape, dims) << " of " << shape_named(*t) << "\n";
    out << torch_repr(std::vector<float>(t->data.begin() + start, t->data.begin() + start + count), shape) << "\n";
    return 0;
}

int export_script(const CliOptions& o, const Trace& tr, std::ostream& out, std::ostream& err) {
    const std::string script = pytorch_script(tr);
    if (o.out_file.empty()) {
        out << script;
        return 0;
    }
    std::string error;
    if (!write_file(o.out_file, script, &error)) {
        err << "attnlab: --out: " << error << "\n";
        return 1;
    }
    out << "wrote " << o.out_file << " (" << script.size() << " bytes): python3 " << o.out_file
        << " recomputes this trace with PyTorch and exits 0 when it agrees\n";
    return 0;
}

}  // namespace

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    if (const Subcommand* sub = subcommand_of(args))
        return sub->run(std::vector<std::string>(args.begin() + 1, args.end()), out, err);
    const CliParse p = parse_cli(args);
    for (const Msg& note : p.notes) err << "attnlab: note: " << english(note) << "\n";
    if (!p.errors.empty()) {
        for (const ConfigError& e : p.errors) err << "attnlab: " << e.param << ": " << english(e.message) << "\n";
        err << cli_usage();
        return 2;
    }
    if (p.options.command == "help") {
        out << cli_usage();
        return 0;
    }
    const Trace tr = run_trace(p.options.config);
    if (p.options.command == "export-script") return export_script(p.options, tr, out, err);
    if (!p.options.print_tensor.empty()) return print_tensor(p.options, tr, out, err);
    const std::pair<const char*, int> slice_flags[] = {{"--item", p.options.print_item}, {"--head", p.options.print_head}};
    for (const auto& [flag, value] : slice_flags)
        if (value >= 0) err << "attnlab: note: " << english(Msg(Str::cli_print_needs_print, flag)) << "\n";
    if (p.options.format == "json") print_json(tr, out);
    else print_table(tr, out);
    if (!p.options.out_dir.empty()) {
        std::string error;
        if (!write_dump(p.options.out_dir, tr, &error)) {
            err << "attnlab: --out: " << error << "\n";
            return 1;
        }
        if (p.options.format == "table")
            out << "wrote " << tr.tensors.size() << " tensors and manifest.json to " << p.options.out_dir << "\n";
    }
    return 0;
}

}  // namespace lab
