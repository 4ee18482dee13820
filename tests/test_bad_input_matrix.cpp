// test_bad_input_matrix.cpp — one table of bad inputs for every reader of untrusted
// text: the `attnlab` command line, JSON and TOML configuration files, the page's URL
// hash. Each row names the parameter (or key) the message must name and a fragment
// of the message; one assertion per row.
//
//   cli   run_cli(args split at '\n') exits 2; a stderr line "attnlab: PARAM: ..." contains the fragment
//   json  parse_config_file(text, "x.json"): not ok, an error with param PARAM contains the fragment
//   toml  parse_config_file(text, "x.toml"): the same
//   hash  decode_url_state(text): a note contains PARAM and the fragment, and the
//         resulting configuration is valid (decoding never fails)
// PARAM "" marks input that must be accepted (partial files and hashes keep the defaults).
//
// A second test case replays every input the fuzzers once failed on
// (tests/fuzz/regressions/<target>/) through the fuzz targets' properties, so the
// regular suite keeps them fixed without clang or libFuzzer.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "app/data/url_state.h"
#include "cli/cli.h"
#include "fuzz/fuzz_common.h"
#include "interop/config_file.h"

#include "text.h"

using namespace lab;
using namespace std::string_literals;

namespace {

struct BadInput {
    const char* entry;   // "cli" | "json" | "toml" | "hash"
    std::string input;
    std::string param;   // the parameter or key the message names; "" = accepted
    std::string expect;  // a fragment of the message
};

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::vector<std::string> split_lines(const std::string& s) {
    std::vector<std::string> out(1);
    for (char ch : s) {
        if (ch == '\n') out.emplace_back();
        else out.back() += ch;
    }
    return out;
}

// Empty when the row holds, otherwise what happened instead.
std::string check_row(const BadInput& row) {
    const std::string entry = row.entry;
    if (entry == "cli") {
        std::ostringstream out, err;
        const int code = run_cli(split_lines(row.input), out, err);
        if (code != 2) return "exit code " + std::to_string(code) + ", expected 2; stderr: " + err.str().substr(0, 600);
        for (const std::string& line : split_lines(err.str()))
            if (line.rfind("attnlab: " + row.param + ": ", 0) == 0 && contains(line, row.expect)) return "";
        return "no stderr line 'attnlab: " + row.param + ": ...' containing the fragment; stderr: " + err.str().substr(0, 600);
    }
    if (entry == "json" || entry == "toml") {
        const ConfigFileResult r = parse_config_file(row.input, "x." + entry);
        std::string errors;
        for (const ConfigError& e : r.errors) errors += "\n  " + e.param + ": " + en(e.message).substr(0, 300);
        if (row.param.empty()) {
            if (r.ok && r.errors.empty() && validate(r.config).empty()) return "";
            return "not accepted:" + errors;
        }
        if (r.ok) return "accepted, expected an error";
        for (const ConfigError& e : r.errors)
            if (e.param == row.param && contains(en(e.message), row.expect)) return "";
        return "no error with param '" + row.param + "' containing the fragment; errors:" + errors;
    }
    if (entry == "hash") {
        const UrlDecode d = decode_url_state(row.input);
        std::string notes;
        for (const Msg& n : d.notes) notes += "\n  " + en(n).substr(0, 300);
        const std::vector<ConfigError> invalid = validate(d.state.config);
        if (!invalid.empty()) return "the decoded configuration is invalid: " + en(invalid[0].message);
        if (row.param.empty()) return d.notes.empty() ? "" : "unexpected notes:" + notes;
        for (const Msg& note : d.notes)
            if (contains(en(note), row.param) && contains(en(note), row.expect)) return "";
        return "no note naming '" + row.param + "' containing the fragment; notes:" + notes;
    }
    return "unknown entry point " + entry;
}

std::vector<BadInput> bad_inputs() {
    const std::string long_digits(10000, '9');
    const std::string long_word(100000, 'x');
    return {
        // d_model not divisible by h; d_k / aliases inconsistent with it
        {"cli", "trace\n--d-model\n10\n--heads\n3", "heads", "d_model=10 is not divisible by heads=3 (valid heads: 1, 2, 5, 10)"},
        {"json", R"({"d_model": 10, "h": 3})", "heads", "d_model=10 is not divisible by heads=3 (valid heads: 1, 2, 5, 10)"},
        {"toml", "[attention]\nd_model = 10\nnum_heads = 3\n", "heads", "d_model=10 is not divisible by heads=3"},
        {"hash", "#d_model=10&heads=3", "heads", "d_model=10 is not divisible by heads=3"},
        {"json", R"({"d_model": 512, "h": 8, "d_k": 32})", "d_k", "d_k=32 does not match d_model / h = 512 / 8 = 64"},
        {"toml", "[attention]\nd_model = 512\nd_k = 100\n", "d_k", "d_k=100 does not divide d_model=512"},
        {"json", R"({"d_model": 512, "h": 8, "num_heads": 4})", "h", "h=8 and num_heads=4 disagree"},

        // zero, negative
        {"cli", "trace\n--seq-len\n0", "--seq-len", "--seq-len '0' is not a whole number in [1, 1048576]"},
        {"cli", "trace\n--batch\n-1", "--batch", "--batch '-1' is not a whole number in [1, 1048576]"},
        {"json", R"({"d_model": 0})", "d_model", "d_model=0 must be at least 1"},
        {"json", R"({"seq_len": -5})", "seq_len", "seq_len=-5 must be at least 1"},
        {"toml", "[attention]\nbatch_size = 0\n", "batch", "batch=0 must be at least 1 (batch size B)"},
        {"toml", "[attention]\nseed = -1\n", "seed", "seed=-1 must be a whole number from 0 to 2147483647"},
        {"hash", "#seq_len=0", "seq_len", "seq_len='0' is not a whole number in [1, 4096]; using 4"},
        {"hash", "#batch=-2", "batch", "batch='-2' is not a whole number in [1, 256]; using 2"},

        // absurdly large, and over the trace memory cap (estimate and cap in the message)
        {"cli", "trace\n--d-model\n99999999999999999999", "--d-model", "is not a whole number in [1, 1048576]"},
        {"cli", "trace\n--d-model\n8192", "d_model", "d_model=8192 is larger than the lab's limit of 4096"},
        {"json", R"({"d_model": 1e12})", "d_model", "is larger than the lab's limit of 4096"},
        {"json", R"({"batch_size": 100000})", "batch", "batch=100000 is larger than the lab's limit of 256"},
        {"toml", "[attention]\nd_model = 9223372036854775807\n", "d_model", "d_model=9223372036854775807 is larger than the lab's limit of 4096"},
        {"hash", "#d_model=99999", "d_model", "d_model='99999' is not a whole number in [1, 4096]; using 8"},
        {"cli", "trace\n--d-model\n4096\n--heads\n64\n--seq-len\n4096\n--batch\n256", "seq_len",
         "needs about 4.27 TiB for its trace, above the cap of 384 MiB"},
        {"json", R"({"d_model": 512, "h": 8, "seq_len": 4096, "batch_size": 64})", "seq_len",
         "needs about 140 GiB for its trace, above the cap of 384 MiB"},
        {"toml", "[attention]\nd_model = 4096\nnum_heads = 64\nseq_len = 4096\nbatch_size = 256\n", "seq_len",
         "needs about 4.27 TiB for its trace, above the cap of 384 MiB"},
        {"hash", "#d_model=4096&heads=64&seq_len=4096&batch=256", "seq_len",
         "needs about 4.27 TiB for its trace, above the cap of 384 MiB"},

        // non-numeric values
        {"cli", "trace\n--heads\nx", "--heads", "--heads 'x' is not a whole number in [1, 1048576]"},
        {"cli", "trace\n--seed\n1e3", "--seed", "--seed '1e3' is not a whole number in [0, 2147483647]"},
        {"json", R"({"d_model": "512"})", "d_model", "d_model=\"512\" must be a number, not a string (write 512 without quotes)"},
        {"json", R"({"h": 8.5})", "h", "h=8.5 must be a whole number, not a fraction"},
        {"toml", "[attention]\nnum_heads = \"eight\"\n", "num_heads", "num_heads=\"eight\" must be a number, not a string"},
        {"hash", "#heads=x", "heads", "heads='x' is not a whole number in [1, 4096]; using 2"},

        // NaN and infinity
        {"cli", "trace\n--seq-len\ninf", "--seq-len", "--seq-len 'inf' is not a whole number"},
        {"cli", "trace\n--mask-fill\nnan", "--mask-fill", "--mask-fill 'nan' is not inf or 1e9"},
        {"json", R"({"d_model": NaN})", "file", "(JSON has no NaN or Infinity: write a number)"},
        {"json", R"({"seq_len": Infinity})", "file", "(JSON has no NaN or Infinity: write a number)"},
        {"json", R"({"seq_len": -Infinity})", "file", "(JSON has no NaN or Infinity: write a number)"},
        {"json", R"({"d_model": 1e400})", "file", "number overflow parsing '1e400'"},
        {"toml", "[attention]\nd_model = nan\n", "d_model", "d_model=nan must be a whole number, not NaN"},
        {"toml", "[attention]\nseq_len = -inf\n", "seq_len", "seq_len=-inf must be a whole number, not infinity"},
        {"hash", "#seq_len=inf", "seq_len", "seq_len='inf' is not a whole number in [1, 4096]; using 4"},
        {"hash", "#fill=nan", "fill", "fill='nan' is not inf or 1e9; using -inf"},

        // missing keys: partial input keeps the defaults; missing values and tables are named
        {"json", R"({"d_model": 16})", "", ""},
        {"json", "{}", "", ""},
        {"toml", "[attention]\n", "", ""},
        {"toml", "[attention]\nd_model = 16\n[training]\nwarmup_steps = 4000\n", "", ""},
        {"hash", "#d_model=16", "", ""},
        {"cli", "trace\n--seq-len", "--seq-len", "--seq-len needs a value"},
        {"toml", "[training]\nwarmup_steps = 4000\n", "attention", "no [attention] table"},
        {"toml", "d_model = 16\n", "attention", "move the top-level keys (d_model) under [attention]"},
        {"json", "", "file", "the file is empty"},
        {"toml", " \n\t\n", "file", "the file is empty"},

        // wrong types
        {"cli", "trace\n--mask\nbogus", "--mask", "--mask 'bogus' is not one of none, causal"},
        {"cli", "trace\n--format\nyaml", "--format", "--format 'yaml' is not table or json"},
        {"cli", "trace\n--mask\ncustom:1x", "--mask", "custom rows are strings of 0 and 1"},
        {"json", R"({"h": true})", "h", "h=true must be a whole number, not a boolean"},
        {"json", R"({"seq_len": [10]})", "seq_len", "seq_len=[10] must be a whole number, not an array"},
        {"json", R"({"batch": null})", "batch", "batch=null must be a whole number, not null"},
        {"json", R"({"d_model": {"value": 5}})", "d_model", "must be a whole number, not an object"},
        {"json", R"({"scale": 1})", "scale", "scale=1 must be true or false, not a whole number"},
        {"json", R"({"mask": 3})", "mask", "mask=3 must be a string, not a whole number"},
        {"json", "[512, 8]", "file", "must hold an object"},
        {"toml", "attention = 5\n", "attention", "attention=5 must be a table"},
        {"toml", "[attention]\npadding_lengths = \"4,3\"\n", "padding_lengths", "must be an array of whole numbers"},
        {"toml", "[attention]\nseq_len = 1979-05-27\n", "seq_len", "not a date"},
        {"hash", "#scale=maybe", "scale", "scale='maybe' is not 0 or 1; using 1"},

        // truncated files and hashes
        {"json", R"({"d_model": 512, "h": 8, "seq_len": 10, "batch_si)", "file", "(the file ends early: is it truncated?)"},
        {"json", R"({"d_model": 512, "h": 8)", "file", "line 1, column 24"},
        {"toml", "[attention]\nd_model = 512\nnum_he", "file", "line 3, column 7"},
        {"toml", "[attenti", "file", "(the file ends early: is it truncated?)"},
        {"hash", "#d_model=16&hea", "hea", "unknown key 'hea' ignored"},
        {"cli", "trace\n--mask\npadding:4,", "--mask", "padding lengths must be whole numbers separated by commas"},

        // binary input
        {"json", "\x89PNG\r\n\x1a\n\0\0\0\rIHDR"s, "file", "the file is binary, not JSON text: byte 0x89 at line 1, column 1 (offset 0)"},
        {"toml", "[attention]\nd_model = 5\0\0"s, "file", "the file is binary, not TOML text: byte 0x00 at line 2, column 12"},
        {"toml", "[attention]\nd_model = 5\xff\n"s, "file", "byte 0xff"},
        {"hash", "#\x01\x02\xff\0=1"s, "unknown key", "ignored"},
        // non-ASCII where TOML expects whitespace: undefined behaviour in toml++ 3.3.0 (its
        // issue #190), found by fuzz_toml_config; scripts/sanitize.sh runs these under UBSan
        {"toml", "[attention]\nd_model = 16\xc3\xa9\n", "file", "saw '\xc3\xa9'"},
        {"toml", "[attention]\n\xce\xb1 = 1\n", "file", "saw '\xce\xb1'"},
        {"cli", "trace\n--heads\n\x01\xff"s, "--heads", "is not a whole number in [1, 1048576]"},

        // very long strings: the readers cut what they echo
        {"cli", "trace\n--heads\n" + long_digits, "--heads", "is not a whole number in [1, 1048576]"},
        {"json", "{\"mask\": \"" + long_word + "\"}", "mask", "xxx...\" is not one of \"none\", \"causal\", \"padding\", \"custom\""},
        {"toml", "[attention]\nd_model = \"" + long_digits + "\"\n", "d_model", "999...\" must be a number, not a string"},
        {"hash", "#heads=" + long_digits, "heads", "9999...' is not a whole number in [1, 4096]; using 2"},
        {"hash", "#tokens=" + long_word, "tokens", "a token longer than 64 bytes was cut"},

        // duplicate and unknown hash keys; other notes the hash gives
        {"hash", "#heads=2&heads=4", "heads", "'heads' appears more than once; the first value is used"},
        {"hash", "#d_model=16&d_model=10&heads=4", "d_model", "'d_model' appears more than once"},
        {"hash", "#bogus=1&d_model=16", "bogus", "unknown key 'bogus' ignored"},
        {"hash", "#=5", "unknown key ''", "ignored"},
        {"hash", "#mask=custom&custom=1x", "custom mask", "does not match L_q x L_kv; using a causal mask"},
        {"hash", "#mask=padding&pad=9,9", "padding_lengths", "padding length 9 for batch item 0 must be between 0 and L_kv=4"},
        {"hash", "#stage=nope", "stage", "stage='nope' names no stage; showing the first"},

        // other commands and flags
        {"cli", "frobnicate", "command", "unknown command 'frobnicate'"},
        {"cli", "trace\n--bogus", "--bogus", "unknown option '--bogus'"},
        {"cli", "trace\n--kv-len\n6", "--kv-len", "needs --cross"},
        {"cli", "trace\n--mask\ncustom:10/1", "--mask", "custom mask must have L_q=4 rows of L_kv=4 digits each"},
        {"cli", "trace\n--mask\npadding:4,2\n--batch\n3", "padding_lengths", "got 2 for batch=3"},
        {"cli", "trace\n--config\n/nonexistent/x.json", "--config", "cannot open /nonexistent/x.json"},
    };
}

}  // namespace

TEST_CASE("bad input matrix: every reader names the parameter and never breaks") {
    for (const BadInput& row : bad_inputs()) {
        const std::string problem = check_row(row);
        CHECK_MESSAGE(problem.empty(), std::string(row.entry) << " '" << row.input.substr(0, 80) << "' (param '"
                                                              << row.param << "', expected '" << row.expect
                                                              << "'): " << problem);
    }
}

namespace {

std::string read_bytes(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::ostringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// The properties of tests/fuzz/fuzz_*.cpp, reporting instead of aborting.
std::string link_round_trip(const AttentionConfig& c) {
    UrlState s;
    s.config = c;
    const std::string hash = encode_url_state(s);
    const UrlDecode back = decode_url_state(hash);
    if (!back.notes.empty()) return "its link " + hash.substr(0, 200) + " decodes with a note: " + en(back.notes[0]);
    if (!lab_fuzz::same_config(c, back.state.config)) return "its link changes it to " + lab_fuzz::describe(back.state.config);
    return "";
}

std::string replay(const std::string& target, const std::string& input) {
    if (target == "fuzz_json_config" || target == "fuzz_toml_config") {
        const ConfigFileResult r = parse_config_file(input, target == "fuzz_json_config" ? "x.json" : "x.toml");
        if (!r.ok) return r.errors.empty() ? "ok=false without an error" : "";
        if (!validate(r.config).empty()) return "accepted a configuration validate() rejects";
        return link_round_trip(r.config);
    }
    if (target == "fuzz_url_hash") {
        const UrlDecode d = decode_url_state(input);
        if (!validate(d.state.config).empty()) return "decoded an invalid configuration";
        const UrlDecode d2 = decode_url_state(encode_url_state(d.state));
        if (!d2.notes.empty()) return "re-decoding gives a note: " + en(d2.notes[0]);
        if (!lab_fuzz::same_config(d.state.config, d2.state.config) || d.state.tokens != d2.state.tokens ||
            d.state.view.stage != d2.state.view.stage || d.state.view.experiment != d2.state.view.experiment)
            return "encode/decode changed the state: " + lab_fuzz::describe(d2.state.config);
        return "";
    }
    if (target == "fuzz_cli_args") {
        std::vector<std::string> args(1);
        for (char ch : input) {
            if (ch == '\0' || ch == '\n') args.emplace_back();
            else args.back() += ch;
        }
        if (input.empty()) args.clear();
        for (size_t i = 1; i + 1 < args.size(); ++i)  // the fuzzer's sandboxed files do not exist here
            if (args[i] == "--config") args[i + 1] = "/nonexistent/" + args[i + 1], ++i;
        const CliParse p = parse_cli(args);
        if (p.errors.empty())
            return p.options.command == "help" || validate(p.options.config).empty() ? "" : "parse_cli accepted an invalid configuration";
        std::ostringstream out, err;
        const int code = run_cli(args, out, err);
        if (code != 2 || !out.str().empty()) return "run_cli exited " + std::to_string(code) + " for arguments parse_cli rejects";
        for (const ConfigError& e : p.errors)  // what parse_cli found is what the user reads
            if (err.str().find(en(e.message)) == std::string::npos) return "stderr lacks the message: " + en(e.message);
        return "";
    }
    return "no replay for target " + target;
}

}  // namespace

TEST_CASE("fuzz regressions: inputs the fuzzers once failed on keep their properties") {
    const std::filesystem::path root = std::filesystem::path(LAB_FIXTURE_DIR) / ".." / "fuzz" / "regressions";
    REQUIRE(std::filesystem::is_directory(root));
    for (const auto& target : std::filesystem::directory_iterator(root)) {
        if (!target.is_directory()) continue;
        for (const auto& file : std::filesystem::directory_iterator(target.path())) {
            const std::string problem = replay(target.path().filename().string(), read_bytes(file.path()));
            CHECK_MESSAGE(problem.empty(), file.path().filename().string() << ": " << problem);
        }
    }
}
