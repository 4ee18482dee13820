// test_interop_config.cpp — JSON and TOML config files: valid, partial and broken
// files in both formats, messages that name the key, and `attnlab trace --config`.
#include <doctest/doctest.h>

#include "cli_run.h"

#include <sstream>

#include "cli/cli.h"
#include "interop/config_file.h"
#include "interop/json_export.h"
#include "interop/npy.h"

#include "text.h"

using namespace lab;

namespace {

const std::string kDir = LAB_FIXTURE_DIR "/../interop/";

std::string fixture_text(const std::string& name) {
    std::string text, error;
    const bool ok = read_file(kDir + name, &text, &error);
    REQUIRE_MESSAGE(ok, error);
    return text;
}

ConfigFileResult parse_fixture(const std::string& name, const AttentionConfig& base = {}) {
    return parse_config_file(fixture_text(name), name, base);
}

// "param: message" lines, the way the CLI prints them.
std::string errors_of(const ConfigFileResult& r) {
    std::string all;
    for (const ConfigError& e : r.errors) all += e.param + ": " + en(e.message) + "\n";
    return all;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
    for (const std::string& x : v)
        if (x == s) return true;
    return false;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

using Run = CliRun;

}  // namespace

TEST_CASE("paper_base.json: the paper's hyper-parameters, the unused ones listed as ignored") {
    const ConfigFileResult r = parse_fixture("paper_base.json");
    INFO(errors_of(r));
    REQUIRE(r.ok);
    CHECK(r.format == "json");
    CHECK(r.config.d_model == 512);
    CHECK(r.config.heads == 8);
    CHECK(r.config.d_k() == 64);
    CHECK(r.config.seq_len == 10);
    CHECK(r.config.batch == 2);
    CHECK(r.config.seed == 42u);
    for (const char* key : {"d_model", "h", "d_k", "d_v", "seq_len", "batch_size", "seed"}) CHECK(contains(r.applied, key));
    for (const char* key : {"d_ff", "N_encoder_layers", "N_decoder_layers", "P_drop", "warmup_steps", "beta1", "beta2",
                            "epsilon", "label_smoothing", "_comment"})
        CHECK(contains(r.ignored, key));
    CHECK(r.ignored.size() == 10);
    // What the file does not mention keeps the base value.
    CHECK(r.config.mask == MaskKind::Causal);
    CHECK(r.config.scale);
}

TEST_CASE("paper_base.toml: the [attention] table is read, other tables are ignored") {
    const ConfigFileResult r = parse_fixture("paper_base.toml");
    INFO(errors_of(r));
    REQUIRE(r.ok);
    CHECK(r.format == "toml");
    CHECK(r.config.d_model == 512);
    CHECK(r.config.heads == 8);
    CHECK(r.config.seq_len == 10);
    CHECK(r.config.batch == 2);
    CHECK(r.config.seed == 42u);
    CHECK(r.ignored == std::vector<std::string>{"attention.d_ff", "title", "api.*", "training.*"});
    CHECK(contains(r.applied, "num_heads"));
}

TEST_CASE("partial files change only what they name") {
    AttentionConfig base;
    base.seq_len = 7, base.seed = 5;
    SUBCASE("json") {
        const ConfigFileResult r = parse_fixture("partial.json", base);
        REQUIRE(r.ok);
        CHECK(r.config.d_model == 64);
        CHECK(r.config.heads == 4);
        CHECK(r.config.seq_len == 7);
        CHECK(r.config.seed == 5u);
        CHECK(r.ignored.empty());
    }
    SUBCASE("toml, with a comment after the value") {
        const ConfigFileResult r = parse_fixture("partial.toml", base);
        REQUIRE(r.ok);
        CHECK(r.config.heads == 4);
        CHECK(r.config.d_model == base.d_model);
        CHECK(r.applied == std::vector<std::string>{"num_heads"});
    }
}

TEST_CASE("every option of the lab, and aliases, from both formats") {
    SUBCASE("cross-attention with padding and -1e9") {
        const ConfigFileResult r = parse_fixture("cross_padding.toml");
        INFO(errors_of(r));
        REQUIRE(r.ok);
        const AttentionConfig& c = r.config;
        CHECK(c.cross);
        CHECK(c.L_q() == 3);
        CHECK(c.L_kv() == 6);
        CHECK(c.batch == 2);
        CHECK(c.mask == MaskKind::Padding);
        CHECK(c.padding_lengths == std::vector<int>{6, 4});
        CHECK(c.mask_fill == MaskFill::NegBillion);
        CHECK_FALSE(c.pe);
        CHECK(c.seed == 7u);
    }
    SUBCASE("custom mask rows as strings, n_heads, no scale, no bias") {
        const ConfigFileResult r = parse_fixture("custom_mask.json");
        INFO(errors_of(r));
        REQUIRE(r.ok);
        const AttentionConfig& c = r.config;
        CHECK(c.heads == 3);
        CHECK(c.batch == 1);
        CHECK(c.mask == MaskKind::Custom);
        CHECK(c.custom_keep == std::vector<uint8_t>{1, 0, 0, 0, 1, 1, 0, 0, 1, 0, 1, 0, 1, 1, 1, 1});
        CHECK_FALSE(c.scale);
        CHECK_FALSE(c.bias);
    }
    SUBCASE("the config of a manifest.json reads back unchanged") {
        AttentionConfig c;
        c.d_model = 12, c.heads = 3, c.seq_len = 3, c.kv_len = 4, c.cross = true, c.batch = 1, c.seed = 99;
        c.mask = MaskKind::Custom, c.custom_keep = {1, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 1};
        c.mask_fill = MaskFill::NegBillion, c.scale = false, c.pe = false, c.bias = false;
        const ConfigFileResult r = parse_config_file(config_json(c), "manifest.json");
        INFO(errors_of(r));
        REQUIRE(r.ok);
        CHECK(config_json(r.config) == config_json(c));
        CHECK(r.ignored.empty());
        // d_k and d_v are in the manifest too: consistent, so accepted.
        CHECK(contains(r.applied, "d_k"));
    }
    SUBCASE("d_k without h derives h; 512.0 is a whole number") {
        const ConfigFileResult r = parse_config_file("{\"d_model\": 512.0, \"d_k\": 64}", "x.json");
        INFO(errors_of(r));
        REQUIRE(r.ok);
        CHECK(r.config.heads == 8);
    }
    SUBCASE("the same value under two head spellings is fine") {
        const ConfigFileResult r = parse_config_file("{\"d_model\": 64, \"h\": 8, \"num_heads\": 8}", "x.json");
        CHECK(r.ok);
        CHECK(r.config.heads == 8);
    }
    SUBCASE("mask_fill as a TOML float and mask none") {
        const ConfigFileResult r = parse_config_file("[attention]\nmask = \"none\"\nmask_fill = -1e9\n", "x.toml");
        REQUIRE(r.ok);
        CHECK(r.config.mask == MaskKind::None);
        CHECK(r.config.mask_fill == MaskFill::NegBillion);
    }
}

TEST_CASE("the format is sniffed when the name does not tell") {
    CHECK(parse_config_file("  {\"h\": 4}", "").format == "json");
    CHECK(parse_config_file("# a comment\n[attention]\nnum_heads = 4\n", "").format == "toml");
    CHECK(parse_config_file("{\"h\": 4}", "").config.heads == 4);
    CHECK(parse_config_file("[attention]\nnum_heads = 4\n", "settings.cfg").config.heads == 4);
    CHECK(parse_config_file("\xEF\xBB\xBF{\"h\": 4}", "bom.json").ok);  // a UTF-8 byte order mark is skipped
}

TEST_CASE("wrong types name the key and say what was expected") {
    SUBCASE("json fixture") {
        const ConfigFileResult r = parse_fixture("wrong_types.json");
        const std::string e = errors_of(r);
        CHECK_FALSE(r.ok);
        CHECK(has(e, "d_model: d_model=\"512\" must be a number, not a string (write 512 without quotes)\n"));
        CHECK(has(e, "h: h=8.5 must be a whole number, not a fraction\n"));
        CHECK(has(e, "d_v: d_v=true must be a whole number, not a boolean\n"));
        CHECK(has(e, "seq_len: seq_len=null must be a whole number, not null\n"));
        CHECK(has(e, "batch_size: batch_size=[2] must be a whole number, not an array\n"));
        CHECK(has(e, "seed: seed={...} must be a whole number, not an object\n"));
        CHECK(has(e, "scale: scale=\"yes\" must be true or false, not a string\n"));
        CHECK(has(e, "mask: mask=\"diagonal\" is not one of \"none\", \"causal\", \"padding\", \"custom\"\n"));
        CHECK(r.errors.size() == 8);
    }
    SUBCASE("toml fixture") {
        const ConfigFileResult r = parse_fixture("wrong_types.toml");
        const std::string e = errors_of(r);
        CHECK(has(e, "d_model: d_model=\"512\" must be a number, not a string (write 512 without quotes)\n"));
        CHECK(has(e, "num_heads: num_heads=8.5 must be a whole number, not a fraction\n"));
        CHECK(has(e, "seq_len: seq_len=true must be a whole number, not a boolean\n"));
        CHECK(has(e, "batch_size: batch_size=[2] must be a whole number, not an array\n"));
        CHECK(has(e, "seed: seed=-1 must be a whole number from 0 to 2147483647\n"));
    }
    SUBCASE("one wrong key at a time") {
        CHECK(errors_of(parse_config_file("{\"d_model\": 512.5}", "a.json")) == "d_model: d_model=512.5 must be a whole number, not a fraction\n");
        CHECK(errors_of(parse_config_file("{\"d_model\": true}", "a.json")) == "d_model: d_model=true must be a whole number, not a boolean\n");
        CHECK(errors_of(parse_config_file("{\"d_model\": null}", "a.json")) == "d_model: d_model=null must be a whole number, not null\n");
        CHECK(errors_of(parse_config_file("{\"d_model\": [512, 8]}", "a.json")) == "d_model: d_model=[512, 8] must be a whole number, not an array\n");
        CHECK(errors_of(parse_config_file("{\"d_model\": \"big\"}", "a.json")) == "d_model: d_model=\"big\" must be a number, not a string\n");
        CHECK(errors_of(parse_config_file("[attention]\nseq_len = 1979-05-27\n", "a.toml")) == "seq_len: seq_len=1979-05-27 must be a whole number, not a date\n");
        CHECK(errors_of(parse_config_file("{\"seed\": 3000000000}", "a.json")) == "seed: seed=3000000000 must be a whole number from 0 to 2147483647\n");
        CHECK(errors_of(parse_config_file("{\"cross\": 1}", "a.json")) == "cross: cross=1 must be true or false, not a whole number\n");
        CHECK(errors_of(parse_config_file("{\"mask_fill\": \"-1e8\"}", "a.json")) == "mask_fill: mask_fill=\"-1e8\" is not \"-inf\" or \"-1e9\"\n");
        CHECK(errors_of(parse_config_file("{\"padding_lengths\": [4, \"x\"]}", "a.json")) ==
              "padding_lengths[1]: padding_lengths[1]=\"x\" must be a number, not a string\n");
        CHECK(has(errors_of(parse_config_file("{\"custom_mask\": [\"10\", \"1\"], \"seq_len\": 2}", "a.json")),
                  "custom_mask: custom_mask row 1 has 1 entries but row 0 has 2"));
        CHECK(has(errors_of(parse_config_file("{\"mask\": \"custom\", \"custom_mask\": [\"10\", \"11\"]}", "a.json")),
                  "custom_mask: custom_mask is 2x2 but needs L_q x L_kv = 4x4"));
    }
}

TEST_CASE("NaN and infinity") {
    SUBCASE("JSON has no NaN: a parse error with line and column") {
        const ConfigFileResult r = parse_fixture("nan.json");
        REQUIRE(r.errors.size() == 1);
        CHECK(r.errors[0].param == "file");
        CHECK(has(en(r.errors[0].message), "the file is not valid JSON: line 3, column 8: "));
        CHECK(has(en(r.errors[0].message), "invalid literal"));
        CHECK(has(en(r.errors[0].message), "(JSON has no NaN or Infinity: write a number)"));
    }
    SUBCASE("Infinity") {
        const ConfigFileResult r = parse_fixture("infinity.json");
        REQUIRE(r.errors.size() == 1);
        CHECK(has(en(r.errors[0].message), "the file is not valid JSON: line 1, column 13: "));
        CHECK(has(errors_of(parse_config_file("{\"seq_len\": -Infinity}", "a.json")), "(JSON has no NaN or Infinity: write a number)"));
        CHECK(has(errors_of(parse_config_file("{\"seq_len\": nan}", "a.json")), "(JSON has no NaN or Infinity: write a number)"));
        CHECK(has(errors_of(parse_config_file("{\"d_model\": 1e400}", "a.json")), "the file is not valid JSON: line 1, column"));
    }
    SUBCASE("TOML has nan and inf: type errors naming the key") {
        const std::string e = errors_of(parse_fixture("nan_inf.toml"));
        CHECK(has(e, "d_model: d_model=nan must be a whole number, not NaN\n"));
        CHECK(has(e, "num_heads: num_heads=inf must be a whole number, not infinity\n"));
        CHECK(has(e, "seq_len: seq_len=-inf must be a whole number, not infinity\n"));
    }
}

TEST_CASE("negative and huge numbers") {
    SUBCASE("negative and zero sizes reach validation, which names them") {
        const std::string e = errors_of(parse_fixture("negative.json"));
        CHECK(has(e, "d_model: d_model=-512 must be at least 1"));
        CHECK(has(e, "seq_len: seq_len=0 must be at least 1"));
        CHECK(has(e, "batch: batch=100000 is larger than the lab's limit of 256"));
    }
    SUBCASE("numbers beyond any int") {
        const ConfigFileResult r = parse_fixture("huge.json");
        const std::string e = errors_of(r);
        CHECK(has(e, "h: h=1e+20 is larger than the lab's limit of 4096\n"));
        CHECK(has(e, "seq_len: seq_len=1e+300 is larger than the lab's limit of 4096\n"));
        CHECK(has(e, "seed: seed=4294967296 must be a whole number from 0 to 2147483647\n"));
        CHECK(r.errors.size() == 3);
    }
    SUBCASE("int64 overflow in TOML is a parse error") {
        const ConfigFileResult r = parse_config_file("[attention]\nd_model = 99999999999999999999\n", "big.toml");
        REQUIRE(r.errors.size() == 1);
        CHECK(has(en(r.errors[0].message), "the file is not valid TOML: line 2, column"));
    }
}

TEST_CASE("inconsistent d_k, conflicting head counts, non-divisible d_model") {
    CHECK(errors_of(parse_fixture("inconsistent_dk.json")) == "d_k: d_k=32 does not match d_model / h = 512 / 8 = 64\n");
    CHECK(errors_of(parse_config_file("{\"d_model\": 512, \"h\": 8, \"d_v\": 32}", "a.json")) ==
          "d_v: d_v=32 does not match d_model / h = 512 / 8 = 64\n");
    CHECK(errors_of(parse_config_file("{\"d_model\": 512, \"d_k\": 48}", "a.json")) ==
          "d_k: d_k=48 does not divide d_model=512 (h = d_model / d_k must be a whole number)\n");
    CHECK(errors_of(parse_fixture("heads_conflict.json")) ==
          "h: h=8 and num_heads=4 disagree: both set the number of heads; keep one of them\n");
    CHECK(errors_of(parse_config_file("{\"batch\": 2, \"batch_size\": 3}", "a.json")) ==
          "batch_size: batch_size=3 and batch=2 disagree: both set the number of batch items; keep one of them\n");
    CHECK(errors_of(parse_fixture("not_divisible.toml")) == "heads: d_model=10 is not divisible by heads=3 (valid heads: 1, 2, 5, 10)\n");
}

TEST_CASE("broken files: empty, blank, binary, truncated, wrong format, missing table") {
    SUBCASE("empty JSON") {
        const ConfigFileResult r = parse_fixture("empty.json");
        CHECK(r.format == "json");
        CHECK(errors_of(r) == "file: the file is empty: expected a JSON object such as {\"d_model\": 512, \"h\": 8}\n");
    }
    SUBCASE("blank TOML") {
        CHECK(errors_of(parse_fixture("blank.toml")) ==
              "file: the file is empty: expected TOML with an [attention] table (d_model = 512, num_heads = 8, ...)\n");
    }
    SUBCASE("binary") {
        CHECK(errors_of(parse_fixture("binary.json")) == "file: the file is binary, not JSON text: byte 0x89 at line 1, column 1 (offset 0)\n");
        const ConfigFileResult r = parse_config_file(std::string("[attention]\nd_model = 8\n\0\0", 26), "x.toml");
        CHECK(errors_of(r) == "file: the file is binary, not TOML text: byte 0x00 at line 3, column 1 (offset 24)\n");
    }
    SUBCASE("truncated JSON") {
        const ConfigFileResult r = parse_fixture("truncated.json");
        REQUIRE(r.errors.size() == 1);
        CHECK(has(en(r.errors[0].message), "the file is not valid JSON: line 4, column 3: "));
        CHECK(has(en(r.errors[0].message), "unexpected end of input"));
        CHECK(has(en(r.errors[0].message), "(the file ends early: is it truncated?)"));
    }
    SUBCASE("truncated TOML") {
        const ConfigFileResult r = parse_fixture("truncated.toml");
        REQUIRE(r.errors.size() == 1);
        CHECK(has(en(r.errors[0].message), "the file is not valid TOML: line 4, column"));
        CHECK(has(en(r.errors[0].message), "(the file ends early: is it truncated?)"));
    }
    SUBCASE("no [attention] table") {
        const ConfigFileResult r = parse_fixture("no_attention.toml");
        CHECK(errors_of(r) ==
              "attention: no [attention] table: the lab reads d_model, num_heads, d_k, d_v, seq_len, batch_size and seed "
              "from it (found: [api], [model]); move the top-level keys (d_model) under [attention]\n");
    }
    SUBCASE("attention is not a table") {
        CHECK(has(errors_of(parse_config_file("attention = 5\n", "a.toml")), "attention: attention=5 must be a table"));
    }
    SUBCASE("JSON top level is not an object") {
        CHECK(errors_of(parse_config_file("[512, 8]", "a.json")) ==
              "file: the JSON file must hold an object {\"d_model\": 512, \"h\": 8, ...} at the top level, not an array\n");
    }
    SUBCASE("TOML text in a .json file, and the other way round") {
        CHECK(has(errors_of(parse_config_file(fixture_text("partial.toml"), "wrong.json")),
                  "(the text looks like TOML: give the file a .toml name)"));
        CHECK(has(errors_of(parse_config_file(fixture_text("partial.json"), "wrong.toml")),
                  "(the text looks like JSON: give the file a .json name)"));
    }
    SUBCASE("non-ASCII text: fine in TOML strings and comments, an error elsewhere") {
        const ConfigFileResult ok = parse_config_file(
            "title = \"Vaswani et al. \xe2\x80\x94 2017\"\n[attention]\nnum_heads = 4  # t\xc3\xaate\n", "x.toml");
        CHECK(ok.ok);
        CHECK(ok.config.heads == 4);
        CHECK(errors_of(parse_config_file("[attention]\nd_model = 5\xc3\xa9\n", "x.toml")) ==
              "file: the file is not valid TOML: line 2, column 12: saw '\xc3\xa9', which TOML allows only inside strings "
              "and comments\n");
        CHECK(parse_config_file("{\"d_model\": 8, \"caf\xc3\xa9\": 1}", "x.json").ignored == std::vector<std::string>{"caf\xc3\xa9"});
    }
    SUBCASE("malformed TOML table headers are parse errors (toml++ 3.3.0 asserted on these)") {
        for (const char* text : {"[{model]\n", "[[[1]]]\n", "[[=\n", "[[[a]]\n"}) {
            CAPTURE(text);
            const ConfigFileResult r = parse_config_file(text, "x.toml");
            REQUIRE(r.errors.size() == 1);
            CHECK(has(en(r.errors[0].message), "the file is not valid TOML: line 1, column"));
        }
    }
    SUBCASE("invalid UTF-8") {
        CHECK(has(errors_of(parse_config_file("{\"d_model\": 8, \"\xff\": 1}", "a.json")), "byte 0xff at line 1, column 17"));
    }
}

TEST_CASE("attnlab trace --config: the file, then the flags after it") {
    const std::string paper = kDir + "paper_base.json";
    SUBCASE("the file's values reach the trace, ignored keys are a note on stderr") {
        const Run r = run({"trace", "--config", paper});
        CHECK(r.code == 0);
        CHECK(has(r.out, "d_model=512  h=8  d_k=d_v=64  B=2  L_q=10"));
        CHECK(has(r.err, "attnlab: note: " + paper + ": ignored keys the lab does not use: _comment, d_ff, N_encoder_layers"));
    }
    SUBCASE("flags after --config override it") {
        const CliParse p = parse_cli({"trace", "--config", paper, "--heads", "4", "--seq-len", "6"});
        REQUIRE(p.errors.empty());
        CHECK(p.options.config.d_model == 512);
        CHECK(p.options.config.heads == 4);
        CHECK(p.options.config.seq_len == 6);
        CHECK(p.options.config.batch == 2);
        CHECK(p.options.config_files == std::vector<std::string>{paper});
    }
    SUBCASE("flags before --config are overridden by it") {
        const CliParse p = parse_cli({"trace", "--heads", "4", "--config", paper});
        REQUIRE(p.errors.empty());
        CHECK(p.options.config.heads == 8);
    }
    SUBCASE("TOML, json output") {
        const Run r = run({"trace", "--config", kDir + "cross_padding.toml", "--format", "json"});
        CHECK(r.code == 0);
        const Json out = Json::parse(r.out, nullptr, false);
        REQUIRE_FALSE(out.is_discarded());
        CHECK(out["config"]["cross"] == true);
        CHECK(out["config"]["padding_lengths"] == Json::array({6, 4}));
    }
    SUBCASE("a broken file: exit 2, the key named") {
        const Run r = run({"trace", "--config", kDir + "inconsistent_dk.json"});
        CHECK(r.code == 2);
        CHECK(has(r.err, "attnlab: --config " + kDir + "inconsistent_dk.json: d_k: d_k=32 does not match d_model / h = 512 / 8 = 64\n"));
        const Run t = run({"trace", "--config", kDir + "truncated.toml"});
        CHECK(t.code == 2);
        CHECK(has(t.err, "attnlab: --config " + kDir + "truncated.toml: the file is not valid TOML: line 4"));
    }
    SUBCASE("the file's config is validated after the flags") {
        CHECK(run({"trace", "--config", kDir + "not_divisible.toml"}).code == 2);
        CHECK(run({"trace", "--config", kDir + "not_divisible.toml", "--heads", "5"}).code == 0);
    }
    SUBCASE("a missing file, a directory, a missing value") {
        CHECK(has(run({"trace", "--config", kDir + "no-such-file.json"}).err, "--config: cannot open"));
        CHECK(has(run({"trace", "--config", kDir}).err, "is a directory"));
        CHECK(run({"trace", "--config"}).code == 2);
    }
    SUBCASE("a custom mask from the file survives; one from flags replaces it") {
        const CliParse p = parse_cli({"trace", "--config", kDir + "custom_mask.json"});
        REQUIRE(p.errors.empty());
        CHECK(p.options.config.custom_keep.size() == 16);
        const CliParse q = parse_cli({"trace", "--config", kDir + "custom_mask.json", "--mask", "custom:1111/1111/1111/1111"});
        REQUIRE(q.errors.empty());
        CHECK(q.options.config.custom_keep == std::vector<uint8_t>(16, 1));
    }
}
