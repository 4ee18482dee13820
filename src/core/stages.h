// stages.h — Attention Lab core: the ten stages of multi-head attention and what
// the lab says about each (paper formula, PyTorch line, why it is there).
#pragma once
#include <string>
#include <vector>

namespace lab {

enum class StageId { Input, Project, SplitHeads, Scores, Scale, Mask, Softmax, Context, Concat, Output };
constexpr int kStageCount = 10;

struct StageInfo {
    StageId id;
    const char* key;       // stable id: "split_heads"  (texts below: in the current language, see i18n.h)
    const char* chip;      // short label for the pipeline bar: "split heads"
    const char* title;     // "Split into heads"
    const char* formula;   // in the paper's notation
    const char* pytorch;   // the equivalent PyTorch line(s)
    const char* why;       // one short paragraph
    std::vector<const char*> tensors;  // names of the tensors this stage shows, main one first
};

const std::vector<StageInfo>& stage_infos();
const StageInfo& stage_info(StageId id);
// -1 when the key names no stage.
int stage_index(const std::string& key);

}  // namespace lab
