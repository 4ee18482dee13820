// test_cost.cpp — the cost model's FLOP counts, the L sweep, and per-stage timings.
#include <doctest/doctest.h>

#include "trace/cost_model.h"
#include "trace/length_sweep.h"
#include "trace/trace.h"

using namespace lab;

TEST_CASE("FLOPs follow the shapes") {
    AttentionConfig c;
    c.d_model = 512, c.heads = 8, c.seq_len = 10, c.batch = 2;
    // QK^T: B*h*L*L dot products of d_k terms, multiply + add = 2 FLOPs each.
    CHECK(stage_cost(c, StageId::Scores).flops == 2.0 * 2 * 8 * 10 * 10 * 64);
    CHECK(stage_cost(c, StageId::Context).flops == 2.0 * 2 * 8 * 10 * 10 * 64);
    // three d_model x d_model projections of B*L rows, plus the biases
    CHECK(stage_cost(c, StageId::Project).flops == 2.0 * 2 * 30 * 512 * 512 + 2 * 30 * 512);
    CHECK(stage_cost(c, StageId::SplitHeads).flops == 0);
    double sum = 0;
    for (int s = 0; s < kStageCount; ++s) sum += stage_cost(c, static_cast<StageId>(s)).flops;
    CHECK(total_cost(c).flops == sum);
}

TEST_CASE("doubling L: attention FLOPs x4, projection FLOPs x2 (Table 1)") {
    AttentionConfig c;
    c.d_model = 64, c.heads = 4;
    const auto sweep = sweep_lengths(c, {16, 32, 64}, 1);
    REQUIRE(sweep.size() == 3);
    CHECK(sweep[1].attention_flops / sweep[0].attention_flops == doctest::Approx(4.0));
    CHECK(sweep[2].projection_flops / sweep[1].projection_flops == doctest::Approx(2.0));
    for (const auto& p : sweep) CHECK(p.attention_ms >= 0);
}

TEST_CASE("fit_power recovers the coefficient") {
    const std::vector<double> x = {1, 2, 4, 8}, y = {3, 12, 48, 192};  // 3 x^2
    CHECK(fit_power(x, y, 2.0) == doctest::Approx(3.0));
    CHECK(fit_power({}, {}, 1.0) == 0.0);
}

TEST_CASE("a trace records a time for every computing stage") {
    AttentionConfig c;
    c.d_model = 128, c.heads = 4, c.seq_len = 64;
    const Trace tr = run_trace(c);
    double total = 0;
    for (double ms : tr.stage_ms) {
        CHECK(ms >= 0);
        total += ms;
    }
    CHECK(total > 0);
    CHECK(tr.checks_ms >= 0);
}
