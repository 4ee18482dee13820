// invariants.cpp — Attention Lab core: invariant checks on a recorded trace.
//
// Every check is recomputed from the numbers, never assumed: a bug in a stage (or a
// deliberate mistake in a later experiment) shows up as a failed badge, and
// tests/test_invariants.cpp corrupts a tensor for each check to prove it can fail. What
// no input can make wrong once the configuration is valid (h·d_k = d_model) and the
// numbers footnote 4 reasons with are facts: shown, never counted as checks.
#include "trace/invariants.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "attention/flash_attention.h"
#include "base/scans.h"
#include "trace/score_stats.h"
#include "trace/trace.h"

namespace lab {

const char* verdict_name(Verdict v) {
    switch (v) {
        case Verdict::Pass: return "pass";
        case Verdict::Fail: return "fail";
        case Verdict::NanMasked: return "nan_masked";
        case Verdict::Fact: return "fact";
    }
    return "fail";
}

namespace {

// The keep row (L_kv values) of query i in batch item b, whatever the mask's rank.
const float* keep_row(const Tensor& mask, int b, int i) {
    const int Lq = mask.shape[mask.shape.size() - 2], Lkv = mask.shape.back();
    const long item = mask.shape.size() == 3 ? b : 0;
    return mask.ptr() + (item * Lq + i) * static_cast<long>(Lkv);
}

bool row_has_key(const Tensor& mask, int b, int i) {
    const float* keep = keep_row(mask, b, i);
    for (int j = 0; j < mask.shape.back(); ++j)
        if (keep[j] != 0.0f) return true;
    return false;
}

// The finite check of t from its counts: values that are not finite outside fully-masked
// rows fail it; inside them (the -inf fill's 0/0) they get their own verdict, with the reason.
InvariantCheck finite_verdict(const Tensor& t, long stray, long in_masked_rows, int masked_rows) {
    InvariantCheck c{"finite", Msg(Str::chk_finite_label, t.name), Verdict::Pass, Msg(Str::chk_finite_none, t.size())};
    if (stray > 0) {
        c.verdict = Verdict::Fail;
        c.detail = Msg(Str::chk_finite_bad, stray + in_masked_rows, t.size());
    } else if (in_masked_rows > 0) {
        c.verdict = Verdict::NanMasked;
        c.label = Msg(Str::chk_finite_nan_label, t.name);
        c.detail = Msg(Str::chk_finite_nan_masked, in_masked_rows, masked_rows);
    }
    return c;
}

// NaN or inf anywhere is a failure, except (when fill_nan: the -inf fill) in a row whose
// query keeps no key. t's rows are its last axis; row r belongs to query r % L_q of batch
// item r / (rows_per_item): heads_per_item rows of L_q queries each (1 for (B, L_q, d)).
InvariantCheck finite_check(const Tensor& t, const Tensor* mask, bool fill_nan, int heads_per_item) {
    const long width = t.shape.back(), rows = static_cast<long>(t.size()) / width;
    const int Lq = t.shape[t.shape.size() - 2];
    long stray = 0, in_masked_rows = 0;
    int masked_rows = 0;
    for (long r = 0; r < rows; ++r) {
        const bool row_masked = mask && fill_nan && !row_has_key(*mask, static_cast<int>(r / (heads_per_item * Lq)),
                                                                  static_cast<int>(r % Lq));
        masked_rows += row_masked;
        (row_masked ? in_masked_rows : stray) += count_nonfinite(t.ptr() + r * width, width);
    }
    return finite_verdict(t, stray, in_masked_rows, masked_rows);
}

InvariantCheck finite_check(const Tensor& t) { return finite_check(t, nullptr, false, 1); }

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

// "h · d = d_model": true for every valid configuration, so it is a fact.
InvariantCheck product_fact(const char* id, const char* label, int h, int d, int d_model) {
    const std::string product = std::to_string(h) + " \xc2\xb7 " + std::to_string(d) + " = " + std::to_string(h * d);
    return {id, Msg::literal(label), Verdict::Fact, Msg(Str::chk_product_fact, product, d_model)};
}

std::vector<InvariantCheck>& checks(Trace& tr, StageId id) { return tr.stages[static_cast<int>(id)].checks; }

// Grouped-query attention: query head i of every item reads key/value group i / n (n = h / h_kv),
// value for value (repeat_interleave; a repeat that cycles the groups gives head i group i % h_kv).
bool heads_read_their_group(const Tensor& heads, const Tensor& groups) {
    const int B = heads.shape[0], h = heads.shape[1], h_kv = groups.shape[1];
    const long block = static_cast<long>(heads.shape[2]) * heads.shape[3];
    for (int b = 0; b < B; ++b)
        for (int head = 0; head < h; ++head) {
            const float* a = heads.ptr() + (static_cast<long>(b) * h + head) * block;
            const float* g = groups.ptr() + (static_cast<long>(b) * h_kv + head / (h / h_kv)) * block;
            for (long i = 0; i < block; ++i)
                if (!same_value(a[i], g[i])) return false;
        }
    return true;
}

// K and V split into h_kv groups (their columns), and each query head given its group.
void check_kv_groups(Trace& tr) {
    const AttentionConfig& c = tr.config;
    std::vector<InvariantCheck>& out = checks(tr, StageId::SplitHeads);
    const bool split_ok = heads_match_columns(tr[TensorId::KGroups], tr[TensorId::K]) &&
                          heads_match_columns(tr[TensorId::VGroups], tr[TensorId::V]);
    out.push_back({"kv_group_columns", Str::chk_kv_group_columns_label, holds(split_ok),
                   split_ok ? Msg(Str::chk_kv_split_ok, c.h_kv()) : Msg(Str::chk_kv_split_bad)});
    const bool repeat_ok = heads_read_their_group(tr[TensorId::KHeads], tr[TensorId::KGroups]) &&
                           heads_read_their_group(tr[TensorId::VHeads], tr[TensorId::VGroups]);
    const int n = c.heads / c.h_kv();
    out.push_back({"kv_repeat", Str::chk_kv_repeat_label, holds(repeat_ok),
                   repeat_ok ? Msg(Str::chk_kv_repeat_ok, n, n - 1) : Msg(Str::chk_kv_repeat_bad, n)});
}

// 1-3: inputs, projections, split heads.
void check_inputs_and_heads(Trace& tr) {
    const AttentionConfig& c = tr.config;
    checks(tr, StageId::Input).push_back(finite_check(tr[TensorId::QueryIn]));
    if (const Tensor* pe = tr.find(TensorId::Pe)) {
        const Range r = range_with_zero(pe->ptr(), static_cast<long>(pe->size()));
        checks(tr, StageId::Input).push_back({"pe_range", Str::chk_pe_range_label, holds(r.lo >= -1 && r.hi <= 1),
                                              Msg(Str::chk_min_max_4f, double(r.lo), double(r.hi))});
    }
    for (TensorId id : {TensorId::Q, TensorId::K, TensorId::V})
        checks(tr, StageId::Project).push_back(finite_check(tr[id]));
    if (c.raw) return;  // raw SDPA has no heads: split is skipped (a copy), nothing to claim about columns
    checks(tr, StageId::SplitHeads).push_back(product_fact("heads_times_dk", "h \xc2\xb7 d_k = d_model", c.heads, c.d_k(), c.d_model));
    const bool grouped = c.grouped();  // then K and V split into their own h_kv groups (check_kv_groups)
    const bool split_ok = heads_match_columns(tr[TensorId::QHeads], tr[TensorId::Q]) &&
                          (grouped || heads_match_columns(tr[TensorId::KHeads], tr[TensorId::K])) &&
                          (grouped || heads_match_columns(tr[TensorId::VHeads], tr[TensorId::V]));
    checks(tr, StageId::SplitHeads).push_back({"head_columns", grouped ? Str::chk_head_columns_q_label : Str::chk_head_columns_label, holds(split_ok),
                                               split_ok ? Str::chk_split_ok : Str::chk_split_bad});
    if (grouped) check_kv_groups(tr);
}

// 4-5: scores, their scaling, and footnote 4's numbers as facts.
void check_scores(Trace& tr) {
    const AttentionConfig& c = tr.config;
    const Tensor& scores = tr[TensorId::Scores];
    const Tensor& scaled = tr[TensorId::Scaled];
    const double div = c.scale ? std::sqrt(static_cast<double>(c.d_k())) : 1.0;
    const ScoreScan scan = scan_scores(scores.ptr(), scaled.ptr(), div, static_cast<long>(scores.size()));
    checks(tr, StageId::Scores).push_back(finite_verdict(scores, scan.nonfinite, 0, 0));
    const ScaleError& e = scan.scale;
    checks(tr, StageId::Scale).push_back(
        {"scaled_is_scores_over_sqrt_dk",
         c.scale ? Msg::literal("scaled = scores / sqrt(d_k)") : Msg(Str::chk_scaling_off_label),
         holds(e.err <= 1e-6 * (1 + e.largest)), Msg(Str::chk_max_error, e.err)});
    // Raw SDPA has no positional encoding or biases to take away: the live Q, K are the plain ones.
    const ScoreStats live = score_stats(tr, scan.moments);
    for (InvariantCheck& fact : footnote4_facts(c, live, c.raw ? live : score_stats_without_pe_bias(tr)))
        checks(tr, StageId::Scale).push_back(std::move(fact));
}

// The keep rule restated from the definitions, apart from the masked_by that built the
// mask: a causal key is seen when it is behind the query within the window, or in the
// prefix; a padding or unmasked key when it is real and within the window either side.
bool rule_keeps(const AttentionConfig& c, int b, int i, int j) {
    const int behind = i - j;
    const bool in_window = c.window == 0 || (c.mask == MaskKind::Causal ? behind < c.window : std::abs(behind) < c.window);
    switch (c.mask) {
        case MaskKind::Causal: return j < c.prefix || (behind >= 0 && in_window);
        case MaskKind::Padding: return j < c.padding_lengths[b] && in_window;
        case MaskKind::None: return in_window;
        case MaskKind::Custom: return c.custom_keep[static_cast<size_t>(i) * c.L_kv() + j] != 0;
    }
    return false;
}

// 6 (window, prefix): the mask keeps exactly the keys the window and the prefix allow.
void check_window_rule(Trace& tr) {
    const AttentionConfig& c = tr.config;
    if (c.window == 0 && c.prefix == 0) return;
    const Tensor& mask = tr[TensorId::Mask];
    const int items = mask.shape.size() == 3 ? c.batch : 1;
    long wrong = 0, cells = 0;
    for (int b = 0; b < items; ++b)
        for (int i = 0; i < c.L_q(); ++i)
            for (int j = 0; j < c.L_kv(); ++j, ++cells)
                wrong += (keep_row(mask, b, i)[j] != 0.0f) != rule_keeps(c, b, i, j);
    checks(tr, StageId::Mask).push_back({"window_prefix_rule", Msg(Str::chk_window_rule_label, c.window, c.prefix),
                                         holds(wrong == 0), Msg(Str::chk_window_rule_detail, wrong, cells)});
}

// 6: the fill went exactly where the mask says; rows that keep no key.
void check_mask(Trace& tr) {
    const AttentionConfig& c = tr.config;
    const Tensor& mask = tr[TensorId::Mask];
    const Tensor& masked = tr[TensorId::Masked];
    const Tensor& scaled = tr[TensorId::Scaled];
    const int B = c.batch, h = c.heads, Lq = c.L_q(), Lkv = c.L_kv();
    const float fill = mask_fill_value(c.mask_fill);
    MaskCount count;
    for (int b = 0; b < B; ++b)
        for (int head = 0; head < h; ++head)
            for (int i = 0; i < Lq; ++i) {
                const long row = ((static_cast<long>(b) * h + head) * Lq + i) * Lkv;
                count_mask_row(count, masked.ptr() + row, scaled.ptr() + row, keep_row(mask, b, i), fill, Lkv);
            }
    const long wrong = count.fill_wrong + count.copy_wrong, n_masked = count.dropped;
    checks(tr, StageId::Mask).push_back({"fill_applied", Msg(Str::chk_fill_applied_label, mask_fill_name(c.mask_fill)),
                                         holds(wrong == 0), Msg(Str::chk_fill_detail, n_masked, wrong)});
    const int fully = tr.fully_masked_rows;
    const Str fully_text = c.mask_fill == MaskFill::NegInf ? Str::chk_fully_masked_nan : Str::chk_fully_masked_uniform;
    checks(tr, StageId::Mask).push_back({"no_fully_masked_rows", Str::chk_row_keeps_key_label, holds(fully == 0),
                                         fully == 0 ? Msg(Str::chk_no_fully_masked) : Msg(fully_text, fully)});
}

// 7: rows sum to 1, masked keys get 0, every weight in [0, 1] (fully masked rows left out).
void check_softmax(Trace& tr) {
    const AttentionConfig& c = tr.config;
    const Tensor& mask = tr[TensorId::Mask];
    const Tensor& weights = tr[TensorId::Weights];
    const int B = c.batch, h = c.heads, Lq = c.L_q(), Lkv = c.L_kv();
    double worst = 0;
    long leaked = 0, rows = 0, outside = 0;
    Range all;
    for (int b = 0; b < B; ++b)
        for (int head = 0; head < h; ++head)
            for (int i = 0; i < Lq; ++i) {
                if (!row_has_key(mask, b, i)) continue;  // reported by the mask stage
                const float* p = weights.ptr() + ((static_cast<long>(b) * h + head) * Lq + i) * Lkv;
                const ProbabilityRow r = scan_probability_row(p, keep_row(mask, b, i), Lkv);
                outside += r.outside, leaked += r.leaked;
                all.lo = r.range.lo < all.lo ? r.range.lo : all.lo, all.hi = r.range.hi > all.hi ? r.range.hi : all.hi;
                worst = std::isnan(r.sum) ? HUGE_VAL : std::fmax(worst, std::fabs(r.sum - 1.0));
                ++rows;
            }
    Msg rows_detail(Str::chk_rows_sum_detail, worst, rows);
    if (tr.fully_masked_rows) rows_detail.then(Msg(Str::chk_rows_left_out, tr.fully_masked_rows));
    checks(tr, StageId::Softmax).push_back({"rows_sum_to_1", Str::chk_rows_sum_label, holds(worst <= 1e-5), rows_detail});
    const bool causal = c.mask == MaskKind::Causal && c.window == 0 && c.prefix == 0;  // only the future is masked
    checks(tr, StageId::Softmax).push_back({causal ? "future_is_zero" : "masked_is_zero",
                                            causal ? Str::chk_future_zero_label : Str::chk_masked_zero_label,
                                            holds(leaked == 0), Msg(Str::chk_leaked_detail, leaked)});
    checks(tr, StageId::Softmax).push_back({"in_unit_interval", Str::chk_unit_interval_label, holds(outside == 0),
                                            Msg(Str::chk_min_max_3g, double(all.lo), double(all.hi))});
}

// 9: concat undoes the split; h·d_v = d_model.
void check_concat(Trace& tr) {
    const AttentionConfig& c = tr.config;
    checks(tr, StageId::Concat).push_back(product_fact("hdv_is_dmodel", "h \xc2\xb7 d_v = d_model", c.heads, c.d_v(), c.d_model));
    const bool concat_ok = heads_match_columns(tr[TensorId::Context], tr[TensorId::Concat]);
    checks(tr, StageId::Concat).push_back({"concat_inverts_split", Str::chk_concat_label, holds(concat_ok),
                                           concat_ok ? Str::chk_concat_ok : Str::chk_concat_bad});
}

// 8-10: context, concat, output; NaN only where fully masked rows (-inf fill) put it.
void check_outputs(Trace& tr) {
    const AttentionConfig& c = tr.config;
    const Tensor& mask = tr[TensorId::Mask];
    const bool nan_fill = c.mask_fill == MaskFill::NegInf;
    checks(tr, StageId::Context).push_back(finite_check(tr[TensorId::Context], &mask, nan_fill, c.heads));
    if (!c.raw) check_concat(tr);  // raw SDPA: one attention, nothing concatenated
    checks(tr, StageId::Output).push_back(finite_check(tr[TensorId::Output], &mask, nan_fill, 1));
}

// 8 (flash_tile): the online softmax's O / l equals the naive weights · V, NaN where it is
// NaN; and at every tile l and O are what the keys seen so far give (the rescaling identity).
// The bound: float32 sums of L_kv terms taken in another order, a few ulps per term.
void check_flash(Trace& tr) {
    const AttentionConfig& c = tr.config;
    const FlashRecord& f = tr.flash;
    if (!f.on()) return;
    const Tensor& context = tr[TensorId::Context];
    const Tensor& v = tr[TensorId::VHeads];
    float v_max = 0;
    for (float x : v.data) v_max = std::fmax(v_max, std::fabs(x));
    const double bound = 4.0 * 1.1920929e-7 * (c.L_kv() + 4) * (1.0 + v_max);
    double worst = 0;
    long wrong_nan = 0;
    for (size_t e = 0; e < context.data.size() && e < f.out.size(); ++e) {
        const float a = f.out[e], b = context.data[e];
        if (std::isnan(a) || std::isnan(b)) wrong_nan += std::isnan(a) != std::isnan(b);
        else worst = std::fmax(worst, std::fabs(double(a) - b));
    }
    const bool same_size = f.out.size() == context.data.size();
    checks(tr, StageId::Context).push_back({"flash_equals_naive", Msg(Str::chk_flash_equal_label, f.Br, f.Bc),
                                            holds(same_size && wrong_nan == 0 && worst <= bound),
                                            Msg(Str::chk_flash_equal_detail, worst, bound, wrong_nan)});
    double identity = 0;
    bool max_exact = true;
    for (const FlashTile& t : f.tiles) {
        const double e = flash_identity_error(t, tr[TensorId::Masked].ptr(), v.ptr(), c.L_q(), c.L_kv(), c.d_v());
        if (e < 0) max_exact = false;
        else identity = std::fmax(identity, e);
    }
    checks(tr, StageId::Context).push_back({"flash_rescaling_identity", Str::chk_flash_identity_label,
                                            holds(max_exact && identity <= 1e-5),
                                            Msg(Str::chk_flash_identity_detail, f.tiles.size(), identity,
                                                max_exact ? Str::chk_flash_max_exact : Str::chk_flash_max_wrong)});
}

// Rows whose keys are all masked: the one place NaN (with -inf) is expected.
int count_fully_masked_rows(const Trace& tr) {
    const AttentionConfig& c = tr.config;
    int fully_masked = 0;
    for (int b = 0; b < c.batch; ++b)
        for (int i = 0; i < c.L_q(); ++i)
            if (!row_has_key(tr[TensorId::Mask], b, i)) fully_masked += c.heads;
    return fully_masked;
}

}  // namespace

void check_invariants(Trace& tr) {
    for (StageRecord& s : tr.stages) s.checks.clear();
    tr.fully_masked_rows = count_fully_masked_rows(tr);
    check_inputs_and_heads(tr);
    check_scores(tr);
    check_mask(tr);
    check_window_rule(tr);
    check_softmax(tr);
    check_outputs(tr);
    check_flash(tr);
}

}  // namespace lab
