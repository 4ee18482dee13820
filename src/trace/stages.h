// stages.h — Attention Lab core: the ten stages of multi-head attention, what the lab
// says about each (paper formula, PyTorch line, why it is there) and what each shows.
#pragma once
#include <string>
#include <vector>

#include "attention/config.h"
#include "base/i18n.h"
#include "trace/trace_tensors.h"

namespace lab {

enum class StageId { Input, Project, SplitHeads, Scores, Scale, Mask, Softmax, Context, Concat, Output };
// From the enum: stage_infos() has one row per id, in this order (a test holds them to it).
constexpr int kStageCount = static_cast<int>(StageId::Output) + 1;

// One tensor a stage shows, in the order the stage view lays them out.
struct StageShow {
    TensorId tensor;
    bool every_head = false;  // (B, h, ...) drawn as one map per head, whatever the selection
    bool cross_only = false;  // shown only for cross-attention (the encoder side)
};

// A row of a stage table: the ten attention stages (StageId, below) and the block's four
// (BlockStageId, model_trace/block_stages.h) are the same kind of row.
template <class Id>
struct StageRow {
    Id id;
    const char* key;      // stable id: "split_heads" (URL hash, state(), CLI)
    Str chip;             // short label for the pipeline bar: "split heads"
    Str title;            // "Split into heads"
    Str formula;          // in the paper's notation
    const char* pytorch;  // the equivalent PyTorch line(s): code, the same in every language
    Str why;              // one short paragraph
    TensorId result;      // what the stage produces: the dimension table's row, the export, the prompt's values
    std::vector<StageShow> shows;  // what the stage view draws (a tensor the trace lacks, e.g. pe when off, is skipped)
};
using StageInfo = StageRow<StageId>;

const std::vector<StageInfo>& stage_infos();
// What the stages say and show for this configuration: raw SDPA (config.raw) has its own
// texts (tutorial 000's code, no heads or projections) over the same keys and results.
const std::vector<StageInfo>& stage_infos(const AttentionConfig& c);
const StageInfo& stage_info(StageId id);
// -1 when the key names no stage.
int stage_index(const std::string& key);

}  // namespace lab
