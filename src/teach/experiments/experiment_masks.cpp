// experiment_masks.cpp — Attention Lab core: the same input under different masks.
//
// A mask is applied as masked_fill(mask == 0, fill) before the softmax: a masked score
// becomes -inf (or -1e9) and its weight exactly 0. The cases below share x, the
// weights and every knob of the base config; only the keep mask differs.
#include <algorithm>
#include <cmath>

#include "teach/experiments/experiments.h"

namespace lab {

namespace {

// name: the id; label and description: what the learner reads.
MaskCase make_case(const std::string& name, Msg label, Msg description,
                   const AttentionConfig& c, const AttentionInputs& in, const AttentionWeights& w) {
    MaskCase mc;
    mc.name = name;
    mc.label = std::move(label);
    mc.description = std::move(description);
    mc.trace = run_trace(c, in, w);
    const Tensor& weights = mc.trace[TensorId::Weights];
    const int B = c.batch, h = c.heads, Lq = c.L_q(), Lkv = c.L_kv();
    for (int b = 0; b < B; ++b)
        for (int head = 0; head < h; ++head)
            for (int i = 0; i < Lq; ++i) {
                const float* row = weights.ptr() + weights.offset({b, head, i, 0});
                for (int j = 0; j < Lkv; ++j) {
                    if (j > i && row[j] != 0.0f) ++mc.future_nonzero;  // NaN != 0 counts too
                    if (std::isnan(row[j])) mc.has_nan = true;
                }
            }
    mc.fully_masked_rows = mc.trace.fully_masked_rows;
    return mc;
}

}  // namespace

MaskComparison mask_experiment(const AttentionConfig& base) {
    MaskComparison r;
    AttentionConfig c = base;
    c.padding_lengths.clear();
    c.custom_keep.clear();
    c.window = c.prefix = 0;  // each case says its own
    const AttentionInputs in = make_inputs(c);
    const AttentionWeights w = make_weights(c);
    const int Lq = c.L_q(), Lkv = c.L_kv();

    c.mask = MaskKind::None;
    r.cases.push_back(make_case("none", Msg(Str::exp_mask_none_label), Msg(Str::exp_mask_none_desc), c, in, w));

    c.mask = MaskKind::Causal;
    r.cases.push_back(make_case("causal", Msg(Str::exp_mask_causal_label), Msg(Str::exp_mask_causal_desc), c, in, w));

    // Padding: the lengths a padding mask starts with, L and L-2 for two items.
    c.mask = MaskKind::Padding;
    c.padding_lengths = default_padding_lengths(c.batch, Lkv);
    std::string lengths;
    for (size_t b = 0; b < c.padding_lengths.size(); ++b) lengths += (b ? ", " : "") + std::to_string(c.padding_lengths[b]);
    r.cases.push_back(
        make_case("padding", Msg(Str::exp_mask_padding_label), Msg(Str::exp_mask_padding_desc, lengths), c, in, w));
    c.padding_lengths.clear();

    // Custom: a band |i - j| <= 1 (local attention, one neighbour each side).
    c.mask = MaskKind::Custom;
    c.custom_keep.assign(static_cast<size_t>(Lq) * Lkv, 0);
    for (int i = 0; i < Lq; ++i)
        for (int j = 0; j < Lkv; ++j) c.custom_keep[static_cast<size_t>(i) * Lkv + j] = std::abs(i - j) <= 1;
    r.cases.push_back(make_case("custom", Msg(Str::exp_mask_custom_label), Msg(Str::exp_mask_custom_desc), c, in, w));

    // Inverted causal: masked_fill(mask == 1, fill) with the causal mask fills the kept cells,
    // which is the same as keeping exactly the cells the causal mask hides: keep j > i.
    for (int i = 0; i < Lq; ++i)
        for (int j = 0; j < Lkv; ++j) c.custom_keep[static_cast<size_t>(i) * Lkv + j] = j > i;
    r.cases.push_back(make_case("inverted causal", Msg(Str::exp_mask_inverted_label), Msg(Str::exp_mask_inverted_desc),
                                 c, in, w));
    c.custom_keep.clear();

    // After the paper, on the causal mask: a sliding window (each query sees its W most recent
    // keys: Longformer, Mistral) and a prefix-LM (the first P positions see each other both ways).
    c.mask = MaskKind::Causal;
    c.window = std::max(2, Lq / 2);
    r.cases.push_back(make_case("sliding window", Msg(Str::exp_mask_window_label), Msg(Str::exp_mask_window_desc, c.window),
                                c, in, w));
    c.window = 0, c.prefix = std::max(1, std::min(Lq, Lkv) / 2);
    r.cases.push_back(make_case("prefix-LM", Msg(Str::exp_mask_prefix_label), Msg(Str::exp_mask_prefix_desc, c.prefix),
                                c, in, w));
    c.prefix = 0;

    // One batch item with padding length 0: every key of its rows is masked.
    c.mask = MaskKind::Padding;
    c.padding_lengths.assign(c.batch, Lkv);
    c.padding_lengths[0] = 0;
    c.mask_fill = MaskFill::NegInf;
    r.fully_masked_inf = make_case("padding length 0, -inf", Msg(Str::exp_mask_empty_label, "-inf"),
                                   Msg(Str::exp_mask_empty_desc, "-inf"), c, in, w);
    c.mask_fill = MaskFill::NegBillion;
    r.fully_masked_1e9 = make_case("padding length 0, -1e9", Msg(Str::exp_mask_empty_label, "-1e9"),
                                   Msg(Str::exp_mask_empty_desc, "-1e9"), c, in, w);

    r.fully_masked_why = Str::exp_mask_fully_masked_why;
    r.inverted_why = Str::exp_mask_inverted_why;
    return r;
}

}  // namespace lab
