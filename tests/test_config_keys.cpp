// test_config_keys.cpp — the configuration keys (attention/config_keys.h): one row per key,
// read by every reader and written by every writer; and the same table type serving a
// second configuration struct, as a training configuration will.
#include <doctest/doctest.h>

#include <cmath>
#include <set>

#include "app/data/url_state.h"
#include "attention/config_keys.h"
#include "cli/cli.h"
#include "interop/config_file.h"
#include "interop/json_export.h"
#include "text.h"

using namespace lab;

namespace {

// A second configuration struct, with a key of every type.
enum class Schedule { Constant, Paper };
struct DemoConfig {
    int layers = 2;
    double rate = 1e-3;
    bool tied = false;
    Schedule schedule = Schedule::Constant;
    std::vector<int> warmup;  // with the paper schedule
};

const KeyTable<DemoConfig>& demo_keys() {
    using D = DemoConfig;
    static const KeyTable<DemoConfig> t{{
        whole<&D::layers>("layers", 1, &ConfigLimits::max_batch).flag("--layers"),
        decimal<&D::rate>("rate", 0.0, 1.0).flag("--rate").hash({"lr"}),
        on_off<&D::tied>("tied").flag("--tie"),
        choice<&D::schedule>("schedule", {{"const", nullptr, int(Schedule::Constant)},
                                          {"paper", nullptr, int(Schedule::Paper), std::nan(""), "warmup"}})
            .flag("--schedule").messages(Str::url_bad_mask, Str::io_bad_mask, Str::cli_expect_mask),
        whole_list<&D::warmup>("warmup", 0, &ConfigLimits::max_len)
            .messages(Str::url_bad_pad, Str::io_padding_not_array, Str::cli_syntax_lengths)
            .written_when([](const void* c) { return static_cast<const D*>(c)->schedule == Schedule::Paper; }),
    }};
    return t;
}

std::vector<ConfigError> read_flags(DemoConfig& c, const std::vector<std::string>& args) {
    KeyFlags flags(demo_keys().rows);
    std::vector<ConfigError> errors;
    for (size_t i = 0; i < args.size(); ++i) CHECK(flags.read(args, &i, &c, &errors));
    flags.finish(&c, &errors);
    return errors;
}

}  // namespace

TEST_CASE("config keys: a second struct's table is read from flags and links, and written as JSON") {
    DemoConfig c;
    REQUIRE(read_flags(c, {"--layers", "6", "--rate", "0.25", "--tie", "--schedule", "paper:400,4000"}).empty());
    CHECK(c.layers == 6);
    CHECK(c.rate == 0.25);
    CHECK(c.tied);
    CHECK(c.schedule == Schedule::Paper);
    CHECK(c.warmup == std::vector<int>{400, 4000});
    CHECK(describe_config(demo_keys(), c) == "layers=6 rate=0.25 tied=1 schedule=paper warmup=400,4000");

    const std::string hash = encode_keys(demo_keys().rows, &c);
    CHECK(hash == "layers=6&lr=0.25&tied=1&schedule=paper&warmup=400,4000");
    DemoConfig back;
    std::vector<Msg> notes;
    for (const std::string part : {"layers=6", "lr=0.25", "tied=1", "schedule=paper", "warmup=400,4000"}) {
        const size_t eq = part.find('=');
        CHECK(decode_key(demo_keys().rows, part.substr(0, eq), part.substr(eq + 1), &back, &notes, nullptr));
    }
    CHECK(notes.empty());
    CHECK(same_config(demo_keys(), c, back));
    CHECK_FALSE(decode_key(demo_keys().rows, "nope", "1", &back, &notes, nullptr));

    const Json j = config_json_value(demo_keys(), c);
    CHECK(j.dump() == R"({"layers":6,"rate":0.25,"tied":true,"schedule":"paper","warmup":[400,4000]})");
    c.schedule = Schedule::Constant;  // the warmup list is written only with the paper schedule
    CHECK(config_json_value(demo_keys(), c).dump() == R"({"layers":6,"rate":0.25,"tied":true,"schedule":"const"})");
}

TEST_CASE("config keys: every reader names the key and the range its row gives") {
    DemoConfig c;
    std::vector<ConfigError> errors = read_flags(c, {"--rate", "2", "--layers", "0", "--schedule", "cosine"});
    REQUIRE(errors.size() == 3);
    CHECK(errors[0].param == "--rate");
    CHECK(en(errors[0].message) == "--rate '2' is not a number in [0, 1]");
    CHECK(en(errors[1].message) == "--layers '0' is not a whole number in [1, 1048576]");  // validate() judges the limit
    CHECK(errors[2].param == "--schedule");
    errors = read_flags(c, {"--rate"});
    REQUIRE(errors.size() == 1);
    CHECK(en(errors[0].message) == "--rate needs a value");

    std::vector<Msg> notes;
    CHECK(decode_key(demo_keys().rows, "lr", "nan", &c, &notes, nullptr));
    CHECK(decode_key(demo_keys().rows, "layers", "300", &c, &notes, nullptr));  // above max_batch = 256
    REQUIRE(notes.size() == 2);
    CHECK(en(notes[0]) == "hash: lr='nan' is not a number in [0, 1]; using 0.001");
    CHECK(zh(notes[0]) == "链接参数：lr='nan' 不是 [0, 1] 内的数；改用 0.001");
    CHECK(en(notes[1]) == "hash: layers='300' is not a whole number in [1, 256]; using 2");
    CHECK(c.layers == 2);
}

TEST_CASE("config keys: the attention table's rows") {
    const KeyTable<AttentionConfig>& keys = attention_keys();
    std::set<std::string> names, flags, hash;
    for (const ConfigKey& k : keys.rows) {
        CAPTURE(k.name);
        CHECK(names.insert(k.name).second);
        CHECK_FALSE(k.file_names.empty());
        if (*k.cli_flag) CHECK(flags.insert(k.cli_flag).second);
        for (const char* h : k.hash_names) CHECK(hash.insert(h).second);
        if (k.type == KeyType::Whole || k.type == KeyType::WholeList) CHECK(k.hi != nullptr);  // limits from ConfigLimits
        if (k.type == KeyType::Choice) {
            CHECK(k.hash_bad != Str::Count_);
            CHECK(k.file_bad != Str::Count_);
            CHECK(k.cli_expect != Str::Count_);
        }
    }
    CHECK(keys.find("heads")->file_name_is("num_heads"));
    CHECK(keys.find("heads")->hash_name_is("h"));
    CHECK(std::string(mask_kind_name(MaskKind::Padding)) == "padding");
    CHECK(std::string(mask_fill_name(MaskFill::NegBillion)) == "-1e9");
    // The seed is checked when read (validate() has no opinion on it); its range is ConfigLimits'.
    CHECK(keys.find("seed")->max(ConfigLimits{}) == 2147483647);
    CHECK_FALSE(keys.find("seed")->validated);
}

TEST_CASE("config keys: what one writer writes, every reader reads back") {
    std::vector<AttentionConfig> cs(4);
    cs[1].mask = MaskKind::Padding, cs[1].padding_lengths = {4, 1}, cs[1].mask_fill = MaskFill::NegBillion;
    cs[2].cross = true, cs[2].kv_len = 6, cs[2].seq_len = 3, cs[2].mask = MaskKind::Custom;
    cs[2].custom_keep = {1, 1, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1};
    cs[3].d_model = 12, cs[3].heads = 3, cs[3].seed = 2147483647, cs[3].scale = false, cs[3].pe = false, cs[3].bias = false;
    for (const AttentionConfig& c : cs) {
        const std::string described = describe_config(attention_keys(), c);
        CAPTURE(described);
        REQUIRE(validate(c).empty());
        // manifest.json's config, read as a config file
        const ConfigFileResult file = parse_config_file(config_json(c), "manifest.json");
        CHECK(file.ok);
        CHECK(file.ignored.empty());
        CHECK(same_config(attention_keys(), file.config, c));
        // the URL hash
        UrlState s;
        s.config = c;
        const UrlDecode link = decode_url_state(encode_url_state(s));
        CHECK(link.notes.empty());
        CHECK(same_config(attention_keys(), link.state.config, c));
    }
}
