// lesson_steps.cpp — Attention Lab core: the lessons, one row each (the registry at the
// end of the file), and every step's question as a function of the live trace.
//
// A step's setup is a URL-hash fragment read by decode_url_state (so the configuration
// goes through the key table like a link does); its question reads only the trace, so
// a learner who changed the knobs gets the question about what is on screen now. A
// question the trace cannot ask (the mask turned off, PE off) says so instead.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "teach/experiments/experiments.h"
#include "teach/lessons/lesson_model.h"
#include "teach/lessons/lessons.h"

namespace lab {

namespace {

using experiment_detail::entropy;

// ---- reading the trace --------------------------------------------------------------

const float* row_ptr(const Tensor& t, int b, int h, int r) { return t.ptr() + t.offset({b, h, r, 0}); }

int argmax(const float* p, int n) { return static_cast<int>(std::max_element(p, p + n) - p); }

double row_sum(const float* p, int n) {
    double s = 0;
    for (int i = 0; i < n; ++i) s += p[i];
    return s;
}

// The trace's mask as "keep" for item b: (L_q, L_kv) or (B, L_q, L_kv); all kept when none.
bool kept(const Trace& tr, int b, int i, int j) {
    const Tensor& m = tr[TensorId::Mask];
    return m.shape.size() == 3 ? m.at({b, i, j}) != 0.0f : m.at({i, j}) != 0.0f;
}

int clamp_index(int i, int n) { return std::max(0, std::min(i, n - 1)); }

LessonNumber whole(const char* name, double v) { return {name, v, 0}; }

LessonQuestion not_ready(QuestionKind kind, Msg why) {
    LessonQuestion q;
    q.kind = kind, q.ready = false, q.not_ready = std::move(why);
    return q;
}

LessonMark mark_row(TensorId t, int b, int h, int row, int cols) { return {t, b, h, row, row, 0, cols - 1}; }

// A shape question about a tensor of the trace.
LessonQuestion ask_shape(const Tensor& t, Msg prompt, Msg hint) {
    LessonQuestion q;
    q.kind = QuestionKind::Shape, q.shape = t.shape, q.prompt = std::move(prompt), q.hint = std::move(hint);
    return q;
}

// ---- lesson 1: one head ---------------------------------------------------------------

LessonQuestion x_shape(const Trace& tr) {
    const Tensor& x = tr[TensorId::X];
    LessonQuestion q = ask_shape(x, Msg(Str::lesson_x_shape_prompt), Msg(Str::lesson_x_shape_hint));
    const AttentionConfig& c = tr.config;
    const double x0 = x.data[0];
    q.explain = Msg(Str::lesson_x_shape_explain, shape_text(x.shape), c.batch, c.L_q(), c.d_model, x0);
    q.numbers = {whole("B", c.batch), whole("L", c.L_q()), whole("d_model", c.d_model), {"x[0,0,0]", x0, 3}};
    return q;
}

LessonQuestion q_shape(const Trace& tr) {
    const Tensor& Q = tr[TensorId::Q];
    const int d = tr.config.d_model;
    LessonQuestion q = ask_shape(Q, Msg(Str::lesson_q_shape_prompt, d, d), Msg(Str::lesson_matmul_hint));
    const double q0 = Q.data[0];
    q.explain = Msg(Str::lesson_q_shape_explain, shape_text(Q.shape), d, d, q0);
    q.numbers = {whole("d_model", d), {"Q[0,0,0]", q0, 3}};
    q.marks = {{TensorId::Q, 0, 0, 0, 0, 0, 0}};
    return q;
}

LessonQuestion scores_shape(const Trace& tr) {
    const Tensor& s = tr[TensorId::Scores];
    const AttentionConfig& c = tr.config;
    LessonQuestion q = ask_shape(s, Msg(Str::lesson_scores_shape_prompt, c.heads), Msg(Str::lesson_scores_shape_hint));
    const int i = clamp_index(1, c.L_q()), j = clamp_index(2, c.L_kv());
    const double v = s.at({0, 0, i, j});
    q.explain = Msg(Str::lesson_scores_shape_explain, shape_text(s.shape), c.L_q(), c.L_kv(), c.L_q() * c.L_kv(), i, j, v, i, j);
    q.numbers = {whole("L_q", c.L_q()), whole("L_kv", c.L_kv()), whole("pairs", c.L_q() * c.L_kv()), {"score", v, 3}};
    q.marks = {{TensorId::Scores, 0, 0, i, i, j, j}};
    return q;
}

// The largest weight of one row, typed within ±0.1. Used with and without scaling.
LessonQuestion max_weight(const Trace& tr, int row, Msg prompt) {
    const Tensor& w = tr[TensorId::Weights];
    const int L = tr.config.L_kv();
    const float* p = row_ptr(w, 0, 0, row);
    LessonQuestion q;
    q.kind = QuestionKind::Estimate, q.prompt = std::move(prompt), q.tolerance = 0.1;
    const int at = argmax(p, L);
    q.value = p[at];
    q.hint = Msg(Str::lesson_max_weight_hint, row);
    q.marks = {mark_row(TensorId::Weights, 0, 0, row, L)};
    q.numbers = {{"max", q.value, 3}, whole("key", at), {"sum", row_sum(p, L), 4}, {"uniform", 1.0 / L, 3}};
    q.explain = Msg(Str::lesson_max_weight_explain, row, q.value, at, row_sum(p, L), 1.0 / L);
    return q;
}

LessonQuestion last_row_max_weight(const Trace& tr) {
    const int row = tr.config.L_q() - 1;
    return max_weight(tr, row, Msg(Str::lesson_last_row_prompt, row));
}

LessonQuestion output_shape(const Trace& tr) {
    const Tensor& out = tr[TensorId::Output];
    LessonQuestion q = ask_shape(out, Msg(Str::lesson_output_shape_prompt), Msg(Str::lesson_output_shape_hint));
    q.explain = Msg(Str::lesson_output_shape_explain, shape_text(out.shape), shape_text(tr[TensorId::X].shape));
    q.numbers = {whole("B", out.shape[0]), whole("L", out.shape[1]), whole("d_model", out.shape[2])};
    return q;
}

// ---- lesson 2: why divide by √d_k ------------------------------------------------------

LessonQuestion scale_divisor(const Trace& tr) {
    const AttentionConfig& c = tr.config;
    if (!c.scale) return not_ready(QuestionKind::Estimate, Msg(Str::lesson_needs_scale));
    LessonQuestion q;
    q.kind = QuestionKind::Estimate, q.value = std::sqrt(static_cast<double>(c.d_k())), q.tolerance = 0.01;
    q.prompt = Msg(Str::lesson_divisor_prompt, c.d_model, c.heads);
    q.hint = Msg(Str::lesson_divisor_hint);
    const int j = clamp_index(1, c.L_kv());
    const double raw = tr[TensorId::Scores].at({0, 0, 0, j}), scaled = tr[TensorId::Scaled].at({0, 0, 0, j});
    q.explain = Msg(Str::lesson_divisor_explain, c.d_model, c.heads, c.d_k(), q.value, j, raw, j, scaled);
    q.numbers = {whole("d_k", c.d_k()), {"sqrt_dk", q.value, 3}, {"raw", raw, 3}, {"scaled", scaled, 3}};
    q.marks = {{TensorId::Scaled, 0, 0, 0, 0, j, j}};
    return q;
}

// Sample variance of a tensor's entries.
double variance(const Tensor& t) {
    double mean = 0, sq = 0;
    for (float v : t.data) mean += v;
    mean /= t.size();
    for (float v : t.data) sq += (v - mean) * (v - mean);
    return sq / t.size();
}

LessonQuestion score_variance(const Trace& tr) {
    const int dk = tr.config.d_k();
    const double vq = variance(tr[TensorId::QHeads]), vk = variance(tr[TensorId::KHeads]);
    const double vs = variance(tr[TensorId::Scores]);
    LessonQuestion q;
    q.kind = QuestionKind::PickOption;
    q.prompt = Msg(Str::lesson_variance_prompt, vq, vk);
    q.hint = Msg(Str::lesson_variance_hint, dk);
    q.options = {Msg(Str::lesson_opt_var_1), Msg(Str::lesson_opt_var_sqrt, dk), Msg(Str::lesson_opt_var_dk, dk)};
    // The nearest of 1, √d_k and d_k on a log scale.
    const double ratio = vs / (vq * vk), lr = std::log(std::max(ratio, 1e-12)), ld = std::log(static_cast<double>(dk));
    const double d[3] = {std::fabs(lr), std::fabs(lr - ld / 2), std::fabs(lr - ld)};
    q.pick = static_cast<int>(std::min_element(d, d + 3) - d);
    q.explain = Msg(Str::lesson_variance_explain, vs, dk, vq, vk, dk * vq * vk, ratio, vs / dk);
    q.numbers = {{"var_scores", vs, 2}, whole("d_k", dk), {"var_q", vq, 2}, {"var_k", vk, 2},
                 {"predicted", dk * vq * vk, 2}, {"ratio", ratio, 1}, {"var_scaled", vs / dk, 2}};
    return q;
}

// The rows of item 0, head 0 with the lowest and the highest entropy (at least two keys kept).
bool extreme_rows(const Trace& tr, int* sharp, int* flat) {
    const Tensor& w = tr[TensorId::Weights];
    const int Lq = tr.config.L_q(), L = tr.config.L_kv();
    double lo = 1e9, hi = -1;
    *sharp = *flat = -1;
    for (int i = 0; i < Lq; ++i) {
        int keys = 0;
        for (int j = 0; j < L; ++j) keys += kept(tr, 0, i, j);
        if (keys < 2) continue;
        const double e = entropy(row_ptr(w, 0, 0, i), L);
        if (e < lo) lo = e, *sharp = i;
        if (e > hi) hi = e, *flat = i;
    }
    return *sharp >= 0 && *flat >= 0 && *sharp != *flat && hi - lo > 0.05;
}

LessonQuestion sharper_row(const Trace& tr) {
    int sharp, flat;
    if (!extreme_rows(tr, &sharp, &flat)) return not_ready(QuestionKind::PickRow, Msg(Str::lesson_needs_rows));
    const Tensor& w = tr[TensorId::Weights];
    const int L = tr.config.L_kv();
    LessonQuestion q;
    q.kind = QuestionKind::PickRow;
    const int a = std::min(sharp, flat), b = std::max(sharp, flat);
    q.option_rows = {a, b};
    q.options = {Msg(Str::lesson_opt_row, a), Msg(Str::lesson_opt_row, b)};
    q.pick = sharp == a ? 0 : 1;
    q.prompt = Msg(Str::lesson_sharper_prompt, a, b);
    q.hint = Msg(Str::lesson_sharper_hint);
    q.marks = {mark_row(TensorId::Weights, 0, 0, a, L), mark_row(TensorId::Weights, 0, 0, b, L)};
    const float *pa = row_ptr(w, 0, 0, a), *pb = row_ptr(w, 0, 0, b);
    const double ma = pa[argmax(pa, L)], mb = pb[argmax(pb, L)], ea = entropy(pa, L), eb = entropy(pb, L);
    q.explain = Msg(Str::lesson_sharper_explain, a, ma, ea, b, mb, eb, L, std::log(static_cast<double>(L)));
    q.numbers = {{"max_a", ma, 3}, {"entropy_a", ea, 3}, {"max_b", mb, 3}, {"entropy_b", eb, 3}};
    return q;
}

// Unscaled: the least saturated row's largest weight, and what ÷√d_k would have made of it.
LessonQuestion unscaled_max_weight(const Trace& tr) {
    const AttentionConfig& c = tr.config;
    if (c.scale) return not_ready(QuestionKind::Estimate, Msg(Str::lesson_needs_no_scale));
    const Tensor& w = tr[TensorId::Weights];
    const int L = c.L_kv();
    int row = 0;
    for (int i = 1; i < c.L_q(); ++i)
        if (*std::max_element(row_ptr(w, 0, 0, i), row_ptr(w, 0, 0, i) + L) <
            *std::max_element(row_ptr(w, 0, 0, row), row_ptr(w, 0, 0, row) + L))
            row = i;
    LessonQuestion q = max_weight(tr, row, Msg(Str::lesson_unscaled_prompt, c.d_k(), row));
    // softmax(scores / √d_k) of the same row.
    const float* s = row_ptr(tr[TensorId::Masked], 0, 0, row);
    const double root = std::sqrt(static_cast<double>(c.d_k()));
    double top = -INFINITY, z = 0, spread = 0;
    for (int j = 0; j < L; ++j) top = std::max(top, static_cast<double>(s[j]));
    for (int j = 0; j < L; ++j) z += std::exp((s[j] - top) / root), spread = std::max(spread, top - s[j]);
    const double scaled_max = 1.0 / z;
    q.explain.then(Msg(Str::lesson_unscaled_explain, root, scaled_max, spread));
    q.numbers.push_back({"scaled_max", scaled_max, 3});
    q.numbers.push_back({"spread", spread, 1});
    return q;
}

// ---- lesson 3: h heads -----------------------------------------------------------------

LessonQuestion head_width(const Trace& tr) {
    const AttentionConfig& c = tr.config;
    LessonQuestion q;
    q.kind = QuestionKind::Estimate, q.value = c.d_k(), q.tolerance = 0;
    q.prompt = Msg(Str::lesson_dk_prompt, c.d_model, c.heads);
    q.hint = Msg(Str::lesson_dk_hint);
    q.explain = Msg(Str::lesson_dk_explain, c.d_model, c.heads, c.d_k(), c.d_k() - 1, c.d_k());
    q.numbers = {whole("d_model", c.d_model), whole("h", c.heads), whole("d_k", c.d_k())};
    return q;
}

LessonQuestion view_shape(const Trace& tr) {
    const AttentionConfig& c = tr.config;
    const Tensor& Q = tr[TensorId::Q];
    LessonQuestion q;
    q.kind = QuestionKind::Shape, q.shape = {c.batch, c.L_q(), c.heads, c.d_k()};
    q.prompt = Msg(Str::lesson_view_prompt, shape_text(Q.shape));
    q.hint = Msg(Str::lesson_view_hint);
    q.explain = Msg(Str::lesson_view_explain, shape_text(Q.shape), shape_text(q.shape), c.d_model, c.heads, c.d_k());
    q.numbers = {whole("h", c.heads), whole("d_k", c.d_k())};
    return q;
}

LessonQuestion transpose_shape(const Trace& tr) {
    const Tensor& qh = tr[TensorId::QHeads];
    LessonQuestion q = ask_shape(qh, Msg(Str::lesson_transpose_prompt), Msg(Str::lesson_transpose_hint));
    q.explain = Msg(Str::lesson_transpose_explain, shape_text(qh.shape), qh.shape[2], qh.shape[3]);
    q.numbers = {whole("L", qh.shape[2]), whole("d_k", qh.shape[3])};
    return q;
}

LessonQuestion weights_shape(const Trace& tr) {
    const Tensor& w = tr[TensorId::Weights];
    const AttentionConfig& c = tr.config;
    LessonQuestion q = ask_shape(w, Msg(Str::lesson_weights_prompt, c.d_model, c.heads, c.batch, c.L_q()),
                                 Msg(Str::lesson_weights_hint));
    q.explain = Msg(Str::lesson_weights_explain, shape_text(w.shape), c.batch * c.heads, c.L_q(), c.L_kv());
    q.numbers = {whole("maps", c.batch * c.heads), whole("L_q", c.L_q()), whole("L_kv", c.L_kv())};
    return q;
}

LessonQuestion sharpest_head(const Trace& tr) {
    const AttentionConfig& c = tr.config;
    if (c.heads < 2) return not_ready(QuestionKind::PickHead, Msg(Str::lesson_needs_heads));
    const Tensor& w = tr[TensorId::Weights];
    const int row = c.L_q() - 1, L = c.L_kv();
    LessonQuestion q;
    q.kind = QuestionKind::PickHead;
    q.prompt = Msg(Str::lesson_sharpest_head_prompt, c.heads, row);
    q.hint = Msg(Str::lesson_sharpest_head_hint, row);
    std::string list;
    double best = 1e9;
    for (int h = 0; h < c.heads; ++h) {
        const double e = entropy(row_ptr(w, 0, h, row), L);
        char buf[32];
        std::snprintf(buf, sizeof buf, "%s%.3f", h ? ", " : "", e);
        list += buf;
        q.options.push_back(Msg(Str::lesson_opt_head, h));
        q.marks.push_back(mark_row(TensorId::Weights, 0, h, row, L));
        q.numbers.push_back({"entropy", e, 3});
        if (e < best) best = e, q.pick = h;
    }
    const float* p = row_ptr(w, 0, q.pick, row);
    q.explain = Msg(Str::lesson_sharpest_head_explain, row, list, q.pick, p[argmax(p, L)], c.d_model);
    q.numbers.push_back({"max", p[argmax(p, L)], 3});
    return q;
}

LessonQuestion concat_shape(const Trace& tr) {
    const AttentionConfig& c = tr.config;
    const Tensor& cat = tr[TensorId::Concat];
    LessonQuestion q = ask_shape(cat, Msg(Str::lesson_concat_prompt, c.heads, shape_text(tr[TensorId::Context].shape)),
                                 Msg(Str::lesson_concat_hint));
    q.explain = Msg(Str::lesson_concat_explain, shape_text(cat.shape), c.heads, c.d_v(), c.heads * c.d_v(), c.d_model, c.d_model);
    q.numbers = {whole("h", c.heads), whole("d_v", c.d_v()), whole("h_dv", c.heads * c.d_v())};
    return q;
}

// ---- lesson 4: masks ---------------------------------------------------------------------

// Click the scores of (item b, head 0) that the mask removes.
LessonQuestion removed_cells(const Trace& tr, int b, Msg prompt, Msg hint) {
    const AttentionConfig& c = tr.config;
    b = clamp_index(b, c.batch);
    const int Lq = c.L_q(), L = c.L_kv();
    LessonQuestion q;
    q.kind = QuestionKind::Cells, q.prompt = std::move(prompt), q.hint = std::move(hint);
    q.target = {TensorId::Scores, b, 0, 0, Lq - 1, 0, L - 1};
    q.marks = {q.target};
    int rows = 0, first_col = L, last_col = -1;
    for (int i = 0; i < Lq; ++i) {
        bool any = false;
        for (int j = 0; j < L; ++j)
            if (!kept(tr, b, i, j)) q.cells.push_back(i * L + j), any = true, first_col = std::min(first_col, j), last_col = std::max(last_col, j);
        rows += any;
    }
    if (q.cells.empty()) return not_ready(QuestionKind::Cells, Msg(Str::lesson_needs_mask));
    double max_w = 0;  // what the softmax gave the removed cells
    for (int cell : q.cells) max_w = std::max(max_w, static_cast<double>(tr[TensorId::Weights].at({b, 0, cell / L, cell % L})));
    const int n = static_cast<int>(q.cells.size());
    q.explain = Msg(Str::lesson_cells_explain, n, rows, first_col, last_col, max_w);
    q.numbers = {whole("cells", n), whole("rows", rows), {"max_weight", max_w, 3}};
    return q;
}

LessonQuestion causal_cells(const Trace& tr) {
    return removed_cells(tr, 0, Msg(Str::lesson_causal_prompt), Msg(Str::lesson_causal_hint));
}

LessonQuestion padding_cells(const Trace& tr) {
    const AttentionConfig& c = tr.config;
    const int b = clamp_index(1, c.batch);
    const int valid = c.mask == MaskKind::Padding && b < static_cast<int>(c.padding_lengths.size()) ? c.padding_lengths[b] : c.L_kv();
    return removed_cells(tr, b, Msg(Str::lesson_padding_prompt, b, valid, c.L_kv() - valid, b), Msg(Str::lesson_padding_hint));
}

// The first query row of item 0 whose keys are all masked, or -1.
int fully_masked_row(const Trace& tr) {
    for (int i = 0; i < tr.config.L_q(); ++i) {
        bool all = true;
        for (int j = 0; j < tr.config.L_kv(); ++j) all = all && !kept(tr, 0, i, j);
        if (all) return i;
    }
    return -1;
}

// What a fully masked row's weights became: NaN, uniform or zeros.
LessonQuestion masked_row_outcome(const Trace& tr) {
    const int row = fully_masked_row(tr);
    if (row < 0) return not_ready(QuestionKind::PickOption, Msg(Str::lesson_needs_masked_row));
    const int L = tr.config.L_kv();
    const float* p = row_ptr(tr[TensorId::Weights], 0, 0, row);
    int nan = 0, uniform = 0, zero = 0;
    for (int j = 0; j < L; ++j) nan += std::isnan(p[j]), uniform += std::fabs(p[j] - 1.0 / L) < 1e-6, zero += p[j] == 0.0f;
    LessonQuestion q;
    q.kind = QuestionKind::PickOption;
    q.pick = nan == L ? 0 : uniform == L ? 1 : zero == L ? 2 : -1;
    if (q.pick < 0) return not_ready(QuestionKind::PickOption, Msg(Str::lesson_needs_masked_row));
    const char* fill = mask_fill_name(tr.config.mask_fill);
    q.prompt = Msg(Str::lesson_masked_row_prompt, row, fill);
    q.hint = Msg(Str::lesson_masked_row_hint, fill);
    q.options = {Msg(Str::lesson_opt_nan), Msg(Str::lesson_opt_uniform), Msg(Str::lesson_opt_zeros)};
    q.marks = {mark_row(TensorId::Weights, 0, 0, row, L)};
    long out_nan = 0;
    for (float v : tr[TensorId::Output].data) out_nan += std::isnan(v);
    if (q.pick == 0) q.explain = Msg(Str::lesson_masked_nan_explain, row, out_nan);
    else q.explain = Msg(Str::lesson_masked_uniform_explain, row, L, p[0], row_sum(p, L));
    q.numbers = q.pick == 0 ? std::vector<LessonNumber>{whole("output_nan", out_nan)}
                            : std::vector<LessonNumber>{whole("L_kv", L), {"weight", p[0], 3}, {"sum", row_sum(p, L), 3}};
    return q;
}

LessonQuestion first_query_weight(const Trace& tr) {
    if (tr.config.mask != MaskKind::Causal) return not_ready(QuestionKind::Estimate, Msg(Str::lesson_needs_causal));
    LessonQuestion q;
    q.kind = QuestionKind::Estimate, q.tolerance = 0.01;
    q.value = tr[TensorId::Weights].at({0, 0, 0, 0});
    q.prompt = Msg(Str::lesson_first_query_prompt);
    q.hint = Msg(Str::lesson_first_query_hint);
    q.marks = {mark_row(TensorId::Weights, 0, 0, 0, tr.config.L_kv())};
    const double second = tr.config.L_q() > 1 ? tr[TensorId::Weights].at({0, 0, 1, 0}) : 1.0;
    q.explain = Msg(Str::lesson_first_query_explain, q.value, second, 1.0 - second);
    q.numbers = {{"w00", q.value, 3}, {"w10", second, 3}, {"w11", 1.0 - second, 3}};
    return q;
}

// ---- lesson 5: positional encoding ----------------------------------------------------------

// Tokens t0 and t2 are the same word: are their output rows equal?
LessonQuestion same_word_rows(const Trace& tr) {
    const AttentionConfig& c = tr.config;
    if (c.L_q() < 3) return not_ready(QuestionKind::PickOption, Msg(Str::lesson_needs_rows));
    const Tensor& out = tr[TensorId::Output];
    double diff = 0;
    for (int k = 0; k < c.d_model; ++k) diff = std::max(diff, std::fabs(double(out.at({0, 0, k})) - out.at({0, 2, k})));
    LessonQuestion q;
    q.kind = QuestionKind::PickOption;
    q.prompt = Msg(Str::lesson_same_word_prompt, c.pe ? Str::lesson_pe_on : Str::lesson_pe_off);
    q.hint = Msg(Str::lesson_same_word_hint);
    q.options = {Msg(Str::lesson_opt_equal), Msg(Str::lesson_opt_different)};
    q.pick = diff < 1e-5 ? 0 : 1;
    q.marks = {mark_row(TensorId::Output, 0, 0, 0, c.d_model), mark_row(TensorId::Output, 0, 0, 2, c.d_model)};
    q.explain = Msg(q.pick == 0 ? Str::lesson_same_word_equal_explain : Str::lesson_same_word_differ_explain, diff);
    q.numbers = {{"max_diff", diff, 4}};
    return q;
}

LessonQuestion pe_value(const Trace& tr) {
    const Tensor* pe = tr.find(TensorId::Pe);
    if (!pe || pe->shape[0] < 2) return not_ready(QuestionKind::Estimate, Msg(Str::lesson_needs_pe));
    const int d = tr.config.d_model;
    LessonQuestion q;
    q.kind = QuestionKind::Estimate, q.tolerance = 0.05, q.value = pe->at({1, 0});
    q.prompt = Msg(Str::lesson_pe_value_prompt);
    q.hint = Msg(Str::lesson_pe_value_hint);
    q.marks = {{TensorId::Pe, 0, 0, 1, 1, 0, 0}};
    const int last_pair = (d - 1) / 2 * 2;  // the last even column
    const double longest = 2 * M_PI * std::pow(10000.0, static_cast<double>(last_pair) / d);
    q.explain = Msg(Str::lesson_pe_value_explain, q.value, last_pair, d, longest);
    q.numbers = {{"pe10", q.value, 3}, {"longest", longest, 0}};
    return q;
}

// Odd d_model: is the last column a sin or a cos?
LessonQuestion odd_last_column(const Trace& tr) {
    const Tensor* pe = tr.find(TensorId::Pe);
    if (!pe || pe->shape[0] < 2) return not_ready(QuestionKind::PickOption, Msg(Str::lesson_needs_pe));
    const int d = tr.config.d_model, col = d - 1, even = col / 2 * 2;
    const double angle = 1.0 / std::pow(10000.0, static_cast<double>(even) / d);
    const double v = pe->at({1, col});
    LessonQuestion q;
    q.kind = QuestionKind::PickOption;
    q.prompt = Msg(Str::lesson_odd_prompt, d, col);
    q.hint = Msg(Str::lesson_odd_hint);
    q.options = {Msg::literal("sin"), Msg::literal("cos")};
    q.pick = std::fabs(v - std::sin(angle)) < std::fabs(v - std::cos(angle)) ? 0 : 1;
    q.marks = {{TensorId::Pe, 0, 0, 0, pe->shape[0] - 1, col, col}};
    q.explain = Msg(q.pick == 0 ? Str::lesson_odd_sin_explain : Str::lesson_odd_cos_explain, col, col, v, even, d,
                    q.pick == 0 ? col + 1 : col - 1);
    q.numbers = {whole("col", col), {"pe", v, 5}};
    return q;
}

// ---- lesson 6: the whole block (the stepper on a model: its trace holds the block's tensors) ----

bool has_block(const Trace& tr) {
    for (TensorId id : {TensorId::Tokens, TensorId::Embedding, TensorId::Embed, TensorId::EmbedOut, TensorId::Residual,
                        TensorId::NormW, TensorId::NormB, TensorId::NormOut, TensorId::FfnIn, TensorId::W1,
                        TensorId::FfnHidden, TensorId::FfnRelu, TensorId::Probs, TensorId::Targets})
        if (!tr.find(id)) return false;
    return true;
}

// Root mean square of a tensor's entries.
double rms(const Tensor& t) {
    double sq = 0;
    for (float v : t.data) sq += double(v) * v;
    return std::sqrt(sq / std::max<size_t>(1, t.size()));
}

// Mean and (population) variance of n values.
void mean_var(const double* v, int n, double* mean, double* var) {
    double m = 0, sq = 0;
    for (int i = 0; i < n; ++i) m += v[i];
    m /= n;
    for (int i = 0; i < n; ++i) sq += (v[i] - m) * (v[i] - m);
    *mean = m, *var = sq / n;
}

LessonQuestion embed_scale(const Trace& tr) {
    if (!has_block(tr)) return not_ready(QuestionKind::Estimate, Msg(Str::lesson_needs_model_view));
    const Tensor& emb = tr[TensorId::Embed];
    const int d = emb.shape[2], token = static_cast<int>(tr[TensorId::Tokens].at({0, 0}));
    const double e = tr[TensorId::Embedding].at({token, 0}), root = std::sqrt(static_cast<double>(d));
    LessonQuestion q;
    q.kind = QuestionKind::Estimate, q.value = emb.at({0, 0, 0}), q.tolerance = 0.05;
    q.prompt = Msg(Str::lesson_embed_prompt, token, token, e, d);
    q.hint = Msg(Str::lesson_embed_hint, d);
    q.marks = {{TensorId::Embed, 0, 0, 0, 0, 0, 0}, {TensorId::Embedding, 0, 0, token, token, 0, 0}};
    const double rms_e = rms(tr[TensorId::Embedding]), rms_x = rms(emb);
    q.explain = Msg(Str::lesson_embed_explain, token, e, root, q.value, rms_e, rms_x);
    q.numbers = {{"E", e, 3}, {"sqrt_d", root, 3}, {"embed", q.value, 3}, {"rms_E", rms_e, 3}, {"rms_embed", rms_x, 3}};
    return q;
}

LessonQuestion pe_added(const Trace& tr) {
    const Tensor* pe = tr.find(TensorId::EmbedPe);
    if (!has_block(tr)) return not_ready(QuestionKind::Estimate, Msg(Str::lesson_needs_model_view));
    if (!pe || pe->shape[0] < 2) return not_ready(QuestionKind::Estimate, Msg(Str::lesson_needs_pe));
    const double x = tr[TensorId::Embed].at({0, 1, 0}), p = pe->at({1, 0});
    LessonQuestion q;
    q.kind = QuestionKind::Estimate, q.value = tr[TensorId::EmbedOut].at({0, 1, 0}), q.tolerance = 0.05;
    q.prompt = Msg(Str::lesson_pe_added_prompt, x);
    q.hint = Msg(Str::lesson_pe_added_hint);
    q.marks = {{TensorId::EmbedOut, 0, 0, 1, 1, 0, 0}, {TensorId::Embed, 0, 0, 1, 1, 0, 0}};
    q.explain = Msg(Str::lesson_pe_added_explain, x, p, q.value);
    q.numbers = {{"embed", x, 3}, {"pe", p, 3}, {"embed_out", q.value, 3}};
    return q;
}

// Row 0 of LayerNorm's input, its output before the learned γ, β ((norm_out − β) / γ) and after.
struct NormRow {
    double in_mean, in_var, z_mean, z_var, out_mean, out_var;
};

NormRow norm_row(const Trace& tr) {
    const Tensor &res = tr[TensorId::Residual], &out = tr[TensorId::NormOut];
    const Tensor &g = tr[TensorId::NormW], &b = tr[TensorId::NormB];
    const int d = res.shape[2];
    std::vector<double> in, z, o;
    for (int k = 0; k < d; ++k) {
        in.push_back(res.at({0, 0, k}));
        o.push_back(out.at({0, 0, k}));
        if (std::fabs(g.at({k})) > 1e-6) z.push_back((o.back() - b.at({k})) / g.at({k}));  // γ ≈ 0 says nothing
    }
    NormRow r{};
    mean_var(in.data(), d, &r.in_mean, &r.in_var);
    mean_var(z.data(), std::max<int>(1, static_cast<int>(z.size())), &r.z_mean, &r.z_var);
    mean_var(o.data(), d, &r.out_mean, &r.out_var);
    return r;
}

LessonQuestion norm_moments(const Trace& tr) {
    if (!has_block(tr)) return not_ready(QuestionKind::PickOption, Msg(Str::lesson_needs_model_view));
    const int d = tr[TensorId::Residual].shape[2];
    const NormRow r = norm_row(tr);
    LessonQuestion q;
    q.kind = QuestionKind::PickOption;
    q.prompt = Msg(Str::lesson_norm_prompt, d);
    q.hint = Msg(Str::lesson_norm_hint);
    q.options = {Msg(Str::lesson_opt_norm_unit), Msg(Str::lesson_opt_norm_sum), Msg(Str::lesson_opt_norm_same)};
    // The nearest of (mean 0, var 1), a softmax row (mean 1/d, var small), the residual's own.
    const double cand[3][2] = {{0, 1}, {1.0 / d, 0}, {r.in_mean, r.in_var}};
    double best = 1e300;
    for (int i = 0; i < 3; ++i) {
        const double dist = std::fabs(r.z_mean - cand[i][0]) + std::fabs(r.z_var - cand[i][1]);
        if (dist < best) best = dist, q.pick = i;
    }
    q.marks = {mark_row(TensorId::Residual, 0, 0, 0, d), mark_row(TensorId::NormOut, 0, 0, 0, d)};
    q.explain = Msg(Str::lesson_norm_explain, r.in_mean, r.in_var, r.z_mean, r.z_var, r.out_mean, r.out_var);
    q.numbers = {{"in_mean", r.in_mean, 3}, {"in_var", r.in_var, 3}, {"z_mean", r.z_mean, 3}, {"z_var", r.z_var, 3},
                 {"out_mean", r.out_mean, 3}, {"out_var", r.out_var, 3}};
    return q;
}

LessonQuestion ffn_shape(const Trace& tr) {
    if (!has_block(tr)) return not_ready(QuestionKind::Shape, Msg(Str::lesson_needs_model_view));
    const Tensor &in = tr[TensorId::FfnIn], &w1 = tr[TensorId::W1], &h = tr[TensorId::FfnHidden];
    LessonQuestion q = ask_shape(h, Msg(Str::lesson_ffn_shape_prompt, shape_text(in.shape), shape_text(w1.shape)),
                                 Msg(Str::lesson_ffn_shape_hint));
    q.explain = Msg(Str::lesson_ffn_shape_explain, shape_text(h.shape), h.shape[1], in.shape[2], h.shape[2]);
    q.numbers = {whole("L", h.shape[1]), whole("d_model", in.shape[2]), whole("d_ff", h.shape[2])};
    return q;
}

LessonQuestion relu_zeros(const Trace& tr) {
    if (!has_block(tr)) return not_ready(QuestionKind::Estimate, Msg(Str::lesson_needs_model_view));
    const Tensor &h = tr[TensorId::FfnHidden], &a = tr[TensorId::FfnRelu];
    const int f = h.shape[2];
    long zeros = 0, not_positive = 0, row0 = 0;
    for (size_t i = 0; i < a.data.size(); ++i) {
        zeros += a.data[i] == 0.0f, not_positive += h.data[i] <= 0.0f;
        row0 += i < static_cast<size_t>(f) && a.data[i] == 0.0f;
    }
    const long total = static_cast<long>(a.data.size());
    LessonQuestion q;
    q.kind = QuestionKind::Estimate, q.value = static_cast<double>(zeros) / total, q.tolerance = 0.15;
    q.prompt = Msg(Str::lesson_relu_prompt, total);
    q.hint = Msg(Str::lesson_relu_hint);
    q.marks = {mark_row(TensorId::FfnRelu, 0, 0, 0, f)};
    q.explain = Msg(Str::lesson_relu_explain, zeros, total, q.value, not_positive, row0, f);
    q.numbers = {whole("zeros", zeros), whole("total", total), {"fraction", q.value, 3}, whole("not_positive", not_positive),
                 whole("row0", row0)};
    return q;
}

LessonQuestion generator_top(const Trace& tr) {
    if (!has_block(tr)) return not_ready(QuestionKind::Estimate, Msg(Str::lesson_needs_model_view));
    const Tensor& p = tr[TensorId::Probs];
    const int V = p.shape[2];
    const float* row = p.ptr();
    const int at = argmax(row, V), target = static_cast<int>(tr[TensorId::Targets].at({0, 0}));
    LessonQuestion q;
    q.kind = QuestionKind::Estimate, q.value = row[at], q.tolerance = 0.1;
    q.prompt = Msg(Str::lesson_generator_prompt, V);
    q.hint = Msg(Str::lesson_generator_hint);
    q.marks = {mark_row(TensorId::Probs, 0, 0, 0, V)};
    q.explain = Msg(Str::lesson_generator_explain, q.value, at, target, row_sum(row, V), 1.0 / V);
    q.numbers = {{"max", q.value, 3}, whole("symbol", at), whole("target", target), {"sum", row_sum(row, V), 4},
                 {"uniform", 1.0 / V, 3}};
    return q;
}

// ---- lesson 7: what trained heads do (the shipped checkpoints, measured) --------------------------

// The head of the trace with the most weight on its anti-diagonal (query i on key L-1-i), or -1.
int anti_diagonal_head(const Trace& tr, double* mass) {
    const Tensor& w = tr[TensorId::Weights];
    const int H = w.shape[1], L = w.shape[2];
    if (w.shape[3] != L || !has_block(tr)) return -1;
    int best = -1;
    *mass = -1;
    for (int h = 0; h < H; ++h) {
        double m = 0;
        for (int i = 0; i < L; ++i) m += w.at({0, h, i, L - 1 - i}) / L;
        if (m > *mass) *mass = m, best = h;
    }
    return best;
}

LessonQuestion mirrored_key(const Trace& tr) {
    double mass;
    const int h = anti_diagonal_head(tr, &mass);
    if (h < 0) return not_ready(QuestionKind::Cells, Msg(Str::lesson_needs_model_view));
    const Tensor& w = tr[TensorId::Weights];
    const int L = w.shape[2], row = clamp_index(2, L);
    const float* p = row_ptr(w, 0, h, row);
    const int at = argmax(p, L);
    LessonQuestion q;
    q.kind = QuestionKind::Cells;
    q.prompt = Msg(Str::lesson_mirror_prompt, h, row);
    q.hint = Msg(Str::lesson_mirror_hint, row);
    q.target = {TensorId::Weights, 0, h, 0, L - 1, 0, L - 1};
    q.cells = {row * L + at};
    q.marks = {mark_row(TensorId::Weights, 0, h, row, L)};
    q.explain = Msg(Str::lesson_mirror_explain, row, p[at], at, L - 1 - row, row, p[row], mass);
    q.numbers = {whole("row", row), {"weight", p[at], 3}, whole("key", at), whole("mirror", L - 1 - row),
                 {"diagonal", p[row], 3}, {"mass", mass, 3}};
    return q;
}

LessonQuestion mirrored_weight(const LessonModel& m, const Trace& tr) {
    double mass;
    const int h = anti_diagonal_head(tr, &mass);
    const LessonHead* mean = nullptr;
    for (const LessonHead& x : m.heads)
        if (x.kind == AttentionKind::Cross && x.head == h && !mean) mean = &x;
    if (h < 0 || !mean) return not_ready(QuestionKind::Estimate, Msg(Str::lesson_needs_model_view));
    const Tensor& w = tr[TensorId::Weights];
    const int L = w.shape[2], row = L - 1;
    LessonQuestion q;
    q.kind = QuestionKind::Estimate, q.value = w.at({0, h, row, 0}), q.tolerance = 0.1;
    q.prompt = Msg(Str::lesson_mirror_weight_prompt, h, row);
    q.hint = Msg(Str::lesson_mirror_weight_hint);
    q.marks = {mark_row(TensorId::Weights, 0, h, row, L)};
    q.explain = Msg(Str::lesson_mirror_weight_explain, row, q.value, mean->anti_diagonal, mean->diagonal);
    q.numbers = {{"weight", q.value, 3}, {"anti_diagonal", mean->anti_diagonal, 3}, {"diagonal", mean->diagonal, 3}};
    return q;
}

LessonQuestion cross_pattern(const LessonModel& m, const Trace&) { return cross_pattern_question(m); }
LessonQuestion induction_head(const LessonModel& m, const Trace&) { return induction_head_question(m); }
LessonQuestion knockout(const LessonModel& m, const Trace&) { return knockout_question(m); }
LessonQuestion coref_referent(const LessonModel& m, const Trace&) { return coref_referent_question(m); }

// ---- the registry: one row per lesson ----------------------------------------------------

#define ONE_HEAD "d_model=8&heads=1&seq_len=4&batch=2&seed=42&mask=none"
#define PAPER "d_model=512&heads=8&seq_len=10&batch=2&seed=42&mask=none"
#define TWO_HEADS "d_model=8&heads=2&seq_len=4&batch=2&seed=42&mask=none"
#define MASKS "d_model=8&heads=2&seq_len=5&batch=2&seed=42"
#define ROWS4 "d_model=8&heads=2&seq_len=4&batch=1&seed=42&mask=custom&custom=1000.1100.0000.1111"
#define BLOCK "model=1&layer=0&sublayer=enc_self&stage="
#define REVERSE_CROSS "model=1&layer=0&sublayer=cross&stage=softmax&all=1"
#define INDUCTION "model=1&layer=1&sublayer=dec_self&stage=softmax&all=1"
#define COREF "model=1&layer=1&sublayer=enc_self&stage=softmax&all=1"
#define SAME_WORD "d_model=8&heads=2&batch=1&seed=42&mask=none&tokens=cat%20sat%20cat%20sat&stage=output"

const std::vector<Lesson> kLessons = {
    {"one_head", Str::lesson_one_head_title,
     {{ONE_HEAD "&stage=input", Str::lesson_x_shape_intro, x_shape},
      {ONE_HEAD "&stage=project", Str::lesson_q_shape_intro, q_shape},
      {ONE_HEAD "&stage=scores", Str::lesson_scores_shape_intro, scores_shape},
      {ONE_HEAD "&stage=softmax", Str::lesson_last_row_intro, last_row_max_weight},
      {ONE_HEAD "&stage=output", Str::lesson_output_shape_intro, output_shape}}},
    {"scaling", Str::lesson_scaling_title,
     {{PAPER "&stage=scale", Str::lesson_divisor_intro, scale_divisor},
      {PAPER "&stage=scores", Str::lesson_variance_intro, score_variance},
      {PAPER "&scale=0&stage=softmax", Str::lesson_sharper_intro, sharper_row},
      {PAPER "&scale=0&stage=softmax", Str::lesson_unscaled_intro, unscaled_max_weight}}},
    {"heads", Str::lesson_heads_title,
     {{TWO_HEADS "&stage=split_heads", Str::lesson_dk_intro, head_width},
      {TWO_HEADS "&stage=split_heads", Str::lesson_view_intro, view_shape},
      {TWO_HEADS "&stage=split_heads", Str::lesson_transpose_intro, transpose_shape},
      {PAPER "&stage=softmax", Str::lesson_weights_intro, weights_shape},
      {"d_model=16&heads=4&seq_len=6&batch=1&seed=42&mask=none&stage=softmax&all=1", Str::lesson_sharpest_head_intro,
       sharpest_head},
      {TWO_HEADS "&stage=concat", Str::lesson_concat_intro, concat_shape}}},
    {"masks", Str::lesson_masks_title,
     {{MASKS "&mask=causal&stage=scores", Str::lesson_causal_intro, causal_cells},
      {MASKS "&mask=causal&stage=softmax", Str::lesson_first_query_intro, first_query_weight},
      {MASKS "&mask=padding&pad=5,3&stage=scores&b=1", Str::lesson_padding_intro, padding_cells},
      {ROWS4 "&fill=inf&stage=softmax", Str::lesson_masked_inf_intro, masked_row_outcome},
      {ROWS4 "&fill=1e9&stage=softmax", Str::lesson_masked_big_intro, masked_row_outcome}}},
    {"positions", Str::lesson_pe_title,
     {{SAME_WORD "&pe=0", Str::lesson_no_pe_intro, same_word_rows},
      {SAME_WORD "&pe=1", Str::lesson_with_pe_intro, same_word_rows},
      {"d_model=8&heads=2&seq_len=6&batch=1&seed=42&mask=none&pe=1&stage=input", Str::lesson_pe_value_intro, pe_value},
      {"d_model=7&heads=1&seq_len=6&batch=1&seed=42&mask=none&pe=1&stage=input", Str::lesson_odd_intro, odd_last_column}}},
    {"block", Str::lesson_block_title,
     {{BLOCK "embed", Str::lesson_embed_intro, embed_scale, "reverse"},
      {BLOCK "embed", Str::lesson_pe_added_intro, pe_added, "reverse"},
      {BLOCK "add_norm", Str::lesson_norm_intro, norm_moments, "reverse"},
      {BLOCK "ffn", Str::lesson_ffn_shape_intro, ffn_shape, "reverse"},
      {BLOCK "ffn", Str::lesson_relu_intro, relu_zeros, "reverse"},
      {BLOCK "generator", Str::lesson_generator_intro, generator_top, "reverse"}}},
    {"trained_heads", Str::lesson_trained_title,
     {{REVERSE_CROSS, Str::lesson_cross_intro, nullptr, "reverse", cross_pattern},
      {REVERSE_CROSS, Str::lesson_mirror_intro, mirrored_key, "reverse"},
      {REVERSE_CROSS, Str::lesson_mirror_weight_intro, nullptr, "reverse", mirrored_weight},
      {INDUCTION, Str::lesson_induction_intro, nullptr, "induction", induction_head},
      {INDUCTION, Str::lesson_knockout_intro, nullptr, "induction", knockout},
      {COREF, Str::lesson_coref_intro, nullptr, "coref", coref_referent, Str::lesson_coref_happy_tokens},
      {COREF, Str::lesson_coref_moved_intro, nullptr, "coref", coref_referent, Str::lesson_coref_rolled_tokens}}},
};

}  // namespace

const std::vector<Lesson>& lessons() { return kLessons; }

}  // namespace lab
