// block_checks.cpp — Attention Lab core: the block stages' invariant checks, each
// recomputed in double from the tensors on screen (naive loops, not the engine's
// functions), so a wrong number in any of them fails a badge.
#include <cmath>

#include "model_trace/block_trace.h"

namespace lab {

namespace {

using T = TensorId;

// Worst |got − want| (infinite where one is NaN and the other not) and the scale of want.
struct Diff {
    double err = 0, scale = 0;
    bool within(double rel) const { return err <= rel * (1 + scale); }
};

Diff compare(const Tensor& got, const std::vector<double>& want) {
    Diff d;
    for (size_t i = 0; i < want.size() && i < got.size(); ++i) {
        const double g = got.data[i];
        if (std::isnan(g) && std::isnan(want[i])) continue;
        const double e = std::fabs(g - want[i]);
        d.err = std::isnan(e) ? INFINITY : std::fmax(d.err, e);
        if (std::isfinite(want[i])) d.scale = std::fmax(d.scale, std::fabs(want[i]));
    }
    if (got.size() != want.size()) d.err = INFINITY;
    return d;
}

InvariantCheck match_check(const char* id, Msg label, const Tensor& got, const std::vector<double>& want) {
    const Diff d = compare(got, want);
    return {id, std::move(label), holds(d.within(1e-4)), Msg(Str::chk_max_error, d.err)};
}

// out (rows, n_out) = in (rows, n_in) · w (n_in, n_out) + b, in double.
std::vector<double> linear_ref(const std::vector<double>& in, const Tensor& w, const Tensor& b) {
    const int n_in = w.shape[0], n_out = w.shape[1];
    const size_t rows = in.size() / static_cast<size_t>(n_in);
    std::vector<double> out(rows * static_cast<size_t>(n_out));
    for (size_t r = 0; r < rows; ++r)
        for (int o = 0; o < n_out; ++o) {
            double s = b.data[static_cast<size_t>(o)];
            for (int c = 0; c < n_in; ++c) s += in[r * n_in + c] * w.data[static_cast<size_t>(c) * n_out + o];
            out[r * n_out + o] = s;
        }
    return out;
}

std::vector<double> as_double(const Tensor& t) { return std::vector<double>(t.data.begin(), t.data.end()); }

// LayerNorm of every row: (x − mean) / sqrt(var + eps) · w + b, biased variance.
std::vector<double> layer_norm_ref(const std::vector<double>& x, const Tensor& w, const Tensor& b, double eps) {
    const size_t d = w.size(), rows = x.size() / d;
    std::vector<double> out(x.size());
    for (size_t r = 0; r < rows; ++r) {
        double mean = 0, var = 0;
        for (size_t c = 0; c < d; ++c) mean += x[r * d + c] / d;
        for (size_t c = 0; c < d; ++c) var += (x[r * d + c] - mean) * (x[r * d + c] - mean) / d;
        for (size_t c = 0; c < d; ++c) out[r * d + c] = (x[r * d + c] - mean) / std::sqrt(var + eps) * w.data[c] + b.data[c];
    }
    return out;
}

std::vector<double> sum_ref(const Tensor& a, const Tensor& b) {
    std::vector<double> out(a.size());
    for (size_t i = 0; i < a.size(); ++i) out[i] = static_cast<double>(a.data[i]) + b.data[i];
    return out;
}

std::vector<InvariantCheck>& checks(ModelTrace* m, BlockStageId id) { return m->stages[static_cast<int>(id)].checks; }

void check_embed(ModelTrace* m) {
    const Trace& tr = m->trace;
    const Tensor& table = tr[T::Embedding];
    const Tensor& tokens = tr[T::Tokens];
    const int d = table.shape[1];
    std::vector<double> want(tr[T::Embed].size());
    for (size_t i = 0; i < tokens.size(); ++i)
        for (int c = 0; c < d; ++c)
            want[i * d + c] = table.data[static_cast<size_t>(tokens.data[i]) * d + c] * std::sqrt(static_cast<double>(d));
    checks(m, BlockStageId::Embed).push_back(
        match_check("embed_is_row_times_sqrt_d", Msg::literal("embed = E[token] * sqrt(d_model)"), tr[T::Embed], want));
    std::vector<double> with_pe = as_double(tr[T::Embed]);
    if (const Tensor* pe = tr.find(T::EmbedPe))
        for (size_t i = 0; i < with_pe.size(); ++i) with_pe[i] += pe->data[i];
    checks(m, BlockStageId::Embed).push_back(
        match_check("pe_added", tr.find(T::EmbedPe) ? Msg::literal("embed_out = embed + pe") : Msg(Str::blk_chk_pe_off),
                    tr[T::EmbedOut], with_pe));
}

void check_add_norm(ModelTrace* m, double eps) {
    const Trace& tr = m->trace;
    const std::vector<double> sum = sum_ref(tr[T::X], tr[T::Output]);
    checks(m, BlockStageId::AddNorm).push_back(
        match_check("residual_is_sum", Msg::literal("residual = x + attention(x)"), tr[T::Residual], sum));
    checks(m, BlockStageId::AddNorm).push_back(
        match_check("layer_norm_matches", Msg(Str::blk_chk_layer_norm, "norm_out", "residual"), tr[T::NormOut],
                    layer_norm_ref(as_double(tr[T::Residual]), tr[T::NormW], tr[T::NormB], eps)));
}

void check_ffn(ModelTrace* m, double eps) {
    const Trace& tr = m->trace;
    const Tensor& hidden = tr[T::FfnHidden];
    const Tensor& relu = tr[T::FfnRelu];
    long wrong = 0;
    for (size_t i = 0; i < hidden.size(); ++i) wrong += relu.data[i] != std::fmax(hidden.data[i], 0.0f);
    checks(m, BlockStageId::Ffn).push_back({"relu_is_max0", Msg::literal("ffn_relu = max(0, ffn_hidden)"), holds(wrong == 0),
                                            Msg(Str::blk_chk_relu_detail, wrong, static_cast<long>(hidden.size()))});
    std::vector<double> h = linear_ref(as_double(tr[T::FfnIn]), tr[T::W1], tr[T::B1]);
    for (double& v : h) v = std::fmax(v, 0.0);
    checks(m, BlockStageId::Ffn).push_back(match_check("ffn_matches", Msg::literal("ffn_out = linear2(relu(linear1(x)))"),
                                                       tr[T::FfnOut], linear_ref(h, tr[T::W2], tr[T::B2])));
    checks(m, BlockStageId::Ffn).push_back(
        match_check("layer_norm_matches", Msg(Str::blk_chk_layer_norm, "layer_out", "ffn_in + ffn_out"), tr[T::LayerOut],
                    layer_norm_ref(sum_ref(tr[T::FfnIn], tr[T::FfnOut]), tr[T::FfnNormW], tr[T::FfnNormB], eps)));
}

// probs = softmax(logits) row by row; the rows' worst |Σ − 1|.
std::vector<double> softmax_ref(const Tensor& logits) {
    const size_t V = static_cast<size_t>(logits.shape.back()), rows = logits.size() / V;
    std::vector<double> out(logits.size());
    for (size_t r = 0; r < rows; ++r) {
        double mx = -INFINITY, z = 0;
        for (size_t c = 0; c < V; ++c) mx = std::fmax(mx, logits.data[r * V + c]);
        for (size_t c = 0; c < V; ++c) z += std::exp(logits.data[r * V + c] - mx);
        for (size_t c = 0; c < V; ++c) out[r * V + c] = std::exp(logits.data[r * V + c] - mx) / z;
    }
    return out;
}

// The sample's cross-entropy from probs, as F.cross_entropy(..., label_smoothing=ε).
double loss_from_probs(const ModelTrace& m) {
    const Tensor& probs = m.trace[T::Probs];
    const Tensor& targets = m.trace[T::Targets];
    const size_t V = static_cast<size_t>(probs.shape.back());
    double sum = 0;
    long counted = 0;
    for (size_t r = 0; r < targets.size(); ++r) {
        if (!m.grads.loss_mask.empty() && !m.grads.loss_mask[r]) continue;
        double all = 0;
        for (size_t c = 0; c < V; ++c) all -= std::log(static_cast<double>(probs.data[r * V + c]));
        const double nll = -std::log(static_cast<double>(probs.data[r * V + static_cast<size_t>(targets.data[r])]));
        sum += (1 - m.grads.label_smoothing) * nll + m.grads.label_smoothing / V * all;
        ++counted;
    }
    return counted ? sum / counted : 0;
}

void check_generator(ModelTrace* m) {
    const Trace& tr = m->trace;
    checks(m, BlockStageId::Generator).push_back(match_check(
        "logits_match", Msg::literal("logits = top W_gen + b_gen"), tr[T::Logits], linear_ref(as_double(tr[T::Top]), tr[T::WGen], tr[T::BGen])));
    const Tensor& probs = tr[T::Probs];
    const size_t V = static_cast<size_t>(probs.shape.back());
    double worst = 0;
    for (size_t r = 0; r < probs.size() / V; ++r) {
        double s = 0;
        for (size_t c = 0; c < V; ++c) s += probs.data[r * V + c];
        worst = std::isnan(s) ? INFINITY : std::fmax(worst, std::fabs(s - 1));
    }
    checks(m, BlockStageId::Generator).push_back({"rows_sum_to_1", Str::blk_chk_probs_rows, holds(worst <= 1e-5),
                                                  Msg(Str::chk_rows_sum_detail, worst, static_cast<long>(probs.size() / V))});
    checks(m, BlockStageId::Generator).push_back(
        match_check("probs_are_softmax", Msg::literal("probs = softmax(logits)"), probs, softmax_ref(tr[T::Logits])));
    const double loss = loss_from_probs(*m), err = std::fabs(loss - m->engine_loss);
    checks(m, BlockStageId::Generator).push_back({"loss_matches", Str::blk_chk_loss_label, holds(err <= 1e-4 * (1 + std::fabs(loss))),
                                                  Msg(Str::blk_chk_loss_detail, loss, m->engine_loss)});
}

}  // namespace

void check_block_stages(ModelTrace* m) {
    for (BlockStageRecord& r : m->stages) r.checks.clear();
    check_embed(m);
    check_add_norm(m, m->grads.layer_norm_eps);
    check_ffn(m, m->grads.layer_norm_eps);
    check_generator(m);
}

}  // namespace lab
