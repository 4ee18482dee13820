// test_flash_attention.cpp — the online softmax tile by tile (issue 26, item 2): a walk
// worked by hand, the tiled context against the naive one for every mask (NaN rows included)
// and awkward tile sizes, the HBM byte counts by hand, and every reader of flash_tile.
#include <doctest/doctest.h>

#include <cmath>

#include "app/data/url_state.h"
#include "attention/flash_attention.h"
#include "cli_run.h"
#include "interop/config_file.h"
#include "text.h"
#include "trace/trace.h"

using namespace lab;

TEST_CASE("flash: two keys in two tiles, worked by hand: the second tile raises the max and rescales by 1/3") {
    // Scores (0, ln 3): softmax (1/4, 3/4). v = (8, 4): context 0.25·8 + 0.75·4 = 5.
    const float s[] = {0.0f, std::log(3.0f)}, v[] = {8.0f, 4.0f};
    FlashRecord f;
    flash_forward(&f, s, v, 1, 1, 2, 1, 1, 1);
    REQUIRE(f.tiles.size() == 2);
    CHECK(f.tiles[0].m[0] == 0.0f);
    CHECK(f.tiles[0].l[0] == 1.0f);
    CHECK(f.tiles[0].o[0] == 8.0f);
    CHECK(f.tiles[1].m[0] == doctest::Approx(std::log(3.0)));
    CHECK(f.tiles[1].rescale[0] == doctest::Approx(1.0 / 3));
    CHECK(f.tiles[1].l[0] == doctest::Approx(4.0 / 3));        // 1/3 + 1
    CHECK(f.tiles[1].o[0] == doctest::Approx(8.0 / 3 + 4.0));  // 8/3 + 4
    CHECK(f.out[0] == doctest::Approx(5.0));
    for (const FlashTile& t : f.tiles) CHECK(flash_identity_error(t, s, v, 1, 2, 1) == doctest::Approx(0.0).epsilon(1e-7));
    // A row whose keys are all -inf stays empty and ends 0 / 0 = NaN, as the naive softmax.
    const float masked[] = {-INFINITY, -INFINITY};
    flash_forward(&f, masked, v, 1, 1, 2, 1, 1, 1);
    CHECK(f.tiles[1].l[0] == 0.0f);
    CHECK(std::isnan(f.out[0]));
}

TEST_CASE("flash: the tiled context equals the naive one for every mask, fill and tile size; both checks pass") {
    std::vector<AttentionConfig> configs(7);
    configs[0].flash_tile = {1, 1};
    configs[1].seq_len = 7, configs[1].flash_tile = {3, 2};  // tiles that do not divide L
    configs[2].mask = MaskKind::Padding, configs[2].padding_lengths = {4, 0}, configs[2].flash_tile = {2, 3};  // NaN rows
    configs[3].mask = MaskKind::Padding, configs[3].padding_lengths = {4, 0}, configs[3].mask_fill = MaskFill::NegBillion;
    configs[3].flash_tile = {4, 4};
    configs[4].cross = true, configs[4].kv_len = 9, configs[4].mask = MaskKind::None, configs[4].flash_tile = {2, 4};
    configs[5].d_model = 64, configs[5].heads = 8, configs[5].seq_len = 16, configs[5].window = 5, configs[5].flash_tile = {4, 4};
    configs[6].raw = true, configs[6].heads = 1, configs[6].pe = false, configs[6].bias = false, configs[6].flash_tile = {2, 2};
    for (const AttentionConfig& c : configs) {
        INFO(describe_config(attention_keys(), c));
        REQUIRE(validate(c).empty());
        const Trace tr = run_trace(c);
        REQUIRE(tr.flash.on());
        const Tensor& context = tr[TensorId::Context];
        REQUIRE(tr.flash.out.size() == context.data.size());
        double worst = 0;
        for (size_t e = 0; e < context.data.size(); ++e) {
            CHECK(std::isnan(tr.flash.out[e]) == std::isnan(context.data[e]));
            if (!std::isnan(context.data[e])) worst = std::fmax(worst, std::fabs(tr.flash.out[e] - context.data[e]));
        }
        CHECK(worst < 1e-5);
        const int query_tiles = (c.L_q() + c.flash_tile[0] - 1) / c.flash_tile[0];
        const int key_tiles = (c.L_kv() + c.flash_tile[1] - 1) / c.flash_tile[1];
        CHECK(tr.flash.tiles.size() == static_cast<size_t>(c.batch * c.heads * query_tiles * key_tiles));
        for (const char* id : {"flash_equals_naive", "flash_rescaling_identity"}) {
            const InvariantCheck* ch = find_check(tr.stage(StageId::Context), id);
            REQUIRE(ch);
            CHECK(ch->verdict == Verdict::Pass);
        }
    }
    CHECK_FALSE(find_check(run_trace(AttentionConfig{}).stage(StageId::Context), "flash_equals_naive"));  // off: no check
}

TEST_CASE("flash: the bytes an HBM would move, counted by hand") {
    AttentionConfig c;  // B = 2, h = 2, L = 4, d_k = d_v = 4 → per slice and float: naive 4·4·2 + 4·16 + 4·4·2, tiled below
    c.flash_tile = {2, 2};
    const FlashBytes b = flash_bytes(c);
    // naive: Q, K (16 + 16), S written and read (32), P written and read (32), V (16), O (16) = 128 floats per slice
    CHECK(b.naive == 4.0 * 4 * 128);
    // tiled: Q (16), K and V once per query tile (2 · 4 · 8 = 64), O (16), m and l (8) = 104 floats per slice
    CHECK(b.tiled == 4.0 * 4 * 104);
    c.seq_len = 512, c.d_model = 512, c.heads = 8, c.flash_tile = {64, 64};
    const FlashBytes big = flash_bytes(c);
    CHECK(big.naive / big.tiled == doctest::Approx(1179648.0 / 590848));  // per slice, by hand: S and P dominate the naive count
}

TEST_CASE("flash: validation, the CLI, the URL hash and config files name flash_tile") {
    AttentionConfig c;
    c.flash_tile = {2};
    REQUIRE_FALSE(validate(c).empty());
    CHECK(validate(c)[0].param == "flash_tile");
    CHECK(en(validate(c)[0].message) == "flash_tile needs two sizes, B_r (query rows per tile) and B_c (keys per tile), e.g. 2,2: got 1");
    c.flash_tile = {5, 1};
    CHECK(en(validate(c)[0].message) == "flash_tile=5,1: B_r must be between 1 and L_q=4, B_c between 1 and L_kv=4");
    CHECK(zh(validate(c)[0].message).find("B_r 必须在 1 到 L_q=4 之间") != std::string::npos);

    const CliParse p = parse_cli({"trace", "--flash-tile", "2,3"});
    REQUIRE(p.errors.empty());
    CHECK(p.options.config.flash_tile == std::vector<int>{2, 3});
    const CliRun bad = run({"trace", "--flash-tile", "two"});
    CHECK(bad.code == 2);
    CHECK(bad.err.find("--flash-tile 'two': two whole numbers B_r,B_c separated by a comma") != std::string::npos);
    const CliRun shown = run({"trace", "--seq-len", "6", "--flash-tile", "2,2"});
    CHECK(shown.code == 0);
    CHECK(shown.out.find("online softmax, tile by tile (FlashAttention-2's loop order): B_r=2") != std::string::npos);
    CHECK(shown.out.find("HBM bytes (float32, all items and heads): naive 3840") != std::string::npos);

    UrlState s;
    s.config.flash_tile = {2, 3};
    const std::string hash = encode_url_state(s);
    CHECK(hash.find("flash_tile=2,3") != std::string::npos);
    const UrlDecode d = decode_url_state("#" + hash);
    CHECK(d.notes.empty());
    CHECK(d.state.config.flash_tile == std::vector<int>{2, 3});
    CHECK(encode_url_state(UrlState{}).find("flash_tile") == std::string::npos);
    const UrlDecode wrong = decode_url_state("#flash_tile=x");
    REQUIRE_FALSE(wrong.notes.empty());
    CHECK(en(wrong.notes[0]).find("flash_tile='x' must be two whole numbers") != std::string::npos);

    const ConfigFileResult json = parse_config_file("{\"flash_tile\": [2, 2]}", "x.json");
    REQUIRE(json.ok);
    CHECK(json.config.flash_tile == std::vector<int>{2, 2});
    const ConfigFileResult toml = parse_config_file("[attention]\nflash_tile = 3\n", "x.toml");
    CHECK_FALSE(toml.ok);
    CHECK(toml.errors.at(0).param == "flash_tile");
}
