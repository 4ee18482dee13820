// test_gqa_train.cpp — grouped-query and multi-query attention in the training engine
// (ModelShape::kv_heads): the parameter table (in_proj_weight (d + 2·h_kv·d_k, d)), the
// forward against the naive loops of tests/naive_model.h, the equivalence with an MHA whose
// K/V rows are the groups' rows repeated (what the PyTorch replay loads), the KV cache holding
// h_kv heads, the knob in the link and the manifest, and a run that learns.
// The gradient against finite differences is in test_train_model.cpp (two grouped cases).
#include <doctest/doctest.h>

#include <cmath>

#include "app/data/url_state.h"
#include "base/message.h"
#include "grad_check.h"
#include "interop/checkpoint.h"
#include "model_trace/block_trace.h"
#include "naive_model.h"
#include "train/kv_cache.h"
#include "train/trainer.h"

using namespace lab;

namespace {

ModelShape grouped_shape(ModelKind kind, int heads, int kv_heads) {
    ModelShape m;
    m.kind = kind, m.layers = 2, m.heads = heads, m.kv_heads = kv_heads;
    m.d_model = 16, m.d_ff = 24, m.vocab_size = 9, m.vocab_out = 8, m.src_len = 6, m.dec_len = 10;
    return m;
}

std::vector<int32_t> tokens(int n, int vocab, uint64_t seed) {
    Rng rng(seed);
    std::vector<int32_t> out;
    for (int i = 0; i < n; ++i) out.push_back(static_cast<int32_t>(rng.next_u64() % static_cast<uint64_t>(vocab)));
    return out;
}

// The grouped model's parameters as an MHA model's: every query head's K and V columns are its
// group's (head i reads group i / (h / h_kv); cycled: i % h_kv, the .repeat bug), everything else
// copied by name.
std::vector<double> as_mha(const ModelLayout& gqa, const std::vector<double>& p, const ModelLayout& mha, bool cycled = false) {
    std::vector<double> out(mha.total);
    const ModelShape& m = gqa.shape;
    const int d = m.d_model, dk = m.d_k(), kv = m.kv_dim(), n = m.heads / m.h_kv();
    for (const ParamInfo& to : mha.params) {
        const ParamInfo& from = *gqa.find(to.name);
        if (to.size == from.size) {
            std::copy(p.begin() + from.offset, p.begin() + from.offset + from.size, out.begin() + to.offset);
            continue;
        }
        const bool weight = to.name.find("weight") != std::string::npos;  // in_proj_weight or in_proj_bias
        const int rows = weight ? d : 1;
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < d; ++c) {
                out[to.offset + r * d + c] = p[from.offset + r * d + c];  // W_q (or b_q): the same
                const int group = cycled ? (c / dk) % m.h_kv() : (c / dk) / n;
                const size_t group_col = static_cast<size_t>(group * dk + c % dk);
                for (int block = 1; block <= 2; ++block)  // W_k, W_v: (d, d) from (d, kv)
                    out[to.offset + block * rows * d + r * d + c] =
                        p[from.offset + rows * d + (block - 1) * rows * kv + r * kv + group_col];
            }
    }
    return out;
}

}  // namespace

TEST_CASE("grouped-query parameters: in_proj_weight (d + 2·h_kv·d_k, d), W_k and W_v its narrow blocks, PyTorch's rows") {
    const ModelLayout layout = make_layout(grouped_shape(ModelKind::EncoderDecoder, 4, 2));
    const ParamInfo& w = *layout.find("decoder.layers.1.multihead_attn.in_proj_weight");
    CHECK(w.torch_shape == std::vector<int>{16 + 2 * 8, 16});
    CHECK(layout.find("encoder.layers.0.self_attn.in_proj_bias")->torch_shape == std::vector<int>{32});
    const AttentionSlots& s = layout.decoder[1].cross_attn;
    CHECK(s.w_q == w.offset);
    CHECK(s.w_k == w.offset + 16 * 16);
    CHECK(s.w_v == w.offset + 16 * 16 + 16 * 8);
    // PyTorch's row o of W_k (row 16 + o of in_proj_weight) is column o of the lab's (d, kv_dim) block.
    std::vector<float> params(layout.total);
    for (size_t i = 0; i < params.size(); ++i) params[i] = static_cast<float>(i % 997) * 0.001f;
    std::vector<float> torch(w.size);
    to_torch_layout(torch.data(), params.data(), w);
    for (int o : {0, 5, 7})
        for (int i : {0, 3, 15}) {
            CHECK(torch[static_cast<size_t>((16 + o) * 16 + i)] == params[s.w_k + static_cast<size_t>(i * 8 + o)]);
            CHECK(torch[static_cast<size_t>((24 + o) * 16 + i)] == params[s.w_v + static_cast<size_t>(i * 8 + o)]);
        }
    std::vector<float> back(layout.total, 0.0f);
    from_torch_layout(back.data(), torch.data(), w);
    CHECK(std::equal(back.begin() + w.offset, back.begin() + w.offset + w.size, params.begin() + w.offset));
    // Plain MHA keeps its table: three (d, d) blocks.
    CHECK(make_layout(grouped_shape(ModelKind::DecoderOnly, 4, 0)).find("layers.0.self_attn.in_proj_weight")->torch_shape ==
          std::vector<int>{48, 16});
}

TEST_CASE("a grouped model's loss equals the naive loops and the MHA with its groups' K/V rows repeated") {
    for (ModelKind kind : {ModelKind::EncoderDecoder, ModelKind::DecoderOnly})
        for (int kv_heads : {1, 2}) {
            CAPTURE(model_kind_name(kind));
            CAPTURE(kv_heads);
            const ModelLayout layout = make_layout(grouped_shape(kind, 4, kv_heads));
            REQUIRE(layout.shape.grouped());
            const std::vector<double> params = generic_params(layout);
            Workspace<double> ws;
            workspace_resize(ws, layout, 1);
            if (kind == ModelKind::EncoderDecoder) ws.src = tokens(6, 8, 3);
            ws.dec_in = tokens(10, 9, 4), ws.dec_out = tokens(10, 8, 5);
            const double loss = model_forward(ws, layout, params.data());
            const naive::Model naive{layout, params, {}};
            CHECK(loss == doctest::Approx(naive.loss(ws.src, ws.dec_in, ws.dec_out, {})).epsilon(1e-7));
            // k_groups (B, h_kv, L, d_k) repeated: head 1 reads group 0 when two heads share it.
            const AttentionActs<double>& a = ws.dec[0].self_attn;
            const long block = 10L * layout.shape.d_k();
            CHECK(std::equal(a.k_heads.x + block, a.k_heads.x + 2 * block, a.k_groups.x));
            const ModelLayout mha = make_layout(grouped_shape(kind, 4, 0));
            const std::vector<double> tied = as_mha(layout, params, mha);
            Workspace<double> ws_mha;
            workspace_resize(ws_mha, mha, 1);
            ws_mha.src = ws.src, ws_mha.dec_in = ws.dec_in, ws_mha.dec_out = ws.dec_out;
            CHECK(model_forward(ws_mha, mha, tied.data()) == doctest::Approx(loss).epsilon(1e-12));
            // ... and the groups' order matters: cycled (.repeat), the same weights give another loss.
            if (kv_heads > 1)
                CHECK(std::fabs(model_forward(ws_mha, mha, as_mha(layout, params, mha, true).data()) - loss) > 1e-6);
        }
}

TEST_CASE("the KV cache of a grouped model holds h_kv heads, equals the recompute every step, and costs less") {
    for (ModelKind kind : {ModelKind::DecoderOnly, ModelKind::EncoderDecoder}) {
        CAPTURE(model_kind_name(kind));
        const ModelLayout layout = make_layout(grouped_shape(kind, 4, 1));
        std::vector<float> params(layout.total);
        init_params(params.data(), layout, 21);
        const DecodeRun run = kv_decode(layout, params.data(), tokens(6, 8, 1), tokens(10, 9, 2), 2, 10);
        REQUIRE(run.steps.size() == 10);
        CHECK(run.failed == 0);
        for (const DecodeStep& s : run.steps) {
            CHECK(s.max_abs_diff <= s.bound);
            CHECK(s.key[0].size() == 4);  // one key/value head of d_k = 4
            CHECK(s.weights[0].size() == static_cast<size_t>(4 * (s.position + 1)));  // still h rows of weights
        }
        KvCache cache;
        kv_cache_begin(cache, layout, params.data(), tokens(6, 8, 1));
        CHECK(cache.heads == 1);
        CHECK(cache.k[0].size() == static_cast<size_t>(1 * 10 * 4));
    }
    const ModelShape mqa = grouped_shape(ModelKind::DecoderOnly, 4, 1), mha = grouped_shape(ModelKind::DecoderOnly, 4, 0);
    CHECK(kv_cache_bytes(mqa, 512) == 2.0 * 2 * 1 * 512 * 4 * 4);  // 2·N·h_kv·t·d_k·bytes
    CHECK(kv_cache_bytes(mha, 512) == 4 * kv_cache_bytes(mqa, 512));
    // W_k and W_v are (d, d_k) instead of (d, d): the cached step's FLOPs fall by 2·2·d·(d - d_k) per layer.
    CHECK(decode_step_cost(mha, 100, true).flops - decode_step_cost(mqa, 100, true).flops == doctest::Approx(2.0 * 2 * 2 * 16 * 12));
}

TEST_CASE("kv_heads in a training run: validated by name, in the link and the manifest, and a run that learns") {
    TrainConfig c;
    c.task = TaskKind::Reverse, c.d_model = 16, c.heads = 4, c.kv_heads = 3, c.batch = 16, c.steps = 400, c.eval_size = 64;
    c = resolve_train_config(c);
    std::vector<ConfigError> errors = validate_train_config(c);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].param == "kv_heads");
    CHECK(render(errors[0].message, Lang::En).find("kv_heads=3 must divide heads=4") != std::string::npos);
    c.kv_heads = 2;
    CHECK(validate_train_config(c).empty());
    UrlState s;
    s.train = true, s.train_config = c;
    const std::string hash = encode_url_state(s);
    CHECK(hash.find("kv=2") != std::string::npos);
    CHECK(decode_url_state(hash).state.train_config.kv_heads == 2);
    Trainer t;
    errors.clear();
    REQUIRE(t.init(c, &errors));
    CHECK(t.layout().shape.kv_dim() == 8);
    t.step(400);
    REQUIRE(t.steps_done() == 400);
    const EvalReport r = t.evaluate();
    MESSAGE("reverse with 4 query heads sharing 2 key/value heads: loss " << t.losses().front() << " -> "
            << t.losses().back() << ", held-out exact " << r.exact_accuracy);
    CHECK(t.losses().back() < 0.5 * t.losses().front());
    CHECK(r.exact_accuracy > 0.5);
    TrainConfig back;
    REQUIRE(parse_checkpoint_config(checkpoint_manifest(t), &back, &errors));
    CHECK(back.kv_heads == 2);
    // The stepper's trace of a grouped block: k_groups at h_kv heads, every check passing.
    ModelTrace m;
    std::string error;
    REQUIRE(trace_model(t, t.held_out_sample(0), 0, &m, &error));
    CHECK(m.trace.config.kv_heads == 2);
    CHECK(m.trace[TensorId::KGroups].shape == std::vector<int>{1, 2, 8, 4});
    int checks = 0;
    for (const auto& list : {&m.grads.checks, &m.grads.block_checks})
        for (const auto& stage : *list)
            for (const InvariantCheck& check : stage) {
                CHECK_MESSAGE(check.verdict != Verdict::Fail, check.id);
                ++checks;
            }
    for (const StageRecord& stage : m.trace.stages)
        for (const InvariantCheck& check : stage.checks) {
            CHECK_MESSAGE(check.verdict != Verdict::Fail, check.id);
            ++checks;
        }
    CHECK(find_check(m.trace.stage(StageId::SplitHeads), "kv_repeat") != nullptr);
    CHECK(checks > 20);
}
