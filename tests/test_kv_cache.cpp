// KV-cache decoding (train/kv_cache.h): every cached step equals the full causal
// recompute within its float32 bound, on random models of every decoder shape and on the
// shipped induction checkpoint; each planted bug breaks that check; greedy tokens equal the
// training engine's own greedy decoding; the cost figures grow as O(t) with the cache and
// O(t²) without; `attnlab decode` prints it and names bad input.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "cli_run.h"
#include "interop/checkpoint.h"
#include "model_trace/block_trace.h"
#include "train/kv_cache.h"
#include "train/tasks.h"

using namespace lab;

namespace {

struct RandomModel {
    ModelLayout layout;
    std::vector<float> params;
    std::vector<int32_t> src, dec_in;
};

RandomModel random_model(ModelKind kind, PositionKind position, bool bias, int layers, uint64_t seed) {
    ModelShape m;
    m.kind = kind, m.position = position, m.bias = bias, m.layers = layers;
    m.heads = 4, m.d_model = 16, m.d_ff = 24, m.vocab_size = 9, m.vocab_out = 8, m.src_len = 6, m.dec_len = 12;
    RandomModel r{make_layout(m), {}, {}, {}};
    r.params.resize(r.layout.total);
    init_params(r.params.data(), r.layout, seed);
    Rng rng(seed + 7);
    if (kind == ModelKind::EncoderDecoder)
        for (int i = 0; i < m.src_len; ++i) r.src.push_back(static_cast<int32_t>(rng.next_u64() % m.vocab_out));
    for (int i = 0; i < m.dec_len; ++i) r.dec_in.push_back(static_cast<int32_t>(rng.next_u64() % m.vocab_size));
    return r;
}

}  // namespace

TEST_CASE("every cached step equals the full causal recompute: decoder-only and encoder-decoder, both positions, with and without bias") {
    for (ModelKind kind : {ModelKind::DecoderOnly, ModelKind::EncoderDecoder})
        for (PositionKind pos : {PositionKind::Sinusoid, PositionKind::Learned})
            for (bool bias : {true, false}) {
                CAPTURE(model_kind_name(kind));
                CAPTURE(static_cast<int>(pos));
                CAPTURE(bias);
                const RandomModel r = random_model(kind, pos, bias, 2, 11);
                const DecodeRun run = kv_decode(r.layout, r.params.data(), r.src, r.dec_in, 3, 12);
                REQUIRE(run.steps.size() == 12);
                CHECK(run.failed == 0);
                for (const DecodeStep& s : run.steps) {
                    CHECK(s.max_abs_diff >= 0);
                    CHECK(s.max_abs_diff <= s.bound);
                    CHECK(s.weights.size() == 2);
                    CHECK(s.weights[0].size() == static_cast<size_t>(4 * (s.position + 1)));  // the one new row per head
                    double row = 0;
                    for (int j = 0; j <= s.position; ++j) row += s.weights[1][static_cast<size_t>(j)];
                    CHECK(row == doctest::Approx(1.0).epsilon(1e-5));
                }
                // The bound is tight enough to mean something: far below one logit's spread.
                CHECK(run.steps.back().bound < 1e-2);
                // Rows after gen_begin read the previous prediction.
                for (size_t t = 4; t < run.steps.size(); ++t) CHECK(run.steps[t].token_in == run.steps[t - 1].token_out);
                for (int t = 0; t <= 3; ++t) CHECK(run.steps[static_cast<size_t>(t)].token_in == r.dec_in[static_cast<size_t>(t)]);
            }
}

TEST_CASE("a planted bug in the cached path fails the step check: attend before append, stale position, no ÷√d_k") {
    const RandomModel r = random_model(ModelKind::DecoderOnly, PositionKind::Sinusoid, true, 2, 5);
    for (KvBug bug : {KvBug::AttendBeforeAppend, KvBug::StalePosition, KvBug::NoScale}) {
        CAPTURE(static_cast<int>(bug));
        DecodeOptions o;
        o.bug = bug;
        const DecodeRun run = kv_decode(r.layout, r.params.data(), r.src, r.dec_in, 3, 12, o);
        CHECK(run.failed >= 10);  // every step after the first (where the three agree by construction)
        CHECK(run.worst > 100 * run.steps.back().bound);
    }
}

TEST_CASE("a NaN logit fails every step's check, even when later logits are finite (never green over NaN)") {
    RandomModel r = random_model(ModelKind::DecoderOnly, PositionKind::Sinusoid, true, 1, 9);
    r.params[static_cast<size_t>(r.layout.generator_b)] = std::nanf("");  // logit 0 is NaN in both paths, the rest finite
    const DecodeRun run = kv_decode(r.layout, r.params.data(), r.src, r.dec_in, 3, 12);
    REQUIRE(run.steps.size() == 12u);
    CHECK(run.failed == 12);
    CHECK(std::isnan(run.worst));
    for (const DecodeStep& st : run.steps) {
        CHECK(std::isnan(st.max_abs_diff));
        CHECK(kv_step_check(st).verdict == Verdict::Fail);
    }
}

TEST_CASE("the shipped induction checkpoint decodes with the cache: equal every step, the greedy tokens, the held-out answers") {
    Trainer t;
    std::vector<ConfigError> errors;
    REQUIRE(load_checkpoint(std::string(LAB_CHECKPOINT_DIR) + "/induction", "final", &t, &errors));
    int exact = 0;
    for (int i = 0; i < 8; ++i) {
        const Sample s = t.held_out_sample(i);
        const DecodeRun run = kv_decode(t.layout(), t.params().data(), s.src, s.dec_in, s.gen_begin, s.gen_end);
        REQUIRE(run.steps.size() == static_cast<size_t>(s.gen_end));
        CHECK(run.failed == 0);
        CHECK(run.worst > 0);  // the two paths sum in a different order: not the same code path twice
        const std::vector<int32_t> greedy = t.greedy_decode(s), expected = s.expected();
        bool right = true;
        for (int p = s.gen_begin; p < s.gen_end; ++p) {
            CHECK(run.steps[static_cast<size_t>(p)].token_out == greedy[static_cast<size_t>(p - s.gen_begin)]);
            right = right && run.steps[static_cast<size_t>(p)].token_out == expected[static_cast<size_t>(p - s.gen_begin)];
        }
        exact += right;
        DecodeOptions off;
        off.cache = false;
        const DecodeRun full = kv_decode(t.layout(), t.params().data(), s.src, s.dec_in, s.gen_begin, s.gen_end, off);
        CHECK(full.tokens == run.tokens);
        CHECK(full.steps[3].max_abs_diff < 0);  // nothing compared without the cache
    }
    CHECK(exact >= 7);  // the shipped model solves its held-out set (99 %+ when trained)
}

TEST_CASE("the page's rows: each step's new key row and weights row equal the stepper's trace of the same layer") {
    // The KV tab stacks step t's key row and weights row; the block trace (a separate path:
    // the ten stages over the whole teacher-forced sequence) must hold the same numbers at row t.
    Trainer t;
    std::vector<ConfigError> errors;
    REQUIRE(load_checkpoint(std::string(LAB_CHECKPOINT_DIR) + "/induction", "final", &t, &errors));
    const Sample s = t.held_out_sample(2);
    const DecodeRun run = kv_decode(t.layout(), t.params().data(), s.src, s.dec_in, s.gen_begin, s.gen_end);
    const ModelShape& m = t.layout().shape;
    for (int layer = 0; layer < m.layers; ++layer) {
        ModelTrace mt;
        REQUIRE(trace_model(t, s, find_block(t.layout(), layer, AttentionKind::DecoderSelf), &mt, nullptr));
        const Tensor& k = mt.trace[TensorId::KHeads];
        const Tensor& w = mt.trace[TensorId::Weights];
        int compared = 0;
        double worst = 0;
        for (int p = 0; p < s.gen_end; ++p) {
            if (run.tokens[static_cast<size_t>(p)] != s.dec_in[static_cast<size_t>(p)]) break;  // teacher-forced rows only
            const DecodeStep& st = run.steps[static_cast<size_t>(p)];
            for (int h = 0; h < m.heads; ++h) {
                for (int c = 0; c < m.d_k(); ++c)
                    worst = std::max(worst, std::fabs(double(st.key[layer][h * m.d_k() + c]) - k.at({0, h, p, c})));
                for (int j = 0; j <= p; ++j)
                    worst = std::max(worst, std::fabs(double(st.weights[layer][h * (p + 1) + j]) - w.at({0, h, p, j})));
            }
            ++compared;
        }
        CHECK(compared > s.gen_begin);  // every prompt row, and generated ones while they match the answer
        CHECK(worst < 1e-4);
        CHECK(worst > 0);  // two paths, not one read twice
    }
}

TEST_CASE("decode cost: the cache's bytes by the formula, O(t) FLOPs per step with the cache and O(t²) without") {
    ModelShape m;
    m.kind = ModelKind::DecoderOnly, m.layers = 2, m.heads = 2, m.d_model = 24, m.d_ff = 48, m.vocab_out = 10;
    CHECK(kv_cache_bytes(m, 10) == 2.0 * 2 * 2 * 10 * 12 * 4);  // 2·N·h_kv·t·d_k·bytes = 3840
    auto flops = [&](int t, bool cached) { return decode_step_cost(m, t, cached).flops; };
    // The cached step's FLOPs are linear in t (constant first difference), the recompute's quadratic.
    CHECK(flops(200, true) - flops(100, true) == doctest::Approx(flops(300, true) - flops(200, true)));
    const double d1 = flops(200, false) - flops(100, false), d2 = flops(300, false) - flops(200, false);
    CHECK(d2 > d1 * 1.2);
    // Per step at t, the attention part alone: 2·2·h·d_k·(t+1) cached, ×(t+1) rows without.
    const double attn_cached = 2 * 2 * 2 * 12 * 101.0;
    CHECK(flops(100, true) - flops(99, true) == doctest::Approx(2 * attn_cached / 101.0));  // N = 2 layers, per key
    CHECK(flops(0, true) == doctest::Approx(flops(0, false)));  // one row: the two are the same work
    CHECK(decode_step_cost(m, 511, false).flops / decode_step_cost(m, 511, true).flops > 100);
}

TEST_CASE("decode timing: both paths repeated at least min_runs times and until the budget is spent") {
    const RandomModel r = random_model(ModelKind::DecoderOnly, PositionKind::Sinusoid, true, 1, 3);
    const DecodeTiming few = kv_decode_timing(r.layout, r.params.data(), r.src, r.dec_in, 3, 12, 0, 4);
    CHECK(few.runs == 4);  // a zero budget: min_runs alone
    CHECK(few.cached_ms >= 0);
    CHECK(few.recompute_ms > 0);
    const DecodeTiming more = kv_decode_timing(r.layout, r.params.data(), r.src, r.dec_in, 3, 12, 20, 1);
    CHECK(more.runs >= 1);
    CHECK((more.cached_ms + more.recompute_ms) * more.runs >= 20);  // the loop ran until the budget was spent
}

TEST_CASE("attnlab decode: per-step equality and cost on the shipped induction model; bad input named") {
    const std::string dir = std::string(LAB_CHECKPOINT_DIR) + "/induction";
    Trainer t;
    std::vector<ConfigError> errors;
    REQUIRE(load_checkpoint(dir, "final", &t, &errors));
    const Sample s = t.held_out_sample(2);
    const std::string n = std::to_string(s.gen_end);
    const CliRun on = run({"decode", "--checkpoint", dir, "--sample", "2"});
    CHECK(on.code == 0);
    CHECK(on.err.empty());
    CHECK(on.out.find("equal to the full causal recompute: " + n + " of " + n + " steps") != std::string::npos);
    CHECK(on.out.find("generated tokens match Trainer::greedy_decode") != std::string::npos);
    CHECK(on.out.find("(1, 2, " + n + ", 12)") != std::string::npos);  // the cache's last shape (B, h_kv, t+1, d_k)
    CHECK(on.out.find(" NO ") == std::string::npos);
    CHECK(on.out.find("speed-up") != std::string::npos);
    const CliRun off = run({"decode", "--checkpoint", dir, "--kv-cache", "off"});
    CHECK(off.code == 0);
    CHECK(off.out.find("equal to the full") == std::string::npos);
    CHECK(off.out.find("recompute") != std::string::npos);
    CHECK(run({"decode"}).err.find("attnlab: decode: --checkpoint: --checkpoint needs a value") != std::string::npos);
    CHECK(run({"decode", "--checkpoint", dir, "--kv-cache", "maybe"}).err.find("--kv-cache 'maybe' is not on or off") !=
          std::string::npos);
    CHECK(run({"decode", "--checkpoint", dir, "--sample", "-1"}).code == 2);
    CHECK(run({"decode", "--checkpoint", dir, "--steps", "3"}).err.find("unknown option '--steps'") != std::string::npos);
    const CliRun coref = run({"decode", "--checkpoint", std::string(LAB_CHECKPOINT_DIR) + "/coref/zh"});
    CHECK(coref.code == 2);
    CHECK(coref.err.find("encoder-only model") != std::string::npos);
    CHECK(run({"decode", "--checkpoint", "/nonexistent/x"}).code == 2);
    // parse_cli and run_cli read the same row (the fuzz finding behind the subcommand table).
    CHECK(parse_cli({"decode", "--kv-cache"}).errors.at(0).param == "--kv-cache");
    CHECK(parse_cli({"decode", "--checkpoint", "d"}).errors.empty());
}
