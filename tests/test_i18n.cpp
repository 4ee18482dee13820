// test_i18n.cpp — the string tables (the core's and the app's): every key in both
// languages, the same printf conversions in both, every character drawable by the fonts
// the build made (lab_fonts_cmap.txt lists the code points of the DejaVu and Noto CJK
// subsets), and messages rendered the way printf would.
#include <doctest/doctest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "app/data/ui_text.h"
#include "base/i18n.h"
#include "base/message.h"
#include "base/utf8.h"
#include "model_trace/block_stages.h"
#include "text.h"
#include "trace/stages.h"

using namespace lab;

namespace {

// The printf conversions of a format, e.g. "%s", "%.3f", "%ld" (not "%%").
std::vector<std::string> conversions(const std::string& f) {
    std::vector<std::string> out;
    for (size_t i = 0; i < f.size(); ++i) {
        if (f[i] != '%') continue;
        if (i + 1 < f.size() && f[i + 1] == '%') {
            ++i;
            continue;
        }
        size_t j = i + 1;
        while (j < f.size() && std::string("-+ #0123456789.*hlLqjzt").find(f[j]) != std::string::npos) ++j;
        out.push_back(f.substr(i, j + 1 - i));
        i = j;
    }
    return out;
}

std::vector<unsigned> codepoints(const std::string& s, bool* valid) {
    std::vector<unsigned> out;
    *valid = true;
    for (size_t i = 0; i < s.size();) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        const int n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        if (n == 0 || i + n > s.size()) return *valid = false, out;
        unsigned cp = n == 1 ? c : c & (0x7F >> n);
        for (int k = 1; k < n; ++k) {
            const unsigned char cc = static_cast<unsigned char>(s[i + k]);
            if ((cc >> 6) != 2) return *valid = false, out;
            cp = cp << 6 | (cc & 63);
        }
        out.push_back(cp);
        i += n;
    }
    return out;
}

struct FontCmaps {
    std::set<unsigned> sans, cjk;
};
FontCmaps read_cmaps() {
    FontCmaps m;
    std::ifstream in(LAB_FONTS_CMAP);
    std::string name, hex;
    while (in >> name >> hex) (name == "sans" ? m.sans : m.cjk).insert(static_cast<unsigned>(std::stoul(hex, nullptr, 16)));
    return m;
}

bool is_hanzi(unsigned c) { return c >= 0x4E00 && c <= 0x9FFF; }
bool is_cjk(unsigned c) { return utf8::is_cjk(c); }
// The language button's "中文" is compiled into the English page's font.
bool is_label_glyph(unsigned c) { return c == 0x4E2D || c == 0x6587; }

// Every entry of both tables: the core's and the app's.
std::vector<const TextEntry*> all_entries() {
    std::vector<const TextEntry*> out;
    for (const TextTable* t : {&core_text_table(), &ui_text_table()})
        for (int i = 0; i < t->count; ++i) out.push_back(&t->entries[i]);
    return out;
}

}  // namespace

TEST_CASE("every string has an English and a Chinese text with the same conversions") {
    REQUIRE(kStrCount > 100);
    REQUIRE(kUiStrCount > 100);
    const std::vector<const TextEntry*> entries = all_entries();
    CHECK(entries.size() == static_cast<size_t>(kStrCount + kUiStrCount));
    std::set<std::string> keys;
    int chinese = 0;
    for (const TextEntry* e : entries) {
        const std::string key = e->key, en = e->text[0], zh = e->text[1];
        CAPTURE(key);
        CHECK(keys.insert(key).second);
        CHECK_FALSE(en.empty());
        CHECK_FALSE(zh.empty());
        CHECK(conversions(en) == conversions(zh));
        bool ok_en = true, ok_zh = true;
        for (unsigned c : codepoints(en, &ok_en))
            CHECK_MESSAGE((!is_cjk(c) || is_label_glyph(c)), "Chinese inside the English text");
        codepoints(zh, &ok_zh);
        CHECK(ok_en);
        CHECK(ok_zh);
        if (en != zh) {
            bool has_cjk = false;
            for (unsigned c : codepoints(zh, &ok_zh))
                has_cjk |= is_cjk(c) || c == 0x2026 /* …… */ || c == 0x2014 /* —— */;
            // A Chinese text that differs from the English one is a translation (or Chinese
            // punctuation), not a copy with an edit.
            CHECK_MESSAGE(has_cjk, "zh differs from en but holds no Chinese: " << zh);
            ++chinese;
        }
    }
    CHECK(chinese > static_cast<int>(entries.size()) * 8 / 10);  // most texts are words; a few are pure math/code
}

TEST_CASE("the conversion check sees what printf sees") {
    CHECK(conversions("%d of %ld values, %.3g%% max %s") == std::vector<std::string>{"%d", "%ld", "%.3g", "%s"});
    CHECK(conversions("U+%04X") == std::vector<std::string>{"%04X"});
}

TEST_CASE("every character of every string is in the font subsets the build made") {
    const FontCmaps fonts = read_cmaps();
    REQUIRE_MESSAGE(fonts.sans.size() > 500, "missing or empty " LAB_FONTS_CMAP);
    REQUIRE(fonts.cjk.size() > 6763);
    // GB2312 levels 1 and 2 (6,763 hanzi) for typed tokens: every one (the list is Python's gb2312
    // codec, scripts/string_table.py gb2312), and the two a tutorial's text needs (摞, 阱).
    std::ifstream gb(LAB_GB2312);
    REQUIRE_MESSAGE(gb.good(), "missing " LAB_GB2312);
    std::vector<unsigned> gb2312;
    for (std::string hex; gb >> hex;) gb2312.push_back(static_cast<unsigned>(std::stoul(hex, nullptr, 16)));
    CHECK(gb2312.size() == 6763);
    std::ostringstream lacking;
    int held = 0;
    for (unsigned c : gb2312) {
        held += fonts.cjk.count(c) == 1;
        if (!fonts.cjk.count(c)) lacking << std::hex << "U+" << c << ' ';
    }
    CHECK_MESSAGE(held == 6763, "GB2312 hanzi the font lacks: " << lacking.str());
    for (unsigned c : {0x554Au /* 啊 */, 0x5EA7u /* 座 */, 0x732Bu /* 猫 */, 0x645Eu /* 摞 */, 0x9631u /* 阱 */, 0x9F44u /* 齄 */,
                       0xFF0Cu /* ， */, 0x3002u /* 。 */})
        CHECK(fonts.cjk.count(c) == 1);
    int hanzi = 0;
    for (unsigned c : fonts.cjk) hanzi += is_hanzi(c);
    CHECK(hanzi >= 6763);
    std::set<unsigned> missing_en, missing_zh;
    for (const TextEntry* e : all_entries()) {
        bool ok = true;
        for (unsigned c : codepoints(e->text[0], &ok))
            if (c >= 0x20 && !fonts.sans.count(c) && !is_label_glyph(c)) missing_en.insert(c);
        // The English page draws with DejaVu only (plus the two glyphs of "中文").
        for (unsigned c : codepoints(e->text[1], &ok))
            if (c >= 0x20 && !fonts.sans.count(c) && !fonts.cjk.count(c)) missing_zh.insert(c);
    }
    std::ostringstream en, zh;
    for (unsigned c : missing_en) en << std::hex << "U+" << c << ' ';
    for (unsigned c : missing_zh) zh << std::hex << "U+" << c << ' ';
    CHECK_MESSAGE(missing_en.empty(), "English strings use glyphs DejaVu's subset lacks: " << en.str());
    CHECK_MESSAGE(missing_zh.empty(), "Chinese strings use glyphs no subset holds: " << zh.str());
}

TEST_CASE("language codes parse like the browser and the locale write them") {
    Lang l = Lang::En;
    CHECK(parse_lang("zh", &l));
    CHECK(l == Lang::Zh);
    for (const char* code : {"zh-CN", "zh_TW.UTF-8", "ZH-hans", "zh"}) {
        l = Lang::En;
        CHECK(parse_lang(code, &l));
        CHECK(l == Lang::Zh);
    }
    CHECK(parse_lang("en-US", &l));
    CHECK(l == Lang::En);
    for (const char* bad : {"", "C", "fr", "zhx", "C.UTF-8", "\xe4\xb8\xad"}) CHECK_FALSE(parse_lang(bad, &l));
    CHECK(std::string(lang_code(Lang::Zh)) == "zh");
    CHECK(std::string(lang_code(Lang::En)) == "en");
}

TEST_CASE("the stage table says its texts in either language; ids and code stay") {
    const StageInfo& scale = stage_info(StageId::Scale);
    CHECK(std::string(tr(scale.title, Lang::En)) == "Scale by 1/sqrt(d_k)");
    CHECK(std::string(tr(stage_info(StageId::Mask).chip, Lang::Zh)) == "\xe6\x8e\xa9\xe7\xa0\x81");  // 掩码
    CHECK(std::string(scale.pytorch) == "scores = scores / math.sqrt(d_k)");  // code
    CHECK(std::string(stage_info(StageId::SplitHeads).key) == "split_heads");  // ids
}

TEST_CASE("each stage table has one row per id, in the enum's order (the counts come from the enums)") {
    REQUIRE(stage_infos().size() == static_cast<size_t>(kStageCount));
    for (int s = 0; s < kStageCount; ++s) CHECK(static_cast<int>(stage_infos()[s].id) == s);
    REQUIRE(block_stage_infos().size() == static_cast<size_t>(kBlockStageCount));
    for (int b = 0; b < kBlockStageCount; ++b) CHECK(static_cast<int>(block_stage_infos()[b].id) == b);
    CHECK(kStageCount == 10);  // the paper's pipeline as the lab draws it: input .. output
    CHECK(kBlockStageCount == 4);
}

TEST_CASE("messages render like printf in the language asked for") {
    const std::string file = "cfg.json";
    CHECK(en(Msg(UiStr::plat_could_not_load, file)) == "could not load cfg.json");
    CHECK(zh(Msg(UiStr::plat_could_not_load, file)) == "无法加载 cfg.json");
    CHECK(en(Msg(UiStr::plat_config_too_large, file, 2e6)).find("2000000 bytes") != std::string::npos);
    // Each conversion gets its argument as printf would: widths, precision, int wrap, size_t.
    CHECK(en(Msg(Str::cfg_too_large, "d_model", 8192, 4096, Str::cfg_what_d_model)) ==
          "d_model=8192 is larger than the lab's limit of 4096 (model width, e.g. 512 in the paper)");
    CHECK(en(Msg(Str::chk_rows_sum_detail, 7.5e-08, 16L)) == "max |sum - 1| = 7.5e-08 over 16 rows");
    CHECK(en(Msg(Str::chk_finite_none, size_t{64})) == "64 values, none NaN or inf");
    CHECK(en(Msg(Str::url_not_int, "b", "x", 0LL, 4095LL, 3000000000LL)) ==
          "b='x' is not a whole number in [0, 4095]; using -1294967296");  // %d of a value past INT_MAX wraps as printf's
    CHECK(en(Msg(UiStr::lang_missing_glyph, "\xe6\x91\x9e", "\xe6\x91\x9e", 0x645Eu)).find("(U+645E)") != std::string::npos);
    // A nested message is said in the same language; then() appends.
    Msg m(Str::chk_finite_label, Msg(Str::chk_fn4_scaled_label));
    CHECK(en(m) == "all values of variance after \xc3\xb7\xe2\x88\x9a" "d_k are finite");
    CHECK(zh(m) == "\xc3\xb7\xe2\x88\x9a" "d_k 之后的方差 的所有值都是有限数");
    m.then(Msg::literal(" [x]"));
    CHECK(en(m) == "all values of variance after \xc3\xb7\xe2\x88\x9a" "d_k are finite [x]");
    CHECK(en(Msg::literal("h \xc2\xb7 d_k")) == zh(Msg::literal("h \xc2\xb7 d_k")));
    CHECK(Msg().empty());
    CHECK(en(Msg()).empty());
    // A missing argument leaves its conversion visible instead of reading garbage.
    CHECK(en(Msg(Str::cli_needs_value)) == "%s needs a value");
}
