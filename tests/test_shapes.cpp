// test_shapes.cpp — the shapes the tutorials print, and PE values from §3.5.
#include <doctest/doctest.h>

#include <cmath>

#include "attention/positional_encoding.h"
#include "trace/trace.h"

using namespace lab;

namespace {
std::vector<int> shape_of(const Trace& tr, TensorId id) { return tr[id].shape; }
}  // namespace

TEST_CASE("tutorial shapes: B=2, L=4, d_model=8, h=2") {
    AttentionConfig c;  // the defaults are exactly this
    const Trace tr = run_trace(c);
    CHECK(shape_of(tr, TensorId::Q) == std::vector<int>{2, 4, 8});
    CHECK(shape_of(tr, TensorId::QHeads) == std::vector<int>{2, 2, 4, 4});
    CHECK(shape_of(tr, TensorId::Scores) == std::vector<int>{2, 2, 4, 4});
    CHECK(shape_of(tr, TensorId::Weights) == std::vector<int>{2, 2, 4, 4});
    CHECK(shape_of(tr, TensorId::Context) == std::vector<int>{2, 2, 4, 4});
    CHECK(shape_of(tr, TensorId::Concat) == std::vector<int>{2, 4, 8});
    CHECK(shape_of(tr, TensorId::Output) == std::vector<int>{2, 4, 8});
    CHECK(tr[TensorId::QHeads].dims == std::vector<std::string>{"B", "h", "L_q", "d_k"});
    // split heads records both shapes: the view and the transpose
    const auto& steps = tr.stage(StageId::SplitHeads).shape_steps;
    REQUIRE(steps.size() == 3);
    CHECK(steps[1].shape == std::vector<int>{2, 4, 2, 4});
    CHECK(steps[1].dims == std::vector<std::string>{"B", "L_q", "h", "d_k"});
    CHECK(steps[2].shape == std::vector<int>{2, 2, 4, 4});
}

TEST_CASE("paper base: B=2, L=10, d_model=512, h=8 -> weights 2x8x10x10") {
    AttentionConfig c;
    c.d_model = 512, c.heads = 8, c.seq_len = 10;
    const Trace tr = run_trace(c);
    CHECK(c.d_k() == 64);
    CHECK(shape_of(tr, TensorId::QHeads) == std::vector<int>{2, 8, 10, 64});
    CHECK(shape_of(tr, TensorId::Weights) == std::vector<int>{2, 8, 10, 10});
    CHECK(shape_of(tr, TensorId::Output) == std::vector<int>{2, 10, 512});
}

TEST_CASE("single sentence: L=6, d_model=512, h=8 -> weights 8x6x6 per item") {
    AttentionConfig c;
    c.d_model = 512, c.heads = 8, c.seq_len = 6, c.batch = 1;
    const Trace tr = run_trace(c);
    CHECK(shape_of(tr, TensorId::Weights) == std::vector<int>{1, 8, 6, 6});
}

TEST_CASE("cross-attention: L_q=4, L_kv=6") {
    AttentionConfig c;
    c.cross = true, c.kv_len = 6, c.mask = MaskKind::None;
    const Trace tr = run_trace(c);
    CHECK(shape_of(tr, TensorId::KHeads) == std::vector<int>{2, 2, 6, 4});
    CHECK(shape_of(tr, TensorId::Scores) == std::vector<int>{2, 2, 4, 6});
    CHECK(shape_of(tr, TensorId::Context) == std::vector<int>{2, 2, 4, 4});
    CHECK(tr[TensorId::Memory].data != tr[TensorId::X].data);
}

TEST_CASE("positional encoding follows section 3.5, odd d_model included") {
    std::vector<float> pe(5 * 7);
    sinusoidal_positional_encoding(pe.data(), 5, 7);
    // pos 0: sin(0)=0, cos(0)=1 alternating, last (odd) column sin
    CHECK(pe[0] == 0.0f);
    CHECK(pe[1] == 1.0f);
    CHECK(pe[6] == 0.0f);
    // pos 3, column 2: sin(3 / 10000^(2/7)); column 3: cos of the same angle
    const double angle = 3 / std::pow(10000.0, 2.0 / 7.0);
    CHECK(pe[3 * 7 + 2] == doctest::Approx(std::sin(angle)).epsilon(1e-6));
    CHECK(pe[3 * 7 + 3] == doctest::Approx(std::cos(angle)).epsilon(1e-6));
    CHECK(pe[3 * 7 + 6] == doctest::Approx(std::sin(3 / std::pow(10000.0, 6.0 / 7.0))).epsilon(1e-6));
}

TEST_CASE("positional encoding: the remembered table serves shorter lengths and follows d_model") {
    // Every value against the formula, whatever was asked before: longer, shorter, other d_model.
    const int asks[][2] = {{6, 8}, {3, 8}, {9, 8}, {4, 5}, {9, 8}, {2, 8}, {12, 6}};
    for (const auto& ask : asks) {
        const int len = ask[0], d = ask[1];
        std::vector<float> pe(static_cast<size_t>(len) * d, -7.0f);
        sinusoidal_positional_encoding(pe.data(), len, d);
        for (int pos = 0; pos < len; ++pos)
            for (int col = 0; col < d; ++col) {
                const double angle = pos / std::pow(10000.0, static_cast<double>(col - col % 2) / d);
                CHECK(pe[pos * d + col] == static_cast<float>(col % 2 ? std::cos(angle) : std::sin(angle)));
            }
    }
}

TEST_CASE("inputs and weights are deterministic from the seed; identical tokens embed identically") {
    AttentionConfig c;
    const AttentionInputs a = make_inputs(c), b = make_inputs(c);
    CHECK(a.x.data == b.x.data);
    c.seed = 43;
    CHECK(make_inputs(c).x.data != a.x.data);
    CHECK(make_weights(c).w_q.data != make_weights(AttentionConfig{}).w_q.data);
    const AttentionInputs t = make_inputs(c, {"the", "cat", "the", "mat"});
    for (int j = 0; j < c.d_model; ++j) CHECK(t.x.at({0, 0, j}) == t.x.at({0, 2, j}));
    CHECK(t.x.at({0, 0, 0}) != t.x.at({0, 1, 0}));
    // Xavier bound for d_model=8: sqrt(6/16)
    for (float v : make_weights(c).w_k.data) CHECK(std::fabs(v) <= std::sqrt(6.0 / 16));
    c.bias = false;
    for (float v : make_weights(c).b_v.data) CHECK(v == 0.0f);
}
