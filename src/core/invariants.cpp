// invariants.cpp — Attention Lab core: invariant checks on a recorded trace.
//
// Every check is recomputed from the numbers, never assumed: a bug in a stage (or a
// deliberate mistake in a later experiment) shows up as a failed badge.
#include "invariants.h"

#include <cmath>
#include <cstring>
#include <string>

#include "trace.h"
#include "vec.h"

namespace lab {

namespace {

// The scans below read each tensor once, a SIMD vector at a time, without a branch per
// value (vec.h); counts are kept per lane, sums of floats in double, one per lane.

// The last n (< one vector) values of x, padded with NaN (every scan skips or counts it apart).
vec::Float tail(const float* x, long n) { return vec::load_part(x, static_cast<int>(n), __builtin_nanf("")); }

long count_nonfinite(const Tensor& t) {
    const float* x = t.ptr();
    const long n = static_cast<long>(t.size());
    vec::Int bad{};
    long i = 0;
    for (; i + vec::kLanes <= n; i += vec::kLanes) bad -= ~vec::finite(vec::load(x + i));
    long total = vec::sum_lanes(bad);
    for (; i < n; ++i) total += !std::isfinite(x[i]);
    return total;
}

// Sum and sum of squares of the finite values, and how many there are.
struct Moments {
    vec::Double sum{}, sq{};
    vec::Int n{};
    void add(vec::Float v) {
        const vec::Int ok = vec::finite(v);
        const vec::Double x = vec::widen(ok ? v : vec::splat(0.0f));
        sum += x, sq += x * x, n -= ok;
    }
    double stddev() const {
        const long count = vec::sum_lanes(n);
        if (count == 0) return 0;
        const double mean = vec::sum_lanes(sum) / count;
        return std::sqrt(std::fmax(0.0, vec::sum_lanes(sq) / count - mean * mean));
    }
};

InvariantCheck finite_check(const Tensor& t, long allowed_nonfinite, Str why_allowed) {
    const long bad = count_nonfinite(t);
    InvariantCheck c{"finite", Msg(Str::chk_finite_label, t.name), bad <= allowed_nonfinite, {}};
    if (bad == 0) c.detail = Msg(Str::chk_finite_none, t.size());
    else if (bad <= allowed_nonfinite) c.detail = Msg(Str::chk_finite_allowed, bad, why_allowed);
    else c.detail = Msg(Str::chk_finite_bad, bad, t.size());
    return c;
}

// The keep row (L_kv values) of query i in batch item b, whatever the mask's rank.
const float* keep_row(const Tensor& mask, int b, int i) {
    const int Lq = mask.shape[mask.shape.size() - 2], Lkv = mask.shape.back();
    const long item = mask.shape.size() == 3 ? b : 0;
    return mask.ptr() + (item * Lq + i) * static_cast<long>(Lkv);
}

bool row_has_key(const Tensor& mask, int b, int i, int Lkv) {
    const float* keep = keep_row(mask, b, i);
    for (int j = 0; j < Lkv; ++j)
        if (keep[j] != 0.0f) return true;
    return false;
}

// A copy preserves NaN too: equal, or both NaN.
bool same_value(float a, float b) { return a == b || (std::isnan(a) && std::isnan(b)); }

// Does the head slice equal the column block of the (B, L, h*d) tensor? (split/concat are pure copies)
bool heads_match_columns(const Tensor& heads, const Tensor& flat) {
    const int B = heads.shape[0], h = heads.shape[1], L = heads.shape[2], dk = heads.shape[3];
    for (int b = 0; b < B; ++b)
        for (int head = 0; head < h; ++head)
            for (int l = 0; l < L; ++l) {
                const float* a = heads.ptr() + ((static_cast<long>(b) * h + head) * L + l) * dk;
                const float* f = flat.ptr() + (static_cast<long>(b) * L + l) * h * dk + head * dk;
                if (std::memcmp(a, f, sizeof(float) * dk) == 0) continue;  // the same bits: the same values
                for (int j = 0; j < dk; ++j)
                    if (!same_value(a[j], f[j])) return false;
            }
    return true;
}

Msg product_text(int h, int d) {
    return Msg::literal(std::to_string(h) + " \xc2\xb7 " + std::to_string(d) + " = " + std::to_string(h * d));
}

std::vector<InvariantCheck>& checks(Trace& tr, StageId id) { return tr.stages[static_cast<int>(id)].checks; }

// 1-3: inputs, projections, split heads.
void check_inputs_and_heads(Trace& tr) {
    const AttentionConfig& c = tr.config;
    checks(tr, StageId::Input).push_back(finite_check(tr[TensorId::QueryIn], 0, Str::Count_));
    if (const Tensor* pe = tr.find(TensorId::Pe)) {
        float lo = 0, hi = 0;
        for (float v : pe->data) lo = v < lo ? v : lo, hi = v > hi ? v : hi;  // fmin/fmax without the calls
        checks(tr, StageId::Input).push_back({"pe_range", Str::chk_pe_range_label, lo >= -1 && hi <= 1,
                                              Msg(Str::chk_min_max_4f, double(lo), double(hi))});
    }
    for (TensorId id : {TensorId::Q, TensorId::K, TensorId::V})
        checks(tr, StageId::Project).push_back(finite_check(tr[id], 0, Str::Count_));
    const int h = c.heads;
    Msg dk_detail = product_text(h, c.d_k());
    dk_detail.then(Msg::literal(", d_model = " + std::to_string(c.d_model)));
    checks(tr, StageId::SplitHeads).push_back({"heads_times_dk", Msg::literal("h \xc2\xb7 d_k = d_model"),
                                               h * c.d_k() == c.d_model, dk_detail});
    const bool split_ok = heads_match_columns(tr[TensorId::QHeads], tr[TensorId::Q]) &&
                          heads_match_columns(tr[TensorId::KHeads], tr[TensorId::K]) &&
                          heads_match_columns(tr[TensorId::VHeads], tr[TensorId::V]);
    checks(tr, StageId::SplitHeads).push_back({"head_columns", Str::chk_head_columns_label, split_ok,
                                               split_ok ? Str::chk_split_ok : Str::chk_split_bad});
}

// The spread of scores and scaled, and max |scores / div - scaled| (in double; NaN skipped
// as fmax skips it), in one pass over both.
struct ScalingScan {
    Moments scores, scaled;
    double err = 0;
};

ScalingScan scan_scaling(const Tensor& scores, const Tensor& scaled, double div) {
    ScalingScan r;
    const vec::Double divisor = vec::Double{} + div;
    vec::Double err{};
    auto add = [&](vec::Float s, vec::Float t) {
        r.scores.add(s), r.scaled.add(t);
        vec::Double e = vec::widen(s) / divisor - vec::widen(t);
        e = e < 0 ? -e : e;
        err = e > err ? e : err;
    };
    const long n = static_cast<long>(scores.size());
    long i = 0;
    for (; i + vec::kLanes <= n; i += vec::kLanes) add(vec::load(scores.ptr() + i), vec::load(scaled.ptr() + i));
    if (i < n) add(tail(scores.ptr() + i, n - i), tail(scaled.ptr() + i, n - i));
    for (int l = 0; l < vec::kLanes; ++l) r.err = err[l] > r.err ? err[l] : r.err;
    return r;
}

// 4-5: scores and their scaling.
void check_scores(Trace& tr) {
    const AttentionConfig& c = tr.config;
    const Tensor& scores = tr[TensorId::Scores];
    const Tensor& scaled = tr[TensorId::Scaled];
    checks(tr, StageId::Scores).push_back(finite_check(scores, 0, Str::Count_));
    const ScalingScan scan = scan_scaling(scores, scaled, c.scale ? std::sqrt(static_cast<double>(c.d_k())) : 1.0);
    const double spread = scan.scores.stddev();
    checks(tr, StageId::Scale).push_back(
        {"scaled_is_scores_over_sqrt_dk",
         c.scale ? Msg::literal("scaled = scores / sqrt(d_k)") : Msg(Str::chk_scaling_off_label),
         scan.err <= 1e-5 * (1 + spread), Msg(Str::chk_max_error, scan.err)});
    checks(tr, StageId::Scale).push_back(
        {"spread", Str::chk_spread_label, true, Msg(Str::chk_spread_detail, spread, scan.scaled.stddev())});
}

// 6: the fill went exactly where the mask says; rows that keep no key.
void check_mask(Trace& tr) {
    const AttentionConfig& c = tr.config;
    const Tensor& mask = tr[TensorId::Mask];
    const Tensor& masked = tr[TensorId::Masked];
    const Tensor& scaled = tr[TensorId::Scaled];
    const int B = c.batch, h = c.heads, Lq = c.L_q(), Lkv = c.L_kv();
    const float fill = mask_fill_value(c.mask_fill);
    const vec::Float fills = vec::splat(fill), zero = vec::splat(0.0f);
    vec::Int wrong_v{}, masked_v{};
    long wrong = 0, n_masked = 0;
    for (int b = 0; b < B; ++b)
        for (int head = 0; head < h; ++head)
            for (int i = 0; i < Lq; ++i) {
                const float* keep = keep_row(mask, b, i);
                const long row = ((static_cast<long>(b) * h + head) * Lq + i) * Lkv;
                const float *m = masked.ptr() + row, *x = scaled.ptr() + row;
                int j = 0;
                for (; j + vec::kLanes <= Lkv; j += vec::kLanes) {
                    const vec::Int kept = vec::load(keep + j) != zero;
                    const vec::Float mj = vec::load(m + j);
                    masked_v -= ~kept;
                    wrong_v -= kept ? mj != vec::load(x + j) : mj != fills;
                }
                for (; j < Lkv; ++j) {
                    const bool kept = keep[j] != 0.0f;
                    n_masked += !kept;
                    wrong += kept ? (m[j] != x[j]) : (m[j] != fill);
                }
            }
    wrong += vec::sum_lanes(wrong_v), n_masked += vec::sum_lanes(masked_v);
    checks(tr, StageId::Mask).push_back({"fill_applied", Msg(Str::chk_fill_applied_label, mask_fill_name(c.mask_fill)),
                                         wrong == 0, Msg(Str::chk_fill_detail, n_masked, wrong)});
    const int fully = tr.fully_masked_rows;
    const Str fully_text = c.mask_fill == MaskFill::NegInf ? Str::chk_fully_masked_nan : Str::chk_fully_masked_uniform;
    checks(tr, StageId::Mask).push_back({"no_fully_masked_rows", Str::chk_row_keeps_key_label, fully == 0,
                                         fully == 0 ? Msg(Str::chk_no_fully_masked) : Msg(fully_text, fully)});
}

// One row of weights: returns its sum (in double); lowers *lo, raises *hi (NaN skipped, as
// fmin/fmax skip it) and counts the masked keys whose weight is not 0 into *leaked.
double scan_weights_row(const float* p, const float* keep, int L, float* lo, float* hi, long* leaked) {
    const vec::Float zero = vec::splat(0.0f);
    vec::Double sum{};
    vec::Float low = vec::splat(*lo), high = vec::splat(*hi);
    vec::Int leaks{};
    int j = 0;
    for (; j + vec::kLanes <= L; j += vec::kLanes) {
        const vec::Float v = vec::load(p + j);
        sum += vec::widen(v);
        low = v < low ? v : low, high = v > high ? v : high;
        leaks -= (vec::load(keep + j) == zero) & (v != zero);
    }
    double total = vec::sum_lanes(sum);
    *lo = -vec::max_lanes(-low), *hi = vec::max_lanes(high);
    *leaked += vec::sum_lanes(leaks);
    for (; j < L; ++j) {
        total += p[j];
        *lo = p[j] < *lo ? p[j] : *lo, *hi = p[j] > *hi ? p[j] : *hi;
        *leaked += keep[j] == 0.0f && p[j] != 0.0f;
    }
    return total;
}

// 7: rows sum to 1, masked keys get 0, every weight in [0, 1] (fully masked rows left out).
void check_softmax(Trace& tr) {
    const AttentionConfig& c = tr.config;
    const Tensor& mask = tr[TensorId::Mask];
    const Tensor& weights = tr[TensorId::Weights];
    const int B = c.batch, h = c.heads, Lq = c.L_q(), Lkv = c.L_kv();
    double worst = 0;
    long leaked = 0, rows = 0;
    float lo = 0, hi = 0;
    for (int b = 0; b < B; ++b)
        for (int head = 0; head < h; ++head)
            for (int i = 0; i < Lq; ++i) {
                if (!row_has_key(mask, b, i, Lkv)) continue;  // reported by the mask stage
                const float* keep = keep_row(mask, b, i);
                const float* p = weights.ptr() + ((static_cast<long>(b) * h + head) * Lq + i) * Lkv;
                const double sum = scan_weights_row(p, keep, Lkv, &lo, &hi, &leaked);
                worst = std::fmax(worst, std::fabs(sum - 1.0));
                ++rows;
            }
    Msg rows_detail(Str::chk_rows_sum_detail, worst, rows);
    if (tr.fully_masked_rows) rows_detail.then(Msg(Str::chk_rows_left_out, tr.fully_masked_rows));
    checks(tr, StageId::Softmax).push_back({"rows_sum_to_1", Str::chk_rows_sum_label, worst <= 1e-5, rows_detail});
    const bool causal = c.mask == MaskKind::Causal;
    checks(tr, StageId::Softmax).push_back({causal ? "future_is_zero" : "masked_is_zero",
                                            causal ? Str::chk_future_zero_label : Str::chk_masked_zero_label,
                                            leaked == 0, Msg(Str::chk_leaked_detail, leaked)});
    checks(tr, StageId::Softmax).push_back({"in_unit_interval", Str::chk_unit_interval_label, lo >= 0 && hi <= 1,
                                            Msg(Str::chk_min_max_3g, double(lo), double(hi))});
}

// 8-10: context, concat, output; NaN only where fully masked rows (-inf fill) put it.
void check_outputs(Trace& tr) {
    const AttentionConfig& c = tr.config;
    const int h = c.heads;
    const bool nan_rows = tr.fully_masked_rows > 0 && c.mask_fill == MaskFill::NegInf;
    const long nan_query_rows = nan_rows ? tr.fully_masked_rows / h : 0;
    const Str why = Str::chk_nan_from_masked_rows;
    checks(tr, StageId::Context).push_back(finite_check(tr[TensorId::Context], nan_query_rows * h * c.d_v(), why));
    checks(tr, StageId::Concat).push_back({"hdv_is_dmodel", Msg::literal("h \xc2\xb7 d_v = d_model"),
                                           h * c.d_v() == c.d_model, product_text(h, c.d_v())});
    const bool concat_ok = heads_match_columns(tr[TensorId::Context], tr[TensorId::Concat]);
    checks(tr, StageId::Concat).push_back({"concat_inverts_split", Str::chk_concat_label, concat_ok,
                                           concat_ok ? Str::chk_concat_ok : Str::chk_concat_bad});
    checks(tr, StageId::Output).push_back(finite_check(tr[TensorId::Output], nan_query_rows * c.d_model, why));
}

// Rows whose keys are all masked: the one place NaN (with -inf) is expected.
int count_fully_masked_rows(const Trace& tr) {
    const AttentionConfig& c = tr.config;
    int fully_masked = 0;
    for (int b = 0; b < c.batch; ++b)
        for (int i = 0; i < c.L_q(); ++i)
            if (!row_has_key(tr[TensorId::Mask], b, i, c.L_kv())) fully_masked += c.heads;
    return fully_masked;
}

}  // namespace

void check_invariants(Trace& tr) {
    tr.fully_masked_rows = count_fully_masked_rows(tr);
    check_inputs_and_heads(tr);
    check_scores(tr);
    check_mask(tr);
    check_softmax(tr);
    check_outputs(tr);
}

}  // namespace lab
