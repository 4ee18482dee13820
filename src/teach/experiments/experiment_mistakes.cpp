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
#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <limits>

#include "attention/attention.h"
#include "attention/positional_encoding.h"
#include "teach/experiments/experiments.h"

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
    const Tensor& keep;     // (L_q, L_kv): the mask the mistake runs with (causal for most)
    int short_len;          // the length a mask built for the wrong sequence has (MistakeOptions)
};


namespace {

constexpr int kHardCodedDk = 128;  // as copied from a d_model = 1024, h = 8 model

// The length a mask built for the wrong sequence has unless the learner picks one: half the
// keys (10 -> 5), or 2 more when half would be below 2 (a length of 1 would broadcast without an error).
int wrong_mask_length(int L_kv) { return L_kv >= 4 ? L_kv / 2 : L_kv + 2; }

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
    long rows = 0, nan = 0, nan_rows = 0;  // rows without NaN; NaN values; rows of only NaN
};
RowStats row_stats(const Floats& w, int rows_total, int Lq, int Lkv) {
    RowStats s;
    s.min_sum = std::numeric_limits<double>::infinity();
    s.max_sum = -s.min_sum;
    for (int r = 0; r < rows_total; ++r) {
        const float* row = w.data() + static_cast<long>(r) * Lkv;
        const int i = r % Lq;
        double sum = 0, future = 0, mx = 0;
        bool finite = true;
        int nan = 0;
        for (int j = 0; j < Lkv; ++j) {
            if (std::isnan(row[j])) ++s.nan, ++nan, finite = false;
            sum += row[j];
            if (j > i) future += row[j];
            mx = std::fmax(mx, row[j]);
        }
        s.nan_rows += nan == Lkv;
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

// The line with the run's values written in for {fill}, {short}, {B}, {h}, {L_q}, {L_kv}, {d_model}.
std::string fill_in(const char* line, const MistakeContext& x) {
    const std::pair<const char*, std::string> values[] = {
        {"{fill}", x.fill}, {"{short}", std::to_string(x.short_len)}, {"{B}", std::to_string(x.B)},
        {"{h}", std::to_string(x.h)}, {"{L_q}", std::to_string(x.Lq)}, {"{L_kv}", std::to_string(x.Lkv)},
        {"{d_model}", std::to_string(x.d)}};
    std::string s = line;
    for (const auto& [key, value] : values)
        for (size_t at; (at = s.find(key)) != std::string::npos;) s.replace(at, std::string(key).size(), value);
    return s;
}

// The words in the registry's code comments, "{#key}": said in the reader's language.
struct CodeComment {
    const char* key;
    Str text;
    bool takes_mask_length;  // its text has a %d for the wrong mask's length
};
constexpr CodeComment kCodeComments[] = {
    {"over_keys", Str::exp_code_over_keys, false},         {"dim1_is_h", Str::exp_code_dim1_is_h, false},
    {"keep_hide", Str::exp_code_keep_hide, false},         {"same_kv", Str::exp_code_same_kv, false},
    {"dk_copied", Str::exp_code_dk_copied, false},         {"built_for", Str::exp_code_built_for, true},
    {"row_per_query", Str::exp_code_row_per_query, false}, {"already_2k", Str::exp_code_already_2k, false},
    {"section35", Str::exp_code_section35, false},         {"dk_written", Str::exp_code_dk_written, false},
    {"blocked_numpy", Str::exp_code_blocked_numpy, false}, {"or_masked_fill", Str::exp_code_or_masked_fill, false},
    {"cycles_groups", Str::exp_code_cycles_groups, false}, {"reads_its_group", Str::exp_code_reads_its_group, false},
};

// A registry line as the reader sees it: the run's values written in (fill_in), the code
// as it is, its comments' words from the string table.
Msg code_msg(const char* line, const MistakeContext& x) {
    const std::string s = fill_in(line, x);
    Msg out = Msg::literal("");
    size_t at = 0;
    for (size_t open; (open = s.find("{#", at)) != std::string::npos;) {
        const size_t close = s.find('}', open);
        out.then(Msg::literal(s.substr(at, open - at)));
        const std::string key = s.substr(open + 2, close - open - 2);
        for (const CodeComment& c : kCodeComments)
            if (key == c.key) out.then(c.takes_mask_length ? Msg(c.text, x.short_len) : Msg(c.text));
        at = close + 1;
    }
    out.then(Msg::literal(s.substr(at)));
    return out;
}

// ---- how the buggy lines run ---------------------------------------------------------

// A story line that runs and gives `shape`, or one PyTorch stops at with `error`.
MistakeStep ran(std::string code, std::vector<int> shape, int branch = 0, Msg note = {}) {
    return {std::move(code), std::move(shape), "", branch, std::move(note)};
}
MistakeStep raised(std::string code, std::string error, int branch = 0, Msg note = {}) {
    return {std::move(code), {}, std::move(error), branch, std::move(note)};
}

// The rest of the pipeline from buggy weights: weights @ V, concat, W^O.
void finish_from_weights(const MistakeContext& x, MistakeResult& r) {
    Floats ctx(static_cast<size_t>(x.B) * x.h * x.Lq * x.dv, 0.0f);
    context_from_weights(ctx.data(), r.weights.data.data(), x.tr[TensorId::VHeads].ptr(), x.B, x.h, x.Lq, x.Lkv, x.dv);
    r.output.data = output_from_context(ctx, x.tr);
}

// Attention on buggy per-slice q/k/v (B, h, L, d) with the correct mask, scale and fill.
void finish_from_heads(const MistakeContext& x, MistakeResult& r, const Floats& qh, const Floats& kh,
                       const Floats& vh) {
    r.weights.data.assign(static_cast<size_t>(x.B) * x.h * x.block, 0.0f);
    Floats ctx(static_cast<size_t>(x.B) * x.h * x.Lq * x.dv, 0.0f);
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
    const Floats& k = x.tr[TensorId::KHeads].data;
    Floats kt(k.size(), 0.0f);
    for (long s = 0; s < static_cast<long>(x.B) * x.h; ++s)
        for (int a = 0; a < x.Lkv; ++a)
            for (int b = 0; b < x.dk; ++b) kt[s * x.Lkv * x.dk + b * x.Lkv + a] = k[s * x.Lkv * x.dk + a * x.dk + b];
    finish_from_heads(x, r, x.tr[TensorId::QHeads].data, kt, x.tr[TensorId::VHeads].data);
}

// Grouped-query K and V repeated with .repeat (tiling): query head i gets group i % h_kv, where
// repeat_interleave gives it group i / (h / h_kv). Same shapes, no error.
void run_gqa_wrong_order(const MistakeContext& x, MistakeResult& r) {
    const int h_kv = x.c.h_kv();
    const long slice = static_cast<long>(x.Lkv) * x.dk;
    auto tiled = [&](const Floats& groups) {
        Floats heads(static_cast<size_t>(x.B) * x.h * slice);
        for (int b = 0; b < x.B; ++b)
            for (int head = 0; head < x.h; ++head) {
                const float* from = groups.data() + (static_cast<long>(b) * h_kv + head % h_kv) * slice;
                std::copy(from, from + slice, heads.begin() + (static_cast<long>(b) * x.h + head) * slice);
            }
        return heads;
    };
    finish_from_heads(x, r, x.tr[TensorId::QHeads].data, tiled(x.tr[TensorId::KGroups].data), tiled(x.tr[TensorId::VGroups].data));
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

// ---- the mistakes the tutorials warn about, and the claims they make ----------------------

// context.transpose(1, 2) is a strided view; .view() can merge h and d_v only when the
// transpose moved nothing (h == 1 or L_q == 1). Otherwise PyTorch refuses.
void run_view_without_contiguous(const MistakeContext& x, MistakeResult& r) {
    if (x.h == 1 || x.Lq == 1) {
        r.weights.data = x.tr[TensorId::Weights].data;
        r.output.data = x.tr[TensorId::Output].data;
        return;
    }
    r.runs = false;
    r.stops_at = "concat";
    r.error = "RuntimeError: view size is not compatible with input tensor's size and stride (at least one dimension "
              "spans across two contiguous subspaces). Use .reshape(...) instead.";
    r.symptom = Msg(Str::exp_mistake_view_contiguous_raises, x.B, x.h, x.Lq, x.dv, x.B, x.Lq, x.h, x.dv, x.Lq * x.dv, x.dv);
}

Msg say_view_without_contiguous(const MistakeContext& x, const MistakeResult&) {
    return Msg(Str::exp_mistake_view_contiguous_runs, x.h, x.Lq);
}

// A mask built for another length: broadcasting compares sizes from the last dimension
// back, so the keys (dimension 3), then the queries (dimension 2), must be equal or 1.
// PyTorch names the operands a and b in the order it takes them: the out-of-place
// masked_fill takes the mask first, masked_fill_ (in place) and scores + ... the scores.
std::string broadcast_error(int a, int b, int dim) {
    return fmt("RuntimeError: The size of tensor a (%d) must match the size of tensor b (%d) at non-singleton dimension %d",
               a, b, dim);
}

// The dimension (3, then 2) where an (n, n) mask clashes with (B, h, L_q, L_kv) scores; 0 if it broadcasts.
int mask_clash(int n, int Lq, int Lkv) {
    auto clash = [](int a, int b) { return a != b && a != 1 && b != 1; };
    return clash(n, Lkv) ? 3 : clash(n, Lq) ? 2 : 0;
}

// The mask line and what follows it (softmax, weights @ v, the concat's view), line by line
// up to PyTorch's first error. A mask that broadcasts can still change the shapes: with one
// key it widens the scores (weights @ v fails), with one query it adds rows (the concat fails).
void run_mask_wrong_length(const MistakeContext& x, MistakeResult& r) {
    const int n = r.mask_length = x.short_len, dim = mask_clash(n, x.Lq, x.Lkv);
    const int rows = std::max(x.Lq, n), cols = std::max(x.Lkv, n);  // the scores after broadcasting
    r.story = {ran(fill_in("mask = torch.tril(torch.ones({short}, {short}))", x), {n, n})};
    const std::string masked = fill_in("scores = scores.masked_fill(mask == 0, {fill})", x);
    auto stop = [&](const char* stage, std::string code, std::string error) {
        r.runs = false, r.stops_at = stage, r.error = error;
        r.story.push_back(raised(std::move(code), std::move(error)));
    };
    if (dim) {
        const int L = dim == 3 ? x.Lkv : x.Lq;
        stop("mask", masked, broadcast_error(n, L, dim));
        r.story.push_back(raised(fill_in("scores.masked_fill_(mask == 0, {fill})", x), broadcast_error(L, n, dim), 1,
                                 Msg(Str::exp_mistake_mask_story_inplace)));
        r.story.push_back(raised("scores = scores + (1 - mask) * -1e9", broadcast_error(L, n, dim), 2,
                                 Msg(Str::exp_mistake_mask_story_additive)));
        r.symptom = Msg(dim == 3 ? Str::exp_mistake_mask_length_raises : Str::exp_mistake_mask_length_raises_rows, n, n,
                        x.B, x.h, x.Lq, x.Lkv, broadcast_error(L, n, dim));
        return;
    }
    r.story.push_back(ran(masked, {x.B, x.h, rows, cols}));
    r.story.push_back(ran("weights = scores.softmax(dim=-1)", {x.B, x.h, rows, cols}));
    if (cols != x.Lkv) {
        stop("context", "context = weights @ v",
             fmt("RuntimeError: Expected size for first two dimensions of batch2 tensor to be: [%d, %d] but got: [%d, %d].",
                 x.B * x.h, n, x.B * x.h, x.Lkv));
        r.symptom = Msg(Str::exp_mistake_mask_length_broadcasts, n, n, x.B, x.h, rows, cols);
        return;
    }
    r.story.push_back(ran("context = weights @ v", {x.B, x.h, rows, x.dv}));
    const std::string concat = "x = context.transpose(1, 2).contiguous().view(B, L_q, h * d_v)";
    if (rows != x.Lq) {
        stop("concat", concat,
             fmt("RuntimeError: shape '[%d, %d, %d]' is invalid for input of size %ld", x.B, x.Lq, x.h * x.dv,
                 static_cast<long>(x.B) * rows * x.h * x.dv));
        r.symptom = Msg(Str::exp_mistake_mask_length_adds_rows, n, n, x.B, x.h, rows, cols);
        return;
    }
    r.story.push_back(ran(concat, {x.B, x.Lq, x.h * x.dv}));
    // It runs: a (1, 1) mask hides nothing; n = L_q = L_kv is the right mask.
    AttentionConfig cb = x.c;
    if (n == 1) cb.mask = MaskKind::None;
    run_changed(x, r, cb);
}

Msg say_mask_wrong_length(const MistakeContext& x, const MistakeResult& r) {
    if (x.short_len == 1 && x.Lkv > 1) return Msg(Str::exp_mistake_mask_length_one, pct(r.future_weight), pct(r.output_diff));
    return Msg(Str::exp_mistake_mask_length_right, x.short_len, pct(r.output_diff));
}

// §3.5 with the exponent written twice: 10000^(2i/d_model) where i already counts 0, 2, 4, ...
void pe_with_exponent_twice(float* out, int len, int d) {
    for (int pos = 0; pos < len; ++pos)
        for (int col = 0; col < d; col += 2) {
            const double angle = pos / std::pow(10000.0, 2.0 * col / d);
            out[static_cast<long>(pos) * d + col] = static_cast<float>(std::sin(angle));
            if (col + 1 < d) out[static_cast<long>(pos) * d + col + 1] = static_cast<float>(std::cos(angle));
        }
}

// Both tables over the longer sequence's positions.
struct PeTables {
    int len = 0;
    std::vector<float> right, wrong;
};
PeTables pe_tables(const MistakeContext& x) {
    PeTables t;
    t.len = std::max(x.Lq, x.Lkv);
    t.right.resize(static_cast<size_t>(t.len) * x.d), t.wrong.resize(t.right.size());
    sinusoidal_positional_encoding(t.right.data(), t.len, x.d);
    pe_with_exponent_twice(t.wrong.data(), t.len, x.d);
    return t;
}

// The same x, memory and weights with the wrong table added (when PE is on at all).
void run_pe_exponent_twice(const MistakeContext& x, MistakeResult& r) {
    if (!x.c.pe) return run_changed(x, r, x.c);
    const PeTables t = pe_tables(x);
    AttentionInputs in = x.in;
    for (Tensor* seq : {&in.x, &in.memory})
        for (size_t at = 0; at < seq->data.size(); ++at)
            seq->data[at] += t.wrong[at % (static_cast<size_t>(seq->shape[1]) * x.d)];
    AttentionConfig no_pe = x.c;
    no_pe.pe = false;  // the wrong table is in the inputs already
    const Trace bug = run_trace(no_pe, in, x.w);
    r.weights.data = bug[TensorId::Weights].data;
    r.output.data = bug[TensorId::Output].data;
}

Msg say_pe_exponent_twice(const MistakeContext& x, const MistakeResult& r) {
    const PeTables t = pe_tables(x);
    double gap = 0;
    for (size_t i = 0; i < t.right.size(); ++i) gap = std::fmax(gap, std::fabs(double(t.right[i]) - t.wrong[i]));
    // Columns that barely move over these positions: their wavelength dwarfs the sequence.
    auto flat_columns = [&](const std::vector<float>& pe) {
        int flat = 0;
        for (int col = 0; col < x.d; ++col) {
            float lo = pe[col], hi = pe[col];
            for (int pos = 1; pos < t.len; ++pos) lo = std::fmin(lo, pe[pos * x.d + col]), hi = std::fmax(hi, pe[pos * x.d + col]);
            flat += hi - lo < 0.01f;
        }
        return flat;
    };
    const double longest = 6.283185307179586 * std::pow(10000.0, 2.0 * (x.d - 2 + x.d % 2) / x.d);
    Msg m(Str::exp_mistake_pe_twice_symptom, gap, t.len, x.d, flat_columns(t.wrong), flat_columns(t.right), x.d, longest);
    m.then(x.c.pe ? Msg(Str::exp_mistake_pe_twice_output, pct(r.output_diff)) : Msg(Str::exp_mistake_pe_twice_off));
    return m;
}

// view(batch, -1, h, 128): -1 takes whatever length makes the sizes fit. When L·d_model is a
// multiple of h·128 it runs, with L' = L·d_model / (h·128) "positions" cut across tokens.
int inferred_length(int L, int d, int h) { return (static_cast<long>(L) * d) % (static_cast<long>(h) * kHardCodedDk) ? -1 : L * d / (h * kHardCodedDk); }

std::string infer_view_error(const MistakeContext& x, int L) {
    return fmt("RuntimeError: shape '[%d, -1, %d, %d]' is invalid for input of size %ld", x.B, x.h, kHardCodedDk,
               static_cast<long>(x.B) * L * x.d);
}

// Tutorial 000's MultiHeadAttention (no mask) with d_k written as 128, line by line to the
// first error. Its own concat, view(batch, -1, self.d_model), gives (B, L, d_model) back, so
// W_o runs; the 1024-wide concat its text describes is view(batch, -1, self.h * 128), and
// there nn.Linear(d_model, d_model) refuses (mat2 is its weight transposed: d_model x d_model).
std::vector<MistakeStep> story_view_infers_length(const MistakeContext& x, int Lq2, int Lkv2) {
    std::vector<MistakeStep> s;
    const int dk = kHardCodedDk, wide = x.h * kHardCodedDk;
    const char* const splits[] = {"q = self.W_q(query).view(batch, -1, self.h, 128).transpose(1, 2)",
                                  "k = self.W_k(key).view(batch, -1, self.h, 128).transpose(1, 2)",
                                  "v = self.W_v(value).view(batch, -1, self.h, 128).transpose(1, 2)"};
    for (int i = 0; i < 3; ++i) {
        const int L = i ? x.Lkv : x.Lq, L2 = i ? Lkv2 : Lq2;
        if (L2 < 0) return s.push_back(raised(splits[i], infer_view_error(x, L))), s;
        s.push_back(ran(splits[i], {x.B, x.h, L2, dk}));
    }
    s.push_back(ran("attn = F.softmax(q @ k.transpose(-2, -1) / math.sqrt(128), dim=-1)", {x.B, x.h, Lq2, Lkv2}));
    s.push_back(ran("out = attn @ v", {x.B, x.h, Lq2, dk}));
    s.push_back(ran("out = out.transpose(1, 2).contiguous().view(batch, -1, self.d_model)", {x.B, x.Lq, x.d}));
    s.push_back(ran("return self.W_o(out), attn", {x.B, x.Lq, x.d}));
    if (wide == x.d) return s;  // d_model / h is 128: both concats are the same
    s.push_back(ran("out = out.transpose(1, 2).contiguous().view(batch, -1, self.h * 128)", {x.B, Lq2, wide}, 1,
                    Msg(Str::exp_mistake_infer_story_wide, wide)));
    s.push_back(raised("return self.W_o(out), attn",
                       fmt("RuntimeError: mat1 and mat2 shapes cannot be multiplied (%ldx%d and %dx%d)",
                           static_cast<long>(x.B) * Lq2, wide, x.d, x.d),
                       1));
    return s;
}

void run_view_infers_length(const MistakeContext& x, MistakeResult& r) {
    const int Lq2 = inferred_length(x.Lq, x.d, x.h), Lkv2 = inferred_length(x.Lkv, x.d, x.h);
    r.story = story_view_infers_length(x, Lq2, Lkv2);
    if (Lq2 < 0 || Lkv2 < 0) {
        r.runs = false;
        r.stops_at = "split_heads";
        const int L = Lq2 < 0 ? x.Lq : x.Lkv;
        r.error = infer_view_error(x, L);
        r.symptom = Msg(Str::exp_mistake_infer_length_raises, L, x.d, static_cast<long>(L) * x.d, x.h * kHardCodedDk);
        return;
    }
    // (B, L, d_model) memory read as (B, L', h, 128), then transpose(1, 2): split_heads with d_k = 128.
    const int dk = kHardCodedDk;
    std::vector<float> qh(x.tr[TensorId::Q].size()), kh(x.tr[TensorId::K].size()), vh(kh.size());
    split_heads(qh.data(), x.tr[TensorId::Q].ptr(), x.B, Lq2, x.h, dk);
    split_heads(kh.data(), x.tr[TensorId::K].ptr(), x.B, Lkv2, x.h, dk);
    split_heads(vh.data(), x.tr[TensorId::V].ptr(), x.B, Lkv2, x.h, dk);
    const long block = static_cast<long>(Lq2) * Lkv2;
    r.weights.data.assign(static_cast<size_t>(x.B) * x.h * block, 0.0f);
    r.weights.shape = {x.B, x.h, Lq2, Lkv2};
    std::vector<float> ctx(qh.size()), concat(qh.size());
    for (long s = 0; s < static_cast<long>(x.B) * x.h; ++s) {
        const SdpaOutputs o{nullptr, nullptr, nullptr, r.weights.data.data() + s * block, ctx.data() + s * Lq2 * dk};
        scaled_dot_product_attention(o, qh.data() + s * Lq2 * dk, kh.data() + s * Lkv2 * dk, vh.data() + s * Lkv2 * dk,
                                     nullptr, Lq2, Lkv2, dk, dk, SdpaOptions{x.c.scale, x.c.mask_fill, nullptr});
    }
    // transpose(1, 2).contiguous().view(batch, -1, d_model): (B, L', h·128) is (B, L, d_model) again.
    concat_heads(concat.data(), ctx.data(), x.B, x.h, Lq2, dk);
    r.output.data.assign(static_cast<size_t>(x.B) * x.Lq * x.d, 0.0f);
    linear(r.output.data.data(), concat.data(), x.tr[TensorId::WO].ptr(), x.tr[TensorId::BO].ptr(), x.B * x.Lq, x.d, x.d);
}

Msg say_view_infers_length(const MistakeContext& x, const MistakeResult& r) {
    if (x.dk == kHardCodedDk) return Msg(Str::exp_mistake_infer_length_same, pct(r.output_diff));
    const int Lq2 = r.weights.shape[2];
    return Msg(Str::exp_mistake_infer_length_symptom, x.B, x.h, Lq2, kHardCodedDk, Lq2, x.Lq, x.B, x.h, Lq2,
               r.weights.shape[3], x.B, x.h, x.Lq, x.Lkv, x.B, x.Lq, x.d, pct(r.output_diff));
}

// The claim's numbers come from the story: the wide concat's shape and W_o's error.
Msg claim_view_infers_length(const MistakeContext& x, const MistakeResult& r) {
    if (!r.runs) return Msg(Str::exp_claim_dk_128_raises_here, x.Lq, x.d, x.h * kHardCodedDk);
    Msg m(Str::exp_claim_dk_128_runs, x.B, x.h, r.weights.shape[2], r.weights.shape[3], x.B, x.Lq, x.d);
    if (r.story.back().branch == 1) {
        const MistakeStep& concat = r.story[r.story.size() - 2];
        m.then(Msg(Str::exp_claim_dk_128_wide, concat.shape[0], concat.shape[1], concat.shape[2], concat.shape[2], x.d, x.d,
                   r.story.back().error));
    }
    return m;
}

// The NumPy tutorial's additive mask (1 = blocked) fed the causal keep mask (1 = keep).
void run_additive_mask_convention(const MistakeContext& x, MistakeResult& r) {
    r.weights.data = x.tr[TensorId::Scaled].data;
    for (long s = 0; s < static_cast<long>(x.B) * x.h; ++s)
        for (long e = 0; e < x.block; ++e) r.weights.data[s * x.block + e] += x.keep.data[e] * -1e9f;
    for (long row = 0; row < static_cast<long>(x.B) * x.h * x.Lq; ++row)
        softmax_strided(r.weights.data.data() + row * x.Lkv, x.Lkv, 1);
    finish_from_weights(x, r);
}

Msg say_additive_mask_convention(const MistakeContext& x, const MistakeResult& r) {
    Msg m(Str::exp_mistake_additive_symptom, pct(r.future_weight), pct(r.output_diff));
    if (x.Lkv <= x.Lq) m.then(Msg(Str::exp_mistake_additive_last_row, x.Lkv));
    return m;
}

Msg say_gqa_wrong_order(const MistakeContext& x, const MistakeResult& r) {
    const int h_kv = x.c.h_kv(), n = x.h / h_kv;
    int wrong = 0;
    for (int head = 0; head < x.h; ++head) wrong += head % h_kv != head / n;
    return with_nan_note(Msg(Str::exp_mistake_gqa_order_symptom, x.B, x.h, x.Lkv, x.dk, wrong, x.h, h_kv, n, pct(r.output_diff)), r);
}

// Tutorial 000 quotes a view error for a view that runs.
Msg claim_wrong_split_view(const MistakeContext& x, const MistakeResult& r) {
    const long size = static_cast<long>(x.B) * x.Lq * x.d;
    return Msg(Str::exp_claim_view_runs, x.B, x.Lq, x.d, size, x.B, x.Lq, x.h, x.dk, x.B, x.h, x.Lq, x.dk, pct(r.output_diff),
               x.B, x.Lq, x.h, 2 * x.dk, size);
}

// Tutorial 002 says softmax(dim=1) raises IndexError.
Msg claim_softmax_over_heads(const MistakeContext& x, const MistakeResult& r) {
    return Msg(Str::exp_claim_softmax_dim1, x.h, r.min_row_sum, r.max_row_sum);
}

// Tutorial 001 says masked_fill(mask == 1, ...) makes every weight NaN.
Msg claim_inverted_mask(const MistakeContext& x, const MistakeResult& r) {
    const long rows = static_cast<long>(x.B) * x.h * x.Lq;
    return Msg(x.c.mask_fill == MaskFill::NegInf ? Str::exp_claim_inverted_nan : Str::exp_claim_inverted_1e9, r.nan_rows, rows);
}

// ---- the registry ----------------------------------------------------------------------

const std::vector<MistakeSpec> kMistakes = {
    {"softmax_wrong_axis", Str::exp_mistake_softmax_wrong_axis_title, "weights = scores.softmax(dim=-2)",
     "weights = scores.softmax(dim=-1)   # {#over_keys}", run_softmax_wrong_axis, say_softmax_wrong_axis},
    {"softmax_over_heads", Str::exp_mistake_softmax_over_heads_title,
     "weights = F.softmax(scores, dim=1)   # scores: (B, h, L_q, L_kv){#dim1_is_h}",
     "weights = F.softmax(scores, dim=-1)", run_softmax_over_heads, say_softmax_over_heads, claim_softmax_over_heads},
    {"no_scaling", Str::exp_mistake_no_scaling_title, "scores = q @ k.transpose(-2, -1)",
     "scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)", run_no_scaling, say_no_scaling},
    {"inverted_mask", Str::exp_mistake_inverted_mask_title, "scores = scores.masked_fill(mask == 1, {fill})",
     "scores = scores.masked_fill(mask == 0, {fill})   # {#keep_hide}", run_inverted_mask, say_inverted_mask,
     claim_inverted_mask},
    {"mask_after_softmax", Str::exp_mistake_mask_after_softmax_title,
     "weights = scores.softmax(dim=-1).masked_fill(mask == 0, 0)",
     "weights = scores.masked_fill(mask == 0, {fill}).softmax(dim=-1)", run_mask_after_softmax, say_mask_after_softmax},
    {"wrong_split_view", Str::exp_mistake_wrong_split_view_title, "q = q.view(B, h, L, d_k)   # {#same_kv}",
     "q = q.view(B, L, h, d_k).transpose(1, 2)", run_wrong_split_view, say_wrong_split_view, claim_wrong_split_view},
    {"concat_without_transpose", Str::exp_mistake_concat_without_transpose_title,
     "x = context.view(B, L, h * d_v)   # context: (B, h, L, d_v)",
     "x = context.transpose(1, 2).contiguous().view(B, L, h * d_v)", run_concat_without_transpose,
     say_concat_without_transpose},
    {"hard_coded_dk", Str::exp_mistake_hard_coded_dk_title,
     "q = q.view(B, L, h, 128).transpose(1, 2)   # {#dk_copied}",
     "q = q.view(B, L, h, d_model // h).transpose(1, 2)", run_hard_coded_dk, say_hard_coded_dk},
    {"k_instead_of_kt", Str::exp_mistake_k_instead_of_kt_title, "scores = q @ k / math.sqrt(d_k)",
     "scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)", run_k_instead_of_kt, say_k_instead_of_kt},
    {"view_without_contiguous", Str::exp_mistake_view_contiguous_title,
     "x = context.transpose(1, 2).view(B, L, h * d_v)   # context: (B, h, L, d_v)",
     "x = context.transpose(1, 2).contiguous().view(B, L, h * d_v)", run_view_without_contiguous,
     say_view_without_contiguous},
    {"mask_wrong_length", Str::exp_mistake_mask_length_title,
     "mask = torch.tril(torch.ones({short}, {short}))   # {#built_for}\n"
     "scores = scores.masked_fill(mask == 0, {fill})   # scores: ({B}, {h}, {L_q}, {L_kv})",
     "mask = torch.tril(torch.ones(L_q, L_kv))   # {#row_per_query}", run_mask_wrong_length, say_mask_wrong_length},
    {"pe_exponent_twice", Str::exp_mistake_pe_twice_title,
     "for i in range(0, d_model, 2):\n    denom = 10000 ** (2 * i / d_model)   # {#already_2k}",
     "for i in range(0, d_model, 2):\n    denom = 10000 ** (i / d_model)   # 10000^(2k / d_model){#section35}",
     run_pe_exponent_twice, say_pe_exponent_twice},
    {"view_infers_length", Str::exp_mistake_infer_length_title,
     "q = self.W_q(query).view(batch, -1, self.h, 128).transpose(1, 2)   # {#dk_written}",
     "q = self.W_q(query).view(batch, -1, self.h, self.d_model // self.h).transpose(1, 2)", run_view_infers_length,
     say_view_infers_length, claim_view_infers_length, MaskKind::None},
    {"additive_mask_convention", Str::exp_mistake_additive_title,
     "scores = scores + mask * -1e9   # {#blocked_numpy}",
     "scores = scores + (1 - mask) * -1e9   # {#or_masked_fill}", run_additive_mask_convention,
     say_additive_mask_convention},
    {"gqa_wrong_order", Str::exp_mistake_gqa_order_title,
     "k = k_groups.repeat(1, h // h_kv, 1, 1)   # {#cycles_groups}\nv = v_groups.repeat(1, h // h_kv, 1, 1)",
     "k = k_groups.repeat_interleave(h // h_kv, dim=1)   # {#reads_its_group}\nv = v_groups.repeat_interleave(h // h_kv, dim=1)",
     run_gqa_wrong_order, say_gqa_wrong_order, nullptr, MaskKind::Causal, true},
};

// A grouped mistake's sizes: the base's heads when they make two groups of two or more (h even,
// at least 4, dividing d_model), else the nearest such h, else d_model 8 with h 4; h_kv = h / 2.
void use_two_groups(AttentionConfig& c) {
    c.raw = false;
    for (int h = std::max(4, c.heads); h <= c.d_model; ++h)
        if (h % 2 == 0 && c.d_model % h == 0) {
            c.heads = h, c.kv_heads = h / 2;
            return;
        }
    c.d_model = std::max(8, (c.d_model + 3) / 4 * 4), c.heads = 4, c.kv_heads = 2;
}

// The buggy run's numbers against the correct run's.
void measure(const MistakeContext& x, MistakeResult& r) {
    // A run may give weights of another shape (a view that changed the length): it says so.
    if (r.weights.shape.empty()) r.weights.shape = {x.B, x.h, x.Lq, x.Lkv};
    const int Lq = r.weights.shape[2], Lkv = r.weights.shape[3];
    const RowStats bs = row_stats(r.weights.data, x.B * x.h * Lq, Lq, Lkv);
    const RowStats cs = row_stats(x.tr[TensorId::Weights].data, x.B * x.h * x.Lq, x.Lq, x.Lkv);
    r.max_row_sum_error = bs.max_sum_error;
    r.min_row_sum = bs.min_sum, r.max_row_sum = bs.max_sum, r.rows_without_nan = bs.rows;
    r.future_weight = bs.future;
    r.mean_max_weight = bs.mean_max;
    r.correct_mean_max_weight = cs.mean_max;
    r.nan_weights = bs.nan;
    r.nan_rows = bs.nan_rows;
    r.nan_outputs = count_nan(r.output.data);
    r.output_diff = relative_diff(r.output.data, x.tr[TensorId::Output].data);
    r.weights.name = "weights", r.weights.dims = {"B", "h", "L_q", "L_kv"};
    r.output.name = "output", r.output.shape = {x.B, x.Lq, x.d}, r.output.dims = {"B", "L_q", "d_model"};
}

}  // namespace

const std::vector<MistakeSpec>& mistakes() { return kMistakes; }

const MistakeSpec* find_mistake(const std::string& key) {
    for (const MistakeSpec& m : kMistakes)
        if (key == m.key) return &m;
    return nullptr;
}

int mistake_mask_length(const MistakeOptions& o, int L_kv) { return o.mask_length > 0 ? o.mask_length : wrong_mask_length(L_kv); }

const KeyTable<MistakeOptions>& mistake_option_keys() {
    using O = MistakeOptions;
    // In a link only when the learner chose a length (0 follows the keys).
    static const KeyTable<O> table{{
        whole<&O::mask_length>("mask_len", 0, &ConfigLimits::max_len).hashed_when([](const void* o) {
            return static_cast<const O*>(o)->mask_length > 0;
        }),
    }};
    return table;
}

MistakeResult run_mistake(const MistakeSpec& m, const AttentionConfig& base, const MistakeOptions& options) {
    AttentionConfig c = base;
    c.mask = m.mask;
    c.kv_heads = 0;  // the mistakes are in plain multi-head code: K and V have h heads of their own ...
    if (m.grouped) use_two_groups(c);  // ... but the grouped-query one
    c.padding_lengths.clear();
    c.custom_keep.clear();
    const AttentionInputs in = make_inputs(c);
    const AttentionWeights wts = make_weights(c);
    MistakeResult r;
    r.correct = run_trace(c, in, wts);
    const Trace& tr = r.correct;
    const std::string fill = c.mask_fill == MaskFill::NegInf ? "float('-inf')" : "-1e9";
    const MistakeContext x{c, in, wts, tr, c.batch, c.heads, c.L_q(), c.L_kv(), c.d_k(), c.d_v(), c.d_model,
                           static_cast<long>(c.L_q()) * c.L_kv(), fill, tr[TensorId::Mask],
                           mistake_mask_length(options, c.L_kv())};
    r.spec = &m;
    r.key = m.key;
    r.title = m.title;
    r.buggy_line = code_msg(m.buggy_line, x);
    r.correct_line = code_msg(m.correct_line, x);
    m.run(x, r);
    if (r.runs) {
        measure(x, r);
        // Every row holds a NaN (e.g. a key masked for every query, normalised on its own).
        if (r.rows_without_nan == 0) r.symptom = with_nan_note(Msg(Str::exp_mistake_all_rows_nan, fill), r);
        else r.symptom = m.symptom(x, r);
    }
    if (m.claim) r.claim = m.claim(x, r);
    return r;
}

}  // namespace lab
