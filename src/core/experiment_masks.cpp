// experiment_masks.cpp — Attention Lab core: the same input under different masks.
//
// A mask is applied as masked_fill(mask == 0, fill) before the softmax: a masked score
// becomes -inf (or -1e9) and its weight exactly 0. The cases below share x, the
// weights and every knob of the base config; only the keep mask differs.
#include <algorithm>
#include <cmath>

#include "experiments.h"

namespace lab {

namespace {

MaskCase make_case(const std::string& name, const std::string& description, const AttentionConfig& c,
                   const AttentionInputs& in, const AttentionWeights& w) {
    MaskCase mc;
    mc.name = name;
    mc.description = description;
    mc.trace = run_trace(c, in, w);
    const Tensor& weights = *mc.trace.find("weights");
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
    const AttentionInputs in = make_inputs(c);
    const AttentionWeights w = make_weights(c);
    const int Lq = c.L_q(), Lkv = c.L_kv();

    c.mask = MaskKind::None;
    r.cases.push_back(make_case("none", "keep every key", c, in, w));

    c.mask = MaskKind::Causal;
    r.cases.push_back(make_case("causal", "keep j <= i (no peeking at later positions)", c, in, w));

    // Padding: item b has L_kv - 2b valid keys (at least 1): e.g. L and L-2 for two items.
    c.mask = MaskKind::Padding;
    std::string lengths;
    for (int b = 0; b < c.batch; ++b) {
        c.padding_lengths.push_back(std::max(1, Lkv - 2 * b));
        lengths += (b ? ", " : "") + std::to_string(c.padding_lengths.back());
    }
    r.cases.push_back(make_case("padding", "keep j < length of the item; lengths " + lengths, c, in, w));
    c.padding_lengths.clear();

    // Custom: a band |i - j| <= 1 (local attention, one neighbour each side).
    c.mask = MaskKind::Custom;
    c.custom_keep.assign(static_cast<size_t>(Lq) * Lkv, 0);
    for (int i = 0; i < Lq; ++i)
        for (int j = 0; j < Lkv; ++j) c.custom_keep[static_cast<size_t>(i) * Lkv + j] = std::abs(i - j) <= 1;
    r.cases.push_back(make_case("custom", "band: keep |i - j| <= 1", c, in, w));

    // Inverted causal: masked_fill(mask == 1, fill) with the causal mask fills the kept cells,
    // which is the same as keeping exactly the cells the causal mask hides: keep j > i.
    for (int i = 0; i < Lq; ++i)
        for (int j = 0; j < Lkv; ++j) c.custom_keep[static_cast<size_t>(i) * Lkv + j] = j > i;
    r.cases.push_back(make_case("inverted causal", "masked_fill(mask == 1, fill): keep j > i, only the future", c, in, w));
    c.custom_keep.clear();

    // One batch item with padding length 0: every key of its rows is masked.
    c.mask = MaskKind::Padding;
    c.padding_lengths.assign(c.batch, Lkv);
    c.padding_lengths[0] = 0;
    c.mask_fill = MaskFill::NegInf;
    r.fully_masked_inf = make_case("padding length 0, -inf", "item 0 keeps no key; fill -inf", c, in, w);
    c.mask_fill = MaskFill::NegBillion;
    r.fully_masked_1e9 = make_case("padding length 0, -1e9", "item 0 keeps no key; fill -1e9", c, in, w);

    r.fully_masked_why =
        "When every key of a row is masked, the softmax has nothing to choose from. With -inf every score is -inf: "
        "the row max is -inf, exp(-inf - (-inf)) = exp(NaN), so the whole row becomes NaN, and the NaN spreads "
        "through weights @ V and W^O into that position's output (PyTorch does exactly this). With -1e9 every score "
        "is the same finite number, so the softmax returns the uniform row 1/L_kv: no NaN, but the position quietly "
        "averages all values, padding included. Real code avoids both by never fully masking a query row that is "
        "used, or by zeroing such rows after the softmax.";
    r.inverted_why =
        "masked_fill(mask == 1, fill) fills the cells the mask keeps instead of the ones it forbids. With the causal "
        "mask, each query then sees only the future (j > i) - exactly what the mask was meant to hide - and the last "
        "query, which has no future, has every key masked: NaN with -inf, a uniform row with -1e9. Training still "
        "runs and the loss may even fall, because the model can now copy the next token.";
    return r;
}

}  // namespace lab
