// test_train_trainer.cpp — the training loop learns (outcomes, deterministic from the
// seed; no timing), stops on non-finite numbers, and serves the page's views.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "base/rng.h"
#include "cli_run.h"
#include "interop/checkpoint.h"
#include "interop/npy.h"
#include "nn/layers.h"
#include "trace/trace.h"
#include "train/trainer.h"

using namespace lab;

namespace {

std::vector<std::string> params_of(const std::vector<ConfigError>& errors) {
    std::vector<std::string> out;
    for (const ConfigError& e : errors) out.push_back(e.param);
    return out;
}

bool mentions(const std::vector<ConfigError>& errors, const std::string& param) {
    const std::vector<std::string> p = params_of(errors);
    return std::find(p.begin(), p.end(), param) != p.end();
}

void train_to_end(Trainer& t) {
    while (!t.finished()) t.step(25);
}

std::string temp_dir(const std::string& name) {
    const std::filesystem::path p = std::filesystem::temp_directory_path() / ("attnlab_test_" + name);
    std::error_code ec;
    std::filesystem::remove_all(p, ec);
    return p.string();
}

// A trained reverse model, shared by the cases that need one (trained once per run).
Trainer& trained_reverse() {
    static Trainer t;
    if (!t.ready()) {
        TrainConfig c;
        c.task = TaskKind::Reverse;  // V 10, L 8, d_model 32, h 4, 1 layer, B 32: the defaults
        c.steps = 400;
        c.eval_every = 25;
        c.target_exact = 0.99;
        REQUIRE(t.init(c, nullptr));
        train_to_end(t);
    }
    return t;
}

}  // namespace

TEST_CASE("the trainer refuses bad configs with messages naming the parameter") {
    Trainer t;
    std::vector<ConfigError> errors;
    TrainConfig c;
    c.heads = 3;  // d_model 32
    CHECK_FALSE(t.init(c, &errors));
    CHECK(mentions(errors, "heads"));
    CHECK(render(errors[0].message, Lang::En).find("valid heads: 1, 2, 4, 8, 16, 32") != std::string::npos);
    CHECK_FALSE(t.ready());

    errors.clear();
    c = TrainConfig{};
    c.vocab = 2, c.length = 3;  // 8 sequences cannot give 256 held out
    CHECK_FALSE(t.init(c, &errors));
    CHECK(mentions(errors, "eval_size"));

    errors.clear();
    c = TrainConfig{};
    c.task = TaskKind::Induction, c.vocab = 5, c.length = 8;  // 8 distinct symbols of 5
    CHECK_FALSE(t.init(c, &errors));
    CHECK(mentions(errors, "vocab"));

    errors.clear();
    c = TrainConfig{};
    c.gap = 2, c.label_smoothing = 1.0, c.lr.rate = 5;
    CHECK_FALSE(t.init(c, &errors));
    CHECK(mentions(errors, "gap"));
    CHECK(mentions(errors, "label_smoothing"));
    CHECK(mentions(errors, "lr"));

    errors.clear();
    c = TrainConfig{};
    c.label_smoothing = std::nan("");
    CHECK_FALSE(t.init(c, &errors));
    CHECK(mentions(errors, "label_smoothing"));
}

TEST_CASE("reverse (V 10, L 8) reaches 99% held-out exact accuracy") {
    Trainer& t = trained_reverse();
    REQUIRE(!t.evals().empty());
    const EvalReport& last = t.evals().back();
    INFO("step " << last.step << ": token accuracy " << last.token_accuracy << ", exact " << last.exact_accuracy);
    CHECK(last.exact_accuracy >= 0.99);
    CHECK(last.sequences == 256);
    CHECK(t.steps_done() < 400);  // stopped at the target
    CHECK(t.evals().front().exact_accuracy < 0.5);  // it was learned, not there from the start
    CHECK(t.losses().front() > 2.0);                 // ~ln 10 untrained
    CHECK(t.losses().back() < 0.1);
    const Sample s = t.held_out_sample(3);
    CHECK(t.greedy_decode(s) == s.expected());
    std::vector<int32_t> reversed(s.draws.rbegin(), s.draws.rend());
    CHECK(s.expected() == reversed);
    CHECK(t.stop().cause == StopCause::None);
}

TEST_CASE("induction: two decoder-only layers learn it, one layer stays low") {
    // s (5 distinct of 8 symbols), a random gap of 0-5 BOS, s again: the next token in the
    // repeat is only found through an induction head (previous-token head, then copy).
    EvalReport result[2];
    for (int layers : {1, 2}) {
        TrainConfig c;
        c.task = TaskKind::Induction;
        c.vocab = 8, c.length = 5, c.gap = 5, c.layers = layers;
        c.d_model = 24, c.heads = 2, c.d_ff = 48, c.batch = 32;
        c.steps = 300, c.eval_every = 300, c.eval_size = 128;
        Trainer t;
        REQUIRE(t.init(c, nullptr));
        train_to_end(t);
        REQUIRE(t.steps_done() == 300);
        result[layers - 1] = t.evals().back();
    }
    INFO("1 layer: token " << result[0].token_accuracy << " exact " << result[0].exact_accuracy << "; 2 layers: token "
                           << result[1].token_accuracy << " exact " << result[1].exact_accuracy << "; chance 1/8");
    CHECK(result[1].token_accuracy >= 0.9);
    CHECK(result[1].exact_accuracy >= 0.8);
    CHECK(result[0].token_accuracy <= 0.5);
    CHECK(result[0].exact_accuracy <= 0.1);
}

TEST_CASE("training stops with a message on a non-finite loss or gradient, never silently") {
    TrainConfig c;
    c.task = TaskKind::Copy, c.d_model = 16, c.batch = 8, c.steps = 10;
    Trainer t;
    REQUIRE(t.init(c, nullptr));
    const ParamInfo& bias = *t.layout().find("generator.bias");
    REQUIRE(t.set_param("generator.bias", std::vector<float>(bias.size, std::nanf("")), nullptr));
    const std::vector<float> before = t.params();
    CHECK(t.step(5) == 0);
    CHECK(t.stop().cause == StopCause::NonFiniteLoss);
    CHECK(t.stop().step == 1);
    CHECK(render(t.stop().message, Lang::En).find("step 1") != std::string::npos);
    CHECK(t.finished());
    CHECK(t.steps_done() == 0);
    CHECK(std::equal(before.begin(), before.end(), t.params().begin(), [](float a, float b) {
        return a == b || (std::isnan(a) && std::isnan(b));
    }));

    // The decoder's last residual made 0 (its LayerNorm then divides by √eps, x̂ = 0, so
    // the output is norm3.bias = 0 and the loss stays finite), and ±3e38 output weights:
    // the gradient through that LayerNorm overflows.
    Trainer g;
    REQUIRE(g.init(c, nullptr));
    auto set = [&](const std::string& name, float value) {
        REQUIRE(g.set_param(name, std::vector<float>(g.layout().find(name)->size, value), nullptr));
    };
    for (const char* name : {"decoder.layers.0.norm2.weight", "decoder.layers.0.norm2.bias", "decoder.layers.0.linear2.weight",
                             "decoder.layers.0.linear2.bias"})
        set(name, 0.0f);
    const ParamInfo& w = *g.layout().find("generator.weight");  // (V, d)
    std::vector<float> huge(w.size);
    for (size_t e = 0; e < huge.size(); ++e) huge[e] = (e / 16 + e % 16) % 2 ? 3e38f : -3e38f;
    REQUIRE(g.set_param("generator.weight", huge, nullptr));
    CHECK(g.step(1) == 0);
    CHECK(g.stop().cause == StopCause::NonFiniteGradient);
    CHECK(!g.stop().param.empty());
    CHECK(render(g.stop().message, Lang::En).find("the gradient of " + g.stop().param) != std::string::npos);
    CHECK(g.losses().empty());
}

TEST_CASE("a saved state continues exactly like the run it was taken from") {
    TrainConfig c;
    c.task = TaskKind::Sort, c.d_model = 16, c.batch = 16, c.steps = 40, c.eval_every = 1000;
    Trainer t;
    REQUIRE(t.init(c, nullptr));
    t.step(20);
    const TrainerState snapshot = t.save_state();
    t.step(10);
    const std::vector<float> losses = t.losses(), params = t.params();
    t.restore_state(snapshot);
    CHECK(t.steps_done() == 20);
    t.step(10);
    CHECK(t.losses() == losses);
    CHECK(t.params() == params);
}

TEST_CASE("the page's views of a trained model") {
    Trainer& t = trained_reverse();
    const Sample s = t.held_out_sample(0);
    const ModelLayout& layout = t.layout();
    REQUIRE(layout.blocks.size() == 3);  // encoder self, decoder self, cross

    SUBCASE("attention maps: rows sum to 1, the decoder's self-attention is causal") {
        for (int b = 0; b < 3; ++b) {
            const AttentionMap m = t.attention_map(s, b);
            CHECK(m.heads == 4);
            CHECK(m.L_q == 8);
            CHECK(m.L_kv == 8);
            REQUIRE(m.weights.size() == 4u * 8 * 8);
            for (int r = 0; r < 4 * 8; ++r) {
                double sum = 0;
                for (int j = 0; j < 8; ++j) sum += m.weights[static_cast<size_t>(r) * 8 + j];
                CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
                if (m.block.kind == AttentionKind::DecoderSelf)
                    for (int j = r % 8 + 1; j < 8; ++j) CHECK(m.weights[static_cast<size_t>(r) * 8 + j] == 0.0f);
            }
            CHECK(m.keys == (m.block.kind == AttentionKind::DecoderSelf ? s.dec_in : s.src));
        }
        // Reversing: the cross-attention of output position i looks at source position L-1-i.
        const AttentionMap cross = t.attention_map(s, 2);
        CHECK(cross.block.name == "decoder.layers.0.multihead_attn");
        int aligned = 0;
        for (int i = 0; i < 8; ++i) {
            double best = -1;
            int at = -1;
            for (int j = 0; j < 8; ++j) {
                double w = 0;
                for (int h = 0; h < 4; ++h) w += cross.weights[(static_cast<size_t>(h) * 8 + i) * 8 + j];
                if (w > best) best = w, at = j;
            }
            aligned += at == 7 - i;
        }
        CHECK(aligned >= 6);
    }
    SUBCASE("the stepper replays a trained attention with the core's trace") {
        for (int b = 0; b < 3; ++b) {
            const StepperView v = t.stepper_view(s, b);
            REQUIRE(validate(v.config).empty());
            const Trace tr = run_trace(v.config, v.inputs, v.weights);
            const Workspace<float>* ws = t.run_sample(s);
            REQUIRE(ws);
            const float* out = block_acts(*ws, layout, b).out.x;
            const Tensor& want = tr[TensorId::Output];
            double worst = 0;
            for (size_t e = 0; e < want.size(); ++e) worst = std::fmax(worst, std::fabs(want.data[e] - out[e]));
            CHECK(worst < 1e-5);
        }
    }
    SUBCASE("knocking out every head of the cross-attention breaks the model") {
        std::vector<uint8_t> keep(layout.blocks.size() * 4, 1);
        std::fill(keep.begin() + 2 * 4, keep.begin() + 3 * 4, uint8_t{0});
        const EvalReport knocked = t.evaluate(&keep);
        CHECK(knocked.exact_accuracy < 0.05);
        CHECK(t.evaluate().exact_accuracy >= 0.99);  // and the model is unchanged
        CHECK(t.greedy_decode(s, &keep) != s.expected());
    }
    SUBCASE("bad samples, blocks and knockout masks give empty results, never a crash") {
        Sample made;
        std::string error;
        CHECK(t.make_sample({1, 2, 3, 4, 5, 6, 7, 0}, &made, &error));
        CHECK(t.greedy_decode(made) == std::vector<int32_t>{0, 7, 6, 5, 4, 3, 2, 1});
        CHECK_FALSE(t.make_sample({1, 2, 3}, &made, &error));
        CHECK(error.find("has 8 values") != std::string::npos);
        CHECK_FALSE(t.make_sample({1, 2, 3, 4, 5, 6, 7, 10}, &made, &error));
        CHECK(error.find("symbol 10") != std::string::npos);
        Sample forged = s;
        forged.dec_in[2] = 99;  // not its draws' own arrays
        CHECK(t.greedy_decode(forged).empty());
        CHECK(t.run_sample(forged) == nullptr);
        CHECK(t.attention_map(forged, 0).weights.empty());
        CHECK(t.attention_map(s, 3).weights.empty());
        CHECK(t.attention_map(s, -1).weights.empty());
        const std::vector<uint8_t> short_mask(5, 1);
        CHECK(t.evaluate(&short_mask).sequences == 0);
        CHECK(t.greedy_decode(s, &short_mask).empty());
    }
    SUBCASE("gradient norms per layer, softmax saturation, one sample's gradients") {
        const TrainStats st = t.stats();
        std::vector<std::string> groups;
        for (const ParamGradNorm& g : st.groups) groups.push_back(g.name);
        CHECK(groups == std::vector<std::string>{"embedding", "encoder.layers.0", "decoder.layers.0", "generator"});
        CHECK(st.params.size() == layout.params.size());
        for (const ParamGradNorm& g : st.groups) CHECK(g.norm > 0);
        REQUIRE(st.saturation.size() == 3);
        for (double sat : st.saturation) CHECK((sat >= 1.0 / 8 && sat <= 1.0));
        CHECK(st.saturation[2] > 0.5);  // a trained reversal attends sharply
        const Workspace<float>* ws = t.run_sample(s);
        REQUIRE(ws);
        const AttentionActs<float>& cross = block_acts(*ws, layout, 2);
        double d_scores = 0, d_weights = 0;
        for (int e = 0; e < 4 * 8 * 8; ++e) d_scores += std::fabs(cross.scores.d[e]), d_weights += std::fabs(cross.weights.d[e]);
        CHECK(d_scores > 0);
        CHECK(d_weights > 0);
        CHECK(cross.scores.x[0] != 0.0f);  // recorded for the backward view
        double g = 0;
        for (float x : t.sample_grads()) g += std::fabs(x);
        CHECK(g > 0);
    }
}

TEST_CASE("checkpoints round-trip and bad manifests are named") {
    Trainer& t = trained_reverse();
    const std::string dir = temp_dir("roundtrip");
    CheckpointRecord rec;
    std::string error;
    REQUIRE(write_checkpoint(dir, t, rec, CheckpointParts::Final, &error));
    Trainer loaded;
    std::vector<ConfigError> errors;
    REQUIRE(load_checkpoint(dir, "final", &loaded, &errors));
    CHECK(loaded.params() == t.params());
    CHECK(loaded.evaluate().exact_accuracy == t.evaluate().exact_accuracy);

    TrainConfig parsed;
    errors.clear();
    CHECK_FALSE(parse_checkpoint_config("{\"config\": {\"task\": \"reverse\"}}", &parsed, &errors));
    CHECK(mentions(errors, "config.heads"));
    errors.clear();
    CHECK_FALSE(parse_checkpoint_config("not json", &parsed, &errors));
    CHECK(mentions(errors, "manifest.json"));
    std::string manifest;
    REQUIRE(read_file(dir + "/manifest.json", &manifest, &error));
    const size_t at = manifest.find("\"heads\": 4");
    REQUIRE(at != std::string::npos);
    errors.clear();
    CHECK_FALSE(parse_checkpoint_config(manifest.substr(0, at) + "\"heads\": 5" + manifest.substr(at + 10), &parsed, &errors));
    CHECK(mentions(errors, "config.heads"));
    // A parameter file of the wrong shape is named.
    Tensor wrong = Tensor::zeros("x", {3, 3}, {"a", "b"});
    REQUIRE(write_file(dir + "/final/generator.bias.npy", encode_npy(wrong), &error));
    errors.clear();
    CHECK_FALSE(load_checkpoint(dir, "final", &loaded, &errors));
    CHECK(mentions(errors, "generator.bias"));
}

TEST_CASE("attnlab train: flags, exit codes and the checkpoint folder") {
    CliRun r = run({"train", "--heads", "3"});
    CHECK(r.code == 2);
    CHECK(r.err.find("--heads") != std::string::npos);
    r = run({"train", "--lr", "fast"});
    CHECK(r.code == 2);
    CHECK(r.err.find("--lr 'fast'") != std::string::npos);
    r = run({"train", "--task", "dance"});
    CHECK(r.code == 2);
    CHECK(r.err.find("--task") != std::string::npos);
    r = run({"train", "--gap", "3"});
    CHECK(r.code == 2);
    CHECK(r.err.find("--gap") != std::string::npos);
    r = run({"train", "--steps", "0"});
    CHECK(r.code == 2);
    CHECK(r.err.find("--steps") != std::string::npos);
    r = run({"train", "--label-smoothing"});
    CHECK(r.code == 2);
    CHECK(r.err.find("--label-smoothing needs a value") != std::string::npos);

    const std::string dir = temp_dir("cli");
    r = run({"train", "--task", "induction", "--vocab", "6", "--length", "4", "--gap", "2", "--d-model", "8",
             "--heads", "2", "--batch", "3", "--steps", "4", "--eval-every", "2", "--eval-size", "8", "--out", dir});
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK(r.out.find("step 2  loss") != std::string::npos);
    CHECK(r.out.find("done: 4 steps") != std::string::npos);
    std::string bytes, error;
    REQUIRE(read_file(dir + "/batches/tokens.npy", &bytes, &error));
    CHECK(bytes.find("'descr': '<i8'") != std::string::npos);
    CHECK(bytes.find("'shape': (4, 3, 9)") != std::string::npos);  // (S, B, 2L + G - 1)
    Tensor grad;
    REQUIRE(read_file(dir + "/grad1/layers.0.self_attn.in_proj_weight.npy", &bytes, &error));
    REQUIRE(decode_npy(bytes, &grad, &error));
    CHECK(grad.shape == std::vector<int>{24, 8});
    for (const char* f : {"manifest.json", "init/embedding.weight.npy", "final/generator.bias.npy", "loss.npy", "lr.npy",
                          "logits.npy", "batches/loss_mask.npy"})
        CHECK(read_file(dir + "/" + f, &bytes, &error));
    r = run({"train", "--steps", "2", "--out", dir});  // not empty any more
    CHECK(r.code == 2);
    CHECK(r.err.find("--out") != std::string::npos);
}

TEST_CASE("a shipped checkpoint retrains to the same bytes (wasm) and the others load") {
    // scripts/train_checkpoints.sh makes them with the wasm build under Node; this suite's
    // wasm build retrains `copy` from its manifest and compares every file byte for byte.
    // Natively (other float rounding, other libm) it checks that all five load and work.
    for (const char* name : {"copy", "reverse", "sort", "induction", "translate"}) {
        CAPTURE(name);
        Trainer t;
        std::vector<ConfigError> errors;
        REQUIRE(load_checkpoint(std::string(LAB_CHECKPOINT_DIR) + "/" + name, "final", &t, &errors));
        CHECK(t.evaluate().exact_accuracy >= 0.98);
    }
#ifdef __EMSCRIPTEN__
    const std::string shipped = std::string(LAB_CHECKPOINT_DIR) + "/copy";
    std::string manifest, error;
    REQUIRE(read_file(shipped + "/manifest.json", &manifest, &error));
    TrainConfig config;
    std::vector<ConfigError> errors;
    REQUIRE(parse_checkpoint_config(manifest, &config, &errors));
    Trainer t;
    REQUIRE(t.init(config, &errors));
    train_to_end(t);
    const std::string dir = temp_dir("retrained_copy");
    REQUIRE(write_checkpoint(dir, t, CheckpointRecord{}, CheckpointParts::Final, &error));
    std::vector<std::string> files = {"manifest.json", "loss.npy", "lr.npy"};
    for (const ParamInfo& p : t.layout().params) files.push_back("final/" + p.name + ".npy");
    for (const std::string& f : files) {
        CAPTURE(f);
        std::string want, got;
        REQUIRE(read_file(shipped + "/" + f, &want, &error));
        REQUIRE(read_file(dir + "/" + f, &got, &error));
        CHECK(got == want);
    }
    CHECK(files.size() == 3 + 33);
#endif
}

TEST_CASE("a dropout run: training steps drop with step t's masks, the run repeats, evaluation does not drop") {
    TrainConfig c;
    c.task = TaskKind::Reverse;
    c.d_model = 8, c.heads = 2, c.batch = 4, c.steps = 3, c.eval_every = 3, c.eval_size = 16, c.dropout = 0.3;
    Trainer a, b;
    std::vector<ConfigError> errors;
    REQUIRE(a.init(c, &errors));
    REQUIRE(b.init(c, &errors));
    a.step(1);
    // Step 1's decoder input mask is site "dec_x" of stream_seed(seed, "dropout step 1") (model.h).
    const Workspace<float>& ws = a.batch();
    REQUIRE(ws.dec_keep.size() == static_cast<size_t>(4 * 8 * 8));
    std::vector<uint8_t> want(ws.dec_keep.size());
    dropout_mask(want.data(), static_cast<long>(want.size()), 0.3, stream_seed(stream_seed(1, "dropout step 1"), "dec_x"));
    CHECK(ws.dec_keep == want);
    a.step(2);
    b.step(3);
    // The seed is the run, masks included. (Losses, not parameters, and not bit for bit: natively the
    // last bits of a bias gradient depend on where grads() lands mod the SIMD width, as Eigen sums its
    // unaligned head columns in another order, with or without dropout; Adam turns the rounding noise of
    // a zero gradient, e.g. the key bias's, into ±lr steps. Another mask moves a loss by far more.)
    REQUIRE(a.losses().size() == 3);
    for (size_t i = 0; i < 3; ++i) CHECK(a.losses()[i] == doctest::Approx(b.losses()[i]).epsilon(1e-6));

    // Evaluation uses the model without dropout: the same parameters in a P_drop 0 trainer evaluate alike.
    TrainConfig plain = c;
    plain.dropout = 0;
    Trainer p;
    REQUIRE(p.init(plain, &errors));
    std::vector<float> trained = a.params();
    REQUIRE(p.swap_params(trained));
    const EvalReport ea = a.evaluate(), ep = p.evaluate();
    CHECK(ea.loss == doctest::Approx(ep.loss).epsilon(1e-6));
    CHECK(ea.exact_accuracy == ep.exact_accuracy);
    const Sample s = a.held_out_sample(0);
    CHECK(a.greedy_decode(s) == p.greedy_decode(s));
    // ... while training with it is another run.
    Trainer q;
    REQUIRE(q.init(plain, &errors));
    q.step(3);
    CHECK(q.losses()[0] != a.losses()[0]);
}
