// test_i18n_cfg.cpp — the Chinese texts of configuration validation, URL-hash notes,
// configuration files and the stage as text, produced through the real code paths and
// said in Chinese.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "app/data/url_state.h"
#include "attention/config.h"
#include "base/i18n.h"
#include "interop/config_file.h"
#include "interop/exports.h"
#include "text.h"
#include "trace/trace.h"

using namespace lab;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string all_errors(const std::vector<ConfigError>& errors) {
    std::string s;
    for (const ConfigError& e : errors) s += e.param + ": " + zh(e.message) + "\n";
    return s;
}

std::string all_notes(const UrlDecode& d) {
    std::string s;
    for (const Msg& n : d.notes) s += zh(n) + "\n";
    return s;
}

}  // namespace

TEST_CASE("i18n cfg: validate() speaks Chinese and keeps the parameter names") {
    AttentionConfig c;
    c.d_model = 10, c.heads = 3;
    {
        const std::vector<ConfigError> errors = validate(c);
        REQUIRE(errors.size() == 1);
        CHECK(errors[0].param == "heads");
        CHECK(zh(errors[0].message) == "d_model=10 不能被 heads=3 整除（可用的 heads：1, 2, 5, 10）");

        AttentionConfig small;
        small.batch = 0;
        CHECK(has(all_errors(validate(small)), "batch: batch=0 至少应为 1（批次大小 B）"));

        AttentionConfig pad;
        pad.mask = MaskKind::Padding;
        pad.padding_lengths = {4, 9};
        CHECK(has(all_errors(validate(pad)), "填充长度 9（批次样本 1）必须在 0 到 L_kv=4 之间"));

        AttentionConfig big;
        big.d_model = 4096, big.heads = 64, big.seq_len = 4096, big.batch = 256;
        CHECK(has(all_errors(validate(big)), "超过了上限 384 MiB"));
    }
    // The same message in English.
    CHECK(en(validate(c)[0].message) == "d_model=10 is not divisible by heads=3 (valid heads: 1, 2, 5, 10)");
}

TEST_CASE("i18n cfg: URL-hash notes in Chinese, keys as written") {
    const UrlDecode d = decode_url_state("#heads=x&bogus=1&mask=zzz&scale=maybe&stage=nope");
    const std::string notes = all_notes(d);
    CHECK(has(notes, "链接参数：heads='x' 不是 [1, 4096] 内的整数；改用 2"));
    CHECK(has(notes, "链接参数：未知的键 'bogus'，已忽略"));
    CHECK(has(notes, "mask='zzz' 不是 none、causal、padding、custom 之一；改用 causal"));
    CHECK(has(notes, "scale='maybe' 不是 0 或 1；改用 1"));
    CHECK(has(notes, "stage='nope' 不是任何阶段的名称；显示第一个阶段"));

    const UrlDecode lang = decode_url_state("lang=zh-CN&heads=4");
    CHECK(lang.state.lang == "zh");
    CHECK(lang.notes.empty());
    CHECK(has(all_notes(decode_url_state("lang=fr")), "链接参数：lang='fr' 不是 en 或 zh；已忽略"));
    UrlState with_lang;
    with_lang.lang = "zh";
    CHECK(has(encode_url_state(with_lang), "&lang=zh"));
    CHECK(decode_url_state(encode_url_state(with_lang)).state.lang == "zh");
    CHECK_FALSE(has(encode_url_state(UrlState{}), "lang="));

    const std::string invalid = all_notes(decode_url_state("d_model=10&heads=3"));
    CHECK(has(invalid, "链接参数：heads: d_model=10 不能被 heads=3 整除"));
    CHECK(has(invalid, "链接参数：配置无效；改用默认值"));
}

TEST_CASE("i18n cfg: configuration-file errors in Chinese") {
    {
        const ConfigFileResult r = parse_config_file("{\"d_model\": 512.5, \"h\": \"8\", \"scale\": null}", "config.json");
        REQUIRE(r.errors.size() == 3);
        CHECK(r.errors[0].param == "d_model");
        CHECK(zh(r.errors[0].message) == "d_model=512.5 必须是整数，而不是小数");
        CHECK(zh(r.errors[1].message) == "h=\"8\" 必须是数字，而不是字符串（去掉引号，写成 8）");
        CHECK(zh(r.errors[2].message) == "scale=null 必须是 true 或 false，而不是空值 null");
    }
    {
        const ConfigFileResult r = parse_config_file("{\"d_model\": 512,\n \"h\": 8", "config.json");
        REQUIRE(r.errors.size() == 1);
        CHECK(r.errors[0].param == "file");
        CHECK(has(zh(r.errors[0].message), "文件不是有效的 JSON：第 2 行第 "));
        CHECK(has(zh(r.errors[0].message), "（文件提前结束：是不是被截断了？）"));
    }
    {
        const ConfigFileResult r = parse_config_file("d_model = 512\n", "config.toml");
        REQUIRE_FALSE(r.errors.empty());
        CHECK(r.errors[0].param == "attention");
        CHECK(has(zh(r.errors[0].message), "没有 [attention] 表"));
        CHECK(has(zh(r.errors[0].message), "；请把顶层的键（d_model）移到 [attention] 下"));
    }
    {
        const ConfigFileResult r = parse_config_file(std::string("{\"d_model\"\0", 11), "x.json");
        REQUIRE(r.errors.size() == 1);
        CHECK(zh(r.errors[0].message) == "文件是二进制数据，不是 JSON 文本：字节 0x00 位于第 1 行第 11 列（偏移 10）");
    }
    {
        const ConfigFileResult r = parse_config_file("[attention]\nd_model = 64\nnum_heads = 8\nd_k = 16\n", "c.toml");
        REQUIRE(r.errors.size() == 1);
        CHECK(zh(r.errors[0].message) == "d_k=16 与 d_model / h = 64 / 8 = 8 不一致");
    }
}

TEST_CASE("i18n cfg: the stage as text in Chinese") {
    const Trace trace = run_trace(AttentionConfig{});
    const std::string text = stage_prompt_text(trace, static_cast<int>(StageId::Scale), 1, 1, Lang::Zh);
    CHECK(has(text, "多头注意力（《Attention Is All You Need》"));
    CHECK(has(text, "第 5 阶段（共 10 个）："));
    CHECK(has(text, "论文公式："));
    CHECK(has(text, "PyTorch 代码：scores = scores / math.sqrt(d_k)\n"));
    CHECK(has(text, "配置：d_model=8，h=2，d_k=d_v=4，B=2，L_q=4，L_kv=4，mask=causal，fill=-inf，缩放开启"));
    CHECK(has(text, "自注意力，随机种子 42\n"));
    CHECK(has(text, "形状：\n"));
    CHECK(has(text, "scaled，批次样本 1，头 1 的数值（L_q=4 x L_kv=4）：\n"));
    CHECK(has(text, "检查：\n"));
    CHECK_FALSE(has(text, "Checks:"));
}
