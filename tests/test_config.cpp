// test_config.cpp — validation messages name the parameter and suggest a fix.
#include <doctest/doctest.h>

#include "attention/config.h"

#include "text.h"

using namespace lab;

namespace {
std::string errors_of(const AttentionConfig& c) {
    std::string all;
    for (const ConfigError& e : validate(c)) all += e.param + ": " + en(e.message) + "\n";
    return all;
}
}  // namespace

TEST_CASE("the default configuration is valid") { CHECK(validate(AttentionConfig{}).empty()); }

TEST_CASE("d_model not divisible by heads lists the valid heads") {
    AttentionConfig c;
    c.d_model = 10, c.heads = 3;
    const auto errors = validate(c);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].param == "heads");
    CHECK(en(errors[0].message) == "d_model=10 is not divisible by heads=3 (valid heads: 1, 2, 5, 10)");
    CHECK(valid_heads(512) == std::vector<int>{1, 2, 4, 8, 16, 32, 64, 128, 256, 512});
}

TEST_CASE("zero, negative and huge sizes are refused by name") {
    AttentionConfig c;
    SUBCASE("zero d_model") {
        c.d_model = 0;
        CHECK(errors_of(c).find("d_model: d_model=0 must be at least 1") != std::string::npos);
    }
    SUBCASE("negative batch") {
        c.batch = -3;
        CHECK(errors_of(c).find("batch: batch=-3 must be at least 1") != std::string::npos);
    }
    SUBCASE("huge seq_len") {
        c.seq_len = 100000;
        CHECK(errors_of(c).find("seq_len: seq_len=100000 is larger than the lab's limit of 4096") != std::string::npos);
    }
    SUBCASE("memory cap with the estimate in the message") {
        c.d_model = 512, c.heads = 64, c.seq_len = 4096, c.batch = 1, c.mask = MaskKind::None;
        const std::string e = errors_of(c);
        CHECK(e.find("needs about") != std::string::npos);
        CHECK(e.find("above the cap of 384 MiB") != std::string::npos);
        CHECK(estimate_trace_bytes(c) > 384.0 * 1024 * 1024);
    }
    SUBCASE("several problems at once are all reported") {
        c.d_model = 0, c.seq_len = 0, c.batch = 0;
        CHECK(validate(c).size() == 3);
    }
}

TEST_CASE("mask parameters are checked against the sizes") {
    AttentionConfig c;
    SUBCASE("padding needs one length per batch item") {
        c.mask = MaskKind::Padding, c.padding_lengths = {3};
        CHECK(errors_of(c).find("padding_lengths: padding mask needs one valid length per batch item: got 1 for batch=2") !=
              std::string::npos);
    }
    SUBCASE("padding length beyond L_kv") {
        c.mask = MaskKind::Padding, c.padding_lengths = {3, 9};
        CHECK(errors_of(c).find("padding length 9 for batch item 1 must be between 0 and L_kv=4") != std::string::npos);
    }
    SUBCASE("custom mask of the wrong size") {
        c.mask = MaskKind::Custom, c.custom_keep = {1, 0, 1};
        CHECK(errors_of(c).find("custom_mask: custom mask has 3 cells but L_q\u00d7L_kv = 4\u00d74 = 16") != std::string::npos);
    }
    SUBCASE("kv_len without cross-attention") {
        c.kv_len = 6;
        CHECK(errors_of(c).find("kv_len: kv_len=6 differs from seq_len=4") != std::string::npos);
        c.cross = true;
        CHECK(validate(c).empty());
        CHECK(c.L_kv() == 6);
    }
}
