// cost_model.cpp — Attention Lab core: per-stage FLOPs and bytes.
#include "trace/cost_model.h"

namespace lab {

StageCost stage_cost(const AttentionConfig& c, StageId id) {
    const double B = c.batch, Lq = c.L_q(), Lkv = c.L_kv(), d = c.d_model, h = c.heads, dk = c.d_k(), dv = c.d_v();
    const double kv = c.kv_dim();            // K's and V's width: d_model, or h_kv·d_k with shared key/value heads
    const double scores = B * h * Lq * Lkv;  // cells of one score-like tensor
    // Grouped-query: the repeat reads k_groups, v_groups and writes k_heads, v_heads (a copy).
    const double repeat = c.grouped() ? 4 * 2 * (B * Lkv * kv + B * h * Lkv * dk) : 0;
    switch (id) {
        case StageId::Input: return {B * (Lq + Lkv) * d, 4 * (3 * B * (Lq + Lkv) * d)};
        case StageId::Project:  // Q = X W^Q + b (d x d); K, V = M W + b (d x kv each)
            return {2 * B * Lq * d * d + B * Lq * d + 2 * (2 * B * Lkv * d * kv + B * Lkv * kv),
                    4 * (2 * B * Lq * d + 2 * B * Lkv * (d + kv) + d * d + 2 * d * kv)};
        case StageId::SplitHeads: return {0, 4 * 2 * B * (Lq * d + 2 * Lkv * kv) + repeat};
        case StageId::Scores: return {2 * scores * dk, 4 * (B * h * (Lq + Lkv) * dk + scores)};
        case StageId::Scale: return {scores, 4 * 2 * scores};
        case StageId::Mask: return {scores, 4 * 3 * scores};
        case StageId::Softmax: return {5 * scores, 4 * 2 * scores};  // max, subtract, exp, sum, divide
        case StageId::Context: return {2 * scores * dv, 4 * (scores + B * h * Lkv * dv + B * h * Lq * dv)};
        case StageId::Concat: return {0, 4 * 2 * B * Lq * h * dv};
        case StageId::Output: return {2 * B * Lq * d * d + B * Lq * d, 4 * (2 * B * Lq * d + d * d)};
    }
    return {};
}

StageCost total_cost(const AttentionConfig& c) {
    StageCost t;
    for (int s = 0; s < kStageCount; ++s) {
        const StageCost one = stage_cost(c, static_cast<StageId>(s));
        t.flops += one.flops;
        t.bytes += one.bytes;
    }
    return t;
}

}  // namespace lab
