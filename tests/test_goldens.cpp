// test_goldens.cpp — what the lab prints, pinned against captures in tests/golden/
// (see golden.h): `attnlab` tables, messages and dumps, URL-hash and config-file notes,
// validation messages, the stage texts, the prompt text, hover derivations, the
// experiments' texts and the PyTorch script, in English and in 中文.
//
// The captures were made with the code as it was before the core returned messages
// instead of text (a process-wide language then decided what trf() wrote); the
// functions in the first block are the only place that says how a text is produced in
// a given language.
//
// Native only: the wasm build rounds a few float sums differently in the last digit
// (Eigen's SIMD paths), which shows in printed details such as "max |sum - 1| = 6e-08".
// The page's texts are pinned in wasm by tests/browser/golden.test.mjs.
#include <doctest/doctest.h>
#ifndef __EMSCRIPTEN__

#include "cli_run.h"
#include "golden.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "app/data/url_state.h"
#include "base/i18n.h"
#include "explain/derivation.h"
#include "interop/config_file.h"
#include "interop/exports.h"
#include "teach/experiments/experiments.h"
#include "trace/stages.h"
#include "trace/trace.h"

using namespace lab;

namespace {

// ---------------------------------------------------------------- how texts are made

std::string errors_text(const std::vector<ConfigError>& errors, Lang lang) {
    std::string s;
    for (const ConfigError& e : errors) s += "  " + e.param + ": " + render(e.message, lang) + "\n";
    return s;
}

// Every field, whether the configuration is valid or not.
std::string config_line(const AttentionConfig& c) {
    std::string s = "d_model=" + std::to_string(c.d_model) + " heads=" + std::to_string(c.heads) +
                    " seq_len=" + std::to_string(c.seq_len) + " kv_len=" + std::to_string(c.kv_len) +
                    " batch=" + std::to_string(c.batch) + " seed=" + std::to_string(c.seed) + " mask=" +
                    mask_kind_name(c.mask) + " fill=" + mask_fill_name(c.mask_fill) + " pad=";
    for (int p : c.padding_lengths) s += std::to_string(p) + ",";
    s += " custom=";
    for (uint8_t k : c.custom_keep) s += std::to_string(k);
    return s + " scale=" + std::to_string(c.scale) + " pe=" + std::to_string(c.pe) + " bias=" + std::to_string(c.bias) +
           " cross=" + std::to_string(c.cross);
}

std::string validate_text(const AttentionConfig& c, Lang lang) { return errors_text(validate(c), lang); }

std::string hash_notes_text(const std::string& hash, Lang lang) {
    std::string s;
    for (const Msg& n : decode_url_state(hash).notes) s += "  " + render(n, lang) + "\n";
    return s;
}

std::string config_file_text(const std::string& text, const std::string& name, const AttentionConfig& base, Lang lang) {
    const ConfigFileResult r = parse_config_file(text, name, base);
    std::string s = std::string("  ok ") + (r.ok ? "true" : "false") + ", format " + r.format + "\n  applied:";
    for (const std::string& k : r.applied) s += " " + k;
    s += "\n  ignored:";
    for (const std::string& k : r.ignored) s += " " + k;
    s += "\n  config: " + config_line(r.config) + "\n";
    return s + errors_text(r.errors, lang);
}

std::string stage_text(StageId id, Lang lang) {
    const StageInfo& info = stage_info(id);
    return std::string(info.key) + " | " + tr(info.chip, lang) + " | " + tr(info.title, lang) + "\n  formula: " +
           tr(info.formula, lang) + "\n  pytorch: " + info.pytorch + "\n  why: " + tr(info.why, lang) + "\n";
}

std::string prompt_text(const Trace& tr, int stage, int item, int head, Lang lang) {
    return stage_prompt_text(tr, stage, item, head, lang);
}

std::string trace_json_text(const AttentionConfig& c, Lang lang) { return trace_json(run_trace(c), lang); }

std::string derivation_text(const Trace& tr, const std::string& tensor, const std::vector<int>& index, Lang lang) {
    TensorId id;
    return tensor_id(tensor, &id) ? render(derive_cell(tr, id, index), lang) : "";
}

std::string number(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

std::string mistakes_text(const AttentionConfig& c, Lang lang) {
    std::string s;
    for (const MistakeSpec& m : mistakes()) {
        const MistakeResult r = run_mistake(m, c);
        s += r.key + " | " + render(r.title, lang) + "\n  buggy:   " + render(r.buggy_line, lang) + "\n  correct: " + render(r.correct_line, lang) + "\n";
        if (!r.runs) s += "  raises at " + r.stops_at + ": " + r.error + "\n";
        s += "  max_row_sum_error " + number(r.max_row_sum_error) + ", future_weight " + number(r.future_weight) +
             ", output_diff " + number(r.output_diff) + ", nan " + std::to_string(r.nan_weights) + "/" +
             std::to_string(r.nan_outputs) + "\n  symptom: " + render(r.symptom, lang) + "\n";
        for (const MistakeStep& st : r.story) {
            std::string shape;
            for (int d : st.shape) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
            if (!st.note.empty()) s += "  step note: " + render(st.note, lang) + "\n";
            s += "  step " + std::to_string(st.branch) + ": " + st.code + " -> " + (st.error.empty() ? "(" + shape + ")" : st.error) + "\n";
        }
    }
    return s;
}

std::string masks_text(const AttentionConfig& c, Lang lang) {
    const MaskComparison m = mask_experiment(c);
    std::string s;
    std::vector<const MaskCase*> cases;
    for (const MaskCase& mc : m.cases) cases.push_back(&mc);
    cases.push_back(&m.fully_masked_inf);
    cases.push_back(&m.fully_masked_1e9);
    for (const MaskCase* mc : cases)
        s += mc->name + " | " + render(mc->label, lang) + " | " + render(mc->description, lang) + "\n  future_nonzero " +
             std::to_string(mc->future_nonzero) + ", fully_masked_rows " + std::to_string(mc->fully_masked_rows) +
             ", nan " + (mc->has_nan ? "yes" : "no") + "\n";
    return s + "why fully masked: " + render(m.fully_masked_why, lang) + "\nwhy inverted: " + render(m.inverted_why, lang) + "\n";
}

std::string encdec_text(const AttentionConfig& c, Lang lang) {
    std::string s;
    for (const AttentionKindTrace& k : encoder_decoder_experiment(c, c.L_q() + 2, c.L_q()))
        s += k.name + " | " + render(k.label, lang) + " | weights " + shape_numbers(k.trace[TensorId::Weights].shape) + "\n";
    return s;
}

// ---------------------------------------------------------------- inputs

const Lang kLangs[] = {Lang::En, Lang::Zh};
const char* lang_name(Lang l) { return l == Lang::Zh ? "zh" : "en"; }

AttentionConfig config(int d_model, int heads, int seq_len, int batch) {
    AttentionConfig c;
    c.d_model = d_model, c.heads = heads, c.seq_len = seq_len, c.batch = batch;
    return c;
}

// Configurations that reach every branch of the texts: masks, fills, fully masked
// rows, scaling off, cross-attention, one head, odd sizes.
std::vector<std::pair<std::string, AttentionConfig>> trace_configs() {
    std::vector<std::pair<std::string, AttentionConfig>> out;
    out.push_back({"default", AttentionConfig{}});
    AttentionConfig pad0;
    pad0.mask = MaskKind::Padding, pad0.padding_lengths = {4, 0}, pad0.scale = false;
    out.push_back({"padding_4_0_noscale", pad0});
    AttentionConfig pad1e9 = pad0;
    pad1e9.mask_fill = MaskFill::NegBillion, pad1e9.scale = true;
    out.push_back({"padding_4_0_1e9", pad1e9});
    AttentionConfig cross = config(8, 2, 3, 2);
    cross.cross = true, cross.kv_len = 5, cross.mask = MaskKind::None, cross.pe = false;
    out.push_back({"cross_nomask_nope", cross});
    AttentionConfig custom = config(12, 3, 4, 1);
    custom.mask = MaskKind::Custom, custom.custom_keep = {1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1};
    custom.bias = false;
    out.push_back({"custom_fully_masked_row", custom});
    AttentionConfig one = config(6, 1, 5, 1);
    one.mask_fill = MaskFill::NegBillion;
    out.push_back({"one_head_1e9", one});
    out.push_back({"wide_d512_h8_L3", config(512, 8, 3, 1)});
    return out;
}

std::string interop_dir() { return std::string(LAB_FIXTURE_DIR) + "/../interop/"; }

std::string read_text(const std::string& path) {
    std::string text;
    std::FILE* f = std::fopen(path.c_str(), "rb");
    REQUIRE_MESSAGE(f, "cannot open " << path);
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
    std::fclose(f);
    return text;
}

// Machine-independent: the interop fixtures' folder printed as <interop>/.
std::string portable(std::string s) {
    const std::string dir = interop_dir();
    for (size_t at; (at = s.find(dir)) != std::string::npos;) s.replace(at, dir.size(), "<interop>/");
    return s;
}

std::string cli_transcript(const std::vector<std::string>& args) {
    const CliRun r = run(args);
    std::string cmd = "$ attnlab";
    for (const std::string& a : args) cmd += " " + portable(a);
    return cmd + "\nexit " + std::to_string(r.code) + "\n--- stdout\n" + portable(r.out) + "--- stderr\n" +
           portable(r.err) + "\n";
}

std::vector<std::string> split_args(const std::string& line) {
    std::vector<std::string> out;
    std::string word;
    for (char ch : line + " ") {
        if (ch != ' ') {
            word += ch;
        } else if (!word.empty()) {
            out.push_back(word == "@" ? std::string() : word);
            word.clear();
        }
    }
    return out;
}

}  // namespace

TEST_CASE("golden: attnlab tables, messages and exit codes") {
    const std::string io = interop_dir();
    const char* lines[] = {
        "trace",
        "trace --mask padding:4,2",
        "trace --mask padding:4,0 --mask-fill 1e9",
        "trace --mask padding:3,0",
        "trace --cross --seq-len 3 --kv-len 6 --heads 1 --mask none",
        "trace --d-model 512 --heads 8 --seq-len 10",
        "trace --d-model 12 --heads 3 --seq-len 5 --mask custom:10000/11000/10100/11110/11111 --no-bias --no-pe --no-scale",
        "trace --d-model 7 --heads 7 --seq-len 9 --batch 3 --seed 123",
        "trace --mask custom:1000/0000/1110/1111 --no-scale",
        "trace --d-model 10 --heads 3",
        "trace --seq-len ten",
        "trace --batch 0",
        "trace --heads",
        "trace --frobnicate",
        "trance",
        "",
        "help",
        "trace --mask diagonal",
        "trace --mask padding:4,x",
        "trace --mask padding:4",
        "trace --mask custom:10/11",
        "trace --kv-len 6",
        "trace --mask-fill nan --format yaml",
        "trace --d-model 8192",
        "trace --d-model 4096 --heads 64 --seq-len 4096 --batch 256",
        "trace --seed 1e3 --seed -1",
        "trace @",
        "export-script --mask bogus",
    };
    std::string all;
    for (const char* line : lines) all += cli_transcript(split_args(line));
    for (const char* file : {"paper_base.json", "paper_base.toml", "wrong_types.json", "truncated.toml",
                             "cross_padding.toml", "custom_mask.json", "no_attention.toml", "missing.json"})
        all += cli_transcript({"trace", "--config", io + file});
    all += cli_transcript({"trace", "--config", io + "paper_base.toml", "--mask", "none", "--seq-len", "3"});
    all += cli_transcript({"trace", "--mask", "custom:10/01", "--config", io + "partial.json"});
    golden::check_text("cli_transcripts.txt", all);
}

TEST_CASE("golden: attnlab trace --format json") {
    for (const char* line : {"trace --format json", "trace --format json --mask padding:4,0 --no-scale",
                             "trace --format json --cross --seq-len 3 --kv-len 5 --mask none --no-pe",
                             "trace --format json --d-model 12 --heads 3 --seq-len 4 --mask custom:1000/0000/1110/1111 --mask-fill 1e9"}) {
        const CliRun r = run(split_args(line));
        CAPTURE(line);
        REQUIRE(r.code == 0);
        std::string name = line;
        std::replace(name.begin(), name.end(), ' ', '_');
        name.erase(std::remove(name.begin(), name.end(), '-'), name.end());
        name.erase(std::remove(name.begin(), name.end(), ':'), name.end());
        name.erase(std::remove(name.begin(), name.end(), '/'), name.end());
        name.erase(std::remove(name.begin(), name.end(), ','), name.end());
        golden::check_json("cli_json/" + name + ".json", r.out);
    }
}

TEST_CASE("golden: attnlab trace --out: the files and manifest.json") {
    int n = 0;
    for (const char* line : {"trace", "trace --mask padding:4,2 --no-bias", "trace --cross --kv-len 6 --mask custom:110000/111000/111100/111110 --no-pe",
                             "trace --d-model 12 --heads 3 --mask none --mask-fill 1e9 --batch 1"}) {
        const std::string dir =
            (std::filesystem::temp_directory_path() / ("attnlab_golden_dump" + std::to_string(n))).string();
        std::filesystem::remove_all(dir);
        std::vector<std::string> args = split_args(line);
        args.push_back("--out");
        args.push_back(dir);
        const CliRun r = run(args);
        CAPTURE(line);
        REQUIRE(r.code == 0);
        std::vector<std::string> files;
        for (const auto& e : std::filesystem::directory_iterator(dir)) files.push_back(e.path().filename().string());
        std::sort(files.begin(), files.end());
        std::string listing;
        for (const std::string& f : files) listing += f + "\n";
        golden::check_text("dump" + std::to_string(n) + "/files.txt", listing);
        golden::check_json("dump" + std::to_string(n) + "/manifest.json", read_text(dir + "/manifest.json"));
        std::filesystem::remove_all(dir);
        ++n;
    }
}

TEST_CASE("golden: URL hashes: notes in both languages, and what they encode back to") {
    const std::string long_digits(60, '9');
    const std::vector<std::string> hashes = {
        "",
        "#d_model=512&heads=8&seq_len=10&batch=2&seed=42&mask=causal&fill=inf&scale=1&pe=1&bias=1&cross=0&stage=softmax&b=1&head=3&all=0",
        "d_model=16&h=4&seq_len=5&mask=padding&pad=5,3&fill=-1e9&scale=0&pe=false&bias=true&stage=mask&lang=zh-CN",
        "cross=1&kv_len=6&seq_len=3&mask=custom&custom=110000.111000.111111&exp=masks&all=1",
        "cross=0&kv_len=6",
        "mask=padding&batch=3",
        "mask=padding&pad=1,2",
        "mask=padding&pad=1,x",
        "mask=custom&custom=1x",
        "heads=x&bogus=1&mask=zzz&scale=maybe&stage=nope",
        "d_model=10&heads=3",
        "d_model=4096&heads=64&seq_len=4096&batch=256",
        "seq_len=0&batch=-2&d_model=99999&seed=NaN&fill=nan&kv_len=5000",
        "heads=2&heads=4&d_model=16&d_model=32",
        "=5&%ZZ=1&tokens=the%20cat%20sat",
        "tokens=" + std::string(70, 'x') + "%20b",
        "tokens=%E5%B0%8F%E7%8C%AB%E8%BF%BD%E7%9D%80",
        "exp=Bad-Key&lang=fr&head=9&b=7",
        "heads=" + long_digits,
        "seed=2147483647&b=1&head=1&all=true",
    };
    std::string all;
    for (const std::string& h : hashes) {
        const UrlDecode d = decode_url_state(h);
        const ViewSelection& v = d.state.view;
        all += "hash: " + h + "\n  encodes to: " + encode_url_state(d.state) + "\n  view: stage " +
               std::to_string(v.stage) + ", b " + std::to_string(v.batch_item) + ", head " + std::to_string(v.head) +
               ", all " + std::to_string(v.all_heads) + ", exp '" + v.experiment + "', lang '" + d.state.lang +
               "', tokens " + std::to_string(d.state.tokens.size()) + "\n";
        for (Lang l : kLangs) all += std::string(" notes ") + lang_name(l) + ":\n" + hash_notes_text(h, l);
    }
    golden::check_text("url_hashes.txt", all);
}

TEST_CASE("golden: configuration files: what they set and what they say, in both languages") {
    std::vector<std::pair<std::string, std::string>> files;  // name, text
    for (const auto& e : std::filesystem::directory_iterator(interop_dir())) {
        const std::string name = e.path().filename().string();
        if (name == "huge.json") continue;  // 1 MiB of text, tested on its own
        files.push_back({name, read_text(e.path().string())});
    }
    std::sort(files.begin(), files.end());
    files.push_back({"inline.json", "{\"d_model\": 512, \"h\": 8, \"num_heads\": 4, \"d_v\": 32, \"batch\": 2, \"batch_size\": 3}"});
    files.push_back({"inline2.json", "{\"d_model\": 512, \"d_k\": 48, \"seed\": 3000000000, \"mask_fill\": \"-1e8\"}"});
    files.push_back({"inline3.json", "{\"padding_lengths\": [4, \"x\"], \"custom_mask\": [\"10\", \"1\"], \"seq_len\": 2, \"cross\": 1}"});
    files.push_back({"inline4.json", "{\"mask\": \"custom\", \"custom_mask\": [[1, 0, 0, 0], [1, 1, 0, 0], [true, true, true, false], \"1111\"], \"mask_fill\": 1e9}"});
    files.push_back({"inline5.toml", "[attention]\nd_model = 99999999999999999999\n"});
    files.push_back({"inline6.toml", "[attention]\nd_model = -99999999999\nmask = \"padding\"\npadding_lengths = [1, 2, 3]\n"});
    files.push_back({"inline7.toml", "[attention]\nd_model = 16\xc3\xa9\n"});
    files.push_back({"inline8", "# sniffed\n[attention]\nnum_heads = 4\nmask_fill = \"inf\"\n[training]\nlr = 1\n"});
    files.push_back({"inline9.json", "[512, 8]"});
    files.push_back({"inline10.json", "{\"d_model\": NaN}"});
    AttentionConfig other_base = config(16, 4, 6, 3);
    other_base.mask = MaskKind::None, other_base.pe = false;
    std::string all;
    for (const auto& [name, text] : files)
        for (Lang l : kLangs) {
            all += "file " + name + " (" + lang_name(l) + "):\n" + config_file_text(text, name, AttentionConfig{}, l);
            if (l == Lang::En) all += " on another base:\n" + config_file_text(text, name, other_base, l);
        }
    golden::check_text("config_files.txt", all);
}

TEST_CASE("golden: validation messages in both languages") {
    std::vector<AttentionConfig> cs;
    cs.push_back(config(10, 3, 4, 2));
    cs.push_back(config(0, 0, 0, 0));
    cs.push_back(config(8192, 5000, 5000, 300));
    AttentionConfig kv;
    kv.kv_len = 6;
    cs.push_back(kv);
    kv.kv_len = -3;
    cs.push_back(kv);
    AttentionConfig pad;
    pad.mask = MaskKind::Padding, pad.padding_lengths = {4, 9};
    cs.push_back(pad);
    pad.padding_lengths = {1, 2, 3};
    cs.push_back(pad);
    AttentionConfig custom;
    custom.mask = MaskKind::Custom, custom.custom_keep = {1, 0, 1};
    cs.push_back(custom);
    cs.push_back(config(4096, 64, 4096, 256));
    cs.push_back(config(512, 8, 4096, 64));
    std::string all;
    for (const AttentionConfig& c : cs) {
        all += "config " + config_line(c) + "\n";
        for (Lang l : kLangs) all += validate_text(c, l);
    }
    golden::check_text("validation.txt", all);
}

TEST_CASE("golden: the stage table in both languages") {
    std::string all;
    for (int s = 0; s < kStageCount; ++s)
        for (Lang l : kLangs) all += stage_text(static_cast<StageId>(s), l);
    golden::check_text("stages.txt", all);
}

TEST_CASE("golden: the stage as text (Copy as prompt) in both languages") {
    std::string all;
    for (const auto& [name, c] : trace_configs()) {
        const Trace tr = run_trace(c);
        for (int s = 0; s < kStageCount; ++s)
            for (Lang l : kLangs)
                all += "=== " + name + " stage " + std::to_string(s) + " " + lang_name(l) + "\n" +
                       prompt_text(tr, s, c.batch - 1, c.heads - 1, l);
    }
    golden::check_text("prompt_texts.txt", all);
}

TEST_CASE("golden: the whole trace as JSON in both languages") {
    for (const auto& [name, c] : trace_configs()) {
        if (c.d_model > 64) continue;  // the wide one only adds numbers
        for (Lang l : kLangs) golden::check_json("trace_json/" + name + "_" + lang_name(l) + ".json", trace_json_text(c, l));
    }
}

TEST_CASE("golden: hover derivations in both languages") {
    std::string all;
    for (const auto& [name, c] : trace_configs()) {
        const Trace tr = run_trace(c);
        for (const Tensor& t : tr.tensors) {
            // A spread of cells: first, last and a few in between.
            const size_t n = t.size();
            for (size_t k = 0; k < 5 && k < n; ++k) {
                size_t flat = k == 4 ? n - 1 : (n * k) / 4 + k;
                if (flat >= n) flat = n - 1;
                std::vector<int> index(t.shape.size());
                for (size_t a = t.shape.size(); a-- > 0;) index[a] = static_cast<int>(flat % t.shape[a]), flat /= t.shape[a];
                std::string at;
                for (int i : index) at += " " + std::to_string(i);
                for (Lang l : kLangs)
                    all += name + " " + t.name + " [" + at + " ] " + lang_name(l) + ": " +
                           derivation_text(tr, t.name, index, l) + "\n";
            }
        }
        all += name + " unknown tensor: '" + derivation_text(tr, "nope", {0}, Lang::En) + "'\n";
    }
    golden::check_text("derivations.txt", all);
}

TEST_CASE("golden: the experiments' texts and numbers in both languages") {
    std::string all;
    AttentionConfig wide = config(512, 8, 10, 2);
    AttentionConfig h1 = config(8, 1, 4, 2);
    h1.mask_fill = MaskFill::NegBillion;
    AttentionConfig dk128 = config(1024, 8, 3, 1);
    AttentionConfig kt = config(8, 2, 5, 1);  // L_kv = 5 != d_k = 4
    AttentionConfig cross = config(8, 2, 3, 2);
    cross.cross = true, cross.kv_len = 5;
    const std::vector<std::pair<std::string, AttentionConfig>> cs = {
        {"default", AttentionConfig{}}, {"wide", wide}, {"h1_1e9", h1}, {"dk128", dk128}, {"kt", kt}, {"cross", cross}};
    for (const auto& [name, c] : cs)
        for (Lang l : kLangs) all += "=== mistakes " + name + " " + lang_name(l) + "\n" + mistakes_text(c, l);
    for (const auto& [name, c] : cs)
        for (Lang l : kLangs) {
            all += "=== masks " + name + " " + lang_name(l) + "\n" + masks_text(c, l);
            all += "=== encdec " + name + " " + lang_name(l) + "\n" + encdec_text(c, l);
        }
    golden::check_text("experiments.txt", all);
}

TEST_CASE("golden: the PyTorch script") {
    int n = 0;
    for (const auto& [name, c] : trace_configs()) {
        if (c.d_model > 64) continue;
        golden::check_text("pytorch/" + name + ".py.txt", pytorch_script(run_trace(c)));  // data, not code to run
        ++n;
    }
    CHECK(n >= 5);
}

TEST_CASE("golden texts: numbers to the portable digits, words byte for byte") {
    using golden::text_difference;
    const size_t same = std::string::npos;
    CHECK(text_difference("w = 0.576353788, max |sum - 1| = 6.5e-08", "w = 0.576353729, max |sum - 1| = 8.2e-08") == same);
    CHECK(text_difference("32 NaN values", "32 NaN values") == same);
    CHECK(text_difference("32 NaN values", "31 NaN values") == 0);          // a count
    CHECK(text_difference("sum 27.0378", "sum 27.0379") == same);           // the last digit rounded the other way
    CHECK(text_difference("w = 0.5763", "w = 0.5765") == 4);                // two units of the last digit
    CHECK(text_difference("var = 127.589", "var = 127.591") == 6);          // 1.6e-5 relative
    CHECK(text_difference("differs by 5.4e-05%", "differs by 1.1e-05%") == same);  // a residue of rounding
    CHECK(text_difference("differs by 0.5%", "differs by 0.7%") == 11);
    CHECK(text_difference("all values finite", "all values fine") != same);  // a word
    CHECK(text_difference("x86-64 ok", "x86-64 ok!") != same);               // a longer text
    CHECK(text_difference("w_q2 = 1", "w_q3 = 1") == 3);                    // digits inside a name are text
    CHECK(text_difference("-1e9", "-1000000000") == same);                  // the same number written otherwise
    CHECK(golden::json_difference(nlohmann::json::parse(R"({"d": "max 6e-08", "v": 0.25})"),
                                  nlohmann::json::parse(R"({"d": "max 7e-08", "v": 0.2500001})"), "$") == "");
    CHECK(golden::json_difference(nlohmann::json::parse(R"({"v": 0.25})"), nlohmann::json::parse(R"({"v": 0.2501})"), "$") != "");
}

#endif  // __EMSCRIPTEN__
