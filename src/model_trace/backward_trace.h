// backward_trace.h — Attention Lab core: the backward view's numbers. The gradient of
// a loss with respect to every tensor the stepper shows, each kept under its forward
// tensor's TensorId (named "d_<name>"), the backward formula of every stage and the
// checks that hold for gradients.
//
// Two losses:
//   CrossEntropy  a trained (or untrained) model on its sample: the engine's own backward
//                 (Trainer::run_sample, nn/attention_backward.h, nn/layers.h), gathered by
//                 model_trace/block_trace.h.
//   Probe         the stepper on random weights has no task, so its backward view asks
//                 what a later layer would: L = Σ output ∘ R with R ~ N(0, 1) from the seed,
//                 i.e. dL/d output = R, passed back through the same backward functions.
// A row whose keys are all masked with −inf has NaN weights, so its softmax backward is
// NaN, exactly as PyTorch ("Function 'SoftmaxBackward0' returned nan values"); the NaN
// then reaches dL/dV, W^V and x through weightsᵀ · dL/dcontext.
//
//   per stage: d_<result> and the gradients of what it read, e.g. softmax:
//   d_masked (B, h, L_q, L_kv) = weights ∘ (d_weights − rowsum(d_weights ∘ weights))
#pragma once
#include <vector>

#include "model_trace/block_stages.h"
#include "trace/trace.h"

namespace lab {

enum class LossKind { CrossEntropy, Probe };

struct GradTrace {
    LossKind kind = LossKind::Probe;
    double loss = 0;   // NaN when a fully masked row (−inf fill) made the output NaN
    // CrossEntropy: what the loss counted (per target position; empty = all) and how.
    std::vector<uint8_t> loss_mask;
    double label_smoothing = 0;
    double layer_norm_eps = 1e-5;  // the model's LayerNorms (their backward needs it)
    Trace grads;       // grads.find(id): dL/d(the forward tensor id), its shape; null: none shown
    std::vector<std::vector<InvariantCheck>> checks;        // kStageCount: the attention stages'
    std::vector<std::vector<InvariantCheck>> block_checks;  // kBlockStageCount
    bool empty() const { return grads.tensors.empty(); }
};

// What a stage's backward view shows: each tensor beside its gradient, and the formula.
struct BackwardInfo {
    Str formula;                    // the backward formula, e.g. dS = A ∘ (dA − rowsum(dA ∘ A))
    Str why;                        // what the gradients say
    std::vector<StageShow> pairs;   // forward tensor | its gradient, one row each
};
const BackwardInfo& backward_info(StageId id);
const BackwardInfo& backward_info(BlockStageId id);

// The probe loss's backward through a random-weight attention trace.
GradTrace attention_backward_trace(const Trace& trace);

// Adds a gradient under the forward tensor's id, shaped and named after it.
Tensor& add_grad(GradTrace& g, const Trace& forward, TensorId id);

// The checks that hold for any gradient, recomputed from the numbers (a corrupted
// gradient fails them): softmax rows of dL/dscores sum to 0, masked scores get no
// gradient, dL/dscores = dL/dscaled / √d_k, and for a model: LayerNorm's input gradient
// rows sum to 0, ReLU passes nothing where its input was ≤ 0, dL/dlogits rows sum to 0.
void check_backward(const Trace& forward, GradTrace* g);

// Hover derivation of a gradient cell, from the forward and gradient numbers on screen.
Msg derive_grad_cell(const Trace& forward, const GradTrace& g, TensorId tensor, const std::vector<int>& index);

}  // namespace lab
