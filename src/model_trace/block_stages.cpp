// block_stages.cpp — Attention Lab core: the block stages' table (strings/block.def).
#include "model_trace/block_stages.h"

namespace lab {

namespace {

using T = TensorId;

const std::vector<BlockStageInfo> kBlockStages = {
    {BlockStageId::Embed, "embed", Str::blk_embed_chip, Str::blk_embed_title, Str::blk_embed_formula,
     "x = self.embedding(tokens) * math.sqrt(d_model) + pe[:L]   # nn.Embedding(vocab_size, d_model)",
     Str::blk_embed_why, T::EmbedOut, {{T::Embed}, {T::EmbedPe}, {T::EmbedOut}}},
    {BlockStageId::AddNorm, "add_norm", Str::blk_add_norm_chip, Str::blk_add_norm_title, Str::blk_add_norm_formula,
     "x = self.norm1(x + self.self_attn(x, x, x)[0])   # norm2 after multihead_attn(x, mem, mem) in a decoder layer;\n"
     "                                                 # nn.LayerNorm(d_model, eps=1e-5), post-LN",
     Str::blk_add_norm_why, T::NormOut, {{T::X}, {T::Output}, {T::Residual}, {T::NormOut}}},
    {BlockStageId::Ffn, "ffn", Str::blk_ffn_chip, Str::blk_ffn_title, Str::blk_ffn_formula,
     "x = self.norm2(x + self.linear2(F.relu(self.linear1(x))))   # d_model -> d_ff -> d_model",
     Str::blk_ffn_why, T::LayerOut, {{T::FfnIn}, {T::FfnRelu}, {T::FfnOut}, {T::LayerOut}}},
    {BlockStageId::Generator, "generator", Str::blk_gen_chip, Str::blk_gen_title, Str::blk_gen_formula,
     "logits = self.generator(x); probs = logits.softmax(dim=-1)   # nn.Linear(d_model, V)", Str::blk_gen_why,
     T::Probs, {{T::Top}, {T::Logits}, {T::Probs}}},
};

}  // namespace

const std::vector<BlockStageInfo>& block_stage_infos() { return kBlockStages; }

const BlockStageInfo& block_stage_info(BlockStageId id) { return kBlockStages[static_cast<int>(id)]; }

int block_stage_index(const std::string& key) {
    for (size_t i = 0; i < kBlockStages.size(); ++i)
        if (key == kBlockStages[i].key) return static_cast<int>(i);
    return -1;
}

}  // namespace lab
