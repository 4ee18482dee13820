// test_url_state.cpp — the URL hash round-trips the view; garbage never breaks it.
#include <doctest/doctest.h>

#include "app/data/url_state.h"
#include "base/tokens.h"
#include "trace/stages.h"

#include "text.h"

using namespace lab;

namespace {
bool has_note(const UrlDecode& d, const std::string& part) {
    for (const Msg& n : d.notes)
        if (en(n).find(part) != std::string::npos) return true;
    return false;
}
}  // namespace

TEST_CASE("a full state survives encode -> decode") {
    UrlState s;
    s.config.d_model = 512, s.config.heads = 8, s.config.batch = 3, s.config.seed = 7;
    s.config.mask = MaskKind::Padding, s.config.padding_lengths = {5, 4, 0};
    s.config.mask_fill = MaskFill::NegBillion, s.config.pe = false, s.config.bias = false;
    s.tokens = {"the", "cat", "sat", "on", "\xe7\x8c\xab"};  // a CJK token survives percent-encoding
    s.config.seq_len = 5;
    s.view.stage = 6, s.view.batch_item = 2, s.view.head = 5, s.view.all_heads = true;
    const std::string hash = encode_url_state(s);
    CHECK(hash.find("stage=softmax") != std::string::npos);
    CHECK(hash.find("tokens=the%20cat%20sat%20on%20%E7%8C%AB") != std::string::npos);
    const UrlDecode d = decode_url_state("#" + hash);
    CHECK(d.notes.empty());
    const AttentionConfig& c = d.state.config;
    CHECK(c.d_model == 512);
    CHECK(c.heads == 8);
    CHECK(c.batch == 3);
    CHECK(c.seed == 7u);
    CHECK(c.mask == MaskKind::Padding);
    CHECK(c.padding_lengths == std::vector<int>{5, 4, 0});
    CHECK(c.mask_fill == MaskFill::NegBillion);
    CHECK_FALSE(c.pe);
    CHECK_FALSE(c.bias);
    CHECK(d.state.tokens == s.tokens);
    CHECK(d.state.view.stage == 6);
    CHECK(d.state.view.batch_item == 2);
    CHECK(d.state.view.head == 5);
    CHECK(d.state.view.all_heads);
    CHECK(encode_url_state(d.state) == hash);
}

TEST_CASE("cross-attention and custom masks round-trip") {
    UrlState s;
    s.config.cross = true, s.config.kv_len = 6, s.config.seq_len = 2, s.config.mask = MaskKind::Custom;
    s.config.custom_keep = {1, 0, 1, 0, 1, 1, 0, 0, 0, 0, 1, 1};
    const UrlDecode d = decode_url_state(encode_url_state(s));
    CHECK(d.notes.empty());
    CHECK(d.state.config.L_kv() == 6);
    CHECK(d.state.config.custom_keep == s.config.custom_keep);
}

TEST_CASE("garbage in the hash: notes naming the key, defaults kept") {
    SUBCASE("non-numeric and unknown") {
        const UrlDecode d = decode_url_state("#heads=x&bogus=1&d_model=16");
        CHECK(has_note(d, "heads='x' is not a whole number"));
        CHECK(has_note(d, "unknown key 'bogus' ignored"));
        CHECK(d.state.config.d_model == 16);
        CHECK(d.state.config.heads == 2);
    }
    SUBCASE("duplicates") {
        const UrlDecode d = decode_url_state("d_model=16&d_model=32");
        CHECK(has_note(d, "'d_model' appears more than once"));
        CHECK(d.state.config.d_model == 16);
    }
    SUBCASE("an invalid combination falls back to the defaults, with the reason") {
        const UrlDecode d = decode_url_state("d_model=10&heads=3");
        CHECK(has_note(d, "d_model=10 is not divisible by heads=3"));
        CHECK(has_note(d, "using the defaults"));
        CHECK(d.state.config.d_model == AttentionConfig{}.d_model);
    }
    SUBCASE("huge, negative, NaN, binary and very long values") {
        for (const char* h : {"seq_len=99999999999999", "batch=-4", "seed=NaN", "d_model=1e400", "stage=%00%ff%",
                              "mask=%E2%80%AE", "=&&&=", "%", "tokens=", "pad=1,2,x"}) {
            const UrlDecode d = decode_url_state(h);
            CHECK(validate(d.state.config).empty());
        }
        const UrlDecode long_one = decode_url_state(std::string((32u << 20) + 10, 'a'));
        CHECK(has_note(long_one, "longer than 33554432 characters (32 MiB)"));
        CHECK(validate(long_one.state.config).empty());
    }
    SUBCASE("out-of-range selection is reset") {
        const UrlDecode d = decode_url_state("heads=2&head=7&b=9&stage=nope");
        CHECK(d.state.view.head == 0);
        CHECK(d.state.view.batch_item == 0);
        CHECK(has_note(d, "stage='nope' names no stage"));
    }
}

TEST_CASE("stage keys are stable") {
    const char* keys[] = {"input", "project", "split_heads", "scores", "scale", "mask", "softmax", "context", "concat", "output"};
    for (int i = 0; i < kStageCount; ++i) CHECK(stage_index(keys[i]) == i);
    CHECK(stage_index("nope") == -1);
}

TEST_CASE("tokens: words, CJK characters one by one, long tokens cut on a character boundary") {
    const TokenSplit a = split_tokens("  the cat\tsat\n");
    CHECK(a.tokens == std::vector<std::string>{"the", "cat", "sat"});
    // 小猫追着球跑，它玩得很开心。 -> 14 tokens, punctuation included
    const TokenSplit zh = split_tokens("\xe5\xb0\x8f\xe7\x8c\xab\xe8\xbf\xbd\xe7\x9d\x80\xe7\x90\x83\xe8\xb7\x91\xef\xbc\x8c"
                                       "\xe5\xae\x83\xe7\x8e\xa9\xe5\xbe\x97\xe5\xbe\x88\xe5\xbc\x80\xe5\xbf\x83\xe3\x80\x82");
    CHECK(zh.tokens.size() == 14);
    CHECK(zh.tokens[1] == "\xe7\x8c\xab");
    CHECK(zh.tokens[6] == "\xef\xbc\x8c");
    const TokenSplit mixed = split_tokens("GPU\xe5\xbe\x88\xe5\xbf\xab");
    CHECK(mixed.tokens == std::vector<std::string>{"GPU", "\xe5\xbe\x88", "\xe5\xbf\xab"});
    std::string long_word;
    for (int i = 0; i < 30; ++i) long_word += "\xc3\xa9";  // 60 bytes of 'é' ...
    long_word += "xyz\xc3\xa9\xc3\xa9";                    // ... crossing 64 inside a character
    const TokenSplit cut = split_tokens(long_word);
    CHECK(cut.cut);
    CHECK(cut.tokens[0].size() == 63);  // 60 + "xyz", the next 'é' would cross 64
    CHECK(decode_url_state("tokens=" + percent_encode(long_word)).notes.size() == 1);
}

TEST_CASE("fuzz regression: a long run of UTF-8 continuation bytes never becomes an empty token") {
    const std::string junk(100, '\x8e');
    const TokenSplit t = split_tokens("a " + junk + " b");
    REQUIRE(t.tokens.size() == 3);
    CHECK(t.tokens[1].size() == kMaxTokenBytes);
    UrlState s;
    s.tokens = t.tokens;
    s.config.seq_len = 3;
    const UrlDecode d = decode_url_state(encode_url_state(s));
    CHECK(d.notes.empty());
    CHECK(d.state.tokens == t.tokens);
}
