// test_i18n_exp.cpp — the experiments' texts built in the core (core/experiment_*.cpp)
// come out in Chinese when the language is Chinese, while their ids, PyTorch lines and
// PyTorch's error messages stay the same in both languages.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "core/experiments.h"
#include "core/i18n.h"

using namespace lab;

namespace {

// Chinese for the lifetime of the guard, English again even when a CHECK fails.
struct ChineseGuard {
    ChineseGuard() { set_language(Lang::Zh); }
    ~ChineseGuard() { set_language(Lang::En); }
    ChineseGuard(const ChineseGuard&) = delete;
    ChineseGuard& operator=(const ChineseGuard&) = delete;
};

bool has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("i18n exp: mask cases keep their ids and read in Chinese") {
    const AttentionConfig base;  // B = 2, L = 4
    const MaskComparison en = mask_experiment(base);
    MaskComparison zh;
    {
        ChineseGuard guard;
        zh = mask_experiment(base);
    }
    REQUIRE(zh.cases.size() == en.cases.size());
    for (size_t i = 0; i < en.cases.size(); ++i) {
        CHECK(zh.cases[i].name == en.cases[i].name);  // ids do not change
        CHECK(en.cases[i].label == en.cases[i].name);  // English label = the old name
        CHECK(zh.cases[i].label != en.cases[i].label);
    }
    CHECK(zh.cases[0].label == "无掩码");
    CHECK(zh.cases[1].label == "因果掩码");
    CHECK(zh.cases[4].label == "反转的因果掩码");
    CHECK(en.cases[2].description == "keep j < length of the item; lengths 4, 2");
    CHECK(zh.cases[2].description == "保留 j < 该批次样本的长度；各样本长度为 4, 2");
    CHECK(zh.fully_masked_inf.name == "padding length 0, -inf");
    CHECK(zh.fully_masked_inf.label == "填充长度为 0，-inf");
    CHECK(en.fully_masked_1e9.label == "padding length 0, -1e9");
    CHECK(en.fully_masked_1e9.description == "item 0 keeps no key; fill -1e9");
    CHECK(has(zh.fully_masked_why, "当一行的所有键都被掩码时"));
    CHECK(has(zh.inverted_why, "模型现在可以直接照抄下一个词元"));
    CHECK(has(en.inverted_why, "copy the next token"));
    // The numbers do not depend on the language.
    CHECK(zh.cases[1].trace.find("weights")->data == en.cases[1].trace.find("weights")->data);
}

TEST_CASE("i18n exp: mistakes' titles and symptoms in Chinese; code and PyTorch errors unchanged") {
    const AttentionConfig base;  // d_model = 8, h = 2: d_k = 4 != 128, L_kv = d_k = 4
    for (Mistake m : all_mistakes()) {
        const MistakeResult en = run_mistake(m, base);
        MistakeResult zh;
        {
            ChineseGuard guard;
            zh = run_mistake(m, base);
        }
        CAPTURE(en.key);
        CHECK(zh.key == en.key);
        CHECK(zh.buggy_line == en.buggy_line);
        CHECK(zh.correct_line == en.correct_line);
        CHECK(zh.error == en.error);
        CHECK(zh.stops_at == en.stops_at);
        CHECK(zh.title != en.title);
        CHECK(zh.symptom != en.symptom);
        const bool same_numbers =
            zh.output_diff == en.output_diff || (std::isnan(zh.output_diff) && std::isnan(en.output_diff));
        CHECK(same_numbers);
    }
    ChineseGuard guard;
    const MistakeResult scale = run_mistake(Mistake::NoScaling, base);
    CHECK(scale.title == "忘了除以 sqrt(d_k)");
    CHECK(has(scale.symptom, "分数的方差停留在 ~d_k = 4，而不是 1"));
    const MistakeResult inv = run_mistake(Mistake::InvertedMask, base);
    CHECK(has(inv.symptom, "每个查询都只看得到未来"));
    CHECK(has(inv.symptom, "变成 NaN。"));
    CHECK(has(inv.symptom, "个输出是 NaN。"));  // the NaN note
    const MistakeResult dk = run_mistake(Mistake::HardCodedDk, base);
    REQUIRE_FALSE(dk.runs);
    CHECK(dk.error == "RuntimeError: shape '[2, 4, 2, 128]' is invalid for input of size 64");
    CHECK(dk.symptom ==
          "view 需要 B*L*h*128 = 2048 个元素，但 q 只有 B*L*d_model = 64 个（d_model / h = 4，不是 128）："
          "PyTorch 在计算任何注意力之前就会报错。");
    const MistakeResult concat = run_mistake(Mistake::ConcatWithoutTranspose, base);
    CHECK(has(concat.symptom, "由（头 0，位置 0）、（头 0，位置 1）组成"));
}

TEST_CASE("i18n exp: h = 1 and -1e9 branches of the symptoms") {
    AttentionConfig c;
    c.heads = 1;
    c.mask_fill = MaskFill::NegBillion;
    ChineseGuard guard;
    CHECK(has(run_mistake(Mistake::SoftmaxOverHeads, c).symptom, "h = 1 时 softmax 只作用于单个值"));
    CHECK(has(run_mistake(Mistake::WrongSplitView, c).symptom, "h = 1 时两种 view 完全一致"));
    CHECK(has(run_mistake(Mistake::InvertedMask, c).symptom, "变成均匀分布。"));
    c.heads = 2;
    CHECK(has(run_mistake(Mistake::SoftmaxOverHeads, c).symptom, "得到 1/h 的权重。"));
}

TEST_CASE("i18n exp: encoder/decoder kinds keep their names as ids, labels in Chinese") {
    const AttentionConfig base;
    const std::vector<AttentionKind> en = encoder_decoder_experiment(base, 6, 4);
    std::vector<AttentionKind> zh;
    {
        ChineseGuard guard;
        zh = encoder_decoder_experiment(base, 6, 4);
    }
    REQUIRE(en.size() == 3);
    REQUIRE(zh.size() == 3);
    for (size_t i = 0; i < 3; ++i) {
        CHECK(zh[i].name == en[i].name);
        CHECK(en[i].label == en[i].name);
    }
    CHECK(zh[0].label == "编码器自注意力");
    CHECK(zh[1].label == "解码器带掩码的自注意力");
    CHECK(zh[2].label == "编码器-解码器注意力");
}
