// test_i18n_exp.cpp — the experiments' texts (core/experiment_*.cpp) are messages: the
// same run reads in English and in Chinese, while ids, PyTorch lines and PyTorch's error
// messages are the same in both.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "base/i18n.h"
#include "teach/experiments/experiments.h"
#include "text.h"

using namespace lab;

namespace {

bool has(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

MistakeResult run(const char* key, const AttentionConfig& c) {
    const MistakeSpec* m = find_mistake(key);
    REQUIRE_MESSAGE(m != nullptr, key);
    return run_mistake(*m, c);
}

}  // namespace

TEST_CASE("i18n exp: mask cases keep their ids and read in both languages") {
    const AttentionConfig base;  // B = 2, L = 4
    const MaskComparison m = mask_experiment(base);
    for (const MaskCase& c : m.cases) {
        CHECK(en(c.label) == c.name);  // English label = the id
        CHECK(zh(c.label) != en(c.label));
    }
    CHECK(zh(m.cases[0].label) == "无掩码");
    CHECK(zh(m.cases[1].label) == "因果掩码");
    CHECK(zh(m.cases[4].label) == "反转的因果掩码");
    CHECK(en(m.cases[2].description) == "keep j < length of the item; lengths 4, 2");
    CHECK(zh(m.cases[2].description) == "保留 j < 该批次样本的长度；各样本长度为 4, 2");
    CHECK(m.fully_masked_inf.name == "padding length 0, -inf");
    CHECK(zh(m.fully_masked_inf.label) == "填充长度为 0，-inf");
    CHECK(en(m.fully_masked_1e9.label) == "padding length 0, -1e9");
    CHECK(en(m.fully_masked_1e9.description) == "item 0 keeps no key; fill -1e9");
    CHECK(has(zh(m.fully_masked_why), "当一行的所有键都被掩码时"));
    CHECK(has(zh(m.inverted_why), "模型现在可以直接照抄下一个词元"));
    CHECK(has(en(m.inverted_why), "copy the next token"));
}

TEST_CASE("i18n exp: mistakes' titles and symptoms in both languages; code and PyTorch errors are data") {
    const AttentionConfig base;  // d_model = 8, h = 2: d_k = 4 != 128, L_kv = d_k = 4
    for (const MistakeSpec& spec : mistakes()) {
        const MistakeResult r = run_mistake(spec, base);
        CAPTURE(r.key);
        CHECK(r.key == spec.key);
        CHECK(zh(r.title) != en(r.title));
        CHECK(zh(r.symptom) != en(r.symptom));
        CHECK_FALSE(en(r.symptom).empty());
    }
    const MistakeResult scale = run("no_scaling", base);
    CHECK(zh(scale.title) == "忘了除以 sqrt(d_k)");
    CHECK(has(zh(scale.symptom), "分数的方差停留在 ~d_k = 4，而不是 1"));
    const MistakeResult inv = run("inverted_mask", base);
    CHECK(has(zh(inv.symptom), "每个查询都只看得到未来"));
    CHECK(has(zh(inv.symptom), "变成 NaN。"));
    CHECK(has(zh(inv.symptom), "个输出是 NaN。"));  // the NaN note
    const MistakeResult dk = run("hard_coded_dk", base);
    REQUIRE_FALSE(dk.runs);
    CHECK(dk.error == "RuntimeError: shape '[2, 4, 2, 128]' is invalid for input of size 64");
    CHECK(zh(dk.symptom) ==
          "view 需要 B*L*h*128 = 2048 个元素，但 q 只有 B*L*d_model = 64 个（d_model / h = 4，不是 128）："
          "PyTorch 在计算任何注意力之前就会报错。");
    const MistakeResult concat = run("concat_without_transpose", base);
    CHECK(has(zh(concat.symptom), "由（头 0，位置 0）、（头 0，位置 1）组成"));
}

TEST_CASE("i18n exp: h = 1 and -1e9 branches of the symptoms") {
    AttentionConfig c;
    c.heads = 1;
    c.mask_fill = MaskFill::NegBillion;
    CHECK(has(zh(run("softmax_over_heads", c).symptom), "h = 1 时 softmax 只作用于单个值"));
    CHECK(has(zh(run("wrong_split_view", c).symptom), "h = 1 时两种 view 完全一致"));
    CHECK(has(zh(run("inverted_mask", c).symptom), "变成均匀分布。"));
    c.heads = 2;
    CHECK(has(zh(run("softmax_over_heads", c).symptom), "得到 1/h 的权重。"));
}

TEST_CASE("i18n exp: encoder/decoder kinds keep their names as ids, labels in both languages") {
    const std::vector<AttentionKindTrace> kinds = encoder_decoder_experiment(AttentionConfig{}, 6, 4);
    REQUIRE(kinds.size() == 3);
    for (const AttentionKindTrace& k : kinds) CHECK(en(k.label) == k.name);
    CHECK(zh(kinds[0].label) == "编码器自注意力");
    CHECK(zh(kinds[1].label) == "解码器带掩码的自注意力");
    CHECK(zh(kinds[2].label) == "编码器-解码器注意力");
}
