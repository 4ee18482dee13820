// test_masks_window.cpp — the masks after the paper (issue 26, item 5): a sliding window
// and a prefix-LM, alone and with the causal and padding masks. The mask tensor is compared
// with the definitions written out here as plain loops; the trace's weights with the same
// run under the equivalent custom mask; every reader of the keys (CLI, URL hash, config
// files) takes them and names them in its messages; rows a window and padding leave empty
// follow the fully-masked-row rules.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>

#include "app/data/url_state.h"
#include "cli_run.h"
#include "explain/derivation.h"
#include "interop/config_file.h"
#include "text.h"
#include "trace/trace.h"

using namespace lab;

namespace {

// The definitions: causal keeps j <= i, padding j < length; a window of W keeps keys fewer
// than W positions away (behind the query when causal); a causal prefix of P keeps j < P.
bool defined_keep(const AttentionConfig& c, int b, int i, int j) {
    bool keep = true;
    if (c.mask == MaskKind::Causal) keep = j <= i;
    if (c.mask == MaskKind::Padding) keep = j < c.padding_lengths[b];
    if (c.window > 0 && c.mask == MaskKind::Causal) keep = keep && i - j < c.window;
    if (c.window > 0 && c.mask != MaskKind::Causal) keep = keep && std::abs(i - j) < c.window;
    if (c.prefix > 0 && j < c.prefix) keep = true;
    return keep;
}

float keep_at(const Trace& tr, int b, int i, int j) {
    const Tensor& m = tr[TensorId::Mask];
    return m.shape.size() == 3 ? m.at({b, i, j}) : m.at({i, j});
}

AttentionConfig sized(int L, int window, int prefix) {
    AttentionConfig c;
    c.seq_len = L, c.window = window, c.prefix = prefix;
    return c;
}

const InvariantCheck* check_named(const Trace& tr, StageId s, const char* id) { return find_check(tr.stage(s), id); }

}  // namespace

TEST_CASE("window and prefix: the mask follows the definitions, alone and with causal, none, padding and cross") {
    std::vector<AttentionConfig> configs = {sized(6, 2, 0), sized(6, 3, 2), sized(6, 0, 3), sized(6, 1, 0), sized(6, 6, 0)};
    AttentionConfig none = sized(6, 2, 0);
    none.mask = MaskKind::None;
    AttentionConfig padded = sized(6, 3, 0);
    padded.mask = MaskKind::Padding, padded.padding_lengths = {6, 3};
    AttentionConfig cross = sized(3, 2, 0);
    cross.cross = true, cross.kv_len = 7, cross.mask = MaskKind::None;
    configs.insert(configs.end(), {none, padded, cross});
    for (const AttentionConfig& c : configs) {
        INFO(describe_config(attention_keys(), c));
        REQUIRE(validate(c).empty());
        const Trace tr = run_trace(c);
        long kept = 0;
        for (int b = 0; b < c.batch; ++b)
            for (int i = 0; i < c.L_q(); ++i)
                for (int j = 0; j < c.L_kv(); ++j) {
                    const bool want = defined_keep(c, b, i, j);
                    CHECK((keep_at(tr, b, i, j) != 0.0f) == want);
                    kept += want;
                }
        for (int b = 0; b < c.batch; ++b)  // weights: > 0 where kept, 0 where masked, NaN in a row left no key
            for (int i = 0; i < c.L_q(); ++i) {
                bool any = false;
                for (int j = 0; j < c.L_kv(); ++j) any = any || defined_keep(c, b, i, j);
                for (int h = 0; h < c.heads; ++h)
                    for (int j = 0; j < c.L_kv(); ++j) {
                        const float w = tr[TensorId::Weights].at({b, h, i, j});
                        if (any) CHECK((w > 0.0f) == defined_keep(c, b, i, j));
                        else CHECK(std::isnan(w));
                    }
                }
        CHECK(kept > 0);
        const InvariantCheck* rule = check_named(tr, StageId::Mask, "window_prefix_rule");
        REQUIRE(rule);
        CHECK(rule->verdict == Verdict::Pass);
    }
    // Window 1: every query sees itself only, so its context is its own value row.
    const Trace one = run_trace(sized(6, 1, 0));
    for (int i = 0; i < 6; ++i) CHECK(one[TensorId::Weights].at({1, 1, i, i}) == 1.0f);
}

TEST_CASE("window and prefix: the weights equal the same run under the equivalent custom mask") {
    AttentionConfig c = sized(7, 3, 2);
    const Trace tr = run_trace(c);
    AttentionConfig custom = c;
    custom.window = custom.prefix = 0, custom.mask = MaskKind::Custom;
    for (int i = 0; i < 7; ++i)
        for (int j = 0; j < 7; ++j) custom.custom_keep.push_back(defined_keep(c, 0, i, j));
    const Trace ref = run_trace(custom);
    for (TensorId id : {TensorId::Masked, TensorId::Weights, TensorId::Context, TensorId::Output})
        CHECK(tr[id].data == ref[id].data);
    CHECK(check_named(tr, StageId::Softmax, "masked_is_zero"));  // not "future": the window masks the past too
    CHECK_FALSE(check_named(ref, StageId::Mask, "window_prefix_rule"));  // only runs with a window or prefix have it
}

TEST_CASE("window with padding: a row the two leave empty is NaN with -inf, uniform with -1e9, as every fully masked row") {
    AttentionConfig c = sized(4, 2, 0);
    c.mask = MaskKind::Padding, c.padding_lengths = {4, 1};  // item 1, query 3 sees keys 2, 3: both padding
    c.window = 2;
    Trace tr = run_trace(c);
    CHECK(tr.fully_masked_rows == 2 * 2);  // item 1, queries 2 and 3, both heads
    for (int j = 0; j < 4; ++j) CHECK(std::isnan(tr[TensorId::Weights].at({1, 0, 3, j})));
    CHECK(check_named(tr, StageId::Output, "finite")->verdict == Verdict::NanMasked);
    c.mask_fill = MaskFill::NegBillion;
    const Trace uniform = run_trace(c);
    for (int j = 0; j < 4; ++j) CHECK(uniform[TensorId::Weights].at({1, 0, 3, j}) == doctest::Approx(0.25));
}

TEST_CASE("window and prefix: a masked cell's derivation names the rule that hid it") {
    const Trace tr = run_trace(sized(6, 2, 0));
    const std::string far = en(derive_cell(tr, TensorId::Masked, {0, 0, 5, 1}));
    CHECK(far.find("sliding window 2: key 1 lies outside query 5's window (4 positions away") != std::string::npos);
    const std::string ahead = en(derive_cell(tr, TensorId::Masked, {0, 0, 1, 3}));
    CHECK(ahead.find("causal mask: key 3 comes after query 1") != std::string::npos);
    CHECK(zh(derive_cell(tr, TensorId::Masked, {0, 0, 5, 1})).find("滑动窗口 2") != std::string::npos);
    const Trace prefixed = run_trace(sized(6, 0, 3));
    CHECK(en(derive_cell(prefixed, TensorId::Masked, {0, 0, 0, 2})).find("mask = 1 here") != std::string::npos);
}

TEST_CASE("window and prefix: validation names the key and says what to do") {
    auto first_error = [](const AttentionConfig& c) {
        const std::vector<ConfigError> e = validate(c);
        return e.empty() ? std::string() : e[0].param + ": " + en(e[0].message);
    };
    CHECK(first_error(sized(4, -1, 0)) == "window: window=-1 must be between 0 (no window) and 4096: a query then sees "
                                          "only the keys fewer than window positions away");
    CHECK(first_error(sized(4, 0, 5)) == "prefix: prefix=5 must be between 0 (a plain causal mask) and L_kv=4");
    AttentionConfig custom = sized(2, 1, 0);
    custom.mask = MaskKind::Custom, custom.custom_keep = {1, 0, 1, 1};
    CHECK(first_error(custom).find("window: window=1 with mask=custom") == 0);
    AttentionConfig padded = sized(4, 0, 2);
    padded.mask = MaskKind::Padding, padded.padding_lengths = {4, 2};
    CHECK(first_error(padded).find("prefix: prefix=2 needs mask=causal") == 0);
    CHECK(first_error(padded).find("not mask=padding") != std::string::npos);
    CHECK(zh(validate(padded)[0].message).find("前缀语言模型") != std::string::npos);
}

TEST_CASE("window and prefix: the CLI, the URL hash and config files read them, and write them only when set") {
    const CliParse p = parse_cli({"trace", "--window", "3", "--prefix", "2", "--seq-len", "6"});
    REQUIRE(p.errors.empty());
    CHECK(p.options.config.window == 3);
    CHECK(p.options.config.prefix == 2);
    const CliRun bad = run({"trace", "--window", "-2"});
    CHECK(bad.code == 2);
    CHECK(bad.err.find("--window '-2' is not a whole number") != std::string::npos);
    CHECK(run({"trace", "--window", "5000"}).err.find("window: window=5000 must be between 0 (no window) and 4096") !=
          std::string::npos);
    CHECK(run({"trace", "--seq-len", "6", "--window", "2", "--prefix", "1"}).out.find("mask=causal  window=2  prefix=1") !=
          std::string::npos);
    CHECK(run({"trace", "--window", "two"}).code == 2);
    CHECK(run({"trace", "--mask", "none", "--prefix", "1"}).err.find("prefix=1 needs mask=causal") != std::string::npos);

    UrlState s;
    s.config = p.options.config;
    const std::string hash = encode_url_state(s);
    CHECK(hash.find("window=3") != std::string::npos);
    CHECK(hash.find("prefix=2") != std::string::npos);
    const UrlDecode d = decode_url_state("#" + hash);
    CHECK(d.notes.empty());
    CHECK(d.state.config.window == 3);
    CHECK(d.state.config.prefix == 2);
    CHECK(encode_url_state(UrlState{}).find("window") == std::string::npos);  // unset: links stay as they were
    const UrlDecode wrong = decode_url_state("#mask=none&prefix=2");
    REQUIRE_FALSE(wrong.notes.empty());
    CHECK(en(wrong.notes[0]).find("prefix") != std::string::npos);
    CHECK(wrong.state.config.prefix == 0);

    const ConfigFileResult json = parse_config_file("{\"seq_len\": 8, \"window\": 4, \"prefix\": 1}", "x.json");
    REQUIRE(json.ok);
    CHECK(json.config.window == 4);
    CHECK(json.config.prefix == 1);
    const ConfigFileResult toml = parse_config_file("[attention]\nwindow = -3\n", "x.toml");
    CHECK_FALSE(toml.ok);
    REQUIRE_FALSE(toml.errors.empty());
    CHECK(toml.errors[0].param == "window");
}
