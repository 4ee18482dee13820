// test_config_notes.cpp — after a config file: which settings came from it and which kept
// their values; padding masks start with lengths that hide something.
#include <doctest/doctest.h>

#include <sstream>

#include "app/data/url_state.h"
#include "cli/cli.h"
#include "interop/config_file.h"
#include "teach/experiments/experiments.h"
#include "text.h"

using namespace lab;

namespace {

// The tutorial's transformer_base.json, as a learner pastes it.
const char* kTransformerBase =
    R"({ "d_model": 512, "h": 8, "d_k": 64, "d_v": 64, "d_ff": 2048, "N_encoder_layers": 6, "N_decoder_layers": 6, )"
    R"("P_drop": 0.1, "warmup_steps": 4000, "beta1": 0.9, "beta2": 0.98, "epsilon": 1e-9, "label_smoothing": 0.1 })";

std::vector<std::string> rendered(const std::vector<Msg>& notes, Lang lang) {
    std::vector<std::string> out;
    for (const Msg& m : notes) out.push_back(render(m, lang));
    return out;
}

}  // namespace

TEST_CASE("a loaded config file says what it set and what kept its value (mask, PE, biases, seq_len)") {
    AttentionConfig before;  // the page's defaults: causal mask, PE and biases on, seq_len 4
    const ConfigFileResult r = parse_config_file(kTransformerBase, "transformer_base.json", before);
    REQUIRE(r.ok);
    const std::vector<std::string> en = rendered(config_file_summary(r), Lang::En);
    REQUIRE(en.size() == 2);
    CHECK(en[0] == "from the file: d_model=512, heads=8 (d_k, d_v checked against d_model / h)");
    CHECK(en[1] == "kept from before (the file does not set them): seq_len=4, batch=2, seed=42, mask=causal, "
                   "mask_fill=-inf, scale=on, pe=on, bias=on, cross=off");
    const std::vector<std::string> zh = rendered(config_file_summary(r), Lang::Zh);
    CHECK(zh[1].find("沿用之前的设置（文件没有指定）：seq_len=4") == 0);
    // Whatever was before is what is reported as kept.
    before.mask = MaskKind::None, before.pe = false, before.seq_len = 7;
    const std::string kept = rendered(config_file_summary(parse_config_file(kTransformerBase, "json", before)), Lang::En)[1];
    CHECK(kept.find("seq_len=7") != std::string::npos);
    CHECK(kept.find("mask=none") != std::string::npos);
    CHECK(kept.find("pe=off") != std::string::npos);
    // A file that sets them reports them as its own; h from d_k alone counts as the file's.
    const ConfigFileResult all = parse_config_file(
        R"({"d_model": 64, "d_k": 16, "seq_len": 6, "mask": "none", "pe": false, "bias": false})", "json", AttentionConfig{});
    REQUIRE(all.ok);
    const std::vector<std::string> a = rendered(config_file_summary(all), Lang::En);
    CHECK(a[0] == "from the file: d_model=64, heads=4, seq_len=6, mask=none, pe=off, bias=off (d_k checked against d_model / h)");
    CHECK(a[1].find("mask=") == std::string::npos);
    // A refused file reports no settings.
    CHECK(config_file_summary(parse_config_file(R"({"d_model": 10, "h": 3})", "json")).empty());
}

TEST_CASE("the CLI prints the same notes for --config") {
    const std::string path = std::string(LAB_FIXTURE_DIR) + "/../interop/paper_base.json";
    std::ostringstream out, err;
    REQUIRE(run_cli({"trace", "--config", path}, out, err) == 0);
    CHECK(err.str().find("paper_base.json: from the file: d_model=512, heads=8, seq_len=10, batch=2, seed=42") != std::string::npos);
    CHECK(err.str().find("paper_base.json: kept from before (the file does not set them): ") != std::string::npos);
    CHECK(err.str().find("mask=causal") != std::string::npos);
}

TEST_CASE("a padding mask starts with lengths L, L-2, ... so the effect shows") {
    CHECK(default_padding_lengths(2, 10) == std::vector<int>{10, 8});
    CHECK(default_padding_lengths(4, 4) == std::vector<int>{4, 2, 1, 1});  // never 0: no NaN rows by default
    CHECK(default_padding_lengths(1, 1) == std::vector<int>{1});
    // --mask padding alone, a file saying "padding", a link with pad missing: all start there.
    CHECK(parse_cli({"trace", "--mask", "padding"}).options.config.padding_lengths == std::vector<int>{4, 2});
    const ConfigFileResult f = parse_config_file(R"({"mask": "padding", "seq_len": 6})", "json");
    REQUIRE(f.ok);
    CHECK(f.config.padding_lengths == std::vector<int>{6, 4});
    CHECK(decode_url_state("mask=padding&seq_len=5").state.config.padding_lengths == std::vector<int>{5, 3});
    // Item 1 of the default padding run masks keys: the weights there are 0, item 0's are not.
    AttentionConfig c;
    c.mask = MaskKind::Padding, c.padding_lengths = default_padding_lengths(c.batch, c.L_kv());
    const Trace tr = run_trace(c);
    CHECK(tr[TensorId::Weights].at({1, 0, 0, 3}) == 0.0f);
    CHECK(tr[TensorId::Weights].at({0, 0, 0, 3}) > 0.0f);
    // The masks experiment's padding case uses the same lengths.
    const MaskComparison m = mask_experiment(AttentionConfig{});
    CHECK(m.cases[2].name == "padding");
    CHECK(m.cases[2].trace.config.padding_lengths == std::vector<int>{4, 2});
}
