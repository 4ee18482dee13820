// test_i18n_chk.cpp — the invariant checks, hover derivations and trace notes in 中文.
#include <doctest/doctest.h>

#include <string>

#include "core/derivation.h"
#include "core/i18n.h"
#include "core/trace.h"

using namespace lab;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Chinese for the scope of a test, English again even when a CHECK fails.
struct ZhScope {
    ZhScope() { set_language(Lang::Zh); }
    ~ZhScope() { set_language(Lang::En); }
    ZhScope(const ZhScope&) = delete;
    ZhScope& operator=(const ZhScope&) = delete;
};

const InvariantCheck* find_check(const Trace& tr, StageId stage, const std::string& id) {
    for (const InvariantCheck& ch : tr.stage(stage).checks)
        if (ch.id == id) return &ch;
    return nullptr;
}

}  // namespace

TEST_CASE("invariant checks read in Chinese, ids and verdicts unchanged") {
    AttentionConfig c;
    const Trace en = run_trace(c);
    Trace zh;
    {
        ZhScope scope;
        zh = run_trace(c);
    }
    CHECK(language() == Lang::En);
    // same checks, same ids and verdicts, different words
    for (int s = 0; s < kStageCount; ++s) {
        REQUIRE(en.stages[s].checks.size() == zh.stages[s].checks.size());
        for (size_t i = 0; i < en.stages[s].checks.size(); ++i) {
            CHECK(en.stages[s].checks[i].id == zh.stages[s].checks[i].id);
            CHECK(en.stages[s].checks[i].pass == zh.stages[s].checks[i].pass);
        }
    }
    const InvariantCheck* finite = find_check(zh, StageId::Project, "finite");
    REQUIRE(finite);
    CHECK(finite->label == "q 的所有值都是有限数");
    CHECK(contains(finite->detail, "个数值，没有 NaN 或 inf"));
    const InvariantCheck* rows = find_check(zh, StageId::Softmax, "rows_sum_to_1");
    REQUIRE(rows);
    CHECK(rows->label == "注意力权重的每一行之和为 1");
    CHECK(contains(rows->detail, "最大 |和 - 1| = "));
    CHECK(contains(rows->detail, "（共 16 行）"));  // B 2 x h 2 x L_q 4
    const InvariantCheck* future = find_check(zh, StageId::Softmax, "future_is_zero");
    REQUIRE(future);
    CHECK(future->label == "未来位置的权重恰好为 0");
    CHECK(future->detail == "0 个被掩码的单元格权重 != 0");
    const InvariantCheck* fill = find_check(zh, StageId::Mask, "fill_applied");
    REQUIRE(fill);
    CHECK(fill->label == "被掩码的单元格为 -inf，保留的单元格不变");
    // the English trace still reads as before
    CHECK(find_check(en, StageId::Project, "finite")->label == "all values of q are finite");
}

TEST_CASE("fully masked rows and scaling off are explained in Chinese") {
    ZhScope scope;
    AttentionConfig c;
    c.mask = MaskKind::Padding, c.padding_lengths = {4, 0}, c.scale = false;
    const Trace tr = run_trace(c);
    const InvariantCheck* rows = find_check(tr, StageId::Mask, "no_fully_masked_rows");
    REQUIRE(rows);
    CHECK_FALSE(rows->pass);
    CHECK(rows->label == "每个查询行至少保留一个键");
    CHECK(contains(rows->detail, "8 个（批次样本、头、查询）行的所有键都被掩码"));
    CHECK(contains(rows->detail, "与 PyTorch 相同"));
    const InvariantCheck* out = find_check(tr, StageId::Output, "finite");
    REQUIRE(out);
    CHECK(contains(out->detail, "全部来自被完全掩码的行"));
    const InvariantCheck* sum = find_check(tr, StageId::Softmax, "rows_sum_to_1");
    REQUIRE(sum);
    CHECK(contains(sum->detail, "（未计入 8 个被完全掩码的行）"));
    const InvariantCheck* scaled = find_check(tr, StageId::Scale, "scaled_is_scores_over_sqrt_dk");
    REQUIRE(scaled);
    CHECK(scaled->label == "未缩放：scaled = scores");
    CHECK(tr.stage(StageId::Scale).shape_steps.back().op == "（不缩放）");

    CHECK(contains(derive_cell(tr, "weights", {1, 0, 0, 0}), "这一行的所有键都被 -inf 掩码"));
    CHECK(contains(derive_cell(tr, "masked", {1, 0, 0, 2}), "填充掩码：键 2 是填充（有效长度 0）"));
    CHECK(contains(derive_cell(tr, "scaled", {0, 0, 0, 0}), "未缩放：scaled[b=0, head=0, i=0, j=0] = score = "));
}

TEST_CASE("hover derivations in Chinese keep the numbers and formulas") {
    AttentionConfig c;  // causal, d_model 8, h 2, d_k 4
    const Trace tr = run_trace(c);
    const std::string en_concat = derive_cell(tr, "concat", {0, 1, 6});
    ZhScope scope;
    const std::string concat = derive_cell(tr, "concat", {0, 1, 6});
    CHECK(contains(concat, "concat[b=0, i=1, col=6] = context[b, head=1, i, 2] = "));
    CHECK(contains(concat, "（第 6 列 = 头序号 1 \xc2\xb7 d_v + 2）"));
    CHECK(concat.substr(0, concat.find("  ")) == en_concat.substr(0, en_concat.find("  ")));
    CHECK(contains(derive_cell(tr, "masked", {0, 0, 1, 3}), "因果掩码：键 3 位于查询 1 之后，属于未来"));
    CHECK(contains(derive_cell(tr, "masked", {0, 0, 3, 1}), "此处 mask = 1，缩放后的分数原样通过"));
    CHECK(contains(derive_cell(tr, "weights", {0, 1, 3, 2}), "（行和 1.0000）"));
    CHECK(contains(derive_cell(tr, "output", {0, 0, 0}), "[头 1]"));
    CHECK(contains(derive_cell(tr, "q_heads", {0, 1, 0, 2}), "（第 1\xc2\xb7" "4 + 2 列）"));
    CHECK(contains(derive_cell(tr, "k", {0, 0, 5}), "（属于头 1）"));

    AttentionConfig big;
    big.d_model = 512, big.heads = 8, big.seq_len = 3;
    const Trace trb = run_trace(big);
    CHECK(contains(derive_cell(trb, "scores", {0, 0, 0, 1}), "（共 64 项：正项之和 "));
}
