// block_stages.h — Attention Lab core: the four stages of a trained model's block around
// the attention (embed, add_norm, ffn, generator; core/block_trace.h computes them), in
// the same form as the ten attention stages' table (stages.h).
#pragma once
#include <string>
#include <vector>

#include "stages.h"
#include "trace.h"

namespace lab {

enum class BlockStageId { Embed, AddNorm, Ffn, Generator };
constexpr int kBlockStageCount = 4;

struct BlockStageInfo {
    BlockStageId id;
    const char* key;      // stable id: "add_norm" (URL hash, state(), CLI)
    Str chip;             // short label for the pipeline bar
    Str title;
    Str formula;          // in the paper's notation
    const char* pytorch;  // the equivalent PyTorch line(s)
    Str why;
    TensorId result;      // what the stage produces
    std::vector<StageShow> shows;
};

const std::vector<BlockStageInfo>& block_stage_infos();
const BlockStageInfo& block_stage_info(BlockStageId id);
int block_stage_index(const std::string& key);  // -1 when the key names no block stage

struct BlockStageRecord {
    BlockStageId id;
    std::vector<ShapeStep> shape_steps;
    std::vector<InvariantCheck> checks;
};

}  // namespace lab
