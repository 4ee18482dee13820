// train/trainer.h — Attention Lab core: a training run as one object, for the CLI
// (`attnlab train`) and the page, which trains in slices inside its frame loop.
//
//   Trainer t;
//   std::vector<ConfigError> errors;
//   if (!t.init(config, &errors)) { ...show errors... }
//   while (...) { t.step(10); draw(t.losses()); if (t.stop().cause != StopCause::None) ... }
//   EvalReport r = t.evaluate();                 // held-out token / exact accuracy
//   Sample s = t.held_out_sample(0);
//   std::vector<int32_t> out = t.greedy_decode(s);
//   const Workspace<float>* ws = t.run_sample(s); // every activation and gradient of one sample
//   AttentionMap m = t.attention_map(s, block);
//
// Nothing throws or aborts: bad configs come back from init() as messages naming the
// parameter; a non-finite loss or gradient stops training and says why (stop()).
// Single-threaded; one Trainer per run.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "trace/trace.h"
#include "train/model.h"
#include "train/optimizer.h"
#include "train/tasks.h"
#include "train/train_config.h"

namespace lab {

enum class StopCause { None, NonFiniteLoss, NonFiniteGradient };

struct TrainStop {
    StopCause cause = StopCause::None;
    int step = 0;           // the step whose loss or gradient was not finite (no update was made)
    std::string param;      // NonFiniteGradient: the first parameter whose gradient is NaN or ±inf
    Msg message;            // why, for the CLI, the page and manifest.json
};

struct EvalReport {
    int step = 0;
    int sequences = 0;
    double loss = 0;            // teacher-forced cross-entropy on the held-out set (label-smoothed as trained)
    double nll = 0;             // the same without label smoothing: -log p(target), per token; exp(nll) is the
                                // per-token perplexity Table 3 reports
    double token_accuracy = 0;  // greedy output tokens equal to the target, position by position
    double exact_accuracy = 0;  // greedy outputs equal to the whole target
    double bleu = -1;           // translate: corpus BLEU (train/bleu.h) of the greedy outputs to their 。; -1: not a translation task
    double ms = 0;              // time this evaluation took
};

// One example as the model sees it (the arrays of tasks.h for a batch of 1).
struct Sample {
    std::vector<int32_t> draws;    // the random integers it was made from (tasks.h)
    std::vector<int32_t> src;      // (src_len) encoder input; empty for decoder-only
    std::vector<int32_t> dec_in;   // (dec_len)
    std::vector<int32_t> dec_out;  // (dec_len) the targets
    std::vector<uint8_t> loss_mask;  // (dec_len) decoder-only; empty = every position
    int gen_begin = 0, gen_end = 0;  // the positions greedy decoding generates (the rest is prompt)
    // The tokens greedy decoding must produce: dec_out[gen_begin … gen_end).
    std::vector<int32_t> expected() const;
};

// Every head's attention weights of one attention for one sample, teacher-forced (a padded
// task's over the sentence's positions only: an encoder-only model's tokens, translate's source
// words and its target through 。).
struct AttentionMap {
    AttentionBlockInfo block;
    int heads = 0, L_q = 0, L_kv = 0;
    std::vector<float> weights;    // (h, L_q, L_kv)
    std::vector<int32_t> queries;  // the tokens at the query positions (L_q)
    std::vector<int32_t> keys;     // the tokens at the key positions (L_kv)
};

struct ParamGradNorm {
    std::string name;
    double norm = 0;  // L2 norm of the last step's gradient
};

// Gradient norms per layer (groups of the state_dict: "embedding", "encoder.layers.0",
// "decoder.layers.0", "layers.0", "generator") and per parameter, and how saturated each
// attention's softmax is (mean over rows of the largest weight; 1/L_kv is uniform, 1 is one-hot),
// all from the last training step: the scaling experiment's numbers.
struct TrainStats {
    std::vector<ParamGradNorm> groups;
    std::vector<ParamGradNorm> params;
    std::vector<double> saturation;  // per layout().blocks
};

// A trained attention ready for the stepper: run_trace(config, inputs, weights)
// replays one sample's attention stage by stage with the trained weights.
struct StepperView {
    AttentionConfig config;
    AttentionInputs inputs;
    AttentionWeights weights;
};

// Everything needed to continue a run exactly (the page's snapshots).
struct TrainerState {
    int steps_done = 0;
    std::vector<float> params, adam_m, adam_v, losses, lrs;
    std::vector<EvalReport> evals;
    TaskStream stream;
    TrainStop stop;
};

class Trainer {
public:
    Trainer() = default;
    Trainer(const Trainer&) = delete;  // its task stream points at its held-out set
    Trainer& operator=(const Trainer&) = delete;

    // Resolves defaults, validates, builds the model and initialises it from the seed.
    // False (and errors filled, each naming its parameter) when the config is invalid.
    bool init(const TrainConfig& config, std::vector<ConfigError>* errors);
    bool ready() const { return ready_; }

    // Up to n optimisation steps; fewer if the run has reached config().steps or
    // stopped on a non-finite loss/gradient. Returns the steps made.
    int step(int n);
    bool finished() const;  // all steps made, the target accuracy reached, or stopped
    EvalReport evaluate(const std::vector<uint8_t>* head_keep = nullptr);

    const TrainConfig& config() const { return config_; }  // resolved
    const TaskSpec& task() const { return spec_; }
    const ModelLayout& layout() const { return layout_; }
    int steps_done() const { return steps_done_; }
    const std::vector<float>& losses() const { return losses_; }  // per step, before its update
    const std::vector<float>& lrs() const { return lrs_; }        // per step
    const std::vector<EvalReport>& evals() const { return evals_; }
    const TrainStop& stop() const { return stop_; }
    const std::vector<float>& params() const { return params_; }
    const std::vector<float>& grads() const { return grads_; }      // the last step's
    const Workspace<float>& batch() const { return train_ws_; }      // the last step's batch and activations
    // The logits (B, dec_len, vocab_out) of the current parameters for B examples given
    // as src (B, src_len; empty for decoder-only) and dec_in (B, dec_len); empty when the
    // sizes or a token id (outside [0, vocab_size)) do not fit.
    std::vector<float> logits(const std::vector<int32_t>& src, const std::vector<int32_t>& dec_in, int B);
    TrainStats stats() const;
    // The forward pass (scores kept) of one example given as token ids (src: src_len, empty for
    // decoder-/encoder-only; dec_in: dec_len), for a sentence typed in: its activations and
    // attention weights in the workspace, its logits in ws.logits (dec_len, vocab_out). Null when
    // a size or an id does not fit.
    const Workspace<float>* forward_tokens(const std::vector<int32_t>& src, const std::vector<int32_t>& dec_in);

    // A parameter from PyTorch's layout (a checkpoint's .npy); false with a message
    // when the name or the element count does not match.
    bool set_param(const std::string& name, const std::vector<float>& torch_values, std::string* error);

    int held_out_count() const { return held_out_.count(); }
    Sample held_out_sample(int index) const;  // index clamped to [0, held_out_count())
    // A sample from its draws (task().draws() values: L symbols in [0, V), distinct for
    // induction, then the gap in [0, G] when G > 0); false with a message otherwise.
    bool make_sample(const std::vector<int32_t>& draws, Sample* out, std::string* error) const;
    // Encoder-only: a sample typed in, not drawn (no draws): ids (1 … dec_len tokens, none the
    // padding token) padded, classified at `query` as `target`; false with a message otherwise.
    bool make_typed_sample(const std::vector<int32_t>& ids, int query, int32_t target, Sample* out,
                           std::string* error) const;
    // The views below take a Sample from held_out_sample or make_sample (its arrays
    // must be its draws' own) and head_keep of blocks × heads values (0 = knocked out);
    // anything else gives an empty result (evaluate: sequences = 0) instead of reading
    // out of bounds.
    // Greedy decoding of positions gen_begin … gen_end − 1.
    // A task with a stop token (translate: 。) decodes until it writes it (or to dec_len), so the
    // output may be shorter or longer than expected().
    std::vector<int32_t> greedy_decode(const Sample& s, const std::vector<uint8_t>* head_keep = nullptr);
    // Forward (with scores, scaled and masked kept) and backward of one sample:
    // activations and their gradients in the workspace, dL/dparams in sample_grads().
    // Null for an unusable sample.
    const Workspace<float>* run_sample(const Sample& s, const std::vector<uint8_t>* head_keep = nullptr);
    const std::vector<float>& sample_grads() const { return sample_grads_; }
    AttentionMap attention_map(const Sample& s, int block);
    StepperView stepper_view(const Sample& s, int block);

    // Exchanges the parameters with `other` (false, nothing changed, when its size differs):
    // the page shows a snapshot taken during training this way, then swaps back.
    bool swap_params(std::vector<float>& other);

    TrainerState save_state() const;
    void restore_state(const TrainerState& state);

private:
    void record_stop(StopCause cause, const std::string& param);
    bool grads_finite();
    void fill_sample(Workspace<float>& ws, int b, const Sample& s) const;
    void greedy_batch(Workspace<float>& ws, const std::vector<int>& begin, const std::vector<int>& end, bool encoded);
    std::vector<int32_t> until_stop(std::vector<int32_t> tokens) const;  // cut after the task's stop token
    void cut_padding(AttentionMap& m, const Sample& s, bool in_encoder) const;
    std::string draws_problem(const std::vector<int32_t>& draws) const;  // "" when valid
    std::string typed_problem(const std::vector<int32_t>& ids, int query, int32_t target) const;
    Sample sample_from_draws(const std::vector<int32_t>& draws) const;   // draws valid
    bool usable(const Sample& s, const std::vector<uint8_t>* head_keep) const;
    // run_sample, then what `block` read; false for a bad block index or sample.
    bool run_block(const Sample& s, int block, BlockInputs<float>* in);

    bool ready_ = false;
    TrainConfig config_;
    TaskSpec spec_;
    ModelLayout layout_;
    HeldOut held_out_;
    TaskStream stream_;
    std::vector<float> params_, grads_, adam_m_, adam_v_, sample_grads_;
    std::vector<int32_t> greedy_;  // the last greedy_batch's predictions, (B, dec_len)
    std::vector<float> losses_, lrs_;
    std::vector<EvalReport> evals_;
    Workspace<float> train_ws_, eval_ws_, sample_ws_;
    int steps_done_ = 0;
    TrainStop stop_;
};

}  // namespace lab
