// test_raw_sdpa.cpp — raw SDPA (config.raw, issue 29 item 8): tutorial 000's first example,
// scaled_dot_product_attention(Q, K, V) on Q, K, V drawn directly as (2, 4, 64). The trace is
// compared with a plain double-precision loop written here from the formula
// softmax(QK^T / sqrt(d_k)) V; the shapes are the ones the tutorial prints; every reader of
// the configuration (URL hash, CLI, JSON / TOML files, manifest) carries the key.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "app/data/url_state.h"
#include "cli_run.h"
#include "explain/derivation.h"
#include "interop/config_file.h"
#include "interop/exports.h"
#include "interop/json_export.h"
#include "text.h"
#include "trace/stages.h"
#include "trace/trace.h"

using namespace lab;

namespace {

// The tutorial's configuration: B 2, L 4, d_k 64, no mask.
AttentionConfig tutorial() {
    AttentionConfig c;
    c.raw = true, c.d_model = 64, c.heads = 1, c.seq_len = 4, c.batch = 2;
    c.pe = false, c.bias = false, c.mask = MaskKind::None;
    return c;
}

// softmax(Q K^T / sqrt(d_k) masked) V per batch item, in double, from the drawn inputs.
struct Reference {
    std::vector<double> scaled, masked, weights, output;  // (B, L_q, L_kv) x 3, (B, L_q, d_v)
};
Reference naive_sdpa(const AttentionConfig& c, const AttentionInputs& in, const Tensor& keep) {
    const int B = c.batch, Lq = c.L_q(), Lkv = c.L_kv(), d = c.d_model;
    const double fill = c.mask_fill == MaskFill::NegInf ? -std::numeric_limits<double>::infinity() : -1e9;
    Reference r;
    r.scaled.resize(size_t(B) * Lq * Lkv), r.masked.resize(r.scaled.size()), r.weights.resize(r.scaled.size());
    r.output.assign(size_t(B) * Lq * d, 0.0);
    for (int b = 0; b < B; ++b)
        for (int i = 0; i < Lq; ++i) {
            double* row = &r.masked[(size_t(b) * Lq + i) * Lkv];
            double top = -std::numeric_limits<double>::infinity();
            for (int j = 0; j < Lkv; ++j) {
                double dot = 0;
                for (int e = 0; e < d; ++e) dot += double(in.q.data[(size_t(b) * Lq + i) * d + e]) * in.k.data[(size_t(b) * Lkv + j) * d + e];
                row[j] = r.scaled[(size_t(b) * Lq + i) * Lkv + j] = c.scale ? dot / std::sqrt(double(d)) : dot;
                const size_t at = keep.shape.size() == 3 ? (size_t(b) * Lq + i) * Lkv + j : size_t(i) * Lkv + j;
                if (c.mask != MaskKind::None && keep.data[at] == 0.0f) row[j] = fill;
                top = std::fmax(top, row[j]);
            }
            double sum = 0;
            double* w = &r.weights[(size_t(b) * Lq + i) * Lkv];
            for (int j = 0; j < Lkv; ++j) sum += w[j] = std::exp(row[j] - top);
            for (int j = 0; j < Lkv; ++j) w[j] /= sum;
            for (int e = 0; e < d; ++e)
                for (int j = 0; j < Lkv; ++j)
                    r.output[(size_t(b) * Lq + i) * d + e] += w[j] * in.v.data[(size_t(b) * Lkv + j) * d + e];
        }
    return r;
}

// Largest |a - b| relative to max(1, |b|); NaN or inf in one of them only is a mismatch.
double worst(const Tensor& got, const std::vector<double>& want) {
    REQUIRE(got.size() == want.size());
    double w = 0;
    for (size_t i = 0; i < want.size(); ++i) {
        if ((std::isnan(got.data[i]) && std::isnan(want[i])) || double(got.data[i]) == want[i]) continue;  // NaN, -inf
        const double e = std::fabs(got.data[i] - want[i]) / std::fmax(1.0, std::fabs(want[i]));
        w = std::isnan(e) ? HUGE_VAL : std::fmax(w, e);
    }
    return w;
}

void check_against_reference(const AttentionConfig& c) {
    REQUIRE(validate(c).empty());
    const AttentionInputs in = make_inputs(c);
    const Trace tr = run_trace(c, in, make_weights(c));
    const Reference ref = naive_sdpa(c, in, tr[TensorId::Mask]);
    CHECK(tr[TensorId::Q].data == in.q.data);
    CHECK(tr[TensorId::K].data == in.k.data);
    CHECK(tr[TensorId::V].data == in.v.data);
    CHECK(worst(tr[TensorId::Scaled], ref.scaled) < 1e-5);
    CHECK(worst(tr[TensorId::Masked], ref.masked) < 1e-5);
    CHECK(worst(tr[TensorId::Weights], ref.weights) < 1e-6);
    CHECK(worst(tr[TensorId::Context], ref.output) < 1e-5);
    CHECK(worst(tr[TensorId::Output], ref.output) < 1e-5);
}

const std::vector<int>& last_shape(const Trace& tr, StageId id) { return tr.stage(id).shape_steps.back().shape; }

}  // namespace

TEST_CASE("raw SDPA: the trace is softmax(QK^T / sqrt(d_k)) V of Q, K, V drawn directly") {
    check_against_reference(tutorial());
    AttentionConfig c = tutorial();
    c.mask = MaskKind::Causal, c.d_model = 8, c.seq_len = 5, c.seed = 7;
    check_against_reference(c);
    c.mask = MaskKind::Padding, c.padding_lengths = {5, 0}, c.mask_fill = MaskFill::NegBillion, c.scale = false;
    check_against_reference(c);
    c.mask_fill = MaskFill::NegInf;  // item 1 keeps no key: NaN rows, as in PyTorch
    check_against_reference(c);
}

TEST_CASE("raw SDPA: Q, K and V are three different N(0, 1) draws of the seed") {
    const AttentionConfig c = tutorial();
    const AttentionInputs in = make_inputs(c);
    CHECK(in.q.data != in.k.data);
    CHECK(in.k.data != in.v.data);
    double sum = 0, sq = 0;
    for (float v : in.q.data) sum += v, sq += double(v) * v;
    const double n = double(in.q.size()), mean = sum / n;
    CHECK(std::fabs(mean) < 0.15);               // 512 draws: the mean's standard error is 0.044
    CHECK(std::fabs(sq / n - mean * mean - 1.0) < 0.2);
    AttentionConfig other = c;
    other.seed = 43;
    CHECK(make_inputs(other).q.data != in.q.data);
    CHECK(make_inputs(c).q.data == in.q.data);  // deterministic from the seed
}

TEST_CASE("raw SDPA: the shapes tutorial 000 prints") {
    const Trace tr = run_trace(tutorial());
    // print("scores 形状:", weights.shape)  # torch.Size([2, 4, 4]);  print("输出形状:", out.shape)  # torch.Size([2, 4, 64])
    CHECK(last_shape(tr, StageId::Softmax) == std::vector<int>{2, 4, 4});
    CHECK(last_shape(tr, StageId::Scores) == std::vector<int>{2, 4, 4});
    CHECK(last_shape(tr, StageId::Context) == std::vector<int>{2, 4, 64});
    CHECK(last_shape(tr, StageId::Output) == std::vector<int>{2, 4, 64});
    for (const ShapeStep& s : tr.stage(StageId::Input).shape_steps) CHECK(s.shape == std::vector<int>{2, 4, 64});
    CHECK(tr.stage(StageId::Context).shape_steps.back().dims == std::vector<std::string>{"B", "L_q", "d_v"});
    // print("每行权重和:", weights.sum(dim=-1))  # 全为 1.0
    const Tensor& w = tr[TensorId::Weights];
    for (size_t r = 0; r < w.size() / 4; ++r) CHECK(std::fabs(w.data[r * 4] + w.data[r * 4 + 1] + w.data[r * 4 + 2] + w.data[r * 4 + 3] - 1.0) < 1e-6);
    const InvariantCheck* rows = find_check(tr.stage(StageId::Softmax), "rows_sum_to_1");
    REQUIRE(rows);
    CHECK(rows->passed());
}

TEST_CASE("raw SDPA: projections, split, concat and W^O are skipped, with a reason in both languages") {
    const Trace tr = run_trace(tutorial());
    for (int s = 0; s < kStageCount; ++s) {
        const StageId id = static_cast<StageId>(s);
        const bool skipped = id == StageId::Project || id == StageId::SplitHeads || id == StageId::Concat || id == StageId::Output;
        CAPTURE(stage_info(id).key);
        CHECK(tr.stage(id).status == (skipped ? StageStatus::Skipped : StageStatus::Run));
        CHECK(en(tr.stage(id).skipped_because).empty() == !skipped);
        if (skipped) CHECK(zh(tr.stage(id).skipped_because) != en(tr.stage(id).skipped_because));
    }
    CHECK(std::string(stage_status_name(StageStatus::Skipped)) == "skipped");
    AttentionConfig plain;
    const Trace multi = run_trace(plain);
    for (const StageRecord& r : multi.stages) CHECK(r.status == StageStatus::Run);
}

TEST_CASE("raw SDPA: the stage texts speak of Q, K, V, not of heads or projections") {
    const auto& raw = stage_infos(tutorial());
    const auto& plain = stage_infos(AttentionConfig{});
    REQUIRE(raw.size() == plain.size());
    for (size_t s = 0; s < raw.size(); ++s) {
        CAPTURE(raw[s].key);
        CHECK(std::string(raw[s].key) == plain[s].key);  // the same stops, links and state() ids
        CHECK(run_trace(tutorial()).find(raw[s].result));  // its row in the Dimensions table, its export
        for (Str text : {raw[s].title, raw[s].why, raw[s].formula}) {
            const std::string e = en(Msg(text));
            CHECK(e.find("head") == std::string::npos);
            CHECK(e.find("W^Q") == std::string::npos);
            CHECK(e.find("project") == std::string::npos);
            CHECK(zh(Msg(text)).find("头") == std::string::npos);
        }
        for (const StageShow& show : raw[s].shows)
            CHECK((show.tensor != TensorId::QHeads && show.tensor != TensorId::KHeads && show.tensor != TensorId::VHeads));
    }
    CHECK(std::string(raw[6].pytorch).find("F.softmax(scores, dim=-1)") != std::string::npos);  // the tutorial's line
    CHECK(en(Msg(plain[2].title)).find("head") != std::string::npos);  // the multi-head texts do speak of heads
}

TEST_CASE("raw SDPA: a combination it cannot run names its parameter") {
    auto param_of = [](const AttentionConfig& c) {
        const std::vector<ConfigError> e = validate(c);
        return e.size() == 1 ? e[0].param : std::to_string(e.size()) + " errors";
    };
    CHECK(validate(tutorial()).empty());
    AttentionConfig c = tutorial();
    c.heads = 8;
    CHECK(param_of(c) == "heads");
    CHECK(en(validate(c)[0].message).find("heads=8") != std::string::npos);
    c = tutorial(), c.pe = true;
    CHECK(param_of(c) == "pe");
    c = tutorial(), c.bias = true;
    CHECK(param_of(c) == "bias");
    c = tutorial(), c.cross = true, c.kv_len = 6;
    CHECK(param_of(c) == "cross");
    CHECK(zh(validate(c)[0].message).find("raw") != std::string::npos);
}

TEST_CASE("raw SDPA: inputs made without raw do not fit a raw configuration (the app redraws them)") {
    const AttentionConfig raw = tutorial();
    AttentionConfig plain = raw;
    plain.raw = false;
    CHECK_FALSE(inputs_fit(plain, raw));
    CHECK_FALSE(inputs_fit(raw, plain));
    CHECK(inputs_fit(raw, raw));
    AttentionConfig masked = raw;
    masked.mask = MaskKind::Causal;  // a mask keeps the inputs
    CHECK(inputs_fit(raw, masked));
    CHECK(make_inputs(plain).q.data.empty());  // the Q, K, V raw SDPA reads exist only in its own inputs
}

TEST_CASE("raw SDPA: the URL hash, config files, the manifest and the CLI carry raw") {
    UrlState s;
    s.config = tutorial();
    const std::string hash = encode_url_state(s);
    CHECK(hash.find("raw=1") != std::string::npos);
    const UrlDecode d = decode_url_state("#" + hash);
    CHECK(d.notes.empty());
    CHECK(d.state.config.raw);
    CHECK(d.state.config.heads == 1);
    CHECK(encode_url_state(UrlState{}).find("raw") == std::string::npos);  // off: links stay as they were
    CHECK(decode_url_state("#raw=1&heads=1&pe=0&bias=0&d_model=64").state.config.raw);

    const ConfigFileResult json = parse_config_file(R"({"raw": true, "d_model": 64, "h": 1, "pe": false, "bias": false})", "json");
    CHECK(json.ok);
    CHECK(json.config.raw);
    const ConfigFileResult toml = parse_config_file("[attention]\nraw = true\nd_model = 64\nh = 1\npe = false\nbias = false\n", "toml");
    CHECK(toml.ok);
    CHECK(toml.config.raw);
    const std::vector<Msg> loaded = config_file_summary(json);
    REQUIRE(!loaded.empty());
    CHECK(en(loaded[0]).find("raw=on") != std::string::npos);  // the file set it: said
    const std::vector<Msg> kept = config_file_summary(parse_config_file(R"({"d_model": 64})", "json", tutorial()));
    REQUIRE(kept.size() == 2);
    CHECK(en(kept[1]).find("raw=on") != std::string::npos);  // kept from the raw configuration before: said
    const std::vector<Msg> plain = config_file_summary(parse_config_file(R"({"d_model": 64})", "json"));
    REQUIRE(plain.size() == 2);
    CHECK(en(plain[1]).find("raw") == std::string::npos);  // off and not in the file: no news
    const ConfigFileResult bad = parse_config_file(R"({"raw": true, "h": 4, "d_model": 64, "pe": false, "bias": false})", "json");
    REQUIRE(bad.errors.size() == 1);
    CHECK(bad.errors[0].param == "heads");

    const Trace tr = run_trace(tutorial());
    const std::string manifest = manifest_json(tr);
    CHECK(manifest.find("\"raw\": true") != std::string::npos);
    const ConfigFileResult back = parse_config_file(json_text(config_json_value(tr.config)), "json");
    CHECK(back.ok);
    CHECK(back.config.raw);
    CHECK(manifest_json(run_trace(AttentionConfig{})).find("raw") == std::string::npos);

    const CliRun ok = run({"trace", "--raw", "--d-model", "64", "--heads", "1", "--no-pe", "--no-bias", "--mask", "none"});
    CHECK(ok.code == 0);
    CHECK(ok.out.find("(B=2, L_q=4, L_kv=4)") != std::string::npos);
    CHECK(ok.out.find("(B=2, L_q=4, d_v=64)") != std::string::npos);
    CHECK(ok.out.find("Skipped in raw SDPA") != std::string::npos);
    const CliRun refused = run({"trace", "--raw"});
    CHECK(refused.code != 0);
    CHECK(refused.err.find("heads: heads=2") != std::string::npos);
}

TEST_CASE("raw SDPA: hover derivations and the PyTorch script say where the numbers come from") {
    const Trace tr = run_trace(tutorial());
    CHECK(en(derive_cell(tr, TensorId::Q, {0, 1, 2})).find("drawn from N(0, 1)") != std::string::npos);
    CHECK(en(derive_cell(tr, TensorId::Output, {1, 3, 63})).find("softmax(QK^T") != std::string::npos);
    const std::string script = pytorch_script(tr);
    CHECK(script.find("def scaled_dot_product_attention(Q, K, V, mask=None):") != std::string::npos);
    CHECK(script.find("stream_seed(seed, \"raw:q\")") != std::string::npos);  // regenerated, not written out
    CHECK(script.find("multi_head_attention_forward(") == std::string::npos);
    CHECK(script.find("{{") == std::string::npos);
}
