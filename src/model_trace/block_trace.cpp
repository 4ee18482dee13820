// block_trace.cpp — Attention Lab core: the stepper on a trained model — the ten stages
// on its weights, the block's four stages recomputed from their inputs, and the
// engine's gradients gathered under the tensors' ids.
#include "model_trace/block_trace.h"

#include <cmath>

#include "attention/attention.h"
#include "attention/positional_encoding.h"
#include "nn/layers.h"

namespace lab {

namespace {

using T = TensorId;

// What the block stages read: the model, its parameters, the sample's activations.
struct BlockPass {
    const ModelLayout& layout;
    const float* params;
    const Workspace<float>& ws;
    const LayerSlots& slots;        // the layer of the chosen attention
    const LayerActs<float>& acts;
    int norm;                       // the LayerNorm right after the chosen attention
    bool encoder;                   // the chosen attention reads the source stream
    ModelTrace& m;

    int d() const { return layout.shape.d_model; }
    int stream_len() const { return encoder ? ws.src_len : ws.dec_len; }
};

Tensor& put(Trace& tr, TensorId id, std::vector<int> shape, std::vector<std::string> dims, const float* values = nullptr) {
    Tensor& t = add_tensor(tr, id, Tensor::zeros("", std::move(shape), std::move(dims)));
    if (values) std::copy(values, values + t.size(), t.data.begin());
    return t;
}

ShapeStep step(const char* op, const Tensor& t) { return {Msg::literal(op), t.shape, t.dims}; }

BlockStageRecord& record(BlockPass& p, BlockStageId id) { return p.m.stages[static_cast<int>(id)]; }

// embed = E[tokens] · √d_model, embed_out = embed + pe[:L] (PE on: the sinusoids, or the first L rows
// of pos_embedding.weight for learned positions).
void embed_stage(BlockPass& p) {
    Trace& tr = p.m.trace;
    const ModelShape& s = p.layout.shape;
    const int L = p.stream_len(), d = p.d();
    const std::vector<int32_t>& ids = p.encoder ? p.ws.src : p.ws.dec_in;
    Tensor& tokens = put(tr, T::Tokens, {1, L}, {"B", "L"});
    for (int i = 0; i < L; ++i) tokens.data[i] = static_cast<float>(ids[i]);
    put(tr, T::Embedding, {s.vocab_size, d}, {"vocab", "d_model"}, p.params + p.layout.embedding);
    Tensor& embed = put(tr, T::Embed, {1, L, d}, {"B", "L", "d_model"});
    embedding_forward(embed.ptr(), ids.data(), p.params + p.layout.embedding, L, d, std::sqrt(static_cast<float>(d)));
    Tensor& out = put(tr, T::EmbedOut, {1, L, d}, {"B", "L", "d_model"}, embed.ptr());
    std::vector<ShapeStep> steps = {step("tokens", tokens), step("E[tokens] * sqrt(d_model)", embed)};
    if (s.pe) {
        const bool learned = s.learned_positions();
        Tensor& pe = put(tr, T::EmbedPe, {L, d}, {"L", "d_model"}, learned ? p.params + p.layout.pos_embedding : nullptr);
        if (!learned) sinusoidal_positional_encoding(pe.ptr(), L, d);
        add_positions_forward(out.ptr(), embed.ptr(), pe.ptr(), 1, L, d);
        steps.push_back(step(learned ? "+ pos_embedding[:L]" : "+ pe[:L]", out));
    }
    record(p, BlockStageId::Embed).shape_steps = steps;
}

// out = LayerNorm(residual) with the parameters at slots w, b.
void layer_norm(Tensor& out, const Tensor& residual, const float* w, const float* b, double eps) {
    const int d = residual.shape.back(), rows = static_cast<int>(residual.size()) / d;
    std::vector<float> mean(static_cast<size_t>(rows)), rstd(static_cast<size_t>(rows));
    layer_norm_forward(out.ptr(), mean.data(), rstd.data(), residual.ptr(), w, b, rows, d, static_cast<float>(eps));
}

// residual = x + attention(x), norm_out = LayerNorm(residual).
void add_norm_stage(BlockPass& p) {
    Trace& tr = p.m.trace;
    const int d = p.d(), Lq = tr.config.L_q();
    Tensor& res = put(tr, T::Residual, {1, Lq, d}, {"B", "L_q", "d_model"});
    residual_forward(res.ptr(), tr[T::X].ptr(), tr[T::Output].ptr(), static_cast<long>(res.size()));
    const Tensor& w = put(tr, T::NormW, {d}, {"d_model"}, p.params + p.slots.norm_w[p.norm]);
    const Tensor& b = put(tr, T::NormB, {d}, {"d_model"}, p.params + p.slots.norm_b[p.norm]);
    Tensor& out = put(tr, T::NormOut, {1, Lq, d}, {"B", "L_q", "d_model"});
    layer_norm(out, res, w.ptr(), b.ptr(), p.layout.shape.layer_norm_eps);
    record(p, BlockStageId::AddNorm).shape_steps = {step("x", tr[T::X]), step("x + attention(x)", res),
                                                    step("LayerNorm(x + attention(x))", out)};
}

// The layer's feed-forward sublayer and the Add & Norm after it.
void ffn_stage(BlockPass& p) {
    Trace& tr = p.m.trace;
    const int d = p.d(), f = p.layout.shape.d_ff, L = p.stream_len(), k = p.slots.ffn_norm();
    const Tensor& in = put(tr, T::FfnIn, {1, L, d}, {"B", "L", "d_model"}, p.acts.ln[p.slots.has_cross ? 1 : 0].x);
    const Tensor& w1 = put(tr, T::W1, {d, f}, {"d_model", "d_ff"}, p.params + p.slots.w1);
    const Tensor& b1 = put(tr, T::B1, {f}, {"d_ff"}, p.params + p.slots.b1);
    Tensor& hidden = put(tr, T::FfnHidden, {1, L, f}, {"B", "L", "d_ff"});
    linear(hidden.ptr(), in.ptr(), w1.ptr(), b1.ptr(), L, d, f);
    Tensor& relu = put(tr, T::FfnRelu, {1, L, f}, {"B", "L", "d_ff"});
    relu_forward(relu.ptr(), hidden.ptr(), static_cast<long>(relu.size()));
    const Tensor& w2 = put(tr, T::W2, {f, d}, {"d_ff", "d_model"}, p.params + p.slots.w2);
    const Tensor& b2 = put(tr, T::B2, {d}, {"d_model"}, p.params + p.slots.b2);
    Tensor& out = put(tr, T::FfnOut, {1, L, d}, {"B", "L", "d_model"});
    linear(out.ptr(), relu.ptr(), w2.ptr(), b2.ptr(), L, f, d);
    Tensor& res = put(tr, T::FfnResidual, {1, L, d}, {"B", "L", "d_model"});
    residual_forward(res.ptr(), in.ptr(), out.ptr(), static_cast<long>(res.size()));
    const Tensor& nw = put(tr, T::FfnNormW, {d}, {"d_model"}, p.params + p.slots.norm_w[k]);
    const Tensor& nb = put(tr, T::FfnNormB, {d}, {"d_model"}, p.params + p.slots.norm_b[k]);
    Tensor& layer_out = put(tr, T::LayerOut, {1, L, d}, {"B", "L", "d_model"});
    layer_norm(layer_out, res, nw.ptr(), nb.ptr(), p.layout.shape.layer_norm_eps);
    record(p, BlockStageId::Ffn).shape_steps = {step("x", in), step("linear1(x)", hidden), step("relu", relu),
                                                step("linear2(relu)", out), step("LayerNorm(x + ffn(x))", layer_out)};
}

// logits = top · W_gen + b_gen, probs = softmax over the symbols; the loss of the sample.
void generator_stage(BlockPass& p) {
    Trace& tr = p.m.trace;
    const ModelShape& s = p.layout.shape;
    const int d = s.d_model, V = s.vocab_out, L = p.ws.dec_len;
    const Tensor& top = put(tr, T::Top, {1, L, d}, {"B", "L_dec", "d_model"},
                            p.ws.dec.back().output(p.layout.decoder.back()).x);
    const Tensor& w = put(tr, T::WGen, {d, V}, {"d_model", "V"}, p.params + p.layout.generator_w);
    const Tensor& b = put(tr, T::BGen, {V}, {"V"}, p.params + p.layout.generator_b);
    Tensor& logits = put(tr, T::Logits, {1, L, V}, {"B", "L_dec", "V"});
    linear(logits.ptr(), top.ptr(), w.ptr(), b.ptr(), L, d, V);
    Tensor& probs = put(tr, T::Probs, {1, L, V}, {"B", "L_dec", "V"});
    Tensor& targets = put(tr, T::Targets, {1, L}, {"B", "L_dec"});
    for (int i = 0; i < L; ++i) targets.data[i] = static_cast<float>(p.ws.dec_out[i]);
    cross_entropy_forward(probs.ptr(), logits.ptr(), p.ws.dec_out.data(),
                          p.ws.loss_mask.empty() ? nullptr : p.ws.loss_mask.data(), L, V,
                          static_cast<float>(s.label_smoothing));
    record(p, BlockStageId::Generator).shape_steps = {step("top", top), step("generator(top)", logits),
                                                      step("softmax(dim=-1)", probs)};
}

// The engine's gradients (one sample: item 0) under the ids of the tensors they belong to.
void gather_attention_grads(BlockPass& p, const std::vector<float>& dparams) {
    GradTrace& g = p.m.grads;
    const Trace& tr = p.m.trace;
    const AttentionActs<float>& a = block_acts(p.ws, p.layout, p.m.block_index);
    const std::pair<T, const float*> acts[] = {
        {T::Q, a.q.d},           {T::K, a.k.d},           {T::V, a.v.d},           {T::QHeads, a.q_heads.d},
        {T::KHeads, a.k_heads.d}, {T::VHeads, a.v_heads.d}, {T::Scores, a.scores.d}, {T::Scaled, a.scaled.d},
        {T::Masked, a.masked.d}, {T::Weights, a.weights.d}, {T::Context, a.context.d}, {T::Concat, a.concat.d},
        {T::Output, a.out.d}};
    for (const auto& [id, d] : acts) std::copy(d, d + tr[id].size(), add_grad(g, tr, id).data.begin());
    if (p.layout.shape.grouped())  // grouped-query: the groups' gradients, each the sum of its query heads'
        for (const auto& [id, d] : {std::pair<T, const float*>{T::KGroups, a.k_groups.d}, {T::VGroups, a.v_groups.d}})
            std::copy(d, d + tr[id].size(), add_grad(g, tr, id).data.begin());
    const AttentionSlots& s = attention_slots(p.layout, p.m.block_index);
    const std::pair<T, size_t> params[] = {{T::WQ, s.w_q}, {T::WK, s.w_k}, {T::WV, s.w_v}, {T::WO, s.w_out},
                                           {T::BQ, s.b_q}, {T::BK, s.b_k}, {T::BV, s.b_v}, {T::BO, s.b_out}};
    for (const auto& [id, at] : params)
        if (at != kNoParam) std::copy(&dparams[at], &dparams[at] + tr[id].size(), add_grad(g, tr, id).data.begin());
}

// dL/d(the attention's inputs): the whole gradient of the stream at that point.
void gather_input_grads(BlockPass& p) {
    GradTrace& g = p.m.grads;
    const Trace& tr = p.m.trace;
    const AttentionBlockInfo& info = p.m.block;
    const Workspace<float>& ws = p.ws;
    const int l = info.layer;
    const float* d_query = nullptr;
    if (info.kind == AttentionKind::Cross) d_query = p.acts.ln[0].d;
    else if (l == 0) d_query = p.encoder ? ws.src_x.d : ws.dec_x.d;
    else if (p.encoder) d_query = ws.enc[l - 1].ln[1].d;
    else d_query = ws.dec[l - 1].ln[p.layout.decoder[l - 1].ffn_norm()].d;
    const float* d_kv = info.kind == AttentionKind::Cross ? ws.enc.back().ln[1].d : d_query;
    std::copy(d_query, d_query + tr[T::X].size(), add_grad(g, tr, T::X).data.begin());
    std::copy(d_query, d_query + tr[T::X].size(), add_grad(g, tr, T::QueryIn).data.begin());
    std::copy(d_kv, d_kv + tr[T::Memory].size(), add_grad(g, tr, T::Memory).data.begin());
    std::copy(d_kv, d_kv + tr[T::Memory].size(), add_grad(g, tr, T::KeyValueIn).data.begin());
}

void gather_block_grads(BlockPass& p, const std::vector<float>& dparams) {
    GradTrace& g = p.m.grads;
    const Trace& tr = p.m.trace;
    const LayerActs<float>& a = p.acts;
    const int k = p.slots.ffn_norm();
    const Slot<float>& stream = p.encoder ? p.ws.src_x : p.ws.dec_x;
    const std::pair<T, const float*> acts[] = {
        {T::Embed, stream.d},     {T::EmbedOut, stream.d}, {T::Residual, a.res[p.norm].d}, {T::NormOut, a.ln[p.norm].d},
        {T::FfnIn, a.ln[p.slots.has_cross ? 1 : 0].d},   {T::FfnHidden, a.ff_h.d},   {T::FfnRelu, a.ff_a.d},
        {T::FfnOut, a.ff_out.d},  {T::FfnResidual, a.res[k].d}, {T::LayerOut, a.ln[k].d},
        {T::Top, p.ws.dec.back().output(p.layout.decoder.back()).d}, {T::Logits, p.ws.logits.d}};
    for (const auto& [id, d] : acts) std::copy(d, d + tr[id].size(), add_grad(g, tr, id).data.begin());
    const std::pair<T, size_t> params[] = {
        {T::Embedding, p.layout.embedding}, {T::NormW, p.slots.norm_w[p.norm]}, {T::NormB, p.slots.norm_b[p.norm]},
        {T::W1, p.slots.w1}, {T::B1, p.slots.b1}, {T::W2, p.slots.w2}, {T::B2, p.slots.b2},
        {T::FfnNormW, p.slots.norm_w[k]}, {T::FfnNormB, p.slots.norm_b[k]}, {T::WGen, p.layout.generator_w},
        {T::BGen, p.layout.generator_b}};
    for (const auto& [id, at] : params) std::copy(&dparams[at], &dparams[at] + tr[id].size(), add_grad(g, tr, id).data.begin());
}

void token_labels(ModelTrace& m, const TaskSpec& spec, const Sample& s, bool encoder) {
    auto labels = [&](const std::vector<int32_t>& ids) {
        std::vector<std::string> out;
        for (int32_t id : ids) out.push_back(task_token_text(spec, id));
        return out;
    };
    m.query_tokens = labels(encoder ? s.src : s.dec_in);
    m.key_tokens = labels(encoder || m.block.kind == AttentionKind::Cross ? s.src : s.dec_in);
    m.dec_tokens = labels(s.dec_in);
    m.symbols.clear();
    for (int v = 0; v < spec.vocab; ++v) m.symbols.push_back(task_token_text(spec, v));
}

}  // namespace

int find_block(const ModelLayout& layout, int layer, AttentionKind kind) {
    for (size_t i = 0; i < layout.blocks.size(); ++i)
        if (layout.blocks[i].layer == layer && layout.blocks[i].kind == kind) return static_cast<int>(i);
    return -1;
}

bool trace_model(Trainer& trainer, const Sample& s, int block, ModelTrace* out, std::string* error) {
    const ModelLayout& layout = trainer.layout();
    if (block < 0 || block >= static_cast<int>(layout.blocks.size())) {
        if (error) *error = "block " + std::to_string(block) + " is not one of the model's " +
                            std::to_string(layout.blocks.size()) + " attentions";
        return false;
    }
    const StepperView view = trainer.stepper_view(s, block);
    const Workspace<float>* ws = trainer.run_sample(s);
    if (view.inputs.x.data.empty() || !ws) {
        if (error) *error = "the sample does not fit this model";
        return false;
    }
    ModelTrace& m = *out;
    m = ModelTrace{};
    m.block = layout.blocks[static_cast<size_t>(block)];
    m.block_index = block;
    m.trace = run_trace(view.config, view.inputs, view.weights);
    for (int i = 0; i < kBlockStageCount; ++i) m.stages.push_back({static_cast<BlockStageId>(i), {}, {}});
    const bool encoder = in_encoder_stack(layout, block);  // an encoder-decoder model's encoder
    const int layer = m.block.layer;
    const LayerSlots& slots = encoder ? layout.encoder[layer] : layout.decoder[layer];
    const LayerActs<float>& acts = encoder ? ws->enc[layer] : ws->dec[layer];
    BlockPass p{layout, trainer.params().data(), *ws, slots, acts, m.block.kind == AttentionKind::Cross ? 1 : 0, encoder, m};
    embed_stage(p);
    add_norm_stage(p);
    ffn_stage(p);
    generator_stage(p);
    m.engine_loss = ws->loss;
    m.grads.loss_mask = s.loss_mask;
    m.grads.label_smoothing = layout.shape.label_smoothing;
    m.grads.layer_norm_eps = layout.shape.layer_norm_eps;
    m.grads.kind = LossKind::CrossEntropy;
    m.grads.loss = ws->loss;
    gather_attention_grads(p, trainer.sample_grads());
    gather_input_grads(p);
    gather_block_grads(p, trainer.sample_grads());
    token_labels(m, trainer.task(), s, encoder);
    check_block_stages(&m);
    check_backward(m.trace, &m.grads);
    return true;
}

}  // namespace lab
