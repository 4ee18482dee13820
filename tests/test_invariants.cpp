// test_invariants.cpp — every check can fail: each is made to fail by corrupting the
// tensor it reads; what cannot fail is a fact. NaN from fully-masked rows has its own
// verdict, never a pass. Footnote 4's facts say what their numbers say.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <regex>
#include <set>
#include <sstream>

#include "cli/cli.h"
#include "text.h"
#include "trace/invariants.h"
#include "trace/score_stats.h"
#include "trace/trace.h"

using namespace lab;

namespace {

const float kNan = std::numeric_limits<float>::quiet_NaN();

Tensor& mut(Trace& tr, TensorId id) { return tr.tensors[tr.slot[static_cast<int>(id)]]; }

// How one check is made to fail: the config to run, the stage and id (and the tensor its
// label names, for the three "finite" checks of the projections), and the corruption.
struct Corruption {
    const char* name;
    StageId stage;
    const char* id;
    const char* label_names;  // "" or a tensor name the label must contain
    std::function<void(AttentionConfig&)> configure;
    std::function<void(Trace&)> corrupt;
};

void causal(AttentionConfig&) {}
void padding(AttentionConfig& c) { c.mask = MaskKind::Padding, c.padding_lengths = {4, 2}; }
void window2(AttentionConfig& c) { c.window = 2; }
void prefix2(AttentionConfig& c) { c.prefix = 2; }
void flash2(AttentionConfig& c) { c.flash_tile = {2, 2}; }
void grouped(AttentionConfig& c) { c.heads = 4, c.kv_heads = 2; }  // GQA: heads 0, 1 read group 0; 2, 3 group 1

// What repeat (not repeat_interleave) gives for 4 heads and 2 groups: heads 1 and 2 swap.
void repeat_not_interleave(Trace& t) {
    Tensor& k = mut(t, TensorId::KHeads);
    const long block = static_cast<long>(k.shape[2]) * k.shape[3];
    for (int b = 0; b < k.shape[0]; ++b)
        std::swap_ranges(k.data.begin() + (b * 4 + 1) * block, k.data.begin() + (b * 4 + 2) * block,
                         k.data.begin() + (b * 4 + 2) * block);
}

const std::vector<Corruption>& corruptions() {
    static const std::vector<Corruption> all = {
        {"query_in NaN", StageId::Input, "finite", "query_in", causal, [](Trace& t) { mut(t, TensorId::QueryIn).data[5] = kNan; }},
        {"pe above 1", StageId::Input, "pe_range", "", causal, [](Trace& t) { mut(t, TensorId::Pe).data[3] = 1.5f; }},
        {"q inf", StageId::Project, "finite", "q ", causal, [](Trace& t) { mut(t, TensorId::Q).data[0] = INFINITY; }},
        {"k NaN", StageId::Project, "finite", "k ", causal, [](Trace& t) { mut(t, TensorId::K).data[1] = kNan; }},
        {"v NaN", StageId::Project, "finite", "v ", causal, [](Trace& t) { mut(t, TensorId::V).data[2] = kNan; }},
        {"a head moved", StageId::SplitHeads, "head_columns", "", causal, [](Trace& t) { mut(t, TensorId::KHeads).data[4] += 1; }},
        {"a K group moved", StageId::SplitHeads, "kv_group_columns", "", grouped,
         [](Trace& t) { mut(t, TensorId::KGroups).data[3] += 1; }},
        {"groups repeated in the wrong order", StageId::SplitHeads, "kv_repeat", "", grouped, repeat_not_interleave},
        {"scores NaN", StageId::Scores, "finite", "", causal, [](Trace& t) { mut(t, TensorId::Scores).data[0] = kNan; }},
        {"scale wrong", StageId::Scale, "scaled_is_scores_over_sqrt_dk", "", causal,
         [](Trace& t) { mut(t, TensorId::Scaled).data[3] *= 1.01f; }},
        {"fill missing", StageId::Mask, "fill_applied", "", causal,
         [](Trace& t) { mut(t, TensorId::Masked).data[1] = 0.0f; }},  // (0, 0, 0, 1): a future key
        {"row without keys", StageId::Mask, "no_fully_masked_rows", "", causal,
         [](Trace& t) { mut(t, TensorId::Mask).data[0] = 0.0f; }},  // query 0 kept only key 0
        // The bugs a window or prefix invites: one key too many, a prefix key dropped.
        {"window one too wide", StageId::Mask, "window_prefix_rule", "", window2,
         [](Trace& t) { mut(t, TensorId::Mask).data[3 * 4 + 1] = 1.0f; }},  // query 3 keeps key 1, 2 behind
        {"prefix key dropped", StageId::Mask, "window_prefix_rule", "", prefix2,
         [](Trace& t) { mut(t, TensorId::Mask).data[0 * 4 + 1] = 0.0f; }},  // query 0 loses prefix key 1
        {"row sums 1.1", StageId::Softmax, "rows_sum_to_1", "", causal, [](Trace& t) { mut(t, TensorId::Weights).data[4] += 0.1f; }},
        {"future leaks", StageId::Softmax, "future_is_zero", "", causal, [](Trace& t) { mut(t, TensorId::Weights).data[1] = 1e-7f; }},
        {"padding leaks", StageId::Softmax, "masked_is_zero", "", padding,
         [](Trace& t) { mut(t, TensorId::Weights).data[t[TensorId::Weights].offset({1, 0, 0, 3})] = 1e-7f; }},
        {"weight below 0", StageId::Softmax, "in_unit_interval", "", causal,
         [](Trace& t) {  // row (0, 0, 3): sums to 1 still
             Tensor& w = mut(t, TensorId::Weights);
             w.data[w.offset({0, 0, 3, 0})] -= 0.5f, w.data[w.offset({0, 0, 3, 1})] += 0.5f;
         }},
        // The online softmax: an output that drifts from the naive one, a running sum not rescaled.
        {"flash output off", StageId::Context, "flash_equals_naive", "", flash2, [](Trace& t) { t.flash.out[3] += 0.01f; }},
        {"flash sum not rescaled", StageId::Context, "flash_rescaling_identity", "", flash2,
         [](Trace& t) { t.flash.tiles[1].l[1] *= 1.01f; }},
        {"flash max stale", StageId::Context, "flash_rescaling_identity", "", flash2,
         [](Trace& t) { t.flash.tiles[1].m[1] -= 0.5f; }},
        {"context NaN", StageId::Context, "finite", "", causal, [](Trace& t) { mut(t, TensorId::Context).data[0] = kNan; }},
        {"concat moved", StageId::Concat, "concat_inverts_split", "", causal, [](Trace& t) { mut(t, TensorId::Concat).data[6] += 1; }},
        {"output NaN", StageId::Output, "finite", "", causal, [](Trace& t) { mut(t, TensorId::Output).data[9] = kNan; }},
    };
    return all;
}

// The checks of a stage with this id (and a label naming `names`) that fail.
int failing(const Trace& tr, const Corruption& k) {
    int n = 0;
    for (const InvariantCheck& ch : tr.stage(k.stage).checks)
        n += ch.id == k.id && en(ch.label).find(k.label_names) != std::string::npos && ch.verdict == Verdict::Fail;
    return n;
}

}  // namespace

TEST_CASE("every check fails when the tensor it reads is corrupted") {
    for (const Corruption& k : corruptions()) {
        INFO(k.name);
        AttentionConfig c;
        k.configure(c);
        Trace tr = run_trace(c);
        CHECK(failing(tr, k) == 0);  // the good run passes it
        k.corrupt(tr);
        check_invariants(tr);
        CHECK(failing(tr, k) == 1);
    }
}

TEST_CASE("every check of every kind of run has a corruption that makes it fail; the rest are facts") {
    std::set<std::string> covered;
    for (const Corruption& k : corruptions()) covered.insert(std::string(stage_info(k.stage).key) + "/" + k.id);
    std::vector<AttentionConfig> configs(9);
    configs[1].mask = MaskKind::Padding, configs[1].padding_lengths = {4, 0};
    configs[2].cross = true, configs[2].kv_len = 6, configs[2].mask = MaskKind::None, configs[2].pe = false;
    configs[3].scale = false, configs[3].bias = false, configs[3].mask_fill = MaskFill::NegBillion;
    configs[4].mask = MaskKind::Custom, configs[4].custom_keep = {1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1};
    configs[5].window = 2, configs[5].prefix = 1;
    configs[6].mask = MaskKind::Padding, configs[6].padding_lengths = {4, 2}, configs[6].window = 2;
    configs[7].flash_tile = {3, 2};
    configs[8].heads = 4, configs[8].kv_heads = 2;
    std::set<std::string> facts;
    for (const AttentionConfig& c : configs) {
        const Trace tr = run_trace(c);
        for (const StageRecord& s : tr.stages)
            for (const InvariantCheck& ch : s.checks) {
                const std::string key = std::string(stage_info(s.id).key) + "/" + ch.id;
                if (ch.verdict == Verdict::Fact) facts.insert(key);
                else CHECK_MESSAGE(covered.count(key) == 1, key << " has no test that makes it fail");
            }
    }
    // What no valid configuration can make false is shown as a fact, not counted.
    for (const char* f : {"split_heads/heads_times_dk", "concat/hdv_is_dmodel", "scale/footnote4_premise",
                          "scale/footnote4_variance", "scale/footnote4_scaled", "scale/footnote4_without_pe_bias"})
        CHECK_MESSAGE(facts.count(f) == 1, f);
    CHECK(facts.size() == 6);
}

TEST_CASE("NaN from rows whose keys are all masked is its own verdict, never a pass") {
    AttentionConfig c;
    c.mask = MaskKind::Padding, c.padding_lengths = {4, 0};
    Trace tr = run_trace(c);
    for (StageId s : {StageId::Context, StageId::Output}) {
        const InvariantCheck* f = find_check(tr.stage(s), "finite");
        REQUIRE(f);
        CHECK(f->verdict == Verdict::NanMasked);
        CHECK_FALSE(f->passed());
        CHECK(en(f->label).find("has NaN only in rows whose keys are all masked") != std::string::npos);
        CHECK(en(f->detail).find("0/0 = NaN") != std::string::npos);
    }
    CHECK(en(find_check(tr.stage(StageId::Output), "finite")->detail).find("32 NaN values, every one in the 4 rows") == 0);
    // A NaN outside those rows is a failure.
    mut(tr, TensorId::Output).data[tr[TensorId::Output].offset({0, 2, 1})] = kNan;
    check_invariants(tr);
    CHECK(find_check(tr.stage(StageId::Output), "finite")->verdict == Verdict::Fail);
    // The same rows with -1e9 give uniform weights and numbers: a pass.
    c.mask_fill = MaskFill::NegBillion;
    CHECK(find_check(run_trace(c).stage(StageId::Output), "finite")->verdict == Verdict::Pass);
}

TEST_CASE("the CLI counts only real checks, says which show NaN and that facts are not checks") {
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"trace"}, {"trace", "--mask", "padding:4,0"}, {"trace", "--mask", "padding:4,0", "--mask-fill", "1e9"}}) {
        std::ostringstream out, err;
        REQUIRE(run_cli(args, out, err) == 0);
        const Trace tr = run_trace(parse_cli(args).options.config);
        int pass = 0, checks = 0, nan = 0, facts = 0;
        for (const StageRecord& s : tr.stages)
            for (const InvariantCheck& ch : s.checks) {
                pass += ch.passed(), checks += ch.is_check(), facts += !ch.is_check();
                nan += ch.verdict == Verdict::NanMasked;
            }
        std::string summary = std::to_string(pass) + " of " + std::to_string(checks) + " invariants hold";
        if (nan) summary += " (" + std::to_string(nan) + " show NaN from fully-masked rows)";
        summary += "; " + std::to_string(facts) + " facts are not checks\n";
        INFO(out.str());
        CHECK(out.str().find(summary) != std::string::npos);
        CHECK((out.str().find("  NaN   context ") != std::string::npos) == (nan > 0));
        CHECK(out.str().find("  fact  split_heads ") != std::string::npos);
    }
}

namespace {

// Mean and population variance of a tensor, by the plain formula (independent of score_stats.cpp).
std::pair<double, double> mean_var(const Floats& v) {
    double mean = 0;
    for (float x : v) mean += x;
    mean /= static_cast<double>(v.size());
    double var = 0;
    for (float x : v) var += (x - mean) * (x - mean);
    return {mean, var / static_cast<double>(v.size())};
}

// Every number printed in a text, in order.
std::vector<double> numbers_in(const std::string& s) {
    std::vector<double> out;
    static const std::regex number(R"(-?\d+(\.\d+)?)");
    for (auto it = std::sregex_iterator(s.begin(), s.end(), number); it != std::sregex_iterator(); ++it)
        out.push_back(std::stod(it->str()));
    return out;
}

std::string fact(const Trace& tr, const char* id, Lang lang = Lang::En) {
    const InvariantCheck* f = find_check(tr.stage(StageId::Scale), id);
    REQUIRE(f);
    CHECK(f->verdict == Verdict::Fact);
    return render(f->detail, lang);
}

AttentionConfig named(const char* name) {
    AttentionConfig c;
    const std::string n = name;
    if (n.find("paper") == 0) c.d_model = 512, c.heads = 8, c.seq_len = 10;
    if (n.find("plain") != std::string::npos) c.pe = false, c.bias = false;
    if (n.find("cross") != std::string::npos) c.cross = true, c.kv_len = 7;
    if (n.find("noscale") != std::string::npos) c.scale = false;
    if (n.find("long") != std::string::npos) c.seq_len = 80, c.d_model = 64, c.heads = 1;
    return c;
}

}  // namespace

TEST_CASE("footnote 4's facts print the run's own numbers, and their words follow the numbers") {
    for (const char* name : {"tiny", "paper", "tiny plain", "paper plain", "tiny cross", "paper noscale", "long plain"}) {
        INFO(name);
        const AttentionConfig c = named(name);
        const Trace tr = run_trace(c);
        const auto [mq, vq] = mean_var(tr[TensorId::QHeads].data);
        const auto [mk, vk] = mean_var(tr[TensorId::KHeads].data);
        const auto [ms, vs] = mean_var(tr[TensorId::Scores].data);
        const ScoreStats s = score_stats(tr);
        CHECK(s.var_q == doctest::Approx(vq).epsilon(1e-9));
        CHECK(s.var_scores == doctest::Approx(vs).epsilon(1e-9));
        // The texts print exactly these numbers (to their 3 decimals).
        const std::vector<double> premise = numbers_in(fact(tr, "footnote4_premise"));
        REQUIRE(premise.size() == 4);
        for (auto [printed, value] : {std::pair<double, double>{premise[0], mq}, {premise[1], vq}, {premise[2], mk}, {premise[3], vk}})
            CHECK(std::fabs(printed - value) <= 5.01e-4);
        const std::vector<double> variance = numbers_in(fact(tr, "footnote4_variance"));
        REQUIRE(variance.size() >= 6);
        CHECK(std::fabs(variance[0] - vs) <= 5.01e-4);
        CHECK(variance[2] == c.d_k());
        CHECK(std::fabs(variance.back() - c.d_k() * vq * vk) <= 5.01e-4);
        // The verdict sentence: "close to 1" exactly when the printed variance is within 25 % of 1.
        const std::string scaled = fact(tr, "footnote4_scaled");
        const double shown = c.scale ? vs / c.d_k() : vs;
        if (c.scale) {
            CHECK(std::fabs(numbers_in(scaled)[2] - shown) <= 5.01e-4);
            const bool near = std::fabs(shown - 1) <= 0.25;
            CHECK((scaled.find("close to 1") != std::string::npos) == near);
            CHECK((scaled.find("not 1.") != std::string::npos) == !near);
            // Blaming PE and biases only when they are on and var(q)·var(k) is off.
            const bool blames = scaled.find("Positional encoding adds") != std::string::npos;
            CHECK(blames == (!near && (c.pe || c.bias) && std::fabs(vq * vk - 1) > 0.25));
        } else {
            CHECK(scaled.find("scaling is off") == 0);
            CHECK(scaled.find("close to 1") == std::string::npos);
        }
        // With PE and biases off: the same as a run with them off (batch item 0).
        AttentionConfig plain = c;
        plain.pe = plain.bias = false, plain.batch = 1;
        const ScoreStats p = score_stats(run_trace(plain));
        const std::string off = fact(tr, "footnote4_without_pe_bias");
        if (c.pe || c.bias) {
            const std::vector<double> n = numbers_in(off);
            CHECK(std::fabs(n[1] - p.var_q) <= 5.01e-4);
            CHECK(std::fabs(n[4] - p.var_scores) <= 5.01e-4);
            CHECK(std::fabs(n[6] - p.var_scaled()) <= 5.01e-4);
            CHECK((off.find("close to 1") != std::string::npos) == (std::fabs(p.var_scaled() - 1) <= 0.25));
        } else {
            CHECK(off.find("already off") != std::string::npos);
        }
    }
}

TEST_CASE("the scale stage no longer says that dividing by sqrt(d_k) always gives variance 1") {
    const std::string why = tr(stage_info(StageId::Scale).why, Lang::En);
    CHECK(why.find("brings the variance back to 1") == std::string::npos);
    CHECK(why.find("if the components of q and k are independent with mean 0 and variance 1") != std::string::npos);
    // Paper base: the live variance after scaling is far from 1, and the page says so and why.
    AttentionConfig c = named("paper");
    const std::string scaled = fact(run_trace(c), "footnote4_scaled");
    CHECK(scaled.find("not 1.") != std::string::npos);
    c.pe = c.bias = false;
    CHECK(fact(run_trace(c), "footnote4_scaled").find("close to 1") != std::string::npos);
}
