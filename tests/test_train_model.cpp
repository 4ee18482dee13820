// test_train_model.cpp — the whole toy Transformer's gradient against finite
// differences (double), its parameter table against PyTorch's state_dict naming, and
// the task generators against an independent Python reimplementation.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/rng.h"
#include "grad_check.h"
#include "interop/npy.h"
#include "nn/layers.h"
#include "train/model.h"
#include "train/tasks.h"

using namespace lab;

namespace {

struct GradCase {
    const char* name;
    TaskSpec task;
    ModelShape shape;
    bool train = false;  // a training pass: dropout on (with its masks fixed by the seed below)
    uint64_t dropout_seed = 11;
};

ModelShape with(ModelShape m, double dropout, PositionKind position) {
    m.dropout = dropout;
    m.position = position;
    return m;
}

ModelShape small_shape(const TaskSpec& t, int layers, bool scale, bool pe, bool bias, double smoothing) {
    ModelShape m;
    m.kind = t.model();
    m.layers = layers;
    m.heads = 2;
    m.d_model = 6;
    m.d_ff = 10;
    m.vocab_size = t.vocab + 1;
    m.vocab_out = t.vocab;
    m.src_len = t.src_len();
    m.dec_len = t.dec_len();
    m.scale = scale;
    m.pe = pe;
    m.bias = bias;
    m.label_smoothing = smoothing;
    return m;
}

// Grouped-query attention: h query heads of d_k = d_model / h, h_kv key/value heads.
ModelShape grouped(ModelShape m, int heads, int d_model, int kv_heads) {
    m.heads = heads, m.d_model = d_model, m.kv_heads = kv_heads;
    return m;
}

// Up to `per_param` entries spread over each parameter.
std::vector<size_t> spread(const ParamInfo& p, size_t per_param) {
    std::vector<size_t> at;
    const size_t step = p.size > per_param ? p.size / per_param : 1;
    for (size_t e = 0; e < p.size && at.size() < per_param; e += step) at.push_back(p.offset + e);
    return at;
}

}  // namespace

TEST_CASE("the whole model's gradient matches finite differences in double precision") {
    const TaskSpec reverse{TaskKind::Reverse, 4, 4, 0};
    const TaskSpec induction{TaskKind::Induction, 5, 3, 2};  // s (3 distinct of 5), a gap of 0-2 BOS, s
    const GradCase cases[] = {
        {"encoder-decoder, 2 layers, label smoothing 0.1", reverse, small_shape(reverse, 2, true, true, true, 0.1)},
        {"decoder-only with a gap, no scaling, no PE, no bias", induction, small_shape(induction, 2, false, false, false, 0.0)},
        // Dropout 0.3 (the masks fixed: every forward of the check draws them from the same seed)
        // and learned positions (pos_embedding.weight, shared by the encoder and the decoder).
        {"encoder-decoder, dropout 0.3, learned positions", reverse,
         with(small_shape(reverse, 2, true, true, true, 0.1), 0.3, PositionKind::Learned), true, 12},
        {"decoder-only, dropout 0.2, learned positions", induction,
         with(small_shape(induction, 1, true, true, true, 0.0), 0.2, PositionKind::Learned), true},
        {"decoder-only, learned positions, no dropout", induction,
         with(small_shape(induction, 2, true, true, false, 0.0), 0.0, PositionKind::Learned)},
        // Shared key/value heads: W_k, W_v (d, h_kv·d_k), the groups repeated to h heads and back.
        {"encoder-decoder, grouped-query h 4 / h_kv 2", reverse, grouped(small_shape(reverse, 2, true, true, true, 0.1), 4, 8, 2)},
        {"decoder-only, multi-query h 2 / h_kv 1, dropout 0.2", induction,
         with(grouped(small_shape(induction, 1, true, true, false, 0.0), 2, 6, 1), 0.2, PositionKind::Sinusoid), true},
    };
    for (const GradCase& c : cases) {
        INFO(std::string(c.name));
        const ModelLayout layout = make_layout(c.shape);
        std::vector<double> params = generic_params(layout);
        Workspace<double> ws;
        workspace_resize(ws, layout, 3);
        ws.train = c.train;
        ws.dropout_seed = c.dropout_seed;
        TaskStream stream(c.task, 9, nullptr);
        stream.next_batch(ws.src, ws.dec_in, ws.dec_out, ws.loss_mask, 3);
        const double loss = model_forward(ws, layout, params.data());
        // Central differences need every ReLU input away from its kink by more than h = 1e-5 (times
        // the input's sensitivity): a unit at 5e-7 once made every parameter below it "wrong" by 2%.
        double nearest_kink = INFINITY;
        for (const std::vector<LayerActs<double>>* stack : {&ws.enc, &ws.dec})
            for (const LayerActs<double>& a : *stack) {
                const long n = 3L * (stack == &ws.enc ? ws.src_len : ws.dec_len) * c.shape.d_ff;
                for (long e = 0; e < n; ++e) nearest_kink = std::fmin(nearest_kink, std::fabs(a.ff_h.x[e]));
            }
        REQUIRE(nearest_kink > 1e-3);
        CHECK(std::isfinite(loss));
        CHECK(loss > 0.5);  // an untrained model is unsure
        std::vector<double> grads(layout.total);
        model_backward(ws, layout, params.data(), grads.data());
        for (const ParamInfo& p : layout.params) {
            CAPTURE(p.name);
            CHECK_GRAD(p.name, check_grad(params, grads, [&] { return model_forward(ws, layout, params.data()); },
                                          spread(p, 6)));
        }
    }
}

TEST_CASE("dropout: a training pass drops with the seed's masks; evaluation is the model without dropout") {
    const TaskSpec reverse{TaskKind::Reverse, 4, 4, 0};
    ModelShape shape = small_shape(reverse, 1, true, true, true, 0.0);
    const ModelLayout plain = make_layout(shape);
    shape.dropout = 0.25;
    const ModelLayout dropped = make_layout(shape);
    CHECK(dropped.total == plain.total);  // dropout has no parameters
    const std::vector<double> params = generic_params(plain);
    auto loss = [&](const ModelLayout& layout, bool train, uint64_t seed) {
        Workspace<double> ws;
        workspace_resize(ws, layout, 3);
        TaskStream stream(reverse, 9, nullptr);
        stream.next_batch(ws.src, ws.dec_in, ws.dec_out, ws.loss_mask, 3);
        ws.train = train, ws.dropout_seed = seed;
        const double l = model_forward(ws, layout, params.data());
        if (train && layout.shape.dropout > 0) {  // about a quarter of every mask is 0
            size_t zeros = 0, all = 0;
            for (const std::vector<uint8_t>* k : {&ws.src_keep, &ws.dec_keep, &ws.enc_drop[0].keep[0], &ws.dec_drop[0].keep[2]}) {
                for (uint8_t v : *k) zeros += v == 0;
                all += k->size();
            }
            CHECK(all == 4 * 3 * 4 * 6);
            CHECK(static_cast<double>(zeros) / all == doctest::Approx(0.25).epsilon(0.35));
        }
        return l;
    };
    const double eval = loss(dropped, false, 1);
    CHECK(eval == loss(plain, false, 1));  // not training: exactly the model without dropout
    CHECK(eval == loss(plain, true, 1));   // P_drop 0: a training pass is the same pass
    const double train1 = loss(dropped, true, 1);
    CHECK(train1 != eval);
    CHECK(train1 == loss(dropped, true, 1));  // the same seed, the same masks
    CHECK(train1 != loss(dropped, true, 2));
}

TEST_CASE("learned positions: pos_embedding.weight after embedding.weight, N(0, 1), instead of the sinusoids") {
    ModelShape m;
    m.d_model = 32, m.heads = 4, m.d_ff = 64, m.src_len = 8, m.dec_len = 9;
    const ModelLayout sinusoid = make_layout(m);
    CHECK(sinusoid.find("pos_embedding.weight") == nullptr);
    CHECK(sinusoid.pos_embedding == kNoParam);
    m.position = PositionKind::Learned;
    const ModelLayout learned = make_layout(m);
    REQUIRE(learned.find("pos_embedding.weight") != nullptr);
    CHECK(learned.params[1].name == "pos_embedding.weight");
    CHECK(learned.params[1].torch_shape == std::vector<int>{9, 32});  // max(src_len, dec_len) × d_model
    CHECK(learned.params.size() == sinusoid.params.size() + 1);
    CHECK(learned.total == sinusoid.total + 9 * 32);
    std::vector<float> a(sinusoid.total), b(learned.total);
    init_params(a.data(), sinusoid, 3);
    init_params(b.data(), learned, 3);
    // One stream per name: the other parameters are the sinusoid model's, value for value.
    for (const ParamInfo& p : sinusoid.params) {
        const ParamInfo& q = *learned.find(p.name);
        CHECK(std::equal(a.begin() + static_cast<long>(p.offset), a.begin() + static_cast<long>(p.offset + p.size),
                         b.begin() + static_cast<long>(q.offset)));
    }
    double var = 0;
    for (size_t e = 0; e < 9 * 32; ++e) var += static_cast<double>(b[learned.pos_embedding + e]) * b[learned.pos_embedding + e];
    CHECK(var / (9 * 32) == doctest::Approx(1.0).epsilon(0.2));  // nn.Embedding's N(0, 1)
    m.pe = false;  // no positions at all: no table
    CHECK(make_layout(m).find("pos_embedding.weight") == nullptr);
}

TEST_CASE("parameters are named and shaped as PyTorch's state_dict") {
    ModelShape m;
    m.layers = 2, m.d_model = 24, m.heads = 3, m.d_ff = 40, m.vocab_size = 11, m.vocab_out = 10;
    const ModelLayout enc_dec = make_layout(m);
    auto shape_of = [](const ModelLayout& l, const std::string& name) {
        const ParamInfo* p = l.find(name);
        return p ? p->torch_shape : std::vector<int>{};
    };
    CHECK(shape_of(enc_dec, "embedding.weight") == std::vector<int>{11, 24});
    CHECK(shape_of(enc_dec, "encoder.layers.1.self_attn.in_proj_weight") == std::vector<int>{72, 24});
    CHECK(shape_of(enc_dec, "encoder.layers.0.self_attn.in_proj_bias") == std::vector<int>{72});
    CHECK(shape_of(enc_dec, "decoder.layers.0.multihead_attn.out_proj.weight") == std::vector<int>{24, 24});
    CHECK(shape_of(enc_dec, "decoder.layers.1.linear1.weight") == std::vector<int>{40, 24});
    CHECK(shape_of(enc_dec, "decoder.layers.1.linear2.weight") == std::vector<int>{24, 40});
    CHECK(shape_of(enc_dec, "decoder.layers.1.norm3.bias") == std::vector<int>{24});
    CHECK(shape_of(enc_dec, "generator.weight") == std::vector<int>{10, 24});
    CHECK(enc_dec.find("encoder.layers.0.norm3.weight") == nullptr);  // encoder layers have two norms
    // 12 tensors per encoder layer, 18 per decoder layer, embedding and generator (3).
    CHECK(enc_dec.params.size() == 2 * 12 + 2 * 18 + 3);
    CHECK(enc_dec.blocks.size() == 2 + 2 * 2);

    m.kind = ModelKind::DecoderOnly, m.bias = false;
    const ModelLayout dec = make_layout(m);
    CHECK(dec.find("layers.1.self_attn.in_proj_weight") != nullptr);
    CHECK(dec.find("layers.0.self_attn.in_proj_bias") == nullptr);   // nn.MultiheadAttention(bias=False)
    CHECK(dec.find("layers.0.self_attn.out_proj.bias") == nullptr);
    CHECK(dec.find("layers.0.linear1.bias") != nullptr);             // the FFN keeps its biases
    CHECK(dec.params.size() == 2 * 10 + 3);

    // in_proj (3d, d) in PyTorch is three (d_in, d_out) blocks here: row o of W_k is
    // PyTorch row d + o, read along d_in.
    std::vector<float> torch_order(enc_dec.find("encoder.layers.0.self_attn.in_proj_weight")->size);
    for (size_t e = 0; e < torch_order.size(); ++e) torch_order[e] = static_cast<float>(e);
    const ParamInfo& in_proj = *enc_dec.find("encoder.layers.0.self_attn.in_proj_weight");
    std::vector<float> flat(enc_dec.total);
    from_torch_layout(flat.data(), torch_order.data(), in_proj);
    const int d = 24, i = 5, o = 7;
    CHECK(flat[in_proj.offset + (static_cast<size_t>(1) * d + i) * d + o] == torch_order[(static_cast<size_t>(d) + o) * d + i]);
    std::vector<float> back(torch_order.size());
    to_torch_layout(back.data(), flat.data(), in_proj);
    CHECK(back == torch_order);
}

TEST_CASE("initialisation follows PyTorch's rules") {
    ModelShape m;
    m.d_model = 32, m.heads = 4, m.d_ff = 64;
    const ModelLayout layout = make_layout(m);
    std::vector<float> params(layout.total);
    init_params(params.data(), layout, 3);
    auto values = [&](const std::string& name) {
        const ParamInfo& p = *layout.find(name);
        return std::vector<float>(params.begin() + static_cast<long>(p.offset), params.begin() + static_cast<long>(p.offset + p.size));
    };
    auto max_abs = [](const std::vector<float>& v) {
        double m = 0;
        for (float x : v) m = std::fmax(m, std::fabs(x));
        return m;
    };
    const std::vector<float> emb = values("embedding.weight");
    double var = 0;
    for (float x : emb) var += static_cast<double>(x) * x;
    var /= emb.size();
    CHECK(var == doctest::Approx(1.0 / 32).epsilon(0.25));  // N(0, 1/d_model), 352 samples
    const double xavier = std::sqrt(6.0 / (96 + 32)), linear1 = 1 / std::sqrt(32.0), linear2 = 1 / std::sqrt(64.0);
    CHECK(max_abs(values("encoder.layers.0.self_attn.in_proj_weight")) <= xavier);
    CHECK(max_abs(values("encoder.layers.0.self_attn.in_proj_weight")) > 0.9 * xavier);
    CHECK(max_abs(values("encoder.layers.0.self_attn.in_proj_bias")) == 0.0);
    CHECK(max_abs(values("decoder.layers.0.multihead_attn.out_proj.bias")) == 0.0);
    CHECK(max_abs(values("decoder.layers.0.linear1.weight")) <= linear1);
    CHECK(max_abs(values("decoder.layers.0.linear1.bias")) > 0.5 * linear1);
    CHECK(max_abs(values("decoder.layers.0.linear2.weight")) <= linear2);
    CHECK(max_abs(values("decoder.layers.0.linear2.weight")) > 0.9 * linear2);
    for (float x : values("decoder.layers.0.norm2.weight")) CHECK(x == 1.0f);
}

TEST_CASE("task generators give the batches of the independent Python reimplementation") {
    // tests/fixtures/train/tasks.json: tests/fixtures/gen_train_fixtures.py, SplitMix64 in Python.
    std::string text, error;
    REQUIRE(read_file(LAB_FIXTURE_DIR "/train/tasks.json", &text, &error));
    const nlohmann::json fixture = nlohmann::json::parse(text, nullptr, false);
    REQUIRE(fixture.is_object());
    int cases = 0;
    for (const nlohmann::json& c : fixture["cases"]) {
        TaskSpec spec;
        REQUIRE(parse_task(c["task"].get<std::string>(), &spec.kind));
        spec.vocab = c["vocab"], spec.length = c["length"], spec.gap = c["gap"];
        const uint64_t seed = c["seed"].get<uint64_t>();
        CAPTURE(c["task"].get<std::string>());
        const HeldOut held = make_held_out(spec, seed, c["eval_size"]);
        CHECK(held.draws == c["held_out"].get<std::vector<int32_t>>());
        TaskStream stream(spec, seed, &held);
        const int B = c["batch"];
        Workspace<float> ws;  // only its token arrays
        ws.src.resize(static_cast<size_t>(B) * spec.src_len());
        ws.dec_in.resize(static_cast<size_t>(B) * spec.dec_len());
        ws.dec_out.resize(ws.dec_in.size());
        for (const nlohmann::json& batch : c["batches"]) {
            stream.next_batch(ws.src, ws.dec_in, ws.dec_out, ws.loss_mask, B);
            CHECK(ws.src == batch["src"].get<std::vector<int32_t>>());
            CHECK(ws.dec_in == batch["dec_in"].get<std::vector<int32_t>>());
            CHECK(ws.dec_out == batch["dec_out"].get<std::vector<int32_t>>());
            CHECK(ws.loss_mask == batch["loss_mask"].get<std::vector<uint8_t>>());
        }
        ++cases;
    }
    CHECK(cases == 5);
}

TEST_CASE("dropout masks: the documented order, against tests/torch/train_reference.py's own SplitMix64") {
    // The strings are train_reference.DropoutMasks(seed, p).keep(step, site, (40,)), printed as 0/1:
    // step t's seed stream_seed(seed, "dropout step t"), the site's stream_seed(that, site), one
    // uniform() per element, dropped below p. The PyTorch replay rebuilds every mask this way.
    struct Case {
        uint32_t seed;
        int step;
        const char* site;
        double p;
        const char* keep;
    };
    const Case cases[] = {
        {1, 1, "dec_x", 0.5, "0101111010001110010101110101101100100111"},
        {7, 3, "decoder.layers.0.ffn", 0.1, "1101111111111101111111111111111101111111"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.site);
        std::vector<uint8_t> keep(40);
        const uint64_t step_seed = stream_seed(c.seed, "dropout step " + std::to_string(c.step));
        dropout_mask(keep.data(), 40, c.p, stream_seed(step_seed, c.site));
        std::string text;
        for (uint8_t k : keep) text += k ? '1' : '0';
        CHECK(text == c.keep);
    }
}
