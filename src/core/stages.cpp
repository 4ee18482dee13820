// stages.cpp — Attention Lab core: the stage table. Texts are written for someone
// who has read §3.2 of "Attention Is All You Need" and got stuck.
#include "stages.h"

#include "i18n.h"

namespace lab {

namespace {

// The stage table with text ids; stage_infos() resolves them for the current language.
struct StageText {
    StageId id;
    const char* key;
    Str chip, title, formula;
    const char* pytorch;  // code: the same in every language
    Str why;
    std::vector<const char*> tensors;
};

}  // namespace

const std::vector<StageInfo>& stage_infos() {
    static const StageText kStages[kStageCount] = {
        {StageId::Input, "input", Str::stage_input_chip, Str::stage_input_title, Str::stage_input_formula,
         "x = x + pe[:L]            # pe: (L_max, d_model), broadcast over the batch",
         Str::stage_input_why,
         {"query_in", "x", "pe", "key_value_in", "memory"}},
        {StageId::Project, "project", Str::stage_project_chip, Str::stage_project_title, Str::stage_project_formula,
         "q, k, v = self.w_q(x), self.w_k(x), self.w_v(x)   # nn.Linear(d_model, d_model)",
         Str::stage_project_why,
         {"q", "k", "v", "w_q", "w_k", "w_v", "b_q", "b_k", "b_v"}},
        {StageId::SplitHeads, "split_heads", Str::stage_split_chip, Str::stage_split_title, Str::stage_split_formula,
         "q = q.view(B, L, h, d_k).transpose(1, 2)   # (B, L, d_model) -> (B, L, h, d_k) -> (B, h, L, d_k)",
         Str::stage_split_why,
         {"q_heads", "k_heads", "v_heads"}},
        {StageId::Scores, "scores", Str::stage_scores_chip, Str::stage_scores_title, Str::stage_scores_formula,
         "scores = q @ k.transpose(-2, -1)   # (B, h, L_q, d_k) @ (B, h, d_k, L_kv)",
         Str::stage_scores_why,
         {"scores"}},
        {StageId::Scale, "scale", Str::stage_scale_chip, Str::stage_scale_title, Str::stage_scale_formula,
         "scores = scores / math.sqrt(d_k)",
         Str::stage_scale_why,
         {"scaled"}},
        {StageId::Mask, "mask", Str::stage_mask_chip, Str::stage_mask_title, Str::stage_mask_formula,
         "scores = scores.masked_fill(mask == 0, float('-inf'))",
         Str::stage_mask_why,
         {"masked", "mask"}},
        {StageId::Softmax, "softmax", Str::stage_softmax_chip, Str::stage_softmax_title, Str::stage_softmax_formula,
         "weights = scores.softmax(dim=-1)   # (B, h, L_q, L_kv)",
         Str::stage_softmax_why,
         {"weights"}},
        {StageId::Context, "context", Str::stage_context_chip, Str::stage_context_title, Str::stage_context_formula,
         "context = weights @ v   # (B, h, L_q, d_v)",
         Str::stage_context_why,
         {"context"}},
        {StageId::Concat, "concat", Str::stage_concat_chip, Str::stage_concat_title, Str::stage_concat_formula,
         "x = context.transpose(1, 2).contiguous().view(B, L_q, h * d_v)",
         Str::stage_concat_why,
         {"concat"}},
        {StageId::Output, "output", Str::stage_output_chip, Str::stage_output_title, Str::stage_output_formula,
         "out = self.w_o(x)   # nn.Linear(h * d_v, d_model)",
         Str::stage_output_why,
         {"output", "w_o", "b_o"}},
    };
    static std::vector<StageInfo> tables[kLangCount];
    std::vector<StageInfo>& table = tables[static_cast<int>(language())];
    if (table.empty())
        for (const StageText& t : kStages)
            table.push_back({t.id, t.key, tr(t.chip), tr(t.title), tr(t.formula), t.pytorch, tr(t.why), t.tensors});
    return table;
}

const StageInfo& stage_info(StageId id) { return stage_infos()[static_cast<int>(id)]; }

int stage_index(const std::string& key) {
    const auto& t = stage_infos();
    for (size_t i = 0; i < t.size(); ++i)
        if (key == t[i].key) return static_cast<int>(i);
    return -1;
}

}  // namespace lab
