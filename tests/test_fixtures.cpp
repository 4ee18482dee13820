// test_fixtures.cpp — the engine against golden tensors PyTorch computed
// (tests/fixtures, written once by tests/fixtures/gen_fixtures.py; no torch here).
// The fixture's own x, memory, weights and biases go in; every recorded tensor must
// agree within the float32 agreement tolerance for d_model (compare.h), NaN exactly where
// PyTorch has NaN.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "compare.h"
#include "interop/config_file.h"
#include "interop/npy.h"
#include "trace/trace.h"

using namespace lab;
using json = nlohmann::json;

namespace {

const std::string kFixtures = LAB_FIXTURE_DIR;

Tensor load(const std::string& dir, const std::string& name) {
    std::string bytes, error;
    Tensor t;
    REQUIRE_MESSAGE(read_file(dir + "/" + name + ".npy", &bytes, &error), error);
    REQUIRE_MESSAGE(decode_npy(bytes, &t, &error), name << ": " << error);
    t.name = name;
    return t;
}

// The fixture's configuration, read by the config-file reader (the keys of
// attention/config_keys.h, as manifest.json writes them).
AttentionConfig config_from(const json& j) {
    const ConfigFileResult r = parse_config_file(j.dump(), "manifest.json");
    std::string errors;
    for (const ConfigError& e : r.errors) errors += e.param + ": " + render(e.message, Lang::En) + "\n";
    REQUIRE_MESSAGE(r.ok, errors);
    REQUIRE(r.ignored.empty());
    return r.config;
}

void check_case(const std::string& name) {
    const std::string dir = kFixtures + "/" + name;
    std::string text, error;
    REQUIRE_MESSAGE(read_file(dir + "/manifest.json", &text, &error), error);
    const json manifest = json::parse(text, nullptr, false);
    REQUIRE_FALSE(manifest.is_discarded());
    const AttentionConfig c = config_from(manifest.at("config"));
    REQUIRE(validate(c).empty());

    AttentionInputs in{load(dir, "x"), load(dir, "memory")};
    AttentionWeights w{load(dir, "w_q"), load(dir, "w_k"), load(dir, "w_v"), load(dir, "w_o"),
                       load(dir, "b_q"), load(dir, "b_k"), load(dir, "b_v"), load(dir, "b_o")};
    const Trace tr = run_trace(c, in, w);

    int compared = 0;
    for (const auto& entry : manifest.at("tensors")) {
        const std::string tensor = entry.at("name");
        const Tensor want = load(dir, tensor);
        INFO(name << "/" << tensor);
        TensorId id;
        REQUIRE(tensor_id(tensor, &id));
        const Tensor* got = tr.find(id);
        REQUIRE(got != nullptr);
        CHECK(got->shape == want.shape);
        CHECK_AGREES(tensor, got->data, want.data, c.d_model);
        ++compared;
    }
    CHECK(compared >= 26);
}

}  // namespace

TEST_CASE("golden fixtures from PyTorch") {
    for (const char* name : {"tiny_causal", "padding", "cross", "single_head", "no_bias", "no_scale",
                             "fully_masked_inf", "fully_masked_1e9", "custom", "odd_pe", "paper_heads"}) {
        SUBCASE(name) { check_case(name); }
    }
}
