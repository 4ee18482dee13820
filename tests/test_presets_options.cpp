// test_presets_options.cpp — the Single sentence preset's words and seq_len in each
// language, and the √d_k experiment's number of keys: from a link to the numbers.
#include <doctest/doctest.h>

#include <cmath>
#include <random>

#include "app/data/presets.h"
#include "app/data/url_state.h"
#include "base/tokens.h"
#include "teach/experiments/experiments.h"
#include "text.h"
#include "trace/trace.h"

using namespace lab;

namespace {

const Preset& preset(const char* name) {
    const Preset* p = find_preset(name);
    REQUIRE_MESSAGE(p != nullptr, name);
    return *p;
}

// Mean over `rows` rows of n i.i.d. N(0, 1) scores of the softmax's largest weight and its
// entropy, with the standard library's generator (not the lab's): what the scaled scores
// of the √d_k experiment approach for large d_k.
void normal_softmax_stats(int n, int rows, double* max_weight, double* entropy) {
    std::mt19937_64 gen(12345);
    std::normal_distribution<double> normal;
    std::vector<double> p(n);
    double mw = 0, h = 0;
    for (int r = 0; r < rows; ++r) {
        double sum = 0;
        for (double& v : p) sum += v = std::exp(normal(gen));
        double row_max = 0;
        for (double v : p) row_max = std::max(row_max, v / sum), h -= v / sum * std::log(v / sum);
        mw += row_max;
    }
    *max_weight = mw / rows, *entropy = h / rows;
}

}  // namespace

TEST_CASE("presets: Single sentence brings a sentence in the interface's language, seq_len its tokens") {
    const Preset& p = preset("Single sentence");
    const PresetChoice en_choice = choose_preset(p, Lang::En);
    CHECK(en_choice.token_text == "the cat sat on the mat because it was tired");
    const std::vector<std::string> en_tokens = split_tokens(en_choice.token_text).tokens;
    REQUIRE(en_tokens.size() == 10);
    CHECK(en_tokens[1] == "cat");
    CHECK(en_tokens[7] == "it");
    CHECK(en_choice.config.seq_len == 10);

    // Chinese splits per character, punctuation included: 小猫追着球跑，它玩得很开心。 is 14 tokens.
    const PresetChoice zh_choice = choose_preset(p, Lang::Zh);
    const std::vector<std::string> zh_tokens = split_tokens(zh_choice.token_text).tokens;
    REQUIRE(zh_tokens.size() == 14);
    CHECK(zh_tokens[1] == "\xe7\x8c\xab");   // 猫
    CHECK(zh_tokens[6] == "\xef\xbc\x8c");   // ，
    CHECK(zh_tokens[7] == "\xe5\xae\x83");   // 它
    CHECK(zh_tokens[13] == "\xe3\x80\x82");  // 。
    CHECK(zh_choice.config.seq_len == 14);

    // Both run: the trace's sequence is the sentence.
    for (const PresetChoice& c : {en_choice, zh_choice}) {
        CHECK(validate(c.config).empty());
        CHECK(c.config.batch == 1);
        const std::vector<std::string> tokens = split_tokens(c.token_text).tokens;
        const Trace t = run_trace(c.config, make_inputs(c.config, tokens), make_weights(c.config));
        CHECK(t[TensorId::Weights].shape == std::vector<int>{1, 8, c.config.seq_len, c.config.seq_len});
    }
}

TEST_CASE("presets: the others set no tokens and keep their sizes") {
    for (const char* name : {"Tiny", "Paper base", "Cross-attention"}) {
        CAPTURE(name);
        const Preset& p = preset(name);
        const PresetChoice c = choose_preset(p, Lang::Zh);
        CHECK(c.token_text.empty());
        CHECK(c.config.seq_len == p.config.seq_len);
        CHECK(validate(c.config).empty());
    }
}

TEST_CASE("scaling: the number of keys reaches the softmax statistics") {
    ScalingOptions o;
    o.samples = 500, o.seed = 3, o.keys = 10;
    const std::vector<ScalingPoint> ten = scaling_experiment(o);
    o.keys = 64;
    const std::vector<ScalingPoint> sixty_four = scaling_experiment(o);
    REQUIRE(ten.size() == 11);
    REQUIRE(sixty_four.size() == 11);
    for (size_t i = 0; i < ten.size(); ++i) {
        CAPTURE(ten[i].d_k);
        // A softmax over n keys: entropy at most ln n, largest weight at least 1/n.
        CHECK(ten[i].entropy_scaled <= std::log(10.0) + 1e-9);
        CHECK(ten[i].entropy <= std::log(10.0) + 1e-9);
        CHECK(ten[i].max_weight_scaled >= 0.1 - 1e-9);
        // Fewer keys: a larger share for the largest, less entropy.
        CHECK(ten[i].max_weight_scaled > sixty_four[i].max_weight_scaled);
        CHECK(ten[i].entropy_scaled < sixty_four[i].entropy_scaled);
        // The variances do not depend on the keys (same pairs).
        CHECK(ten[i].var_dot == sixty_four[i].var_dot);
    }
    // At d_k = 1024 the scaled scores over fixed keys are close to i.i.d. N(0, 1) (their
    // correlations are k_i·k_j / d_k ~ 1/32): the statistics match a direct simulation. Over 256
    // rows the mean largest weight has a standard error of about 0.01, the entropy 0.02.
    double mw10 = 0, h10 = 0, mw64 = 0, h64 = 0;
    normal_softmax_stats(10, 200000, &mw10, &h10);
    normal_softmax_stats(64, 50000, &mw64, &h64);
    CHECK(ten.back().max_weight_scaled == doctest::Approx(mw10).epsilon(0.1));
    CHECK(ten.back().entropy_scaled == doctest::Approx(h10).epsilon(0.05));
    CHECK(sixty_four.back().max_weight_scaled == doctest::Approx(mw64).epsilon(0.1));
    CHECK(sixty_four.back().entropy_scaled == doctest::Approx(h64).epsilon(0.05));
    // Unscaled at d_k = 1024 (score std 32): one-hot whatever n.
    CHECK(ten.back().max_weight > 0.9);
}

TEST_CASE("scaling options: in a link as scaling.keys, read back through their key table") {
    UrlState s;
    s.view.experiment = "scaling";
    ScalingOptions o;
    o.keys = 10, o.samples = 4000, o.seed = 1;
    for (const auto& [key, value] : hash_pairs(scaling_option_keys().rows, &o)) s.view.experiment_options.emplace_back("scaling." + key, value);
    const std::string hash = encode_url_state(s);
    CHECK(hash.find("&exp=scaling&scaling.keys=10&scaling.samples=4000&scaling.seed=1") != std::string::npos);

    const UrlDecode d = decode_url_state("#" + hash);
    CHECK(d.notes.empty());
    REQUIRE(d.state.view.experiment_options.size() == 3);
    ScalingOptions back;
    std::vector<Msg> notes;
    for (const auto& [key, value] : d.state.view.experiment_options) {
        REQUIRE(key.rfind("scaling.", 0) == 0);
        CHECK(decode_key(scaling_option_keys().rows, key.substr(8), value, &back, &notes, nullptr, "scaling."));
    }
    CHECK(notes.empty());
    CHECK(back.keys == 10);
    CHECK(back.samples == 4000);
    CHECK(back.seed == 1u);

    // A bad value: a note naming scaling.keys and its range, the value kept.
    CHECK(decode_key(scaling_option_keys().rows, "keys", "1", &back, &notes, nullptr, "scaling."));
    REQUIRE(notes.size() == 1);
    CHECK(en(notes[0]) == "hash: scaling.keys='1' is not a whole number in [2, 1024]; using 10");
    CHECK(back.keys == 10);
    // Not an option key: the dot needs letters on both sides; an unknown name is the app's to report.
    CHECK(decode_url_state("#scaling.=3").notes.size() == 1);
    CHECK(decode_url_state("#nope.keys=3").state.view.experiment_options.size() == 1);
}
