// experiments.h — Attention Lab core: the paper's claims as experiments whose
// numbers the lab plots (src/app/experiment_*_view.cpp) and the tests check.
// Every function is deterministic from its seed (or the base config's seed); nothing
// here draws on screen. Texts a learner reads (labels, descriptions, titles, symptoms,
// the "why" paragraphs) are messages (base/message.h), said in whatever language the
// reader shows; ids (MaskCase::name, AttentionKindTrace::name, MistakeSpec::key), PyTorch
// lines and PyTorch's errors are the same in every language. Each concept lives in its
// own src/teach/experiments/experiment_*.cpp.
#pragma once
#include <string>
#include <vector>

#include "attention/config.h"
#include "attention/config_keys.h"
#include "base/message.h"
#include "trace/trace.h"

namespace lab {

// 1. Why divide by √d_k (§3.2.1, footnote 4) ------------------------------------
struct ScalingPoint {
    int d_k = 0;
    double var_dot = 0;              // sample variance of q·k over the samples, q, k ~ N(0, I)  (≈ d_k)
    double var_scaled = 0;           // variance of q·k / √d_k                          (≈ 1)
    double max_weight = 0;           // one query over n keys: largest softmax weight, unscaled (mean over queries)
    double max_weight_scaled = 0;    //   ... scaled
    double entropy = 0;              // softmax entropy in nats, unscaled (max is ln n)
    double entropy_scaled = 0;
    double jacobian_norm = 0;        // Frobenius norm of diag(p) - p pᵀ, unscaled, mean over queries (small = vanishing gradients)
    double jacobian_norm_scaled = 0;
    // The mean above is dominated by the rare rows whose top two scores nearly tie (their
    // Jacobian stays large), so it only falls like ~1/√d_k unscaled (≈ 0.35× the scaled value at
    // d_k = 1024 with 64 keys). The median row shows the typical row: it falls exponentially.
    double jacobian_norm_median = 0, jacobian_norm_median_scaled = 0;
};
struct ScalingOptions {
    int samples = 0;   // 0 = 20000 (q, k pairs per d_k for the variances; relative std error of the
                       // variance ≈ sqrt((2 + 6/d_k) / samples): 1.3% at d_k = 4 for 20000)
    int keys = 0;      // 0 = 64 (n keys for the softmax statistics, averaged over `queries` rows)
    int queries = 0;   // 0 = 256 (query rows, each over the same `keys` keys)
    uint32_t seed = 0; // 0 = 1
    int max_log2_dk = 0;  // 0 = 10: d_k in {1, 2, 4, ..., 1024}
};
std::vector<ScalingPoint> scaling_experiment(const ScalingOptions& options = {});
// The options a learner sets (keys, samples, seed) as key-table rows (attention/config_keys.h):
// the page's knobs, its links ("scaling.keys=10") and state() read and write them.
const KeyTable<ScalingOptions>& scaling_option_keys();

// 2. Heads (§3.2.2, Table 3 row A) ------------------------------------------------
struct HeadsPoint {
    int heads = 0, d_k = 0;
    Trace trace;                          // the whole run for this h (same d_model, input, seed)
    std::vector<double> head_entropy;     // mean entropy (nats) of each head's weight rows
    std::vector<double> knockout_delta;   // ||output - output with head i zeroed before concat|| (Frobenius)
    double output_norm = 0;               // ||output||, to read the deltas against
    // W^O is linear, so the heads' contributions add up exactly:
    // Σ_i (output - output without head i) = output - b_O. Max |difference| over all entries.
    double knockout_sum_error = 0;
};
// heads_list empty = {1, 2, 4, 8, 16}; only those dividing d_model (and giving a valid
// config) are run. The base's mask and every other knob are kept.
std::vector<HeadsPoint> heads_experiment(const AttentionConfig& base, const std::vector<int>& heads_list = {});

// 3. Masks -------------------------------------------------------------------------
struct MaskCase {
    std::string name;            // id, the same in every language: "none", "causal", "padding", "custom",
                                 // "inverted causal" (state().experiment, tests)
    Msg label;                   // what the learner reads: "none" / "无掩码", ...
    Msg description;             // how the keep mask is built, e.g. "keep j <= i"
    Trace trace;
    long future_nonzero = 0;     // weights above the diagonal (j > i) that are not exactly 0 (NaN counts)
    long fully_masked_rows = 0;
    bool has_nan = false;
};
struct MaskComparison {
    std::vector<MaskCase> cases;             // same input, same weights
    MaskCase fully_masked_inf, fully_masked_1e9;  // a padding length of 0 with each fill
    Msg fully_masked_why;                    // one paragraph: NaN vs uniform, and why
    Msg inverted_why;                        // what filling where mask == 1 does
};
// Every case uses the base's sizes, seed, fill and switches with its own mask:
// padding lengths default_padding_lengths() (L_kv, L_kv-2, ...); custom = band |i - j| <= 1;
// inverted causal = custom keep j > i, i.e. masked_fill(mask == 1, fill) with the causal mask.
MaskComparison mask_experiment(const AttentionConfig& base);

// 4. Positional encoding (§3.5) ---------------------------------------------------
struct PeExperiment {
    int length = 0, d_model = 0, train_length = 0;
    std::vector<float> pe;                   // (length, d_model)
    std::vector<int> dims;                   // the curves' dimensions
    std::vector<std::vector<float>> curves;  // per dim: PE(pos, dim) for pos in [0, length)
    std::vector<float> similarity;           // (length, length): PE_i · PE_j
    bool similarity_depends_on_offset_only = false;  // PE_i·PE_j == PE_{i+k}·PE_{j+k} (within 1e-4)
    double max_offset_deviation = 0;                 // max |PE_i·PE_j - PE_0·PE_{j-i}| over i <= j
};
// dims empty = {0, 1, 4, 5, 20, 21}; dims outside [0, d_model) are dropped. Positions
// past train_length are computed like any other (the UI shades them).
PeExperiment pe_experiment(int length, int d_model, int train_length, const std::vector<int>& dims = {});

// 5. Common mistakes -------------------------------------------------------------------
// A mistake is run on the correct run's own tensors and compared with it.
struct MistakeSpec;
// One line of a buggy run followed on through the code after it: what PyTorch 1.13 gives
// for it (a shape) or raises (its error), up to the first error. A branch > 0 is the same
// step written another way (as a tutorial's text assumes), run on the same tensors.
struct MistakeStep {
    std::string code;        // PyTorch, with the run's sizes written in
    std::vector<int> shape;  // what the line gives (empty when it raises)
    std::string error;       // what PyTorch raises (English, as PyTorch prints it); empty when it runs
    int branch = 0;          // 0: the code as written; 1, 2, ...: another spelling of a step
    Msg note;                // said before the line (a branch's first step: how it differs); may be empty
};
struct MistakeResult {
    const MistakeSpec* spec = nullptr;
    std::string key;             // stable: "softmax_wrong_axis" (= spec->key)
    Msg title;
    Msg buggy_line, correct_line;  // PyTorch, with the run's fill and sizes written in (comments in the reader's language)
    bool runs = true;            // false: PyTorch would raise
    std::string error;           // the RuntimeError PyTorch raises, with the actual numbers (English, as PyTorch prints it)
    std::string stops_at;        // stage key where the run stops (when !runs)
    // Symptoms measured against the correct run (when runs):
    double max_row_sum_error = 0;   // max |row sum - 1| of the weights (rows without NaN)
    double min_row_sum = 0, max_row_sum = 0;  // the smallest and largest row sum (rows without NaN)
    long rows_without_nan = 0;      // the rows the statistics are over
    double future_weight = 0;       // mean over rows of Σ_{j>i} w_ij: 0 under the correct causal mask
    double output_diff = 0;         // ||output - correct output|| / ||correct output|| (entries finite in both;
                                    // NaN when no entry is)
    Msg symptom;                    // one sentence with the numbers
    Msg claim;                      // where a tutorial says otherwise: what it says and what really happens
                                    // (measured here and in PyTorch: tests/torch/mistake_errors.py); empty if none
    // More symptoms (when runs):
    long nan_weights = 0, nan_outputs = 0;  // NaN values in the buggy weights / output
    long nan_rows = 0;                      // rows of the buggy weights that are NaN throughout
    double pre_mask_future_weight = 0;      // mask after softmax: weight on j > i before it is zeroed
    double mean_max_weight = 0;             // mean over rows of the largest weight, buggy run
    double correct_mean_max_weight = 0;     //   ... correct run
    std::vector<MistakeStep> story; // the lines after the buggy one, as PyTorch runs them (empty: not followed)
    int mask_length = 0;            // the length its wrong-length mask is built for (0: it builds no mask)
    Tensor weights;                 // the buggy run's (B, h, L_q, L_kv) weights (empty when !runs)
    Tensor output;                  // the buggy run's (B, L_q, d_model) output (empty when !runs)
    Trace correct;                  // the correct run it is compared with
};

// What a mistake's functions get: the correct run and its sizes (experiment_mistakes.cpp).
struct MistakeContext;

// One mistake a learner writes: one entry of the registry.
struct MistakeSpec {
    const char* key;           // stable id: state(), tests, the page's layout ("mistake:<key>")
    Str title;
    const char* buggy_line;    // PyTorch ({#key}: a comment's words, kCodeComments); {fill} stands for the run's fill literal, {short} for a
                               // wrong mask length, {B} {h} {L_q} {L_kv} {d_model} for the run's sizes
    const char* correct_line;
    // How the buggy line runs: fills r.weights.data and r.output.data, or sets r.runs =
    // false with PyTorch's error, the stage it stops at and the symptom.
    void (*run)(const MistakeContext& ctx, MistakeResult& r);
    // How its symptom is said from the measured numbers (when it runs).
    Msg (*symptom)(const MistakeContext& ctx, const MistakeResult& r);
    // What a tutorial claims about this line and what the numbers show instead (null: no claim).
    Msg (*claim)(const MistakeContext& ctx, const MistakeResult& r) = nullptr;
    // The mask it runs with: causal (so future_weight means something), or none for a line
    // the tutorials call without a mask (an encoder's self-attention).
    MaskKind mask = MaskKind::Causal;
    // Grouped-query code (K and V with h_kv = h / 2 heads of their own, h even and at least 4, so
    // there are two groups of two or more); every other mistake is plain multi-head attention.
    bool grouped = false;
};
// Every mistake, in the order the panel lists them.
const std::vector<MistakeSpec>& mistakes();
const MistakeSpec* find_mistake(const std::string& key);  // null when unknown
// Runs the base config with the spec's mask (causal for most), with the base's fill,
// sizes, seed and switches. Rows: a row is one (b, head, i) of the weights;
// max_row_sum_error and future_weight are over rows without NaN (future_weight = mean over
// rows of Σ_{j>i} w_ij). Shape errors carry PyTorch 1.13's exact message for these sizes.
// What a learner sets in the mistakes lab: the length the wrong-length mask is built for.
struct MistakeOptions {
    int mask_length = 0;  // 0 = half the keys (10 -> 5, a tutorial's case), or L_kv + 2 when that is below 2
};
int mistake_mask_length(const MistakeOptions& o, int L_kv);  // the length a run uses
// As key-table rows: the page's knob, its link ("mistakes.mask_len=5") and state().
const KeyTable<MistakeOptions>& mistake_option_keys();
MistakeResult run_mistake(const MistakeSpec& m, const AttentionConfig& base, const MistakeOptions& options = {});

// 6. Encoder vs decoder ------------------------------------------------------------
struct AttentionKindTrace {
    std::string name;     // id, the same in every language: "encoder self-attention",
                          // "decoder masked self-attention", "encoder-decoder attention"
    Msg label;            // what the learner reads ("编码器自注意力", ...)
    Trace trace;
};
// Same d_model, heads, batch, seed, fill and switches; the base's mask and lengths are replaced:
//   encoder self-attention:         x = source (B, encoder_len), no mask
//   decoder masked self-attention:  x = target (B, decoder_len), causal mask
//   encoder-decoder attention:      cross: Q from the target, K/V from the source, no mask
// source/target are make_inputs(cross config).memory/.x, so the three share their inputs.
// Empty when a resulting config is invalid.
std::vector<AttentionKindTrace> encoder_decoder_experiment(const AttentionConfig& base, int encoder_len, int decoder_len);

// Helpers shared by the experiment files (and handy for the tests) ----------------
namespace experiment_detail {
// Entropy (nats) of one probability row; 0·ln 0 = 0.
double entropy(const float* p, int n);
// context (B, h, L_q, d_v) = weights (B, h, L_q, L_kv) @ v_heads (B, h, L_kv, d_v), per slice.
void context_from_weights(float* context, const float* weights, const float* v_heads, int B, int h, int L_q, int L_kv,
                          int d_v);
// output (B, L_q, d_model) = concat_heads(context) · W^O + b_O with the trace's W^O and b_O.
Floats output_from_context(const Floats& context, const Trace& tr);
// ||a - b|| / ||b|| over the entries finite in both; NaN when none is.
double relative_diff(const Floats& a, const Floats& b);
long count_nan(const Floats& v);
}  // namespace experiment_detail

}  // namespace lab
