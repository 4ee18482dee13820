// invariants.cpp — Attention Lab core: invariant checks on a recorded trace.
//
// Every check is recomputed from the numbers, never assumed: a bug in a stage (or a
// deliberate mistake in a later experiment) shows up as a failed badge.
#include "invariants.h"

#include <cmath>
#include <string>

#include "i18n.h"
#include "trace.h"

namespace lab {

namespace {

long count_nonfinite(const Tensor& t) {
    long n = 0;
    for (float v : t.data) n += !std::isfinite(v);
    return n;
}

double stddev(const Tensor& t) {
    double sum = 0, sq = 0;
    long n = 0;
    for (float v : t.data)
        if (std::isfinite(v)) sum += v, sq += double(v) * v, ++n;
    if (n == 0) return 0;
    const double mean = sum / n;
    return std::sqrt(std::fmax(0.0, sq / n - mean * mean));
}

InvariantCheck finite_check(const Tensor& t, long allowed_nonfinite, const char* why_allowed) {
    const long bad = count_nonfinite(t);
    InvariantCheck c{"finite", trf(Str::chk_finite_label, t.name), bad <= allowed_nonfinite, ""};
    if (bad == 0) c.detail = trf(Str::chk_finite_none, t.size());
    else if (bad <= allowed_nonfinite) c.detail = trf(Str::chk_finite_allowed, bad, why_allowed);
    else c.detail = trf(Str::chk_finite_bad, bad, t.size());
    return c;
}

// The keep row (L_kv values) of query i in batch item b, whatever the mask's rank.
const float* keep_row(const Tensor& mask, int b, int i) {
    const int Lq = mask.shape[mask.shape.size() - 2], Lkv = mask.shape.back();
    const long item = mask.shape.size() == 3 ? b : 0;
    return mask.ptr() + (item * Lq + i) * static_cast<long>(Lkv);
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
                for (int j = 0; j < dk; ++j)
                    if (!same_value(a[j], f[j])) return false;
            }
    return true;
}

}  // namespace

void check_invariants(Trace& tr) {
    const AttentionConfig& c = tr.config;
    auto checks = [&](StageId id) -> std::vector<InvariantCheck>& { return tr.stages[static_cast<int>(id)].checks; };
    const Tensor& scores = *tr.find("scores");
    const Tensor& scaled = *tr.find("scaled");
    const Tensor& masked = *tr.find("masked");
    const Tensor& weights = *tr.find("weights");
    const Tensor& mask = *tr.find("mask");
    const int B = c.batch, h = c.heads, Lq = c.L_q(), Lkv = c.L_kv();
    const float fill = mask_fill_value(c.mask_fill);

    // Rows whose keys are all masked: the one place NaN (with -inf) is expected.
    int fully_masked = 0;
    for (int b = 0; b < B; ++b)
        for (int i = 0; i < Lq; ++i) {
            bool any = false;
            const float* keep = keep_row(mask, b, i);
            for (int j = 0; j < Lkv && !any; ++j) any = keep[j] != 0.0f;
            if (!any) fully_masked += h;
        }
    tr.fully_masked_rows = fully_masked;
    const bool nan_rows = fully_masked > 0 && c.mask_fill == MaskFill::NegInf;
    const long nan_query_rows = nan_rows ? fully_masked / h : 0;

    // 1. input
    checks(StageId::Input).push_back(finite_check(*tr.find("query_in"), 0, ""));
    if (const Tensor* pe = tr.find("pe")) {
        float lo = 0, hi = 0;
        for (float v : pe->data) lo = std::fmin(lo, v), hi = std::fmax(hi, v);
        checks(StageId::Input).push_back({"pe_range", lab::tr(Str::chk_pe_range_label), lo >= -1 && hi <= 1,
                                          trf(Str::chk_min_max_4f, double(lo), double(hi))});
    }
    // 2. projections
    for (const char* name : {"q", "k", "v"}) checks(StageId::Project).push_back(finite_check(*tr.find(name), 0, ""));
    // 3. split heads
    checks(StageId::SplitHeads).push_back({"heads_times_dk", "h \xc2\xb7 d_k = d_model", h * c.d_k() == c.d_model,
                                           std::to_string(h) + " \xc2\xb7 " + std::to_string(c.d_k()) + " = " +
                                               std::to_string(h * c.d_k()) + ", d_model = " + std::to_string(c.d_model)});
    const bool split_ok = heads_match_columns(*tr.find("q_heads"), *tr.find("q")) &&
                          heads_match_columns(*tr.find("k_heads"), *tr.find("k")) &&
                          heads_match_columns(*tr.find("v_heads"), *tr.find("v"));
    checks(StageId::SplitHeads).push_back({"head_columns", lab::tr(Str::chk_head_columns_label), split_ok,
                                           lab::tr(split_ok ? Str::chk_split_ok : Str::chk_split_bad)});
    // 4. scores
    checks(StageId::Scores).push_back(finite_check(scores, 0, ""));
    // 5. scale
    {
        const double div = c.scale ? std::sqrt(static_cast<double>(c.d_k())) : 1.0;
        double err = 0;
        for (size_t i = 0; i < scores.size(); ++i) err = std::fmax(err, std::fabs(scores.data[i] / div - scaled.data[i]));
        checks(StageId::Scale).push_back({"scaled_is_scores_over_sqrt_dk",
                                          c.scale ? "scaled = scores / sqrt(d_k)" : lab::tr(Str::chk_scaling_off_label),
                                          err <= 1e-5 * (1 + stddev(scores)), trf(Str::chk_max_error, err)});
        checks(StageId::Scale).push_back({"spread", lab::tr(Str::chk_spread_label), true,
                                          trf(Str::chk_spread_detail, stddev(scores), stddev(scaled))});
    }
    // 6. mask
    {
        long wrong = 0, n_masked = 0;
        for (int b = 0; b < B; ++b)
            for (int head = 0; head < h; ++head)
                for (int i = 0; i < Lq; ++i) {
                    const float* keep = keep_row(mask, b, i);
                    const long row = ((static_cast<long>(b) * h + head) * Lq + i) * Lkv;
                    const float* m = masked.ptr() + row;
                    const float* sc = scaled.ptr() + row;
                    for (int j = 0; j < Lkv; ++j) {
                        const bool kept = keep[j] != 0.0f;
                        n_masked += !kept;
                        wrong += kept ? (m[j] != sc[j]) : (m[j] != fill);
                    }
                }
        checks(StageId::Mask).push_back({"fill_applied", trf(Str::chk_fill_applied_label, mask_fill_name(c.mask_fill)),
                                         wrong == 0, trf(Str::chk_fill_detail, n_masked, wrong)});
        const Str fully_masked_text =
            c.mask_fill == MaskFill::NegInf ? Str::chk_fully_masked_nan : Str::chk_fully_masked_uniform;
        checks(StageId::Mask).push_back({"no_fully_masked_rows", lab::tr(Str::chk_row_keeps_key_label), fully_masked == 0,
                                         fully_masked == 0 ? std::string(lab::tr(Str::chk_no_fully_masked))
                                                           : trf(fully_masked_text, fully_masked)});
    }
    // 7. softmax
    {
        double worst = 0;
        long leaked = 0, rows = 0;
        float lo = 0, hi = 0;
        for (int b = 0; b < B; ++b)
            for (int head = 0; head < h; ++head)
                for (int i = 0; i < Lq; ++i) {
                    const float* keep = keep_row(mask, b, i);
                    bool row_kept = false;
                    for (int j = 0; j < Lkv; ++j) row_kept |= keep[j] != 0.0f;
                    if (!row_kept) continue;  // reported by the mask stage
                    const float* p = weights.ptr() + ((static_cast<long>(b) * h + head) * Lq + i) * Lkv;
                    double sum = 0;
                    for (int j = 0; j < Lkv; ++j) {
                        sum += p[j];
                        lo = std::fmin(lo, p[j]), hi = std::fmax(hi, p[j]);
                        if (keep[j] == 0.0f && p[j] != 0.0f) ++leaked;
                    }
                    worst = std::fmax(worst, std::fabs(sum - 1.0));
                    ++rows;
                }
        std::string rows_detail = trf(Str::chk_rows_sum_detail, worst, rows);
        if (fully_masked) rows_detail += trf(Str::chk_rows_left_out, fully_masked);
        checks(StageId::Softmax).push_back({"rows_sum_to_1", lab::tr(Str::chk_rows_sum_label), worst <= 1e-5, rows_detail});
        const bool causal = c.mask == MaskKind::Causal;
        checks(StageId::Softmax).push_back({causal ? "future_is_zero" : "masked_is_zero",
                                            lab::tr(causal ? Str::chk_future_zero_label : Str::chk_masked_zero_label),
                                            leaked == 0, trf(Str::chk_leaked_detail, leaked)});
        checks(StageId::Softmax).push_back({"in_unit_interval", lab::tr(Str::chk_unit_interval_label), lo >= 0 && hi <= 1,
                                            trf(Str::chk_min_max_3g, double(lo), double(hi))});
    }
    // 8. context, 9. concat, 10. output
    const char* why = lab::tr(Str::chk_nan_from_masked_rows);
    checks(StageId::Context).push_back(finite_check(*tr.find("context"), nan_query_rows * h * c.d_v(), why));
    checks(StageId::Concat).push_back({"hdv_is_dmodel", "h \xc2\xb7 d_v = d_model", h * c.d_v() == c.d_model,
                                       std::to_string(h) + " \xc2\xb7 " + std::to_string(c.d_v()) + " = " +
                                           std::to_string(h * c.d_v())});
    const bool concat_ok = heads_match_columns(*tr.find("context"), *tr.find("concat"));
    checks(StageId::Concat).push_back({"concat_inverts_split", lab::tr(Str::chk_concat_label), concat_ok,
                                       lab::tr(concat_ok ? Str::chk_concat_ok : Str::chk_concat_bad)});
    checks(StageId::Output).push_back(finite_check(*tr.find("output"), nan_query_rows * c.d_model, why));
}

}  // namespace lab
