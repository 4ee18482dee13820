// stages.cpp — Attention Lab core: the stage table. Texts (strings/stages.def) are
// written for someone who has read §3.2 of "Attention Is All You Need" and got stuck.
#include "trace/stages.h"

namespace lab {

namespace {

using T = TensorId;

// Split and concat show every head, coloured as the column bands of the (B, L, d_model)
// side, so the reader sees where each head's columns go.
const std::vector<StageInfo> kStages = {
    {StageId::Input, "input", Str::stage_input_chip, Str::stage_input_title, Str::stage_input_formula,
     "x = x + pe[:L]            # pe: (L_max, d_model), broadcast over the batch", Str::stage_input_why,
     T::QueryIn, {{T::X}, {T::Pe}, {T::QueryIn}, {T::KeyValueIn, false, true}}},
    {StageId::Project, "project", Str::stage_project_chip, Str::stage_project_title, Str::stage_project_formula,
     "q, k, v = self.w_q(x), self.w_k(x), self.w_v(x)   # nn.Linear(d_model, d_model)", Str::stage_project_why,
     T::Q, {{T::Q}, {T::K}, {T::V}}},
    {StageId::SplitHeads, "split_heads", Str::stage_split_chip, Str::stage_split_title, Str::stage_split_formula,
     "q = q.view(B, L, h, d_k).transpose(1, 2)   # (B, L, d_model) -> (B, L, h, d_k) -> (B, h, L, d_k)",
     Str::stage_split_why, T::QHeads, {{T::Q}, {T::QHeads, true}}},
    {StageId::Scores, "scores", Str::stage_scores_chip, Str::stage_scores_title, Str::stage_scores_formula,
     "scores = q @ k.transpose(-2, -1)   # (B, h, L_q, d_k) @ (B, h, d_k, L_kv)", Str::stage_scores_why, T::Scores,
     {{T::QHeads}, {T::KHeads}, {T::Scores}}},
    {StageId::Scale, "scale", Str::stage_scale_chip, Str::stage_scale_title, Str::stage_scale_formula,
     "scores = scores / math.sqrt(d_k)", Str::stage_scale_why, T::Scaled, {{T::Scores}, {T::Scaled}}},
    {StageId::Mask, "mask", Str::stage_mask_chip, Str::stage_mask_title, Str::stage_mask_formula,
     "scores = scores.masked_fill(mask == 0, float('-inf'))", Str::stage_mask_why, T::Masked,
     {{T::Mask}, {T::Masked}}},
    {StageId::Softmax, "softmax", Str::stage_softmax_chip, Str::stage_softmax_title, Str::stage_softmax_formula,
     "weights = scores.softmax(dim=-1)   # (B, h, L_q, L_kv)", Str::stage_softmax_why, T::Weights,
     {{T::Masked}, {T::Weights}}},
    {StageId::Context, "context", Str::stage_context_chip, Str::stage_context_title, Str::stage_context_formula,
     "context = weights @ v   # (B, h, L_q, d_v)", Str::stage_context_why, T::Context,
     {{T::Weights}, {T::VHeads}, {T::Context}}},
    {StageId::Concat, "concat", Str::stage_concat_chip, Str::stage_concat_title, Str::stage_concat_formula,
     "x = context.transpose(1, 2).contiguous().view(B, L_q, h * d_v)", Str::stage_concat_why, T::Concat,
     {{T::Context, true}, {T::Concat}}},
    {StageId::Output, "output", Str::stage_output_chip, Str::stage_output_title, Str::stage_output_formula,
     "out = self.w_o(x)   # nn.Linear(h * d_v, d_model)", Str::stage_output_why, T::Output,
     {{T::Concat}, {T::Output}}},
};

// Raw SDPA (config.raw): the same ten stages (keys, results) as tutorial 000's
// scaled_dot_product_attention(Q, K, V) runs them, in its names; 2, 3, 9 and 10 are skipped
// (trace.h: StageStatus) and say why in the string table; their code lines are only code
// and shapes, the same in every language.
const std::vector<StageInfo> kRawStages = {
    {StageId::Input, "input", Str::stage_raw_input_chip, Str::stage_raw_input_title, Str::stage_raw_input_formula,
     "Q = torch.randn(batch, seq_len, d_k); K = torch.randn(batch, seq_len, d_k); V = torch.randn(batch, seq_len, d_v)",
     Str::stage_raw_input_why, T::Q, {{T::Q}, {T::K}, {T::V}}},
    {StageId::Project, "project", Str::stage_raw_skipped_chip, Str::stage_raw_project_title,
     Str::stage_raw_project_formula, "q, k, v = Q, K, V   # (batch, seq_len, d_k)", Str::raw_skip_project, T::Q,
     {{T::Q}, {T::K}, {T::V}}},
    {StageId::SplitHeads, "split_heads", Str::stage_raw_skipped_chip, Str::stage_raw_split_title,
     Str::stage_raw_split_formula, "q = Q   # (batch, seq_len, d_k)", Str::raw_skip_split,
     T::Q, {{T::Q}}},
    {StageId::Scores, "scores", Str::stage_scores_chip, Str::stage_scores_title, Str::stage_raw_scores_formula,
     "scores = torch.matmul(Q, K.transpose(-2, -1))   # (batch, seq_len_q, seq_len_k)", Str::stage_scores_why,
     T::Scores, {{T::Q}, {T::K}, {T::Scores}}},
    {StageId::Scale, "scale", Str::stage_scale_chip, Str::stage_scale_title, Str::stage_scale_formula,
     "scores = scores / math.sqrt(d_k)", Str::stage_raw_scale_why, T::Scaled, {{T::Scores}, {T::Scaled}}},
    {StageId::Mask, "mask", Str::stage_mask_chip, Str::stage_mask_title, Str::stage_mask_formula,
     "scores = scores.masked_fill(mask == 0, float('-inf'))", Str::stage_mask_why, T::Masked, {{T::Mask}, {T::Masked}}},
    {StageId::Softmax, "softmax", Str::stage_softmax_chip, Str::stage_softmax_title, Str::stage_softmax_formula,
     "attn_weights = F.softmax(scores, dim=-1)   # (batch, seq_len_q, seq_len_k)", Str::stage_softmax_why, T::Weights,
     {{T::Masked}, {T::Weights}}},
    {StageId::Context, "context", Str::stage_context_chip, Str::stage_context_title, Str::stage_raw_context_formula,
     "output = torch.matmul(attn_weights, V)   # (batch, seq_len_q, d_v)", Str::stage_context_why, T::Context,
     {{T::Weights}, {T::V}, {T::Context}}},
    {StageId::Concat, "concat", Str::stage_raw_skipped_chip, Str::stage_raw_concat_title, Str::stage_raw_concat_formula,
     "x = output   # (batch, seq_len_q, d_v)", Str::raw_skip_concat, T::Concat, {{T::Context}}},
    {StageId::Output, "output", Str::stage_raw_skipped_chip, Str::stage_raw_output_title, Str::stage_raw_output_formula,
     "return output, attn_weights", Str::raw_skip_output, T::Output, {{T::Output}}},
};

// Grouped-query attention (kv_heads < heads): the ten stages, with W^K and W^V narrower (the project
// stage's formula says so) and the split stage (its title and formula too) showing K's groups and
// their repeat to the query heads; the rest is unchanged
// (the scores read k_heads, which now holds each query head's copy of its group).
std::vector<StageInfo> make_grouped_stages() {
    std::vector<StageInfo> t = kStages;
    StageInfo& project = t[static_cast<int>(StageId::Project)];
    project.pytorch = "q = self.w_q(x)   # nn.Linear(d_model, d_model)\n"
                      "k, v = self.w_k(x), self.w_v(x)   # nn.Linear(d_model, h_kv * d_k): h_kv key/value heads";
    project.why = Str::stage_project_grouped_why;
    project.formula = Str::stage_project_grouped_formula;
    StageInfo& split = t[static_cast<int>(StageId::SplitHeads)];
    split.pytorch = "q = q.view(B, L, h, d_k).transpose(1, 2)   # (B, h, L, d_k)\n"
                    "k = k.view(B, L, h_kv, d_k).transpose(1, 2)   # (B, h_kv, L, d_k), the same for v\n"
                    "k = k.repeat_interleave(h // h_kv, dim=1)   # (B, h, L, d_k): query head i reads group i // (h // h_kv)";
    split.why = Str::stage_split_grouped_why;
    split.title = Str::stage_split_grouped_title;
    split.formula = Str::stage_split_grouped_formula;
    split.shows = {{T::Q}, {T::QHeads, true}, {T::K}, {T::KGroups, true}, {T::KHeads, true}};
    return t;
}
const std::vector<StageInfo> kGroupedStages = make_grouped_stages();

}  // namespace

const std::vector<StageInfo>& stage_infos() { return kStages; }

const std::vector<StageInfo>& stage_infos(const AttentionConfig& c) {
    return c.raw ? kRawStages : c.grouped() ? kGroupedStages : kStages;
}

const StageInfo& stage_info(StageId id) { return kStages[static_cast<int>(id)]; }

int stage_index(const std::string& key) {
    for (size_t i = 0; i < kStages.size(); ++i)
        if (key == kStages[i].key) return static_cast<int>(i);
    return -1;
}

}  // namespace lab
