// block_trace.h — Attention Lab core: the stepper on a trained model. One attention
// sublayer of the toy Transformer (train/model.h) is stepped through as the ten stages
// (run_trace on the trained weights, with the sample's activations as its input), and
// the block around it as four stages of its own:
//
//   embed      embed (B, L, d_model) = E[tokens] · √d_model;  embed_out = embed + pe[:L]     §3.4, §3.5
//   add_norm   residual (B, L_q, d_model) = x + attention(x);  norm_out = LayerNorm(residual)  post-LN, eps 1e-5
//   ffn        ffn_hidden (B, L, d_ff) = ffn_in · W_1 + b_1;  ffn_relu = max(0, ffn_hidden);
//              ffn_out (B, L, d_model) = ffn_relu · W_2 + b_2;  layer_out = LayerNorm(ffn_in + ffn_out)
//   generator  logits (B, L_dec, V) = top · W_gen + b_gen;  probs = softmax(logits) over the V symbols
//
// embed shows the stream the sublayer reads (the source for encoder self-attention, the
// decoder input otherwise); add_norm is the LayerNorm right after the sublayer; ffn is the
// same layer's feed-forward sublayer (its input is the layer's last Add & Norm); generator
// reads the top of the decoder stack. Every stage's output is recomputed here from its
// inputs and the checkpoint's parameters with the engine's layer functions (nn/layers.h);
// the inputs the stages do not compute themselves (ffn_in, top) are the engine's.
//
// The block's tensors join the trace under their TensorId (trace_tensors.h), so every
// reader of a trace (heatmaps, hover, dumps) reads them the same way.
#pragma once
#include <string>
#include <vector>

#include "model_trace/backward_trace.h"
#include "model_trace/block_stages.h"
#include "trace/trace.h"
#include "train/trainer.h"

namespace lab {

// What the stepper shows of a model: which sublayer, of which sample, and every number.
struct ModelTrace {
    AttentionBlockInfo block{AttentionKind::EncoderSelf, 0, ""};
    int block_index = 0;                   // into Trainer::layout().blocks
    Trace trace;                           // the ten stages + the block's tensors
    std::vector<BlockStageRecord> stages;  // kBlockStageCount, in BlockStageId order
    GradTrace grads;                       // dL/d every tensor the views show (cross-entropy of the sample)
    std::vector<std::string> query_tokens, key_tokens;  // axis labels: the task's symbols, "BOS"
    std::vector<std::string> dec_tokens;   // the decoder input's (the generator's rows)
    std::vector<std::string> symbols;      // the generator's classes: "0" ... "V-1"
    double engine_loss = 0;                // the Trainer's own loss on the sample
    const BlockStageRecord& stage(BlockStageId id) const { return stages[static_cast<int>(id)]; }
};

// The stepper on `block` of the trainer's model for sample s (held_out_sample or
// make_sample). False with a message for a bad block index or sample.
bool trace_model(Trainer& trainer, const Sample& s, int block, ModelTrace* out, std::string* error);

// The checks of the four block stages, recomputed from the trace's tensors (a corrupted
// tensor fails them): fills out->stages[*].checks.
void check_block_stages(ModelTrace* out);

// The blocks of a model, for the layer / sublayer picker: the index of (layer, kind) in
// layout.blocks, or -1 when the model has no such attention.
int find_block(const ModelLayout& layout, int layer, AttentionKind kind);

// Hover derivation of a cell of the model trace: the block's tensors here, the ten
// stages' as derive_cell says (an empty message for an index out of range).
Msg derive_block_cell(const ModelTrace& m, TensorId tensor, const std::vector<int>& index);

}  // namespace lab
