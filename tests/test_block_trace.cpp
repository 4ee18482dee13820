// test_block_trace.cpp — the stepper on a trained model (model_trace/block_trace.h): the ten
// stages and the block's four on the shipped reverse checkpoint agree with the engine's
// own forward, every displayed gradient agrees with central finite differences of the
// loss (an independent double-precision forward, naive_model.h), and the reverse task's
// cross-attention looks at the mirrored position.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "explain/derivation.h"
#include "interop/checkpoint.h"
#include "model_trace/block_trace.h"
#include "naive_model.h"

using namespace lab;
using T = TensorId;

namespace {

// A shipped checkpoint in a trainer (the Train view owns opening them in the page).
Trainer& shipped(const std::string& task) {
    static Trainer reverse, induction;
    Trainer& t = task == "reverse" ? reverse : induction;
    if (!t.ready()) {
        std::vector<ConfigError> errors;
        REQUIRE(load_checkpoint(std::string(LAB_CHECKPOINT_DIR) + "/" + task, "final", &t, &errors));
    }
    return t;
}

double max_abs(const float* a, const float* b, size_t n, double* scale) {
    double err = 0;
    for (size_t i = 0; i < n; ++i) {
        err = std::fmax(err, std::fabs(static_cast<double>(a[i]) - b[i]));
        *scale = std::fmax(*scale, std::fabs(static_cast<double>(b[i])));
    }
    return err;
}

// The trace's tensor against the engine's activation (same layout, item 0).
void check_agrees(const Trace& tr, T id, const float* engine, const char* what) {
    const Tensor& t = tr[id];
    double scale = 0;
    const double err = max_abs(t.ptr(), engine, t.size(), &scale);
    INFO(tensor_name(id) << " vs the engine's " << what << ": max |diff| " << err << " at scale " << scale);
    CHECK(err <= 2e-6 * (1 + scale));
}

std::string block_prefix(const ModelTrace& m) {
    const std::string& n = m.block.name;
    return n.substr(0, n.rfind('.'));
}

// The naive model's hook name of a trace tensor (see naive_model.h).
std::string hook_of(const ModelTrace& m, T id, const ModelLayout& layout) {
    const std::string prefix = block_prefix(m), att = m.block.name;
    const bool enc = m.block.kind == AttentionKind::EncoderSelf, cross = m.block.kind == AttentionKind::Cross;
    const LayerSlots& s = enc ? layout.encoder[m.block.layer] : layout.decoder[m.block.layer];
    const std::string stream = enc ? "src" : "dec";
    auto layer_in = [&](const std::string& p, int layer, bool encoder) {
        if (layer == 0) return (encoder ? "src" : "dec") + std::string("_x");
        const std::string prev = p.substr(0, p.rfind('.') + 1) + std::to_string(layer - 1);
        const LayerSlots& ps = encoder ? layout.encoder[layer - 1] : layout.decoder[layer - 1];
        return prev + "/norm" + std::to_string(ps.ffn_norm());
    };
    switch (id) {
        case T::QueryIn: return cross ? prefix + "/norm0" : layer_in(prefix, m.block.layer, enc);
        case T::KeyValueIn:
            return cross ? "encoder.layers." + std::to_string(layout.encoder.size() - 1) + "/norm1"
                         : layer_in(prefix, m.block.layer, enc);
        case T::Embed: return stream + "_embed";
        case T::EmbedOut: return stream + "_x";
        case T::Residual: return prefix + "/res" + std::to_string(cross ? 1 : 0);
        case T::NormOut: return prefix + "/norm" + std::to_string(cross ? 1 : 0);
        case T::FfnIn: return prefix + "/norm" + std::to_string(s.has_cross ? 1 : 0);
        case T::FfnHidden: return prefix + "/ffn_hidden";
        case T::FfnRelu: return prefix + "/ffn_relu";
        case T::FfnOut: return prefix + "/ffn_out";
        case T::LayerOut: return prefix + "/norm" + std::to_string(s.ffn_norm());
        case T::Top: {
            const std::string last = layout.encoder.empty() ? "layers." : "decoder.layers.";
            return last + std::to_string(layout.decoder.size() - 1) + "/norm" + std::to_string(layout.decoder.back().ffn_norm());
        }
        case T::Logits: return "logits";
        default: return att + "/" + tensor_name(id);
    }
}

// A few cells of a gradient: its largest |value| and two spread out.
std::vector<size_t> cells_of(const Tensor& g) {
    size_t big = 0;
    for (size_t i = 0; i < g.size(); ++i)
        if (std::fabs(g.data[i]) > std::fabs(g.data[big])) big = i;
    return {big, g.size() / 3, (2 * g.size()) / 3 + 1 < g.size() ? (2 * g.size()) / 3 + 1 : 0};
}

struct FdResult {
    double worst = 0;  // max |fd − displayed| / (max |displayed| of the tensor + float32's resolution)
    int cells = 0;
};

// The float32 engine resolves a probability near 1 only to ~6e-8, so a gradient is
// compared at the scale of its tensor's largest value plus that floor.
constexpr double kFloatFloor = 1e-7;

// The held-out sample the model is least sure of (among the first 64): its gradients
// are the largest, so float rounding matters least.
Sample hardest_sample(Trainer& t) {
    int worst = 0;
    double worst_loss = -1;
    for (int i = 0; i < 64; ++i) {
        const Workspace<float>* ws = t.run_sample(t.held_out_sample(i));
        if (ws->loss > worst_loss) worst_loss = ws->loss, worst = i;
    }
    return t.held_out_sample(worst);
}

// Central differences of loss(cell, ±h) against the displayed gradient g at a few cells.
template <class Loss>
FdResult fd_cells(const Tensor& g, Loss loss) {
    double gmax = 0;
    for (float v : g.data) gmax = std::fmax(gmax, std::fabs(v));
    FdResult r;
    const double h = 1e-4;
    for (size_t cell : cells_of(g)) {
        const double fd = (loss(cell, h) - loss(cell, -h)) / (2 * h);
        r.worst = std::fmax(r.worst, std::fabs(fd - g.data[cell]) / (gmax + kFloatFloor));
        ++r.cells;
    }
    return r;
}

// An activation nudged as the naive model computes it.
FdResult fd_check(const ModelTrace& m, Trainer& t, const Sample& s, T id) {
    naive::Model model{t.layout(), naive::Vec(t.params().begin(), t.params().end()), {}};
    return fd_cells(m.grads.grads[id], [&](size_t cell, double delta) {
        model.nudge = {hook_of(m, id, t.layout()), cell, delta};
        return model.loss(s.src, s.dec_in, s.dec_out, s.loss_mask);
    });
}

// The offset of a parameter tensor of the view in the flat buffer.
size_t param_offset(const ModelTrace& m, const ModelLayout& layout, T id) {
    const AttentionSlots& a = attention_slots(layout, m.block_index);
    const LayerSlots& s = m.block.kind == AttentionKind::EncoderSelf ? layout.encoder[m.block.layer] : layout.decoder[m.block.layer];
    switch (id) {
        case T::WQ: return a.w_q;
        case T::WK: return a.w_k;
        case T::WV: return a.w_v;
        case T::WO: return a.w_out;
        case T::W1: return s.w1;
        case T::W2: return s.w2;
        case T::WGen: return layout.generator_w;
        case T::Embedding: return layout.embedding;
        default: return m.block.kind == AttentionKind::Cross ? s.norm_w[1] : s.norm_w[0];  // NormW
    }
}

// A parameter nudged in the naive model's copy of the weights.
FdResult fd_param_check(const ModelTrace& m, Trainer& t, const Sample& s, T id) {
    naive::Model model{t.layout(), naive::Vec(t.params().begin(), t.params().end()), {}};
    const size_t at = param_offset(m, t.layout(), id);
    return fd_cells(m.grads.grads[id], [&](size_t cell, double delta) {
        const double keep = model.p[at + cell];
        model.p[at + cell] = keep + delta;
        const double loss = model.loss(s.src, s.dec_in, s.dec_out, s.loss_mask);
        model.p[at + cell] = keep;
        return loss;
    });
}

bool all_pass(const std::vector<InvariantCheck>& checks, std::string* failed) {
    for (const InvariantCheck& c : checks)
        if (c.is_check() && !c.passed()) return *failed = c.id + ": " + render(c.detail, Lang::En), false;
    return true;
}

}  // namespace

TEST_CASE("the trained stepper's tensors agree with the engine's own forward, every attention of the model") {
    Trainer& t = shipped("reverse");
    const Sample s = t.held_out_sample(3);
    for (int block = 0; block < static_cast<int>(t.layout().blocks.size()); ++block) {
        ModelTrace m;
        std::string error;
        REQUIRE(trace_model(t, s, block, &m, &error));
        CAPTURE(m.block.name);
        const Workspace<float>& ws = *t.run_sample(s);
        const AttentionActs<float>& a = block_acts(ws, t.layout(), block);
        check_agrees(m.trace, T::Q, a.q.x, "q");
        check_agrees(m.trace, T::Scores, a.scores.x, "scores");
        check_agrees(m.trace, T::Weights, a.weights.x, "weights");
        check_agrees(m.trace, T::Context, a.context.x, "context");
        check_agrees(m.trace, T::Output, a.out.x, "attention output");
        const bool enc = m.block.kind == AttentionKind::EncoderSelf;
        const LayerActs<float>& layer = enc ? ws.enc[0] : ws.dec[0];
        const LayerSlots& slots = enc ? t.layout().encoder[0] : t.layout().decoder[0];
        const int k = m.block.kind == AttentionKind::Cross ? 1 : 0;
        check_agrees(m.trace, T::Embed, enc ? ws.src_embed.x : ws.dec_embed.x, "embedding");
        check_agrees(m.trace, T::EmbedOut, enc ? ws.src_x.x : ws.dec_x.x, "embedding + PE");
        check_agrees(m.trace, T::Residual, layer.res[k].x, "residual");
        check_agrees(m.trace, T::NormOut, layer.ln[k].x, "LayerNorm");
        check_agrees(m.trace, T::FfnHidden, layer.ff_h.x, "linear1");
        check_agrees(m.trace, T::FfnRelu, layer.ff_a.x, "relu");
        check_agrees(m.trace, T::FfnOut, layer.ff_out.x, "linear2");
        check_agrees(m.trace, T::LayerOut, layer.ln[slots.ffn_norm()].x, "the layer's output");
        check_agrees(m.trace, T::Logits, ws.logits.x, "logits");
        check_agrees(m.trace, T::Probs, ws.probs.x, "probs");
        CHECK(std::fabs(m.engine_loss - ws.loss) == 0);
        std::string failed;
        for (const StageRecord& r : m.trace.stages) CHECK_MESSAGE(all_pass(r.checks, &failed), failed);
        for (const BlockStageRecord& r : m.stages) CHECK_MESSAGE(all_pass(r.checks, &failed), failed);
        for (const auto& c : m.grads.checks) CHECK_MESSAGE(all_pass(c, &failed), failed);
        for (const auto& c : m.grads.block_checks) CHECK_MESSAGE(all_pass(c, &failed), failed);
        CHECK(m.query_tokens.size() == static_cast<size_t>(m.trace.config.L_q()));
        CHECK((m.block.kind == AttentionKind::EncoderSelf ? m.query_tokens[0] != "BOS" : m.query_tokens[0] == "BOS"));
    }
}

TEST_CASE("every displayed gradient agrees with central finite differences of the loss (reverse and induction)") {
    const T activations[] = {T::QueryIn, T::KeyValueIn, T::Q, T::K, T::V, T::QHeads, T::KHeads, T::VHeads,
                             T::Scores, T::Scaled, T::Masked, T::Weights, T::Context, T::Concat, T::Output,
                             T::Embed, T::EmbedOut, T::Residual, T::NormOut, T::FfnIn, T::FfnHidden, T::FfnRelu,
                             T::FfnOut, T::LayerOut, T::Top, T::Logits};
    const T params[] = {T::WQ, T::WK, T::WV, T::WO, T::W1, T::W2, T::WGen, T::Embedding, T::NormW};
    for (const char* task : {"reverse", "induction"}) {
        Trainer& t = shipped(task);
        const Sample s = hardest_sample(t);
        double worst = 0;
        int cells = 0;
        for (int block = 0; block < static_cast<int>(t.layout().blocks.size()); ++block) {
            ModelTrace m;
            REQUIRE(trace_model(t, s, block, &m, nullptr));
            auto check = [&](T id, FdResult (*fd)(const ModelTrace&, Trainer&, const Sample&, T)) {
                const std::string task_name = task, tensor = tensor_name(id);
                CAPTURE(task_name);
                CAPTURE(m.block.name);
                CAPTURE(tensor);
                const FdResult r = fd(m, t, s, id);
                CHECK(r.worst <= 2e-3);
                worst = std::fmax(worst, r.worst), cells += r.cells;
            };
            for (T id : activations) check(id, fd_check);
            for (T id : params) check(id, fd_param_check);
        }
        MESSAGE(std::string(task) << ": " << cells << " gradient cells against central differences (h = 1e-4, double), worst "
                     "|fd - shown| / max|shown| = " << worst);
    }
}

TEST_CASE("the shipped reverse model's cross-attention looks at the mirrored position") {
    Trainer& t = shipped("reverse");
    const int block = find_block(t.layout(), 0, AttentionKind::Cross);
    REQUIRE(block >= 0);
    const int h = t.layout().shape.heads, L = t.task().length;
    std::vector<double> mirrored(static_cast<size_t>(h), 0.0);
    const int samples = 64;
    for (int n = 0; n < samples; ++n) {
        ModelTrace m;
        REQUIRE(trace_model(t, t.held_out_sample(n), block, &m, nullptr));
        const Tensor& w = m.trace[T::Weights];  // (1, h, L_dec, L_src); decoder position i writes target i = src[L-1-i]
        for (int head = 0; head < h; ++head)
            for (int i = 0; i < L; ++i) mirrored[static_cast<size_t>(head)] += w.at({0, head, i, L - 1 - i}) / (samples * L);
    }
    double best = 0;
    std::string line;
    for (int head = 0; head < h; ++head) {
        char buf[48];
        std::snprintf(buf, sizeof buf, "%s head %d %.3f", head ? "," : "", head, mirrored[static_cast<size_t>(head)]);
        line += buf;
        best = std::fmax(best, mirrored[static_cast<size_t>(head)]);
    }
    MESSAGE("mean cross-attention weight on the mirrored source position (64 held-out samples):" << line);
    CHECK(best > 0.5);  // uniform would be 1/8
}
