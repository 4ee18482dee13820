// stages.cpp — Attention Lab core: the stage table. Texts are written for someone
// who has read §3.2 of "Attention Is All You Need" and got stuck.
#include "stages.h"

namespace lab {

const std::vector<StageInfo>& stage_infos() {
    static const std::vector<StageInfo> table = {
        {StageId::Input, "input", "X + PE", "Input and positional encoding",
         "X' = X + PE,  PE(pos,2i) = sin(pos/10000^(2i/d_model)),  PE(pos,2i+1) = cos(pos/10000^(2i/d_model))",
         "x = x + pe[:L]            # pe: (L_max, d_model), broadcast over the batch",
         "Attention itself is blind to order: permuting the tokens permutes the output the same way. Adding a "
         "different sinusoid pattern to each position (section 3.5) lets the dot products tell positions apart.",
         {"query_in", "x", "pe", "key_value_in", "memory"}},
        {StageId::Project, "project", "Q, K, V", "Project to queries, keys and values",
         "Q = X W^Q + b_Q,  K = X W^K + b_K,  V = X W^V + b_V   (W: d_model x d_model)",
         "q, k, v = self.w_q(x), self.w_k(x), self.w_v(x)   # nn.Linear(d_model, d_model)",
         "Every token is mapped three ways: a query (what it looks for), a key (what it offers to be found by) and a "
         "value (what it hands over when found). All h heads are computed by one d_model x d_model matrix each; "
         "the next stage cuts its columns into heads.",
         {"q", "k", "v", "w_q", "w_k", "w_v", "b_q", "b_k", "b_v"}},
        {StageId::SplitHeads, "split_heads", "split heads", "Split d_model into h heads of d_k",
         "head_i uses columns [i*d_k, (i+1)*d_k) of Q, K, V;   d_k = d_v = d_model / h",
         "q = q.view(B, L, h, d_k).transpose(1, 2)   # (B, L, d_model) -> (B, L, h, d_k) -> (B, h, L, d_k)",
         "view only relabels memory: the last axis d_model is cut into h blocks of d_k. transpose(1, 2) then moves the "
         "head axis in front of L so each head is an independent L x d_k matrix and one batched matmul serves "
         "all heads at once.",
         {"q_heads", "k_heads", "v_heads"}},
        {StageId::Scores, "scores", "QK\xe1\xb5\x80", "Scores: every query against every key",
         "S = Q_i K_i^T   (per head: L_q x d_k times d_k x L_kv)",
         "scores = q @ k.transpose(-2, -1)   # (B, h, L_q, d_k) @ (B, h, d_k, L_kv)",
         "Row i holds how well query i matches each key: a dot product of two d_k-vectors. K must be transposed so "
         "the inner dimensions (d_k) meet.",
         {"scores"}},
        {StageId::Scale, "scale", "\xc3\xb7\xe2\x88\x9a" "d_k", "Scale by 1/sqrt(d_k)",
         "S' = Q K^T / sqrt(d_k)",
         "scores = scores / math.sqrt(d_k)",
         "With q and k of unit variance, q.k is a sum of d_k products and has variance d_k. Large scores push the "
         "softmax towards a one-hot output whose gradients are tiny (footnote 4); dividing by sqrt(d_k) brings the "
         "variance back to 1.",
         {"scaled"}},
        {StageId::Mask, "mask", "mask", "Mask: forbid some query-key pairs",
         "S'_ij = -inf  where mask_ij = 0",
         "scores = scores.masked_fill(mask == 0, float('-inf'))",
         "A causal mask keeps position i from seeing positions j > i (the decoder must not read the future it is "
         "predicting); a padding mask hides keys that are only padding. -inf becomes exactly 0 after the softmax.",
         {"masked", "mask"}},
        {StageId::Softmax, "softmax", "softmax", "Softmax over the keys",
         "A = softmax(S', dim = keys):  A_ij = exp(S'_ij - max_j S'_ij) / sum_j exp(S'_ij - max_j S'_ij)",
         "weights = scores.softmax(dim=-1)   # (B, h, L_q, L_kv)",
         "Each row becomes a probability distribution over the keys: non-negative, summing to 1. Subtracting the row "
         "max changes nothing mathematically but keeps exp from overflowing.",
         {"weights"}},
        {StageId::Context, "context", "\xc2\xb7V", "Weighted sum of values",
         "head_i = A V_i   (L_q x L_kv times L_kv x d_v)",
         "context = weights @ v   # (B, h, L_q, d_v)",
         "Each query's output is an average of the value vectors, weighted by its attention row.",
         {"context"}},
        {StageId::Concat, "concat", "concat", "Concatenate the heads",
         "Concat(head_1, ..., head_h)   (L_q x h*d_v = L_q x d_model)",
         "x = context.transpose(1, 2).contiguous().view(B, L_q, h * d_v)",
         "transpose(1, 2) puts the head axis back next to d_v; the tensor is then no longer laid out row by row, so "
         "view needs contiguous() to copy it first. The h blocks of d_v sit side by side again.",
         {"concat"}},
        {StageId::Output, "output", "W\xe1\xb4\xbc", "Output projection",
         "MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W^O + b_O",
         "out = self.w_o(x)   # nn.Linear(h * d_v, d_model)",
         "W^O mixes what the heads found, so each output dimension can combine information from all heads.",
         {"output", "w_o", "b_o"}},
    };
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
