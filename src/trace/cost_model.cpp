// cost_model.cpp — Attention Lab core: per-stage FLOPs and bytes.
#include "trace/cost_model.h"

namespace lab {

StageCost stage_cost(const AttentionConfig& c, StageId id) {
    const double B = c.batch, Lq = c.L_q(), Lkv = c.L_kv(), d = c.d_model, h = c.heads, dk = c.d_k(), dv = c.d_v();
    const double scores = B * h * Lq * Lkv;  // cells of one score-like tensor
    switch (id) {
        case StageId::Input: return {B * (Lq + Lkv) * d, 4 * (3 * B * (Lq + Lkv) * d)};
        case StageId::Project:
            return {2 * B * (Lq + 2 * Lkv) * d * d + B * (Lq + 2 * Lkv) * d,
                    4 * (B * (Lq + 2 * Lkv) * d * 2 + 3 * d * d)};
        case StageId::SplitHeads: return {0, 4 * 2 * B * (Lq + 2 * Lkv) * d};
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
