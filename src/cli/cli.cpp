// cli.cpp — Attention Lab CLI: `attnlab trace` prints the tutorial-style shape table
// and the invariant results, and with --out dumps every tensor for PyTorch;
// `attnlab export-script` writes a standalone PyTorch script that checks the trace.
// Both read a JSON or TOML config file with --config FILE (later flags override it).
#include "cli.h"

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <ostream>

#include "../core/dump.h"
#include "../core/npy.h"
#include "../core/trace.h"
#include "../interop/config_file.h"
#include "../interop/exports.h"
#include "train_cmd.h"

namespace lab {

std::string cli_usage() {
    return "usage: attnlab trace [--config FILE] [--d-model N] [--heads N] [--seq-len N] [--kv-len N] [--batch N]\n"
           "                     [--seed N] [--mask none|causal|padding:L1,L2,...|custom:ROW/ROW/...] [--mask-fill inf|1e9]\n"
           "                     [--no-scale] [--no-pe] [--no-bias] [--cross] [--format table|json] [--out DIR]\n"
           "       attnlab export-script [the same flags as trace] [--out FILE.py]\n"
           "       attnlab train [--task copy|reverse|sort|induction] [...]   (attnlab train --help)\n"
           "       attnlab help\n"
           "  custom mask rows are 0/1 strings, one per query, e.g. custom:1000/1100/1110/1111\n"
           "  --config FILE reads a .json (d_model, h, d_k, seq_len, batch_size, seed, ...) or a .toml with an\n"
           "    [attention] table; flags after it override the file, keys the lab does not use are listed as a note\n"
           "  export-script writes a standalone PyTorch script (standard output without --out) that recomputes the\n"
           "    trace with torch and exits 0 when PyTorch agrees with the lab\n";
}

namespace {

// A value as echoed in a message: cut like the file and hash readers do, so a
// 10,000-character argument does not flood the terminal.
std::string shown(const std::string& v) { return v.size() > 40 ? v.substr(0, 40) + "..." : v; }

bool parse_int(const std::string& text, long lo, long hi, long* out) {
    if (text.empty() || text.size() > 18) return false;
    char* end = nullptr;
    errno = 0;
    const long v = std::strtol(text.c_str(), &end, 10);
    if (errno || *end != '\0' || v < lo || v > hi) return false;
    *out = v;
    return true;
}

bool parse_lengths(const std::string& text, std::vector<int>* out) {
    size_t start = 0;
    while (start <= text.size()) {
        const size_t comma = text.find(',', start);
        const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        long v;
        if (!parse_int(item, 0, 1 << 20, &v)) return false;
        out->push_back(static_cast<int>(v));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return !out->empty();
}

bool parse_custom_rows(const std::string& text, std::vector<std::vector<uint8_t>>* rows) {
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

}  // namespace

CliParse parse_cli(const std::vector<std::string>& args) {
    CliParse p;
    AttentionConfig& c = p.options.config;
    if (args.empty()) {
        p.options.command = "help";
        return p;
    }
    p.options.command = args[0];
    if (p.options.command == "help" || p.options.command == "--help" || p.options.command == "-h") {
        p.options.command = "help";
        return p;
    }
    if (p.options.command == "train") {  // its own flags (train_cmd.h); run_cli hands it over
        const TrainCliParse t = parse_train_cli(std::vector<std::string>(args.begin() + 1, args.end()));
        p.errors = t.errors;
        return p;
    }
    if (p.options.command != "trace" && p.options.command != "export-script") {
        p.errors.push_back({"command", "unknown command '" + shown(args[0]) + "' (commands: trace, export-script, train, help)"});
        return p;
    }
    const bool script = p.options.command == "export-script";
    std::vector<std::vector<uint8_t>> custom_rows;
    bool kv_len_given = false;
    for (size_t i = 1; i < args.size(); ++i) {
        const std::string& flag = args[i];
        auto value = [&](std::string* v) {
            if (i + 1 >= args.size()) {
                p.errors.push_back({flag, flag + " needs a value"});
                return false;
            }
            *v = args[++i];
            return true;
        };
        auto int_flag = [&](int* field, long lo, long hi) {
            std::string v;
            long n;
            if (!value(&v)) return;
            if (parse_int(v, lo, hi, &n)) *field = static_cast<int>(n);
            else p.errors.push_back({flag, flag + " '" + shown(v) + "' is not a whole number in [" + std::to_string(lo) + ", " +
                                               std::to_string(hi) + "]"});
        };
        std::string v;
        if (flag == "--d-model") int_flag(&c.d_model, 1, 1 << 20);
        else if (flag == "--heads") int_flag(&c.heads, 1, 1 << 20);
        else if (flag == "--seq-len") int_flag(&c.seq_len, 1, 1 << 20);
        else if (flag == "--kv-len") int_flag(&c.kv_len, 1, 1 << 20), kv_len_given = true;
        else if (flag == "--batch") int_flag(&c.batch, 1, 1 << 20);
        else if (flag == "--seed") {
            int seed = 0;
            int_flag(&seed, 0, 2147483647);
            c.seed = static_cast<uint32_t>(seed);
        } else if (flag == "--mask") {
            if (!value(&v)) continue;
            if (v == "none") c.mask = MaskKind::None;
            else if (v == "causal") c.mask = MaskKind::Causal;
            else if (v.rfind("padding:", 0) == 0) {
                c.mask = MaskKind::Padding;
                c.padding_lengths.clear();
                if (!parse_lengths(v.substr(8), &c.padding_lengths))
                    p.errors.push_back({"--mask", "--mask '" + shown(v) + "': padding lengths must be whole numbers separated by commas, e.g. padding:4,3"});
            } else if (v.rfind("custom:", 0) == 0) {
                c.mask = MaskKind::Custom;
                custom_rows.clear();
                if (!parse_custom_rows(v.substr(7), &custom_rows))
                    p.errors.push_back({"--mask", "--mask '" + shown(v) + "': custom rows are strings of 0 and 1 separated by '/', e.g. custom:10/11"});
            } else {
                p.errors.push_back({"--mask", "--mask '" + shown(v) + "' is not one of none, causal, padding:L1,L2,..., custom:ROW/ROW/..."});
            }
        } else if (flag == "--mask-fill") {
            if (!value(&v)) continue;
            if (v == "inf" || v == "-inf") c.mask_fill = MaskFill::NegInf;
            else if (v == "1e9" || v == "-1e9") c.mask_fill = MaskFill::NegBillion;
            else p.errors.push_back({"--mask-fill", "--mask-fill '" + shown(v) + "' is not inf or 1e9"});
        } else if (flag == "--no-scale") c.scale = false;
        else if (flag == "--no-pe") c.pe = false;
        else if (flag == "--no-bias") c.bias = false;
        else if (flag == "--cross") c.cross = true;
        else if (flag == "--out") {
            if (value(&v)) (script ? p.options.out_file : p.options.out_dir) = v;
        } else if (flag == "--config") {
            if (!value(&v)) continue;
            p.options.config_files.push_back(v);
            std::string text, error;
            std::error_code ec;
            if (std::filesystem::is_directory(v, ec)) {
                p.errors.push_back({"--config", v + " is a directory, not a .json or .toml file"});
                continue;
            }
            constexpr size_t kMaxConfigBytes = 1 << 20;  // like the page: a config file is small
            if (!read_file(v, &text, &error, kMaxConfigBytes)) {
                p.errors.push_back({"--config", error});
                continue;
            }
            // The file applies on top of the flags so far; flags after it override it.
            const ConfigFileResult r = parse_config_file_unvalidated(text, v, c);
            for (const ConfigError& e : r.errors)
                p.errors.push_back({e.param == "file" ? "--config " + v : "--config " + v + ": " + e.param, e.message});
            if (!r.errors.empty()) continue;
            c = r.config;
            custom_rows.clear();  // a custom mask given before the file no longer applies
            if (!r.ignored.empty()) {
                std::string note = v + ": ignored keys the lab does not use:";
                for (size_t k = 0; k < r.ignored.size(); ++k) note += (k ? ", " : " ") + r.ignored[k];
                p.notes.push_back(note);
            }
        } else if (flag == "--format") {
            if (!value(&v)) continue;
            if (v == "table" || v == "json") p.options.format = v;
            else p.errors.push_back({"--format", "--format '" + shown(v) + "' is not table or json"});
        } else {
            p.errors.push_back(flag.empty()
                                   ? ConfigError{"argument", "an empty argument was given (a stray \"\" on the command line?)"}
                                   : ConfigError{flag, "unknown option '" + shown(flag) + "'"});
        }
    }
    if (!p.errors.empty()) return p;
    if (kv_len_given && !c.cross && c.kv_len != c.seq_len)
        p.errors.push_back({"--kv-len", "--kv-len differs from --seq-len, which needs --cross (K and V from an encoder memory)"});
    if (c.mask == MaskKind::Custom && !custom_rows.empty()) {  // from --mask custom:... (a file's mask is checked there)
        c.custom_keep.clear();
        const int rows = static_cast<int>(custom_rows.size());
        const int cols = static_cast<int>(custom_rows[0].size());
        bool ragged = false;
        for (const auto& r : custom_rows) {
            ragged |= static_cast<int>(r.size()) != cols;
            c.custom_keep.insert(c.custom_keep.end(), r.begin(), r.end());
        }
        if (ragged || rows != c.L_q() || cols != c.L_kv())
            p.errors.push_back({"--mask", "custom mask must have L_q=" + std::to_string(c.L_q()) + " rows of L_kv=" +
                                              std::to_string(c.L_kv()) + " digits each"});
    }
    if (!p.errors.empty()) return p;
    for (ConfigError& e : validate(c)) p.errors.push_back(e);
    return p;
}

namespace {

std::string pad(std::string s, size_t width) {
    // Width in characters, not bytes: the table uses a few UTF-8 symbols.
    size_t chars = 0;
    for (unsigned char ch : s) chars += (ch & 0xC0) != 0x80;
    if (chars < width) s.append(width - chars, ' ');
    return s;
}

void print_table(const Trace& tr, std::ostream& out) {
    const AttentionConfig& c = tr.config;
    out << "multi-head attention  d_model=" << c.d_model << "  h=" << c.heads << "  d_k=d_v=" << c.d_k()
        << "  B=" << c.batch << "  L_q=" << c.L_q() << "  L_kv=" << c.L_kv() << "  mask=" << mask_kind_name(c.mask)
        << "  fill=" << mask_fill_name(c.mask_fill) << "  scale=" << (c.scale ? "on" : "off")
        << "  pe=" << (c.pe ? "on" : "off") << "  bias=" << (c.bias ? "on" : "off")
        << "  " << (c.cross ? "cross-attention" : "self-attention") << "  seed=" << c.seed << "\n\n";
    out << pad("#", 4) << pad("stage", 14) << pad("step", 36) << "shape\n";
    const auto& infos = stage_infos();
    for (size_t s = 0; s < tr.stages.size(); ++s) {
        bool first = true;
        for (const ShapeStep& st : tr.stages[s].shape_steps) {
            std::string named = "(";
            for (size_t i = 0; i < st.shape.size(); ++i)
                named += (i ? ", " : "") + st.dims[i] + "=" + std::to_string(st.shape[i]);
            named += ")";
            out << pad(first ? std::to_string(s + 1) : "", 4) << pad(first ? infos[s].key : "", 14) << pad(st.op, 36)
                << named << "\n";
            first = false;
        }
    }
    out << "\ninvariants\n";
    int failed = 0, total = 0;
    for (size_t s = 0; s < tr.stages.size(); ++s)
        for (const InvariantCheck& ch : tr.stages[s].checks) {
            ++total;
            failed += !ch.pass;
            out << "  " << (ch.pass ? "ok  " : "FAIL") << "  " << pad(infos[s].key, 12) << ch.label << ": " << ch.detail << "\n";
        }
    out << total - failed << " of " << total << " invariants hold\n";
}

void print_json(const Trace& tr, std::ostream& out) {
    JsonWriter w;
    w.begin_object().key("config");
    write_config(w, tr.config);
    w.key("stages");
    write_stages(w, tr);
    w.key("fully_masked_rows").value(tr.fully_masked_rows).end_object();
    out << w.str() << "\n";
}

}  // namespace

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    if (!args.empty() && args[0] == "train")
        return run_train_cli(std::vector<std::string>(args.begin() + 1, args.end()), out, err);
    const CliParse p = parse_cli(args);
    for (const std::string& note : p.notes) err << "attnlab: note: " << note << "\n";
    if (!p.errors.empty()) {
        for (const ConfigError& e : p.errors) err << "attnlab: " << e.param << ": " << e.message << "\n";
        err << cli_usage();
        return 2;
    }
    if (p.options.command == "help") {
        out << cli_usage();
        return 0;
    }
    const Trace tr = run_trace(p.options.config);
    if (p.options.command == "export-script") {
        const std::string script = pytorch_script(tr);
        if (p.options.out_file.empty()) {
            out << script;
            return 0;
        }
        std::string error;
        if (!write_file(p.options.out_file, script, &error)) {
            err << "attnlab: --out: " << error << "\n";
            return 1;
        }
        out << "wrote " << p.options.out_file << " (" << script.size() << " bytes): python3 " << p.options.out_file
            << " recomputes this trace with PyTorch and exits 0 when it agrees\n";
        return 0;
    }
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
