// test_i18n_chk.cpp — the invariant checks, hover derivations and trace notes in 中文.
#include <doctest/doctest.h>

#include <string>

#include "base/i18n.h"
#include "explain/derivation.h"
#include "text.h"
#include "trace/trace.h"

using namespace lab;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

const InvariantCheck* find_check(const Trace& tr, StageId stage, const std::string& id) {
    return lab::find_check(tr.stage(stage), id);
}

std::string derive_zh(const Trace& tr, TensorId t, const std::vector<int>& index) { return zh(derive_cell(tr, t, index)); }

}  // namespace

TEST_CASE("invariant checks read in Chinese, ids and verdicts in the data") {
    const Trace tr = run_trace(AttentionConfig{});
    const InvariantCheck* finite = find_check(tr, StageId::Project, "finite");
    REQUIRE(finite);
    CHECK(zh(finite->label) == "q 的所有值都是有限数");
    CHECK(contains(zh(finite->detail), "个数值，没有 NaN 或 inf"));
    const InvariantCheck* rows = find_check(tr, StageId::Softmax, "rows_sum_to_1");
    REQUIRE(rows);
    CHECK(zh(rows->label) == "注意力权重的每一行之和为 1");
    CHECK(contains(zh(rows->detail), "最大 |和 - 1| = "));
    CHECK(contains(zh(rows->detail), "（共 16 行）"));  // B 2 x h 2 x L_q 4
    const InvariantCheck* future = find_check(tr, StageId::Softmax, "future_is_zero");
    REQUIRE(future);
    CHECK(zh(future->label) == "未来位置的权重恰好为 0");
    CHECK(zh(future->detail) == "0 个被掩码的单元格权重 != 0");
    const InvariantCheck* fill = find_check(tr, StageId::Mask, "fill_applied");
    REQUIRE(fill);
    CHECK(zh(fill->label) == "被掩码的单元格为 -inf，保留的单元格不变");
    // the same check in English
    CHECK(en(finite->label) == "all values of q are finite");
    // every check says something in both languages
    for (const StageRecord& st : tr.stages)
        for (const InvariantCheck& ch : st.checks) {
            CAPTURE(ch.id);
            CHECK_FALSE(en(ch.label).empty());
            CHECK_FALSE(zh(ch.detail).empty());
        }
}

TEST_CASE("fully masked rows and scaling off are explained in Chinese") {
    AttentionConfig c;
    c.mask = MaskKind::Padding, c.padding_lengths = {4, 0}, c.scale = false;
    const Trace tr = run_trace(c);
    const InvariantCheck* rows = find_check(tr, StageId::Mask, "no_fully_masked_rows");
    REQUIRE(rows);
    CHECK(rows->verdict == Verdict::Fail);
    CHECK(zh(rows->label) == "每个查询行至少保留一个键");
    CHECK(contains(zh(rows->detail), "8 个（批次样本、头、查询）行的所有键都被掩码"));
    CHECK(contains(zh(rows->detail), "与 PyTorch 相同"));
    const InvariantCheck* out = find_check(tr, StageId::Output, "finite");
    REQUIRE(out);
    CHECK(out->verdict == Verdict::NanMasked);
    CHECK(zh(out->label) == "output 只在所有键都被掩码的行里出现 NaN");
    CHECK(contains(zh(out->detail), "全部位于 4 个所有键都被掩码的行"));
    CHECK(contains(zh(out->detail), "这不算通过"));
    const InvariantCheck* sum = find_check(tr, StageId::Softmax, "rows_sum_to_1");
    REQUIRE(sum);
    CHECK(contains(zh(sum->detail), "（未计入 8 个被完全掩码的行）"));
    const InvariantCheck* scaled = find_check(tr, StageId::Scale, "scaled_is_scores_over_sqrt_dk");
    REQUIRE(scaled);
    CHECK(zh(scaled->label) == "未缩放：scaled = scores");
    CHECK(zh(tr.stage(StageId::Scale).shape_steps.back().op) == "（不缩放）");
    CHECK(en(tr.stage(StageId::Scale).shape_steps.back().op) == "(scaling off)");

    CHECK(contains(derive_zh(tr, TensorId::Weights, {1, 0, 0, 0}), "这一行的所有键都被 -inf 掩码"));
    CHECK(contains(derive_zh(tr, TensorId::Masked, {1, 0, 0, 2}), "填充掩码：键 2 是填充（有效长度 0）"));
    CHECK(contains(derive_zh(tr, TensorId::Scaled, {0, 0, 0, 0}), "未缩放：scaled[b=0, head=0, i=0, j=0] = score = "));
}

TEST_CASE("hover derivations in Chinese keep the numbers and formulas") {
    AttentionConfig c;  // causal, d_model 8, h 2, d_k 4
    const Trace tr = run_trace(c);
    const std::string en_concat = en(derive_cell(tr, TensorId::Concat, {0, 1, 6}));
    const std::string concat = derive_zh(tr, TensorId::Concat, {0, 1, 6});
    CHECK(contains(concat, "concat[b=0, i=1, col=6] = context[b, head=1, i, 2] = "));
    CHECK(contains(concat, "（第 6 列 = 头序号 1 \xc2\xb7 d_v + 2）"));
    CHECK(concat.substr(0, concat.find("  ")) == en_concat.substr(0, en_concat.find("  ")));
    CHECK(contains(derive_zh(tr, TensorId::Masked, {0, 0, 1, 3}), "因果掩码：键 3 位于查询 1 之后，属于未来"));
    CHECK(contains(derive_zh(tr, TensorId::Masked, {0, 0, 3, 1}), "此处 mask = 1，缩放后的分数原样通过"));
    CHECK(contains(derive_zh(tr, TensorId::Weights, {0, 1, 3, 2}), "（行和 1.0000）"));
    CHECK(contains(derive_zh(tr, TensorId::Output, {0, 0, 0}), "[头 1]"));
    CHECK(contains(derive_zh(tr, TensorId::QHeads, {0, 1, 0, 2}), "（第 1\xc2\xb7" "4 + 2 列）"));
    CHECK(contains(derive_zh(tr, TensorId::K, {0, 0, 5}), "（属于头 1）"));

    AttentionConfig big;
    big.d_model = 512, big.heads = 8, big.seq_len = 3;
    const Trace trb = run_trace(big);
    CHECK(contains(derive_zh(trb, TensorId::Scores, {0, 0, 0, 1}), "（共 64 项：正项之和 "));
}
