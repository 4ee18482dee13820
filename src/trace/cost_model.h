// cost_model.h — Attention Lab core: what each stage costs — floating-point
// operations and bytes moved, from the shapes alone (the paper's Table 1 argument:
// QKᵀ, softmax and ·V grow as L², the projections as L).
#pragma once
#include "attention/config.h"
#include "trace/stages.h"

namespace lab {

struct StageCost {
    double flops = 0;  // multiply and add count as two
    double bytes = 0;  // float32 values read + written, at least once each
};

StageCost stage_cost(const AttentionConfig& c, StageId id);
StageCost total_cost(const AttentionConfig& c);

}  // namespace lab
