// experiment_mistakes.cpp — Attention Lab core: the bugs learners write, run for real.
//
// Each mistake is computed explicitly from the correct trace's own tensors (scores,
// masked, q/k/v, q_heads/k_heads/v_heads, context, W^O), then pushed through the rest
// of the pipeline with the core's functions (scaled_dot_product_attention, concat_heads,
// linear), and compared with the correct run. Shape errors report the RuntimeError
// PyTorch 1.13 (Debian's python3-torch 1.13.0a0) raises for the same shapes; the formats
// were checked by running the buggy lines in torch (see tests/test_experiments.cpp).
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <limits>

#include "attention.h"
#include "experiments.h"
#include "i18n.h"

namespace lab {

using namespace experiment_detail;

namespace {

constexpr int kHardCodedDk = 128;  // as copied from a d_model = 1024, h = 8 model

// For PyTorch's error messages (English, as PyTorch prints them); the learner's texts
// go through trf (core/i18n.h).
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

std::string fill_literal(MaskFill f) { return f == MaskFill::NegInf ? "float('-inf')" : "-1e9"; }

}  // namespace

std::vector<Mistake> all_mistakes() {
    return {Mistake::SoftmaxWrongAxis, Mistake::SoftmaxOverHeads,      Mistake::NoScaling,
            Mistake::InvertedMask,     Mistake::MaskAfterSoftmax,      Mistake::WrongSplitView,
            Mistake::ConcatWithoutTranspose, Mistake::HardCodedDk,     Mistake::KInsteadOfKT};
}

MistakeResult run_mistake(Mistake m, const AttentionConfig& base) {
    AttentionConfig c = base;
    c.mask = MaskKind::Causal;
    c.padding_lengths.clear();
    c.custom_keep.clear();
    const AttentionInputs in = make_inputs(c);
    const AttentionWeights wts = make_weights(c);

    MistakeResult r;
    r.mistake = m;
    r.correct = run_trace(c, in, wts);
    const Trace& tr = r.correct;  // shadows lab::tr(Str): texts below call lab::tr explicitly
    const int B = c.batch, h = c.heads, Lq = c.L_q(), Lkv = c.L_kv(), dk = c.d_k(), dv = c.d_v(), d = c.d_model;
    const long score_block = static_cast<long>(Lq) * Lkv;
    const int rows_total = B * h * Lq;
    const std::string fill = fill_literal(c.mask_fill);
    auto T = [&](const char* name) -> const Tensor& { return *tr.find(name); };
    const Tensor& keep = T("mask");  // (L_q, L_kv): causal

    std::vector<float> bug_weights, bug_output;  // filled by the mistakes that run

    // The rest of the pipeline from buggy weights: weights @ V, concat, W^O.
    auto finish_from_weights = [&]() {
        std::vector<float> ctx(static_cast<size_t>(B) * h * Lq * dv);
        context_from_weights(ctx.data(), bug_weights.data(), T("v_heads").ptr(), B, h, Lq, Lkv, dv);
        bug_output = output_from_context(ctx, tr);
    };
    // Attention on buggy per-slice q/k/v (B, h, L, d) with the correct mask, scale and fill.
    auto finish_from_heads = [&](const std::vector<float>& qh, const std::vector<float>& kh, const std::vector<float>& vh) {
        bug_weights.assign(static_cast<size_t>(B) * h * score_block, 0.0f);
        std::vector<float> ctx(static_cast<size_t>(B) * h * Lq * dv);
        for (long s = 0; s < static_cast<long>(B) * h; ++s) {
            SdpaOutputs o;
            o.weights = bug_weights.data() + s * score_block;
            o.context = ctx.data() + s * Lq * dv;
            scaled_dot_product_attention(o, qh.data() + s * Lq * dk, kh.data() + s * Lkv * dk, vh.data() + s * Lkv * dv,
                                         keep.ptr(), Lq, Lkv, dk, dv, SdpaOptions{c.scale, c.mask_fill, nullptr});
        }
        bug_output = output_from_context(ctx, tr);
    };

    switch (m) {
        case Mistake::SoftmaxWrongAxis: {
            r.key = "softmax_wrong_axis";
            r.title = lab::tr(Str::exp_mistake_softmax_wrong_axis_title);
            r.buggy_line = "weights = scores.softmax(dim=-2)";
            r.correct_line = "weights = scores.softmax(dim=-1)   # over the keys";
            bug_weights = T("masked").data;
            for (long s = 0; s < static_cast<long>(B) * h; ++s)
                for (int j = 0; j < Lkv; ++j) softmax_strided(bug_weights.data() + s * score_block + j, Lq, Lkv);
            finish_from_weights();
            break;
        }
        case Mistake::SoftmaxOverHeads: {
            r.key = "softmax_over_heads";
            r.title = lab::tr(Str::exp_mistake_softmax_over_heads_title);
            r.buggy_line = "weights = F.softmax(scores, dim=1)   # scores: (B, h, L_q, L_kv), dim 1 is h";
            r.correct_line = "weights = F.softmax(scores, dim=-1)";
            bug_weights = T("masked").data;
            for (int b = 0; b < B; ++b)
                for (long e = 0; e < score_block; ++e) softmax_strided(bug_weights.data() + b * h * score_block + e, h, score_block);
            finish_from_weights();
            break;
        }
        case Mistake::NoScaling: {
            r.key = "no_scaling";
            r.title = lab::tr(Str::exp_mistake_no_scaling_title);
            r.buggy_line = "scores = q @ k.transpose(-2, -1)";
            r.correct_line = "scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)";
            AttentionConfig cb = c;
            cb.scale = false;
            const Trace bug = run_trace(cb, in, wts);
            bug_weights = bug.find("weights")->data;
            bug_output = bug.find("output")->data;
            break;
        }
        case Mistake::InvertedMask: {
            r.key = "inverted_mask";
            r.title = lab::tr(Str::exp_mistake_inverted_mask_title);
            r.buggy_line = "scores = scores.masked_fill(mask == 1, " + fill + ")";
            r.correct_line = "scores = scores.masked_fill(mask == 0, " + fill + ")   # mask: 1 keep, 0 hide";
            // Filling where the causal mask is 1 keeps exactly the cells it hides: j > i.
            AttentionConfig cb = c;
            cb.mask = MaskKind::Custom;
            cb.custom_keep.resize(static_cast<size_t>(score_block));
            for (long e = 0; e < score_block; ++e) cb.custom_keep[e] = keep.data[e] == 0.0f;
            const Trace bug = run_trace(cb, in, wts);
            bug_weights = bug.find("weights")->data;
            bug_output = bug.find("output")->data;
            break;
        }
        case Mistake::MaskAfterSoftmax: {
            r.key = "mask_after_softmax";
            r.title = lab::tr(Str::exp_mistake_mask_after_softmax_title);
            r.buggy_line = "weights = scores.softmax(dim=-1).masked_fill(mask == 0, 0)";
            r.correct_line = "weights = scores.masked_fill(mask == 0, " + fill + ").softmax(dim=-1)";
            AttentionConfig cb = c;
            cb.mask = MaskKind::None;  // softmax of the unmasked scaled scores
            const Trace unmasked = run_trace(cb, in, wts);
            bug_weights = unmasked.find("weights")->data;
            r.pre_mask_future_weight = row_stats(bug_weights, rows_total, Lq, Lkv).future;
            for (long s = 0; s < static_cast<long>(B) * h; ++s)
                for (long e = 0; e < score_block; ++e)
                    if (keep.data[e] == 0.0f) bug_weights[s * score_block + e] = 0.0f;
            finish_from_weights();
            break;
        }
        case Mistake::WrongSplitView: {
            r.key = "wrong_split_view";
            r.title = lab::tr(Str::exp_mistake_wrong_split_view_title);
            r.buggy_line = "q = q.view(B, h, L, d_k)   # same for k, v";
            r.correct_line = "q = q.view(B, L, h, d_k).transpose(1, 2)";
            // (B, L, d_model) memory read as (B, h, L, d_k): the same flat data, no reordering.
            finish_from_heads(T("q").data, T("k").data, T("v").data);
            break;
        }
        case Mistake::ConcatWithoutTranspose: {
            r.key = "concat_without_transpose";
            r.title = lab::tr(Str::exp_mistake_concat_without_transpose_title);
            r.buggy_line = "x = context.view(B, L, h * d_v)   # context: (B, h, L, d_v)";
            r.correct_line = "x = context.transpose(1, 2).contiguous().view(B, L, h * d_v)";
            bug_weights = T("weights").data;
            // (B, h, L, d_v) memory read as (B, L, h·d_v): the same flat data.
            bug_output.assign(static_cast<size_t>(B) * Lq * d, 0.0f);
            linear(bug_output.data(), T("context").ptr(), T("w_o").ptr(), T("b_o").ptr(), B * Lq, h * dv, d);
            break;
        }
        case Mistake::HardCodedDk: {
            r.key = "hard_coded_dk";
            r.title = lab::tr(Str::exp_mistake_hard_coded_dk_title);
            r.buggy_line = "q = q.view(B, L, h, 128).transpose(1, 2)   # d_k = 128 copied from another model";
            r.correct_line = "q = q.view(B, L, h, d_model // h).transpose(1, 2)";
            if (dk != kHardCodedDk) {
                r.runs = false;
                r.stops_at = "split_heads";
                const long have = static_cast<long>(B) * Lq * d;
                const long need = static_cast<long>(B) * Lq * h * kHardCodedDk;
                r.error = fmt("RuntimeError: shape '[%d, %d, %d, %d]' is invalid for input of size %ld", B, Lq, h,
                              kHardCodedDk, have);
                r.symptom = trf(Str::exp_mistake_hard_coded_dk_raises, need, have, dk);
            } else {
                bug_weights = T("weights").data;
                bug_output = T("output").data;
            }
            break;
        }
        case Mistake::KInsteadOfKT: {
            r.key = "k_instead_of_kt";
            r.title = lab::tr(Str::exp_mistake_k_instead_of_kt_title);
            r.buggy_line = "scores = q @ k / math.sqrt(d_k)";
            r.correct_line = "scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)";
            if (Lkv != dk) {
                r.runs = false;
                r.stops_at = "scores";
                // 4-D matmul folds (B, h) into one batch dimension and calls bmm.
                r.error = fmt("RuntimeError: Expected size for first two dimensions of batch2 tensor to be: [%d, %d] "
                              "but got: [%d, %d].",
                              B * h, dk, B * h, Lkv);
                r.symptom =
                    trf(Str::exp_mistake_k_instead_of_kt_raises, B, h, Lq, dk, B, h, Lkv, dk, dk, Lkv);
            } else {
                // L_kv == d_k: q @ k = q @ (kᵀ)ᵀ, so the core's q·kᵀ gets each k slice transposed.
                const std::vector<float>& k = T("k_heads").data;
                std::vector<float> kt(k.size());
                for (long s = 0; s < static_cast<long>(B) * h; ++s)
                    for (int a = 0; a < Lkv; ++a)
                        for (int b = 0; b < dk; ++b) kt[s * Lkv * dk + b * Lkv + a] = k[s * Lkv * dk + a * dk + b];
                finish_from_heads(T("q_heads").data, kt, T("v_heads").data);
            }
            break;
        }
    }
    if (!r.runs) return r;

    // Symptoms against the correct run.
    const RowStats bs = row_stats(bug_weights, rows_total, Lq, Lkv);
    const RowStats cs = row_stats(T("weights").data, rows_total, Lq, Lkv);
    r.max_row_sum_error = bs.max_sum_error;
    r.future_weight = bs.future;
    r.mean_max_weight = bs.mean_max;
    r.correct_mean_max_weight = cs.mean_max;
    r.nan_weights = bs.nan;
    r.nan_outputs = count_nan(bug_output);
    r.output_diff = relative_diff(bug_output, T("output").data);
    r.weights = Tensor::zeros("weights", {B, h, Lq, Lkv}, {"B", "h", "L_q", "L_kv"});
    r.weights.data = bug_weights;
    r.output = Tensor::zeros("output", {B, Lq, d}, {"B", "L_q", "d_model"});
    r.output.data = bug_output;

    const long n_out = static_cast<long>(bug_output.size());
    const std::string nan_note =
        r.nan_weights > 0 || r.nan_outputs > 0
            ? trf(Str::exp_mistake_nan_note, r.nan_weights, static_cast<long>(bug_weights.size()), r.nan_outputs, n_out)
            : std::string();
    if (bs.rows == 0) {
        // Every row holds a NaN (e.g. a key masked for every query, normalised on its own).
        r.symptom = trf(Str::exp_mistake_all_rows_nan, fill) + nan_note;
        return r;
    }
    switch (m) {
        case Mistake::SoftmaxWrongAxis:
            r.symptom = trf(Str::exp_mistake_softmax_wrong_axis_symptom, bs.min_sum, bs.max_sum, r.max_row_sum_error,
                            pct(r.output_diff)) +
                        nan_note;
            break;
        case Mistake::SoftmaxOverHeads:
            if (h == 1)
                r.symptom = trf(Str::exp_mistake_softmax_over_heads_h1, r.max_row_sum_error) + nan_note;
            else
                r.symptom = trf(Str::exp_mistake_softmax_over_heads_symptom, h, bs.min_sum, bs.max_sum,
                                r.max_row_sum_error,
                                lab::tr(c.mask_fill == MaskFill::NegInf ? Str::exp_mistake_over_heads_nan
                                                                        : Str::exp_mistake_over_heads_uniform)) +
                            nan_note;
            break;
        case Mistake::NoScaling:
            r.symptom = trf(Str::exp_mistake_no_scaling_symptom, dk, r.correct_mean_max_weight, r.mean_max_weight,
                            pct(r.output_diff));
            break;
        case Mistake::InvertedMask:
            r.symptom = trf(Str::exp_mistake_inverted_mask_symptom, pct(r.future_weight), pct(r.output_diff)) +
                        (Lkv <= Lq ? lab::tr(c.mask_fill == MaskFill::NegInf ? Str::exp_mistake_inverted_mask_last_nan
                                                                             : Str::exp_mistake_inverted_mask_last_uniform)
                                   : "") +
                        nan_note;
            break;
        case Mistake::MaskAfterSoftmax:
            r.symptom = trf(Str::exp_mistake_mask_after_softmax_symptom, pct(r.pre_mask_future_weight), bs.min_sum,
                            r.max_row_sum_error, pct(r.output_diff));
            break;
        case Mistake::WrongSplitView: {
            // Row l of "head" a holds the flat block a·L_q + l of d_k values: position (a·L_q + l) / h,
            // columns of head (a·L_q + l) % h.
            long misplaced = 0;
            std::string example;
            for (int a = 0; a < h; ++a)
                for (int l = 0; l < Lq; ++l) {
                    const int block = a * Lq + l, pos = block / h, col_head = block % h;
                    if (pos == l && col_head == a) continue;
                    if (misplaced++ == 0)
                        example = trf(Str::exp_mistake_split_example, a, l, pos, col_head * dk, (col_head + 1) * dk);
                }
            r.symptom = misplaced == 0 ? trf(Str::exp_mistake_views_coincide, pct(r.output_diff))
                                       : trf(Str::exp_mistake_wrong_split_view_symptom, example, misplaced, h * Lq,
                                             pct(r.output_diff)) +
                                             nan_note;
            break;
        }
        case Mistake::ConcatWithoutTranspose: {
            // Output row 0 of item b reads the first h blocks of d_v values of the (B, h, L, d_v)
            // context: block k is head k / L_q, position k % L_q.
            std::string sources;
            for (int k = 0; k < h && k < 4; ++k)
                sources += trf(k ? Str::exp_mistake_concat_source_next : Str::exp_mistake_concat_source_first, k / Lq,
                               k % Lq);
            if (h > 4) sources += lab::tr(Str::exp_mistake_concat_source_more);
            r.symptom = h == 1 ? trf(Str::exp_mistake_views_coincide, pct(r.output_diff))
                               : trf(Str::exp_mistake_concat_without_transpose_symptom, sources, pct(r.output_diff)) +
                                     nan_note;
            break;
        }
        case Mistake::HardCodedDk:
            r.symptom = lab::tr(Str::exp_mistake_hard_coded_dk_symptom);
            break;
        case Mistake::KInsteadOfKT:
            r.symptom = trf(Str::exp_mistake_k_instead_of_kt_symptom, dk, dk, dk, dk, pct(r.output_diff)) + nan_note;
            break;
    }
    return r;
}

}  // namespace lab
