// experiment_mistakes.cpp — Attention Lab core: the bugs learners write, run for real.
//
// One registry entry per mistake (kMistakes below): its PyTorch lines, how the buggy line
// runs and how its symptom is said. Each mistake is computed explicitly from the correct
// trace's own tensors (scores, masked, q/k/v, q_heads/k_heads/v_heads, context, W^O),
// then pushed through the rest of the pipeline with the core's functions
// (scaled_dot_product_attention, concat_heads, linear), and measured against the correct
// run. Shape errors report the RuntimeError PyTorch 1.13 (Debian's python3-torch
// 1.13.0a0) raises for the same shapes; the formats were checked by running the buggy
// lines in torch (see tests/test_experiments.cpp).
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <limits>

#include "attention.h"
#include "experiments.h"

namespace lab {

using namespace experiment_detail;

// The correct run a mistake is measured against, and its sizes.
struct MistakeContext {
    const AttentionConfig& c;
    const AttentionInputs& in;
    const AttentionWeights& w;
    const Trace& tr;  // the correct run
    int B, h, Lq, Lkv, dk, dv, d;
    long block;             // L_q x L_kv: one (b, head) slice of the weights
    std::string fill;       // the fill as PyTorch code: float('-inf') or -1e9
    const Tensor& keep;     // (L_q, L_kv): the causal mask
};

namespace {

constexpr int kHardCodedDk = 128;  // as copied from a d_model = 1024, h = 8 model

// PyTorch's error messages (English, as PyTorch prints them).
std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char* f, ...) {
    char buf[512];
    va_list args;
    va_start(args, f);
    std::vsnprintf(buf, sizeof buf, f, args);
    va_end(args);
    return buf;
}

// Softmax of n values spaced `stride` apart, in place, as torch.softmax: subtract the max;
// when every value is -inf the max is -inf and every result NaN.
void softmax_strided(float* x, int n, long stride) {
    double mx = -std::numeric_limits<double>::infinity();
    for (int i = 0; i < n; ++i) mx = std::fmax(mx, x[i * stride]);
    if (std::isinf(mx) && mx < 0) {
        for (int i = 0; i < n; ++i) x[i * stride] = std::numeric_limits<float>::quiet_NaN();
        return;
    }
    double sum = 0;
    for (int i = 0; i < n; ++i) sum += std::exp(static_cast<double>(x[i * stride]) - mx);
    for (int i = 0; i < n; ++i) x[i * stride] = static_cast<float>(std::exp(static_cast<double>(x[i * stride]) - mx) / sum);
}

// Row statistics of (B, h, L_q, L_kv) weights over the rows without NaN.
struct RowStats {
    double max_sum_error = 0, min_sum = 0, max_sum = 0, future = 0, mean_max = 0;
    long rows = 0, nan = 0;
};
RowStats row_stats(const std::vector<float>& w, int rows_total, int Lq, int Lkv) {
    RowStats s;
    s.min_sum = std::numeric_limits<double>::infinity();
    s.max_sum = -s.min_sum;
    for (int r = 0; r < rows_total; ++r) {
        const float* row = w.data() + static_cast<long>(r) * Lkv;
        const int i = r % Lq;
        double sum = 0, future = 0, mx = 0;
        bool finite = true;
        for (int j = 0; j < Lkv; ++j) {
            if (std::isnan(row[j])) ++s.nan, finite = false;
            sum += row[j];
            if (j > i) future += row[j];
            mx = std::fmax(mx, row[j]);
        }
        if (!finite) continue;
        ++s.rows;
        s.max_sum_error = std::fmax(s.max_sum_error, std::fabs(sum - 1));
        s.min_sum = std::fmin(s.min_sum, sum);
        s.max_sum = std::fmax(s.max_sum, sum);
        s.future += future;
        s.mean_max += mx;
    }
    if (s.rows) s.future /= s.rows, s.mean_max /= s.rows;
    else s.min_sum = s.max_sum = std::numeric_limits<double>::quiet_NaN();
    return s;
}

double pct(double x) { return 100.0 * x; }

std::string with_fill(const char* line, const std::string& fill) {
    std::string s = line;
    const size_t at = s.find("{fill}");
    if (at != std::string::npos) s.replace(at, 6, fill);
    return s;
}

// ---- how the buggy lines run ---------------------------------------------------------

// The rest of the pipeline from buggy weights: weights @ V, concat, W^O.
void finish_from_weights(const MistakeContext& x, MistakeResult& r) {
    std::vector<float> ctx(static_cast<size_t>(x.B) * x.h * x.Lq * x.dv);
    context_from_weights(ctx.data(), r.weights.data.data(), x.tr[TensorId::VHeads].ptr(), x.B, x.h, x.Lq, x.Lkv, x.dv);
    r.output.data = output_from_context(ctx, x.tr);
}

// Attention on buggy per-slice q/k/v (B, h, L, d) with the correct mask, scale and fill.
void finish_from_heads(const MistakeContext& x, MistakeResult& r, const std::vector<float>& qh,
                       const std::vector<float>& kh, const std::vector<float>& vh) {
    r.weights.data.assign(static_cast<size_t>(x.B) * x.h * x.block, 0.0f);
    std::vector<float> ctx(static_cast<size_t>(x.B) * x.h * x.Lq * x.dv);
    for (long s = 0; s < static_cast<long>(x.B) * x.h; ++s) {
        SdpaOutputs o;
        o.weights = r.weights.data.data() + s * x.block;
        o.context = ctx.data() + s * x.Lq * x.dv;
        scaled_dot_product_attention(o, qh.data() + s * x.Lq * x.dk, kh.data() + s * x.Lkv * x.dk,
                                     vh.data() + s * x.Lkv * x.dv, x.keep.ptr(), x.Lq, x.Lkv, x.dk, x.dv,
                                     SdpaOptions{x.c.scale, x.c.mask_fill, nullptr});
    }
    r.output.data = output_from_context(ctx, x.tr);
}

// A whole trace with a changed configuration on the same inputs and weights.
void run_changed(const MistakeContext& x, MistakeResult& r, const AttentionConfig& changed) {
    const Trace bug = run_trace(changed, x.in, x.w);
    r.weights.data = bug[TensorId::Weights].data;
    r.output.data = bug[TensorId::Output].data;
}

void run_softmax_wrong_axis(const MistakeContext& x, MistakeResult& r) {
    r.weights.data = x.tr[TensorId::Masked].data;
    for (long s = 0; s < static_cast<long>(x.B) * x.h; ++s)
        for (int j = 0; j < x.Lkv; ++j) softmax_strided(r.weights.data.data() + s * x.block + j, x.Lq, x.Lkv);
    finish_from_weights(x, r);
}

void run_softmax_over_heads(const MistakeContext& x, MistakeResult& r) {
    r.weights.data = x.tr[TensorId::Masked].data;
    for (int b = 0; b < x.B; ++b)
        for (long e = 0; e < x.block; ++e) softmax_strided(r.weights.data.data() + b * x.h * x.block + e, x.h, x.block);
    finish_from_weights(x, r);
}

void run_no_scaling(const MistakeContext& x, MistakeResult& r) {
    AttentionConfig cb = x.c;
    cb.scale = false;
    run_changed(x, r, cb);
}

// Filling where the causal mask is 1 keeps exactly the cells it hides: j > i.
void run_inverted_mask(const MistakeContext& x, MistakeResult& r) {
    AttentionConfig cb = x.c;
    cb.mask = MaskKind::Custom;
    cb.custom_keep.resize(static_cast<size_t>(x.block));
    for (long e = 0; e < x.block; ++e) cb.custom_keep[e] = x.keep.data[e] == 0.0f;
    run_changed(x, r, cb);
}

void run_mask_after_softmax(const MistakeContext& x, MistakeResult& r) {
    AttentionConfig cb = x.c;
    cb.mask = MaskKind::None;  // softmax of the unmasked scaled scores
    r.weights.data = run_trace(cb, x.in, x.w)[TensorId::Weights].data;
    r.pre_mask_future_weight = row_stats(r.weights.data, x.B * x.h * x.Lq, x.Lq, x.Lkv).future;
    for (long s = 0; s < static_cast<long>(x.B) * x.h; ++s)
        for (long e = 0; e < x.block; ++e)
            if (x.keep.data[e] == 0.0f) r.weights.data[s * x.block + e] = 0.0f;
    finish_from_weights(x, r);
}

// (B, L, d_model) memory read as (B, h, L, d_k): the same flat data, no reordering.
void run_wrong_split_view(const MistakeContext& x, MistakeResult& r) {
    finish_from_heads(x, r, x.tr[TensorId::Q].data, x.tr[TensorId::K].data, x.tr[TensorId::V].data);
}

// (B, h, L, d_v) memory read as (B, L, h·d_v): the same flat data.
void run_concat_without_transpose(const MistakeContext& x, MistakeResult& r) {
    r.weights.data = x.tr[TensorId::Weights].data;
    r.output.data.assign(static_cast<size_t>(x.B) * x.Lq * x.d, 0.0f);
    linear(r.output.data.data(), x.tr[TensorId::Context].ptr(), x.tr[TensorId::WO].ptr(), x.tr[TensorId::BO].ptr(),
           x.B * x.Lq, x.h * x.dv, x.d);
}

void run_hard_coded_dk(const MistakeContext& x, MistakeResult& r) {
    if (x.dk == kHardCodedDk) {
        r.weights.data = x.tr[TensorId::Weights].data;
        r.output.data = x.tr[TensorId::Output].data;
        return;
    }
    r.runs = false;
    r.stops_at = "split_heads";
    const long have = static_cast<long>(x.B) * x.Lq * x.d;
    const long need = static_cast<long>(x.B) * x.Lq * x.h * kHardCodedDk;
    r.error = fmt("RuntimeError: shape '[%d, %d, %d, %d]' is invalid for input of size %ld", x.B, x.Lq, x.h,
                  kHardCodedDk, have);
    r.symptom = Msg(Str::exp_mistake_hard_coded_dk_raises, need, have, x.dk);
}

void run_k_instead_of_kt(const MistakeContext& x, MistakeResult& r) {
    if (x.Lkv != x.dk) {
        r.runs = false;
        r.stops_at = "scores";
        // 4-D matmul folds (B, h) into one batch dimension and calls bmm.
        r.error = fmt("RuntimeError: Expected size for first two dimensions of batch2 tensor to be: [%d, %d] "
                      "but got: [%d, %d].",
                      x.B * x.h, x.dk, x.B * x.h, x.Lkv);
        r.symptom = Msg(Str::exp_mistake_k_instead_of_kt_raises, x.B, x.h, x.Lq, x.dk, x.B, x.h, x.Lkv, x.dk, x.dk, x.Lkv);
        return;
    }
    // L_kv == d_k: q @ k = q @ (kᵀ)ᵀ, so the core's q·kᵀ gets each k slice transposed.
    const std::vector<float>& k = x.tr[TensorId::KHeads].data;
    std::vector<float> kt(k.size());
    for (long s = 0; s < static_cast<long>(x.B) * x.h; ++s)
        for (int a = 0; a < x.Lkv; ++a)
            for (int b = 0; b < x.dk; ++b) kt[s * x.Lkv * x.dk + b * x.Lkv + a] = k[s * x.Lkv * x.dk + a * x.dk + b];
    finish_from_heads(x, r, x.tr[TensorId::QHeads].data, kt, x.tr[TensorId::VHeads].data);
}

// ---- how their symptoms are said -----------------------------------------------------

// " 3 of 32 weights and 8 of 64 outputs are NaN." when there are any.
Msg nan_note(const MistakeResult& r) {
    if (r.nan_weights == 0 && r.nan_outputs == 0) return {};
    return Msg(Str::exp_mistake_nan_note, r.nan_weights, static_cast<long>(r.weights.size()), r.nan_outputs,
               static_cast<long>(r.output.size()));
}

Msg with_nan_note(Msg m, const MistakeResult& r) { return std::move(m.then(nan_note(r))); }

Msg say_softmax_wrong_axis(const MistakeContext&, const MistakeResult& r) {
    return with_nan_note(Msg(Str::exp_mistake_softmax_wrong_axis_symptom, r.min_row_sum, r.max_row_sum,
                             r.max_row_sum_error, pct(r.output_diff)),
                         r);
}

Msg say_softmax_over_heads(const MistakeContext& x, const MistakeResult& r) {
    if (x.h == 1) return with_nan_note(Msg(Str::exp_mistake_softmax_over_heads_h1, r.max_row_sum_error), r);
    const Str filled = x.c.mask_fill == MaskFill::NegInf ? Str::exp_mistake_over_heads_nan : Str::exp_mistake_over_heads_uniform;
    return with_nan_note(
        Msg(Str::exp_mistake_softmax_over_heads_symptom, x.h, r.min_row_sum, r.max_row_sum, r.max_row_sum_error, filled), r);
}

Msg say_no_scaling(const MistakeContext& x, const MistakeResult& r) {
    return Msg(Str::exp_mistake_no_scaling_symptom, x.dk, r.correct_mean_max_weight, r.mean_max_weight, pct(r.output_diff));
}

Msg say_inverted_mask(const MistakeContext& x, const MistakeResult& r) {
    Msg m(Str::exp_mistake_inverted_mask_symptom, pct(r.future_weight), pct(r.output_diff));
    if (x.Lkv <= x.Lq)  // the last query has no future: every key of its row is masked
        m.then(x.c.mask_fill == MaskFill::NegInf ? Str::exp_mistake_inverted_mask_last_nan
                                                 : Str::exp_mistake_inverted_mask_last_uniform);
    return with_nan_note(m, r);
}

Msg say_mask_after_softmax(const MistakeContext&, const MistakeResult& r) {
    return Msg(Str::exp_mistake_mask_after_softmax_symptom, pct(r.pre_mask_future_weight), r.min_row_sum,
               r.max_row_sum_error, pct(r.output_diff));
}

// Row l of "head" a holds the flat block a·L_q + l of d_k values: position (a·L_q + l) / h,
// columns of head (a·L_q + l) % h.
Msg say_wrong_split_view(const MistakeContext& x, const MistakeResult& r) {
    long misplaced = 0;
    Msg example;
    for (int a = 0; a < x.h; ++a)
        for (int l = 0; l < x.Lq; ++l) {
            const int block = a * x.Lq + l, pos = block / x.h, col_head = block % x.h;
            if (pos == l && col_head == a) continue;
            if (misplaced++ == 0)
                example = Msg(Str::exp_mistake_split_example, a, l, pos, col_head * x.dk, (col_head + 1) * x.dk);
        }
    if (misplaced == 0) return Msg(Str::exp_mistake_views_coincide, pct(r.output_diff));
    return with_nan_note(Msg(Str::exp_mistake_wrong_split_view_symptom, example, misplaced, x.h * x.Lq, pct(r.output_diff)), r);
}

// Output row 0 of item b reads the first h blocks of d_v values of the (B, h, L, d_v)
// context: block k is head k / L_q, position k % L_q.
Msg say_concat_without_transpose(const MistakeContext& x, const MistakeResult& r) {
    if (x.h == 1) return Msg(Str::exp_mistake_views_coincide, pct(r.output_diff));
    Msg sources;
    for (int k = 0; k < x.h && k < 4; ++k)
        sources.then(Msg(k ? Str::exp_mistake_concat_source_next : Str::exp_mistake_concat_source_first, k / x.Lq, k % x.Lq));
    if (x.h > 4) sources.then(Str::exp_mistake_concat_source_more);
    return with_nan_note(Msg(Str::exp_mistake_concat_without_transpose_symptom, sources, pct(r.output_diff)), r);
}

Msg say_hard_coded_dk(const MistakeContext&, const MistakeResult&) { return Str::exp_mistake_hard_coded_dk_symptom; }

Msg say_k_instead_of_kt(const MistakeContext& x, const MistakeResult& r) {
    return with_nan_note(Msg(Str::exp_mistake_k_instead_of_kt_symptom, x.dk, x.dk, x.dk, x.dk, pct(r.output_diff)), r);
}

// ---- the registry ----------------------------------------------------------------------

const std::vector<MistakeSpec> kMistakes = {
    {"softmax_wrong_axis", Str::exp_mistake_softmax_wrong_axis_title, "weights = scores.softmax(dim=-2)",
     "weights = scores.softmax(dim=-1)   # over the keys", run_softmax_wrong_axis, say_softmax_wrong_axis},
    {"softmax_over_heads", Str::exp_mistake_softmax_over_heads_title,
     "weights = F.softmax(scores, dim=1)   # scores: (B, h, L_q, L_kv), dim 1 is h",
     "weights = F.softmax(scores, dim=-1)", run_softmax_over_heads, say_softmax_over_heads},
    {"no_scaling", Str::exp_mistake_no_scaling_title, "scores = q @ k.transpose(-2, -1)",
     "scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)", run_no_scaling, say_no_scaling},
    {"inverted_mask", Str::exp_mistake_inverted_mask_title, "scores = scores.masked_fill(mask == 1, {fill})",
     "scores = scores.masked_fill(mask == 0, {fill})   # mask: 1 keep, 0 hide", run_inverted_mask, say_inverted_mask},
    {"mask_after_softmax", Str::exp_mistake_mask_after_softmax_title,
     "weights = scores.softmax(dim=-1).masked_fill(mask == 0, 0)",
     "weights = scores.masked_fill(mask == 0, {fill}).softmax(dim=-1)", run_mask_after_softmax, say_mask_after_softmax},
    {"wrong_split_view", Str::exp_mistake_wrong_split_view_title, "q = q.view(B, h, L, d_k)   # same for k, v",
     "q = q.view(B, L, h, d_k).transpose(1, 2)", run_wrong_split_view, say_wrong_split_view},
    {"concat_without_transpose", Str::exp_mistake_concat_without_transpose_title,
     "x = context.view(B, L, h * d_v)   # context: (B, h, L, d_v)",
     "x = context.transpose(1, 2).contiguous().view(B, L, h * d_v)", run_concat_without_transpose,
     say_concat_without_transpose},
    {"hard_coded_dk", Str::exp_mistake_hard_coded_dk_title,
     "q = q.view(B, L, h, 128).transpose(1, 2)   # d_k = 128 copied from another model",
     "q = q.view(B, L, h, d_model // h).transpose(1, 2)", run_hard_coded_dk, say_hard_coded_dk},
    {"k_instead_of_kt", Str::exp_mistake_k_instead_of_kt_title, "scores = q @ k / math.sqrt(d_k)",
     "scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)", run_k_instead_of_kt, say_k_instead_of_kt},
};

// The buggy run's numbers against the correct run's.
void measure(const MistakeContext& x, MistakeResult& r) {
    const int rows_total = x.B * x.h * x.Lq;
    const RowStats bs = row_stats(r.weights.data, rows_total, x.Lq, x.Lkv);
    const RowStats cs = row_stats(x.tr[TensorId::Weights].data, rows_total, x.Lq, x.Lkv);
    r.max_row_sum_error = bs.max_sum_error;
    r.min_row_sum = bs.min_sum, r.max_row_sum = bs.max_sum, r.rows_without_nan = bs.rows;
    r.future_weight = bs.future;
    r.mean_max_weight = bs.mean_max;
    r.correct_mean_max_weight = cs.mean_max;
    r.nan_weights = bs.nan;
    r.nan_outputs = count_nan(r.output.data);
    r.output_diff = relative_diff(r.output.data, x.tr[TensorId::Output].data);
    r.weights.name = "weights", r.weights.shape = {x.B, x.h, x.Lq, x.Lkv}, r.weights.dims = {"B", "h", "L_q", "L_kv"};
    r.output.name = "output", r.output.shape = {x.B, x.Lq, x.d}, r.output.dims = {"B", "L_q", "d_model"};
}

}  // namespace

const std::vector<MistakeSpec>& mistakes() { return kMistakes; }

const MistakeSpec* find_mistake(const std::string& key) {
    for (const MistakeSpec& m : kMistakes)
        if (key == m.key) return &m;
    return nullptr;
}

MistakeResult run_mistake(const MistakeSpec& m, const AttentionConfig& base) {
    AttentionConfig c = base;
    c.mask = MaskKind::Causal;
    c.padding_lengths.clear();
    c.custom_keep.clear();
    const AttentionInputs in = make_inputs(c);
    const AttentionWeights wts = make_weights(c);
    MistakeResult r;
    r.correct = run_trace(c, in, wts);
    const Trace& tr = r.correct;
    const std::string fill = c.mask_fill == MaskFill::NegInf ? "float('-inf')" : "-1e9";
    const MistakeContext x{c, in, wts, tr, c.batch, c.heads, c.L_q(), c.L_kv(), c.d_k(), c.d_v(), c.d_model,
                           static_cast<long>(c.L_q()) * c.L_kv(), fill, tr[TensorId::Mask]};
    r.spec = &m;
    r.key = m.key;
    r.title = m.title;
    r.buggy_line = with_fill(m.buggy_line, fill);
    r.correct_line = with_fill(m.correct_line, fill);
    m.run(x, r);
    if (!r.runs) return r;
    measure(x, r);
    // Every row holds a NaN (e.g. a key masked for every query, normalised on its own).
    if (r.rows_without_nan == 0) r.symptom = with_nan_note(Msg(Str::exp_mistake_all_rows_nan, fill), r);
    else r.symptom = m.symptom(x, r);
    return r;
}

}  // namespace lab
