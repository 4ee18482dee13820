// block_stages.h — Attention Lab core: the four stages of a trained model's block around
// the attention (embed, add_norm, ffn, generator; model_trace/block_trace.h computes them), in
// the same form as the ten attention stages' table (stages.h).
#pragma once
#include <string>
#include <vector>

#include "trace/stages.h"
#include "trace/trace.h"

namespace lab {

enum class BlockStageId { Embed, AddNorm, Ffn, Generator };
constexpr int kBlockStageCount = static_cast<int>(BlockStageId::Generator) + 1;  // block_stage_infos() has a row per id

using BlockStageInfo = StageRow<BlockStageId>;  // trace/stages.h

const std::vector<BlockStageInfo>& block_stage_infos();
const BlockStageInfo& block_stage_info(BlockStageId id);
int block_stage_index(const std::string& key);  // -1 when the key names no block stage

using BlockStageRecord = StageRecordOf<BlockStageId>;  // trace/trace.h (status: always Run)

}  // namespace lab
