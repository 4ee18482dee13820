// trace.h — Attention Lab core: one multi-head attention forward pass with every
// intermediate tensor recorded, so the UI, the CLI and the tests read the same data.
//
// Tensors of a trace (B batch, L_q / L_kv lengths, h heads, d_k = d_v = d_model/h):
//   x            (B, L_q, d_model)    raw input (decoder side for cross-attention)
//   memory       (B, L_kv, d_model)   raw encoder memory (= x for self-attention)
//   pe           (L_max, d_model)     sinusoidal PE, only when pe is on
//   query_in     (B, L_q, d_model)    x + pe: what enters W^Q
//   key_value_in (B, L_kv, d_model)   memory + pe: what enters W^K and W^V
//   w_q w_k w_v w_o (d_model, d_model) as (d_in, d_out): Q = query_in · w_q + b_q
//   b_q b_k b_v b_o (d_model)         zeros when bias is off
//   q            (B, L_q, d_model);  k, v (B, L_kv, d_model)
//   q_heads      (B, h, L_q, d_k);   k_heads (B, h, L_kv, d_k);  v_heads (B, h, L_kv, d_v)
//   scores scaled masked weights      (B, h, L_q, L_kv)
//   mask         (L_q, L_kv) or (B, L_q, L_kv) for padding; 1 keep, 0 masked
//   context      (B, h, L_q, d_v)
//   concat       (B, L_q, h·d_v)
//   output       (B, L_q, d_model)
#pragma once
#include <string>
#include <vector>

#include "config.h"
#include "stages.h"
#include "tensor.h"

namespace lab {

// What enters the layer: x and (for cross-attention) the encoder memory.
struct AttentionInputs {
    Tensor x;       // (B, L_q, d_model)
    Tensor memory;  // (B, L_kv, d_model); ignored for self-attention
};

struct AttentionWeights {
    Tensor w_q, w_k, w_v, w_o;  // (d_model, d_model), (d_in, d_out)
    Tensor b_q, b_k, b_v, b_o;  // (d_model)
};

// Inputs ~ N(0, 1), deterministic from the seed (independent streams for x and memory).
// When tokens are given, item b position i uses the embedding of tokens[i]:
// identical words get identical rows, deterministic from the word and the seed.
AttentionInputs make_inputs(const AttentionConfig& c, const std::vector<std::string>& tokens = {});
// Weights ~ U(-a, a), a = sqrt(6 / (d_in + d_out)) (Xavier uniform, as
// nn.MultiheadAttention initialises in_proj_weight); biases ~ U(-1/sqrt(d_in), 1/sqrt(d_in))
// (nn.Linear's default) so that turning biases on visibly changes the numbers.
AttentionWeights make_weights(const AttentionConfig& c);
// One token's embedding (d_model values ~ N(0, 1)) from the word and the seed.
void embed_token(float* out, const std::string& word, int d_model, uint32_t seed);

struct InvariantCheck {
    std::string id;      // stable: "rows_sum_to_1"
    std::string label;   // "rows of the weights sum to 1"
    bool pass = true;
    std::string detail;  // numbers behind the verdict: "max |sum - 1| = 1.2e-07 over 64 rows"
};

// One step of a shape's journey through a stage, e.g. {"view(B, L_q, h, d_k)", {2, 4, 2, 4}, {"B", "L_q", "h", "d_k"}}.
struct ShapeStep {
    std::string op;
    std::vector<int> shape;
    std::vector<std::string> dims;
};

struct StageRecord {
    StageId id;
    std::vector<ShapeStep> shape_steps;  // input shape(s) -> each op -> output shape
    std::vector<InvariantCheck> checks;
};

struct Trace {
    AttentionConfig config;
    std::vector<Tensor> tensors;      // in pipeline order
    std::vector<StageRecord> stages;  // kStageCount entries, in StageId order
    int fully_masked_rows = 0;        // (b, head, i) rows of the weights whose keys are all masked
    double stage_ms[kStageCount] = {};  // measured compute time per stage (this build, this run)
    double checks_ms = 0;               // time spent on the invariant checks

    const Tensor* find(const std::string& name) const;
    const StageRecord& stage(StageId id) const { return stages[static_cast<int>(id)]; }
};

// The config must be valid (validate() empty): callers check first and keep their
// last good trace otherwise.
Trace run_trace(const AttentionConfig& c, const AttentionInputs& in, const AttentionWeights& w);
Trace run_trace(const AttentionConfig& c);

}  // namespace lab
