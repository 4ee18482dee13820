// test_cli.cpp — `attnlab` exit codes, messages, the shape table and the dump.
#include <doctest/doctest.h>

#include "cli_run.h"

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/bench.h"
#include "cli/cli.h"
#include "cli/train_cmd.h"
#include "interop/npy.h"
#include "text.h"
#include "trace/trace.h"

using namespace lab;

namespace {
using Run = CliRun;
}  // namespace

TEST_CASE("attnlab trace prints the shape table and the invariants") {
    const Run r = run({"trace"});
    CHECK(r.code == 0);
    CHECK(r.err.empty());
    CHECK(r.out.find("view(B, L_q, h, d_k)") != std::string::npos);
    CHECK(r.out.find("(B=2, L_q=4, h=2, d_k=4)") != std::string::npos);
    CHECK(r.out.find("(B=2, h=2, L_q=4, L_kv=4)") != std::string::npos);
    CHECK(r.out.find("invariants hold") != std::string::npos);
    CHECK(r.out.find("FAIL") == std::string::npos);
}

TEST_CASE("invalid configurations exit 2 with the parameter named") {
    SUBCASE("not divisible") {
        const Run r = run({"trace", "--d-model", "10", "--heads", "3"});
        CHECK(r.code == 2);
        CHECK(r.err.find("heads: d_model=10 is not divisible by heads=3 (valid heads: 1, 2, 5, 10)") != std::string::npos);
    }
    SUBCASE("non-numeric") {
        const Run r = run({"trace", "--seq-len", "ten"});
        CHECK(r.code == 2);
        CHECK(r.err.find("--seq-len 'ten' is not a whole number") != std::string::npos);
    }
    SUBCASE("zero") {
        const Run r = run({"trace", "--batch", "0"});
        CHECK(r.code == 2);
        CHECK(r.err.find("--batch '0'") != std::string::npos);
    }
    SUBCASE("missing value") {
        const Run r = run({"trace", "--heads"});
        CHECK(r.code == 2);
        CHECK(r.err.find("--heads needs a value") != std::string::npos);
    }
    SUBCASE("unknown option and command") {
        CHECK(run({"trace", "--frobnicate"}).code == 2);
        CHECK(run({"trance"}).err.find("unknown command 'trance'") != std::string::npos);
    }
    SUBCASE("bad mask") {
        CHECK(run({"trace", "--mask", "diagonal"}).code == 2);
        CHECK(run({"trace", "--mask", "padding:4,x"}).code == 2);
        CHECK(run({"trace", "--mask", "padding:4"}).err.find("got 1 for batch=2") != std::string::npos);
        CHECK(run({"trace", "--mask", "custom:10/11"}).err.find("custom mask must have L_q=4 rows") != std::string::npos);
        CHECK(run({"trace", "--kv-len", "6"}).err.find("needs --cross") != std::string::npos);
    }
}

TEST_CASE("flags reach the configuration") {
    const CliParse p = parse_cli({"trace", "--d-model", "12", "--heads", "3", "--seq-len", "3", "--kv-len", "5",
                                  "--cross", "--batch", "1", "--seed", "9", "--mask", "custom:11111/11100/10000",
                                  "--mask-fill", "1e9", "--no-scale", "--no-pe", "--no-bias"});
    REQUIRE(p.errors.empty());
    const AttentionConfig& c = p.options.config;
    CHECK(c.d_model == 12);
    CHECK(c.L_kv() == 5);
    CHECK(c.cross);
    CHECK(c.seed == 9u);
    CHECK(c.mask == MaskKind::Custom);
    CHECK(c.custom_keep.size() == 15);
    CHECK(c.custom_keep[5] == 1);
    CHECK(c.custom_keep[8] == 0);
    CHECK(c.mask_fill == MaskFill::NegBillion);
    CHECK_FALSE(c.scale);
    CHECK_FALSE(c.pe);
    CHECK_FALSE(c.bias);
}

TEST_CASE("--out writes every tensor as .npy plus manifest.json, and they read back") {
    const std::string dir = (std::filesystem::temp_directory_path() / "attnlab_test_dump").string();
    std::filesystem::remove_all(dir);
    const Run r = run({"trace", "--mask", "padding:4,2", "--out", dir});
    REQUIRE(r.code == 0);
    std::string text, error;
    REQUIRE(read_file(dir + "/manifest.json", &text, &error));
    const auto manifest = nlohmann::json::parse(text, nullptr, false);
    REQUIRE_FALSE(manifest.is_discarded());
    CHECK(manifest["config"]["mask"] == "padding");
    CHECK(manifest["config"]["padding_lengths"] == nlohmann::json::array({4, 2}));
    AttentionConfig c;
    c.mask = MaskKind::Padding, c.padding_lengths = {4, 2};
    const Trace tr = run_trace(c);
    CHECK(manifest["tensors"].size() == tr.tensors.size());
    for (const auto& entry : manifest["tensors"]) {
        std::string bytes;
        Tensor t;
        REQUIRE(read_file(dir + "/" + entry["file"].get<std::string>(), &bytes, &error));
        REQUIRE_MESSAGE(decode_npy(bytes, &t, &error), error);
        TensorId id;
        REQUIRE(tensor_id(entry["name"].get<std::string>(), &id));
        const Tensor* want = tr.find(id);
        REQUIRE(want != nullptr);
        CHECK(t.shape == entry["shape"].get<std::vector<int>>());
        CHECK(t.shape == want->shape);
        CHECK(t.data == want->data);  // bit-exact round trip
    }
    CHECK(run({"trace", "--out", "/proc/attnlab-cannot-write-here"}).code == 1);
    std::filesystem::remove_all(dir);
}

TEST_CASE(".npy decoding rejects what it cannot read, with a reason") {
    Tensor t;
    std::string error;
    CHECK_FALSE(decode_npy("not numpy", &t, &error));
    CHECK(error.find("bad magic") != std::string::npos);
    Tensor good = Tensor::zeros("a", {2, 3}, {"r", "c"});
    std::string bytes = encode_npy(good);
    CHECK(bytes.size() % 64 == 24 % 64);  // header padded to 64: 128 + 24 bytes of data
    CHECK(decode_npy(bytes, &t, &error));
    CHECK(t.shape == std::vector<int>{2, 3});
    CHECK_FALSE(decode_npy(bytes.substr(0, bytes.size() - 4), &t, &error));
    CHECK(error.find("shape needs 24") != std::string::npos);
    std::string f8 = bytes;
    f8.replace(f8.find("<f4"), 3, "<f8");
    CHECK_FALSE(decode_npy(f8, &t, &error));
    CHECK(error.find("'<f8'") != std::string::npos);
}

TEST_CASE("--config refuses endless or huge files without reading them whole") {
    const CliRun r = run({"trace", "--config", "/dev/zero"});
    CHECK(r.code == 2);
    CHECK(r.err.find("--config: /dev/zero is larger than the limit of 1048576 bytes; not read") != std::string::npos);
}

TEST_CASE("an empty argument is named as such; long bad values are cut in the message") {
    const CliRun empty = run({"trace", ""});
    CHECK(empty.code == 2);
    CHECK(empty.err.find("attnlab: argument: an empty argument was given") != std::string::npos);
    const CliRun long_value = run({"trace", "--heads", std::string(10000, '9')});
    CHECK(long_value.code == 2);
    CHECK(long_value.err.find("--heads '" + std::string(40, '9') + "...' is not a whole number") != std::string::npos);
    CHECK(long_value.err.size() < 2500);  // the message and the usage, far below the 10000 digits
}

namespace {

// A typed value on the command line for key k: "0", the smallest and one past the largest.
template <class Parse>
void check_typed_numbers(const std::vector<ConfigKey>& rows, const std::string& command, Parse parse) {
    for (const ConfigKey& k : rows) {
        if (!*k.cli_flag || (k.type != KeyType::Whole && k.type != KeyType::Decimal)) continue;
        CAPTURE(command);
        CAPTURE(k.cli_flag);
        const bool zero_in_range = k.type == KeyType::Whole ? k.lo <= 0 : k.lo_real <= 0;
        std::vector<ConfigError> errors;
        const double held = parse(std::vector<std::string>{k.cli_flag, "0"}, k, &errors);
        if (!zero_in_range || k.zero_means != Str::Count_) {
            // Refused, naming the flag; where files read 0 as a default, the message says so.
            REQUIRE(errors.size() == 1);
            CHECK(errors[0].param == k.cli_flag);
            if (k.zero_means != Str::Count_) CHECK(render(errors[0].message, Lang::En).find("0 is refused") != std::string::npos);
        } else {
            CHECK(errors.empty());
            CHECK(held == 0);  // a typed 0 is what the configuration holds, not a default put in its place
        }
        errors.clear();
        parse(std::vector<std::string>{k.cli_flag, "1e999"}, k, &errors);
        CHECK(errors.size() == 1);
    }
}

}  // namespace

TEST_CASE("every numeric flag of trace and train: a typed 0 is that value or refused with its range") {
    check_typed_numbers(attention_keys().rows, "trace", [](std::vector<std::string> args, const ConfigKey& k,
                                                           std::vector<ConfigError>* errors) {
        args.insert(args.begin(), "trace");
        if (std::string(k.cli_flag) == "--kv-len") args.push_back("--cross");
        const CliParse p = parse_cli(args);
        *errors = p.errors;
        return k.type == KeyType::Whole ? double(k.get(&p.options.config)) : k.get_real(&p.options.config);
    });
    check_typed_numbers(train_keys().rows, "train", [](const std::vector<std::string>& args, const ConfigKey& k,
                                                       std::vector<ConfigError>* errors) {
        const TrainCliParse p = parse_train_cli(args);
        *errors = p.errors;
        return k.type == KeyType::Whole ? double(k.get(&p.options.config)) : k.get_real(&p.options.config);
    });
    // The cases the issue named, as a user types them.
    const Run kv = run({"trace", "--cross", "--kv-len", "0"});
    CHECK(kv.code == 2);
    CHECK(kv.err.find("--kv-len: --kv-len 0 is refused: 0 stands for \"the same as --seq-len\" (self-attention) in config "
                      "files and links, so a typed 0 would be silently replaced; give a whole number in [1, 4096], or leave "
                      "--kv-len out for that default") != std::string::npos);
    CHECK(run({"export-script", "--cross", "--kv-len", "0"}).code == 2);
    const Run target = run({"train", "--target-exact", "0"});
    CHECK(target.code == 2);
    CHECK(target.err.find("--target-exact 0 is refused") != std::string::npos);
    CHECK(run({"trace", "--checkpoint", "nowhere", "--sample", "-1"}).err.find("--sample '-1' is not a whole number") !=
          std::string::npos);
}

TEST_CASE("attnlab bench refuses a --repeats it would not use as typed") {
    for (const std::vector<std::string>& args : {std::vector<std::string>{"--repeats", "0"}, {"--repeats", "abc"},
                                                 {"--repeats", "100001"}, {"--repeats"}, {"--repeats", "3x"}}) {
        std::ostringstream out, err;
        CAPTURE(args.size() > 1 ? args[1] : "(none)");
        CHECK(run_bench(args, "native", out, err) == 2);
        CHECK(err.str().find("--repeats") != std::string::npos);
        CHECK(err.str().find("[1, 100000]") != std::string::npos);
        CHECK(out.str().empty());
    }
}

TEST_CASE("parse_cli knows attend: its errors are the ones run_cli prints (fuzz regression attend_unknown_to_parse_cli)") {
    const CliParse p = parse_cli({"attend", "--checkpoint"});
    REQUIRE(p.errors.size() == 1);
    CHECK(p.errors[0].param == "--checkpoint");
    const CliRun r = run({"attend", "--checkpoint"});
    CHECK(r.code == 2);
    CHECK(r.err.find(en(p.errors[0].message)) != std::string::npos);
    CHECK(parse_cli({"attend"}).errors.at(0).param == "--checkpoint");
    CHECK(parse_cli({"attend", "--checkpoint", "d", "--text", "x"}).errors.empty());
    CHECK(parse_cli({"attendx"}).errors.at(0).param == "command");
}
