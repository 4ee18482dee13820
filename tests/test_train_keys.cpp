// test_train_keys.cpp — the training knobs as one key table (train_keys()): the same rows
// read by `attnlab train`'s flags, the Train view's link and a checkpoint's manifest, and
// written by them; messages from the string table in both languages; checkpoints as one
// tar download and read back from memory.
#include <doctest/doctest.h>

#include <cmath>
#include <set>
#include <tuple>

#include "app/data/url_state.h"
#include "cli/train_cmd.h"
#include "interop/archive.h"
#include "interop/checkpoint.h"
#include "interop/json_export.h"
#include "interop/npy.h"
#include "text.h"

using namespace lab;

namespace {

TrainConfig small_reverse() {
    TrainConfig c;
    c.task = TaskKind::Reverse;
    c.d_model = 8, c.heads = 2, c.batch = 4, c.steps = 3, c.eval_every = 3, c.eval_size = 16;
    return resolve_train_config(c);
}

}  // namespace

TEST_CASE("train keys: one row per knob, each with its flag, link name and manifest name") {
    std::set<std::string> names, flags;
    for (const ConfigKey& k : train_keys().rows) {
        CAPTURE(k.name);
        CHECK(names.insert(k.name).second);
        CHECK(*k.cli_flag);
        CHECK(flags.insert(k.cli_flag).second);
        // coref's lang is not in the link: there the page's own #lang (its language) picks it
        CHECK(k.hash_names.empty() == (std::string(k.name) == "lang"));
    }
    for (const char* knob : {"task", "lang", "layers", "heads", "d_model", "d_ff", "vocab", "length", "gap", "batch", "steps", "seed",
                             "scale", "pe", "position", "bias", "label_smoothing", "dropout", "lr", "eval_every", "eval_size",
                             "target_exact"})
        CHECK(names.count(knob) == 1);
    CHECK(train_keys().find("task")->hash_names[0] == std::string("train"));  // #train=reverse opens the Train view
}

TEST_CASE("train keys: the CLI reads the rows' flags; errors name the flag, in the string table's words") {
    TrainCliParse p = parse_train_cli({"--task", "sort", "--layers", "2", "--heads", "2", "--d-model", "16", "--no-pe",
                                       "--label-smoothing", "0.1", "--lr", "paper:2:50", "--seed", "7"});
    REQUIRE(p.errors.empty());
    const TrainConfig& c = p.options.config;
    CHECK(c.task == TaskKind::Sort);
    CHECK(c.layers == 2);
    CHECK(c.d_model == 16);
    CHECK_FALSE(c.pe);
    CHECK(c.label_smoothing == doctest::Approx(0.1));
    CHECK(c.lr.schedule == LrSchedule::Paper);
    CHECK(c.lr.factor == 2);
    CHECK(c.lr.warmup == 50);
    CHECK(c.seed == 7u);

    p = parse_train_cli({"--layers", "9"});
    REQUIRE(p.errors.size() == 1);
    CHECK(p.errors[0].param == "--layers");
    CHECK(en(p.errors[0].message) == "layers must be a whole number in [1, 6], got 9");
    CHECK(zh(p.errors[0].message) == "layers 必须是 [1, 6] 内的整数，现在是 9");
    p = parse_train_cli({"--eval-size", "4096", "--vocab", "3", "--length", "2"});
    REQUIRE(p.errors.size() == 1);
    CHECK(p.errors[0].param == "--eval-size");
    p = parse_train_cli({"--lr", "const:-1"});
    REQUIRE(p.errors.size() == 1);
    CHECK(en(p.errors[0].message).find("--lr 'const:-1' is not paper") == 0);
    p = parse_train_cli({"--save", "some", "--bogus"});
    REQUIRE(p.errors.size() == 2);
    CHECK(en(p.errors[0].message) == "--save 'some' is not all or final");
    CHECK(en(p.errors[1].message) == "unknown option '--bogus'");
}

TEST_CASE("train keys: a Train view link holds every knob and reads back the same run") {
    TrainConfig c = small_reverse();
    c.task = TaskKind::Induction, c.gap = 3, c.length = 5, c.scale = false, c.lr.schedule = LrSchedule::Paper;
    c.lr.factor = 1.5, c.lr.warmup = 200;
    UrlState s;
    s.train = true, s.train_config = c, s.lang = "zh";
    const std::string hash = encode_url_state(s);
    CHECK(hash.compare(0, 16, "train=induction&") == 0);
    CHECK(hash.find("&gap=3&") != std::string::npos);
    CHECK(hash.find("&lr=paper:1.5:200&") != std::string::npos);
    const UrlDecode d = decode_url_state("#" + hash);
    CHECK(d.notes.empty());
    CHECK(d.state.train);
    CHECK(d.state.lang == "zh");
    CHECK(same_config(train_keys(), d.state.train_config, c));

    // Only the task: that task's defaults. Bad values: notes naming the key, the default kept.
    UrlDecode e = decode_url_state("train=sort");
    CHECK(e.notes.empty());
    CHECK(same_config(train_keys(), e.state.train_config, [] {
        TrainConfig t;
        t.task = TaskKind::Sort;
        return resolve_train_config(t);
    }()));
    e = decode_url_state("train=reverse&layers=x&lr=fast&stage=softmax");
    REQUIRE(e.notes.size() == 3);
    CHECK(en(e.notes[0]) == "hash: layers='x' is not a whole number in [1, 6]; using 1");
    CHECK(en(e.notes[1]) == "hash: lr='fast' is not paper, paper:FACTOR, paper:FACTOR:WARMUP or const:RATE; using const:0.003");
    CHECK(en(e.notes[2]) == "hash: unknown key 'stage' ignored");
    // An invalid run falls back to the task's defaults and says why.
    e = decode_url_state("train=copy&d_model=10&heads=3");
    CHECK(e.state.train_config.d_model == 32);
    CHECK(en(e.notes.front()).find("heads: d_model=10 is not divisible by heads=3") != std::string::npos);
}

TEST_CASE("train keys: manifest.json writes every knob in the table's order and reads them back") {
    Trainer t;
    std::vector<ConfigError> errors;
    REQUIRE(t.init(small_reverse(), &errors));
    t.step(3);
    const Json m = Json::parse(checkpoint_manifest(t));
    std::vector<std::string> keys;
    for (const auto& item : m["config"].items())
        if (train_keys().find(item.key())) keys.push_back(item.key());
    std::vector<std::string> rows;
    // lang: coref's only; position: when learned; kv_heads: when set; dropout: when not 0, but manifest.json
    // always states P_drop
    for (const ConfigKey& k : train_keys().rows)
        if (k.is_written(&t.config()) || std::string(k.name) == "dropout") rows.push_back(k.name);
    CHECK(rows.size() + 3 == train_keys().rows.size());
    CHECK(keys == rows);
    CHECK(m["config"]["dropout"] == Json(0.0));
    CHECK(m["config"]["lr"] == Json({{"schedule", "const"}, {"rate", 0.003}}));
    TrainConfig back;
    REQUIRE(parse_checkpoint_config(checkpoint_manifest(t), &back, &errors));
    CHECK(same_config(train_keys(), resolve_train_config(back), t.config()));

    std::string broken = checkpoint_manifest(t);
    broken.replace(broken.find("\"scale\": true"), 13, "\"scale\": 1");
    errors.clear();
    CHECK_FALSE(parse_checkpoint_config(broken, &back, &errors));
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].param == "config.scale");
    CHECK(zh(errors[0].message) == "config.scale 缺失或不是 true/false");
}

TEST_CASE("tar archives: ustar bytes that read back, long paths split, bad archives refused") {
    const std::string long_dir(120, 'd');
    const std::vector<ArchiveFile> files = {{"ckpt/manifest.json", "{}\n"}, {"ckpt/empty.txt", ""},
                                            {long_dir + "/final/x.npy", std::string(700, '\x7f')}};
    std::string error;
    const std::string tar = tar_archive(files, &error);
    REQUIRE(!tar.empty());
    CHECK(tar.size() % 512 == 0);
    CHECK(tar.size() == 512 * (1 + 1 + 1 + 0 + 1 + 2 + 2));  // header + 1 block, header, header + 2 blocks, the end
    CHECK(tar.compare(257, 6, std::string("ustar") + '\0') == 0);
    std::vector<ArchiveFile> back;
    REQUIRE(read_tar(tar, &back, &error));
    REQUIRE(back.size() == 3);
    for (size_t i = 0; i < 3; ++i) {
        CHECK(back[i].path == files[i].path);
        CHECK(back[i].bytes == files[i].bytes);
    }
    std::string bad = tar;
    bad[10] ^= 1;  // a name byte: the checksum no longer matches
    CHECK_FALSE(read_tar(bad, &back, &error));
    CHECK(error.find("bad tar header") != std::string::npos);
    CHECK_FALSE(read_tar(tar.substr(0, 1024), &back, &error));
    CHECK(tar_archive({{std::string(300, 'x'), "1"}}, &error).empty());
}

TEST_CASE("checkpoints in memory: the download's files load like the folder") {
    Trainer t;
    std::vector<ConfigError> errors;
    REQUIRE(t.init(small_reverse(), &errors));
    CheckpointRecord record;
    record.init_params = t.params();
    t.step(3);
    const std::vector<ArchiveFile> files = checkpoint_files(t, record, CheckpointParts::Weights);
    std::set<std::string> paths;
    for (const ArchiveFile& f : files) paths.insert(f.path);
    CHECK(paths.count("manifest.json") == 1);
    CHECK(paths.count("final/generator.bias.npy") == 1);
    CHECK(paths.count("init/generator.bias.npy") == 1);
    CHECK(paths.count("loss.npy") == 1);
    CHECK(paths.count("batches/src.npy") == 0);

    std::vector<ArchiveFile> unpacked;
    std::string error;
    REQUIRE(read_tar(tar_archive(files), &unpacked, &error));
    for (const char* part : {"final", "init"}) {
        Trainer loaded;
        REQUIRE(load_checkpoint_files(unpacked, part, &loaded, &errors));
        CHECK(loaded.params() == (std::string(part) == "final" ? t.params() : record.init_params));
    }
    unpacked.erase(unpacked.begin() + 1);  // the first parameter file
    Trainer missing;
    CHECK_FALSE(load_checkpoint_files(unpacked, "final", &missing, &errors));
    REQUIRE(!errors.empty());
    CHECK(en(errors[0].message).find("the checkpoint has no final/") != std::string::npos);
}

TEST_CASE("checkpoint history: the steps, every step's loss and the evaluations of the run that made it") {
    TrainConfig c = small_reverse();
    c.steps = 6, c.eval_every = 2;
    Trainer t;
    std::vector<ConfigError> errors;
    REQUIRE(t.init(resolve_train_config(c), &errors));
    CheckpointRecord record;
    record.init_params = t.params();
    t.step(6);
    std::vector<ArchiveFile> files = checkpoint_files(t, record, CheckpointParts::Weights);
    const CheckpointHistory h = checkpoint_history(files);
    CHECK(h.steps == 6);
    CHECK(h.losses == t.losses());
    REQUIRE(h.evals.size() == t.evals().size());
    REQUIRE(h.evals.size() == 3);
    for (size_t i = 0; i < h.evals.size(); ++i) {
        CHECK(h.evals[i].step == t.evals()[i].step);
        CHECK(h.evals[i].loss == doctest::Approx(t.evals()[i].loss));
        CHECK(h.evals[i].token_accuracy == doctest::Approx(t.evals()[i].token_accuracy));
        CHECK(h.evals[i].exact_accuracy == doctest::Approx(t.evals()[i].exact_accuracy));
    }
    // A manifest that is not JSON and a loss file that is not .npy: nothing is known, nothing breaks.
    for (ArchiveFile& f : files)
        if (f.path == "manifest.json" || f.path == "loss.npy") f.bytes = "{ not json";
    const CheckpointHistory none = checkpoint_history(files);
    CHECK(none.steps == 0);
    CHECK(none.losses.empty());
    CHECK(none.evals.empty());
}

TEST_CASE("train keys: dropout and position, in the CLI, the link, the manifest and validation, name their key") {
    // The CLI: a bad value names the flag and says the range or the choices.
    TrainCliParse p = parse_train_cli({"--dropout", "0.1", "--position", "learned"});
    REQUIRE(p.errors.empty());
    CHECK(p.options.config.dropout == doctest::Approx(0.1));
    CHECK(p.options.config.position == PositionKind::Learned);
    for (const char* bad : {"1.5", "nan", "-0.1", "1", "inf", "x"}) {
        CAPTURE(bad);
        p = parse_train_cli({"--dropout", bad});
        REQUIRE(p.errors.size() == 1);
        CHECK(p.errors[0].param == "--dropout");
        CHECK(en(p.errors[0].message) == "--dropout '" + std::string(bad) + "' is not a number in [0, 0.99]");
    }
    p = parse_train_cli({"--position", "foo"});
    REQUIRE(p.errors.size() == 1);
    CHECK(p.errors[0].param == "--position");
    CHECK(en(p.errors[0].message) == "--position 'foo' is not sinusoid or learned");
    CHECK(zh(p.errors[0].message) == "--position 'foo' 不是 sinusoid 或 learned");
    p = parse_train_cli({"--position", "learned", "--no-pe"});
    REQUIRE(p.errors.size() == 1);
    CHECK(p.errors[0].param == "--position");
    CHECK(en(p.errors[0].message) == "position=learned is a learned positional encoding: it needs pe on (got pe off, --no-pe)");

    // The key table's validation (what a config from anywhere meets): NaN too.
    TrainConfig c = small_reverse();
    for (double bad : {1.5, std::nan(""), -0.5, 1.0}) {
        c.dropout = bad;
        const std::vector<ConfigError> errors = validate_train_config(c);
        REQUIRE(errors.size() == 1);
        CHECK(errors[0].param == "dropout");
        CHECK(en(errors[0].message).find("dropout must be in [0, 0.99], got ") == 0);
    }
    c.dropout = 0.1;
    CHECK(validate_train_config(c).empty());

    // The link: written only when not the default, read back; bad values noted by name.
    TrainConfig d = small_reverse();
    UrlState s;
    s.train = true, s.train_config = d;
    std::string hash = encode_url_state(s);
    CHECK(hash.find("dropout") == std::string::npos);  // defaults: the links of today's runs are unchanged
    CHECK(hash.find("position") == std::string::npos);
    d.dropout = 0.1, d.position = PositionKind::Learned;
    s.train_config = d;
    hash = encode_url_state(s);
    CHECK(hash.find("&position=learned&") != std::string::npos);
    CHECK(hash.find("&dropout=0.1&") != std::string::npos);
    UrlDecode back = decode_url_state("#" + hash);
    CHECK(back.notes.empty());
    CHECK(same_config(train_keys(), back.state.train_config, d));
    back = decode_url_state("train=reverse&dropout=1.5&position=foo");
    REQUIRE(back.notes.size() == 2);
    CHECK(en(back.notes[0]) == "hash: dropout='1.5' is not a number in [0, 0.99]; using 0");
    CHECK(en(back.notes[1]) == "hash: position='foo' is not sinusoid or learned; using sinusoid");

    // manifest.json: both knobs in the table's order, read back; a bad value names config.KEY.
    Trainer t;
    std::vector<ConfigError> errors;
    REQUIRE(t.init(d, &errors));
    t.step(2);
    const std::string manifest = checkpoint_manifest(t);
    const Json m = Json::parse(manifest);
    std::vector<std::string> keys, rows;
    for (const auto& item : m["config"].items())
        if (train_keys().find(item.key())) keys.push_back(item.key());
    for (const ConfigKey& k : train_keys().rows)
        if (k.is_written(&t.config())) rows.push_back(k.name);
    CHECK(keys == rows);
    CHECK(m["config"]["dropout"] == Json(0.1));
    CHECK(m["config"]["position"] == Json("learned"));
    CHECK(m["params"][1]["name"] == Json("pos_embedding.weight"));
    TrainConfig read;
    REQUIRE(parse_checkpoint_config(manifest, &read, &errors));
    CHECK(same_config(train_keys(), resolve_train_config(read), t.config()));
    for (const auto& [from, to, param, text] :
         {std::tuple<const char*, const char*, const char*, const char*>{
              "\"dropout\": 0.1", "\"dropout\": 2", "config.dropout", "dropout must be in [0, 0.99], got 2"},
          {"\"position\": \"learned\"", "\"position\": \"foo\"", "config.position",
           "position=\"foo\" is not one of \"sinusoid\", \"learned\""}}) {
        std::string broken = manifest;
        REQUIRE(broken.find(from) != std::string::npos);
        broken.replace(broken.find(from), std::string(from).size(), to);
        errors.clear();
        CHECK_FALSE(parse_checkpoint_config(broken, &read, &errors));
        REQUIRE(errors.size() == 1);
        CHECK(errors[0].param == param);
        CHECK(en(errors[0].message) == text);
    }
}

TEST_CASE("checkpoints: pos_embedding.weight round-trips as a state_dict key; a sinusoid model has none") {
    TrainConfig c = small_reverse();
    c.position = PositionKind::Learned, c.dropout = 0.2;
    Trainer t;
    std::vector<ConfigError> errors;
    REQUIRE(t.init(c, &errors));
    CheckpointRecord record;
    record.init_params = t.params();
    const std::vector<float> pos_before(t.params().begin() + static_cast<long>(t.layout().pos_embedding),
                                        t.params().begin() + static_cast<long>(t.layout().pos_embedding + 8 * 8));
    t.step(3);
    const std::vector<float> pos_after(t.params().begin() + static_cast<long>(t.layout().pos_embedding),
                                       t.params().begin() + static_cast<long>(t.layout().pos_embedding + 8 * 8));
    CHECK(pos_after != pos_before);  // trained by the optimizer
    const std::vector<ArchiveFile> files = checkpoint_files(t, record, CheckpointParts::Weights);
    const ArchiveFile* pos = nullptr;
    for (const ArchiveFile& f : files)
        if (f.path == "final/pos_embedding.weight.npy") pos = &f;
    REQUIRE(pos != nullptr);
    Tensor value;
    std::string error;
    REQUIRE(decode_npy(pos->bytes, &value, &error));
    CHECK(value.shape == std::vector<int>{8, 8});  // (max length, d_model): reverse's L = 8
    CHECK(std::vector<float>(value.data.begin(), value.data.end()) == pos_after);
    Trainer loaded;
    REQUIRE(load_checkpoint_files(files, "final", &loaded, &errors));
    CHECK(loaded.params() == t.params());
    CHECK(loaded.config().position == PositionKind::Learned);
    CHECK(loaded.config().dropout == doctest::Approx(0.2));
    // The parameter's file missing: the loader names it.
    std::vector<ArchiveFile> without;
    for (const ArchiveFile& f : files)
        if (f.path != "final/pos_embedding.weight.npy") without.push_back(f);
    Trainer missing;
    errors.clear();
    CHECK_FALSE(load_checkpoint_files(without, "final", &missing, &errors));
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].param == "pos_embedding.weight");

    Trainer plain;
    REQUIRE(plain.init(small_reverse(), &errors));
    for (const ArchiveFile& f : checkpoint_files(plain, record, CheckpointParts::Final))
        CHECK(f.path.find("pos_embedding") == std::string::npos);
}
