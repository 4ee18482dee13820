// test_fixtures.cpp — the engine against golden tensors PyTorch computed
// (tests/fixtures, written once by tests/fixtures/gen_fixtures.py; no torch here).
// The fixture's own x, memory, weights and biases go in; every recorded tensor must
// come out within 1e-5 (abs + rel), NaN exactly where PyTorch has NaN.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "compare.h"
#include "core/npy.h"
#include "core/trace.h"

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

AttentionConfig config_from(const json& j) {
    AttentionConfig c;
    c.d_model = j.at("d_model");
    c.heads = j.at("heads");
    c.seq_len = j.at("seq_len");
    c.kv_len = j.at("kv_len");
    c.batch = j.at("batch");
    c.seed = j.at("seed");
    const std::string mask = j.at("mask");
    c.mask = mask == "causal" ? MaskKind::Causal : mask == "padding" ? MaskKind::Padding
           : mask == "custom" ? MaskKind::Custom : MaskKind::None;
    c.mask_fill = j.at("mask_fill") == "-inf" ? MaskFill::NegInf : MaskFill::NegBillion;
    c.scale = j.at("scale");
    c.pe = j.at("pe");
    c.bias = j.at("bias");
    c.cross = j.at("cross");
    if (j.contains("padding_lengths")) c.padding_lengths = j.at("padding_lengths").get<std::vector<int>>();
    if (j.contains("custom_mask"))
        for (const auto& row : j.at("custom_mask"))
            for (int v : row) c.custom_keep.push_back(static_cast<uint8_t>(v));
    return c;
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
        const Tensor* got = tr.find(tensor);
        INFO(name << "/" << tensor);
        REQUIRE(got != nullptr);
        CHECK(got->shape == want.shape);
        CHECK_CLOSE(tensor, got->data, want.data, 1e-5);
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
