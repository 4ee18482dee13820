// trace.h — Attention Lab core: one multi-head attention forward pass with every
// intermediate tensor recorded (trace_tensors.h lists them with their shapes), so the
// UI, the CLI and the tests read the same data.
#pragma once
#include <algorithm>
#include <string>
#include <vector>

#include "attention/config.h"
#include "attention/flash_attention.h"
#include "base/message.h"
#include "base/tensor.h"
#include "trace/stages.h"
#include "trace/trace_tensors.h"

namespace lab {

// What enters the layer: x and (for cross-attention) the encoder memory.
struct AttentionInputs {
    Tensor x;       // (B, L_q, d_model)
    Tensor memory;  // (B, L_kv, d_model); ignored for self-attention
    // Raw SDPA only (config.raw): Q (B, L_q, d_k), K (B, L_kv, d_k), V (B, L_kv, d_v), drawn
    // directly; x is then Q (what a stage that shows x shows), memory is x.
    Tensor q, k, v;
};

struct AttentionWeights {
    Tensor w_q, w_k, w_v, w_o;  // (d_model, d_model), (d_in, d_out)
    Tensor b_q, b_k, b_v, b_o;  // (d_model)
};

// Inputs ~ N(0, 1), deterministic from the seed (independent streams for x and memory).
// When tokens are given, item b position i uses the embedding of tokens[i]:
// identical words get identical rows, deterministic from the word and the seed.
// Raw SDPA: Q, K, V ~ N(0, 1), one stream each ("raw:q", "raw:k", "raw:v"); tokens are not used.
AttentionInputs make_inputs(const AttentionConfig& c, const std::vector<std::string>& tokens = {});
// Whether inputs made for `made_for` serve `c` (same tokens): the knobs make_inputs reads.
// The app redraws its inputs when this is false; a trace of inputs that do not fit reads
// past their ends.
bool inputs_fit(const AttentionConfig& made_for, const AttentionConfig& c);
// Weights ~ U(-a, a), a = sqrt(6 / (d_in + d_out)) (Xavier uniform, as
// nn.MultiheadAttention initialises in_proj_weight); biases ~ U(-1/sqrt(d_in), 1/sqrt(d_in))
// (nn.Linear's default) so that turning biases on visibly changes the numbers.
AttentionWeights make_weights(const AttentionConfig& c);
// One token's embedding (d_model values ~ N(0, 1)) from the word and the seed.
void embed_token(float* out, const std::string& word, int d_model, uint32_t seed);

// What a badge says. A check is computed from the recorded numbers and can fail (a test
// corrupts a tensor to prove it); a fact is a number worth reading that no input can
// make wrong (h·d_k = d_model once the config is valid) and is never counted as a check.
enum class Verdict {
    Pass,       // the numbers hold what the check claims
    Fail,       // they do not
    NanMasked,  // non-finite values, every one in a row whose keys are all masked (-inf fill):
                // expected, as in PyTorch, but never shown as a pass
    Fact,       // not a check: shown in grey, not counted
};
inline Verdict holds(bool ok) { return ok ? Verdict::Pass : Verdict::Fail; }
const char* verdict_name(Verdict v);  // "pass" | "fail" | "nan_masked" | "fact" (state(), JSON, CLI)

struct InvariantCheck {
    std::string id;  // stable: "rows_sum_to_1"
    Msg label;       // "rows of the weights sum to 1"
    Verdict verdict = Verdict::Pass;
    Msg detail;      // numbers behind the verdict: "max |sum - 1| = 1.2e-07 over 64 rows"
    bool passed() const { return verdict == Verdict::Pass; }
    bool is_check() const { return verdict != Verdict::Fact; }
};

// One step of a shape's journey through a stage, e.g. {"view(B, L_q, h, d_k)", {2, 4, 2, 4}, {"B", "L_q", "h", "d_k"}}.
// The op is code (a literal message) except where it is a word, like "(scaling off)".
struct ShapeStep {
    Msg op;
    std::vector<int> shape;
    std::vector<std::string> dims;
};

// Whether a stage computes anything in this configuration. Raw SDPA skips the projections
// and W^O (their tensors are recorded as identity: q = Q, output = context) and has no head
// axis to split or concatenate (a copy).
enum class StageStatus { Run, Skipped };
const char* stage_status_name(StageStatus s);  // "run" | "skipped" (state(), JSON)

// What a run recorded for one stage; the block's stages (model_trace/block_stages.h) record the same.
template <class Id>
struct StageRecordOf {
    Id id;
    std::vector<ShapeStep> shape_steps;  // input shape(s) -> each op -> output shape
    std::vector<InvariantCheck> checks;
    StageStatus status = StageStatus::Run;
    Msg skipped_because;                 // Skipped: why, for the stage view's note
};
using StageRecord = StageRecordOf<StageId>;

// The check with this id, or null.
const InvariantCheck* find_check(const StageRecord& stage, const std::string& id);

struct Trace {
    AttentionConfig config;
    std::vector<Tensor> tensors;      // in pipeline order (trace_tensors.h), pe only when on
    std::vector<StageRecord> stages;  // kStageCount entries, in StageId order
    int fully_masked_rows = 0;        // (b, head, i) rows of the weights whose keys are all masked
    double stage_ms[kStageCount] = {};  // measured compute time per stage (this build, this run)
    double checks_ms = 0;               // time spent on the invariant checks
    int slot[kTensorCount];             // index into tensors, -1 when absent
    FlashRecord flash;                  // the online softmax tile by tile, with config.flash_tile (else off)

    Trace() { std::fill(slot, slot + kTensorCount, -1); }
    // The tensor, or null when the trace has none (pe with positional encoding off).
    const Tensor* find(TensorId id) const { return slot[static_cast<int>(id)] < 0 ? nullptr : &tensors[slot[static_cast<int>(id)]]; }
    // Every tensor but pe is always there.
    const Tensor& operator[](TensorId id) const { return tensors[slot[static_cast<int>(id)]]; }
    const StageRecord& stage(StageId id) const { return stages[static_cast<int>(id)]; }
};

// A raw SDPA tensor's shape as tutorial 000 prints it: the trace's head axis (of 1) left out,
// (B, 1, L_q, L_kv) -> (B, L_q, L_kv); other shapes as they are.
void drop_head_axis(std::vector<int>* shape, std::vector<std::string>* dims);

// Adds a tensor under its id (named after it). A reference stays valid while the trace
// holds at most kTensorCount tensors (run_trace reserves that many).
Tensor& add_tensor(Trace& tr, TensorId id, Tensor t);

// The config must be valid (validate() empty): callers check first and keep their
// last good trace otherwise.
Trace run_trace(const AttentionConfig& c, const AttentionInputs& in, const AttentionWeights& w);
// The same into an existing trace, reusing the buffers of its tensors that keep their
// size (what the app does on every knob change). Inputs and weights must not be its own tensors.
void run_trace(Trace& trace, const AttentionConfig& c, const AttentionInputs& in, const AttentionWeights& w);
Trace run_trace(const AttentionConfig& c);

}  // namespace lab
