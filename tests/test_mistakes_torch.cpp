// test_mistakes_torch.cpp — the mistakes lab says what PyTorch does: every error text and
// every "runs" against tests/fixtures/mistakes/pytorch.tsv, which
// tests/torch/mistake_errors.py wrote by running the buggy lines in Debian's PyTorch 1.13,
// and the tutorials' claims the panel contradicts, measured there and here.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "teach/experiments/experiments.h"
#include "text.h"

using namespace lab;

namespace {

struct TorchLine {
    std::string key;
    int d_model, h, L_q, L_kv, B;
    std::string what;  // "runs [..]", "runs", or the error text
};

std::vector<TorchLine> torch_lines() {
    std::ifstream in(std::string(LAB_FIXTURE_DIR) + "/mistakes/pytorch.tsv");
    REQUIRE_MESSAGE(in.good(), "tests/fixtures/mistakes/pytorch.tsv (tests/torch/mistake_errors.py writes it)");
    std::vector<TorchLine> out;
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream cells(line);
        TorchLine t;
        std::string n[5];
        std::getline(cells, t.key, '\t');
        for (std::string& v : n) std::getline(cells, v, '\t');
        std::getline(cells, t.what);
        t.d_model = std::stoi(n[0]), t.h = std::stoi(n[1]), t.L_q = std::stoi(n[2]), t.L_kv = std::stoi(n[3]), t.B = std::stoi(n[4]);
        out.push_back(t);
    }
    REQUIRE(out.size() > 60);
    return out;
}

MistakeResult run(const char* key, const TorchLine& t, const MistakeOptions& options = {}) {
    AttentionConfig c;
    c.d_model = t.d_model, c.heads = t.h, c.seq_len = t.L_q, c.batch = t.B;
    if (t.L_kv != t.L_q) c.cross = true, c.kv_len = t.L_kv;
    REQUIRE(validate(c).empty());
    const MistakeSpec* m = find_mistake(key);
    REQUIRE_MESSAGE(m, key);
    return run_mistake(*m, c, options);
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A story step as mistake_errors.py writes what PyTorch did: "runs [2, 8, 5, 128]" or the error.
std::string torch_outcome(const MistakeStep& s) {
    if (!s.error.empty()) return s.error;
    std::string o = "runs [";
    for (size_t i = 0; i < s.shape.size(); ++i) o += (i ? ", " : "") + std::to_string(s.shape[i]);
    return o + "]";
}

// The torch lines "KEY:step:I" of one story, grouped by KEY and sizes, in the order PyTorch ran them.
std::map<std::string, std::vector<TorchLine>> torch_stories() {
    std::map<std::string, std::vector<TorchLine>> out;
    for (const TorchLine& t : torch_lines()) {
        const size_t at = t.key.find(":step:");
        if (at == std::string::npos) continue;
        std::vector<TorchLine>& story = out[t.key.substr(0, at) + " " + std::to_string(t.d_model) + " " + std::to_string(t.h) +
                                            " " + std::to_string(t.L_q) + " " + std::to_string(t.L_kv) + " " + std::to_string(t.B)];
        REQUIRE(std::stoul(t.key.substr(at + 6)) == story.size());
        story.push_back(t);
    }
    return out;
}

}  // namespace

TEST_CASE("every mistake raises PyTorch's exact error for these sizes, or runs where PyTorch runs") {
    int compared = 0;
    for (const TorchLine& t : torch_lines()) {
        if (t.key.find(':') != std::string::npos) continue;  // claims and measurements: below
        INFO(t.key << " d_model=" << t.d_model << " h=" << t.h << " L_q=" << t.L_q << " L_kv=" << t.L_kv << " B=" << t.B);
        const MistakeResult r = run(t.key.c_str(), t);
        const bool torch_runs = t.what.compare(0, 4, "runs") == 0;
        CHECK(r.runs == torch_runs);
        if (!torch_runs) CHECK(r.error == t.what);
        ++compared;
    }
    CHECK(compared >= 35);
}

TEST_CASE("what the lab measures agrees with PyTorch: lengths a view infers, NaN rows, the PE gap") {
    for (const TorchLine& t : torch_lines()) {
        INFO(t.key << " d_model=" << t.d_model << " h=" << t.h << " L_q=" << t.L_q << " -> " << t.what);
        if (t.key == "view_infers_length" && t.what.compare(0, 5, "runs ") == 0) {
            const MistakeResult r = run("view_infers_length", t);  // "runs [B, L', h, 128]"
            const std::string lengths = "[" + std::to_string(t.B) + ", " + std::to_string(r.weights.shape[2]) + ", " +
                                        std::to_string(t.h) + ", 128]";
            CHECK(t.what == "runs " + lengths);
        } else if (t.key == "mask_wrong_length:additive" && t.what.find("The size of tensor a") != std::string::npos) {
            CHECK(contains(en(run("mask_wrong_length", t).symptom), t.what));
        } else if (t.key == "claim:inverted_nan_rows") {
            const MistakeResult r = run("inverted_mask", t);
            CHECK(t.what == std::to_string(r.nan_rows) + " of " + std::to_string(t.B * t.h * t.L_q));
            CHECK(contains(en(r.claim), std::to_string(r.nan_rows) + " of " + std::to_string(t.B * t.h * t.L_q) + " rows are NaN"));
        } else if (t.key == "pe_exponent_twice:max_abs_diff") {
            const std::string s = en(run("pe_exponent_twice", t).symptom);
            std::smatch m;
            REQUIRE(std::regex_search(s, m, std::regex(R"(by up to (\d+\.\d+))")));
            CHECK(std::fabs(std::stod(m[1]) - std::stod(t.what)) <= 5.01e-4);
        } else if (t.key == "claim:softmax_dim1") {
            CHECK(t.what.compare(0, 4, "runs") == 0);  // no IndexError
            CHECK(run("softmax_over_heads", t).runs);
        } else if (t.key == "claim:softmax_dim4") {
            CHECK(contains(en(run("softmax_over_heads", t).claim), "\"" + t.what + "\""));
        } else if (t.key == "claim:view_same_size" || t.key == "claim:view_heads_first") {
            CHECK(t.what.compare(0, 4, "runs") == 0);  // the tutorial's "invalid for input of size" does not happen
            const MistakeResult r = run("wrong_split_view", t);
            CHECK(r.runs);
            CHECK(contains(en(r.claim), "PyTorch raises no such error"));
        }
    }
}

TEST_CASE("the tutorials' claims the panel contradicts, with PyTorch's own words") {
    std::map<std::string, std::string> said;
    for (const TorchLine& t : torch_lines()) said[t.key] = t.what;
    // Tutorial 000: d_k written as 128 raises at W_o. PyTorch runs the tutorial's class.
    CHECK(said["claim:tutorial_mha_dk_128"] == "attn [2, 8, 5, 5] output [2, 10, 512]");
    TorchLine paper{"", 512, 8, 10, 10, 2, ""};
    const MistakeResult dk = run("view_infers_length", paper);
    REQUIRE(dk.runs);
    CHECK(dk.weights.shape == std::vector<int>{2, 8, 5, 5});
    CHECK(dk.output.shape == std::vector<int>{2, 10, 512});
    CHECK(contains(en(dk.claim), "weights (2, 8, 5, 5) and an output of (2, 10, 512) without any error"));
    CHECK(dk.output_diff > 0.1);  // same shape, other numbers
    // Tutorial 001: the NaN error it quotes exists only in anomaly mode, under another name.
    CHECK(said["claim:nan_backward"] == "runs");
    const std::string anomaly = said["claim:nan_backward_anomaly"];
    REQUIRE(anomaly.compare(0, 14, "RuntimeError: ") == 0);
    CHECK(contains(en(run("inverted_mask", paper).claim), "\"" + anomaly.substr(14) + "\""));
    // Tutorial 000: a (2, 4, 512) tensor views as (2, 4, 8, 64).
    TorchLine quoted{"", 512, 8, 4, 4, 2, ""};
    CHECK(said.count("claim:view_same_size"));
    CHECK(contains(en(run("wrong_split_view", quoted).claim), "(2, 4, 512) holds 4096 = 2\xc2\xb7" "4\xc2\xb7" "8\xc2\xb7" "64"));
}

TEST_CASE("a buggy line followed on: every later line's shape, or the error it stops at, is PyTorch's") {
    int stories = 0, errors_at_w_o = 0, lengths = 0;
    for (const auto& story : torch_stories()) {  // (no structured binding: clang 14 cannot capture one in INFO)
        const std::string& name = story.first;
        const std::vector<TorchLine>& steps = story.second;
        const TorchLine& t = steps[0];
        const std::string key = t.key.substr(0, t.key.find(':'));
        MistakeOptions o;  // "mask_wrong_length:n=5:step:0": a mask built for 5 positions
        if (contains(t.key, ":n=")) o.mask_length = std::stoi(t.key.substr(t.key.find(":n=") + 3)), ++lengths;
        INFO(name);
        const MistakeResult r = run(key.c_str(), t, o);
        if (o.mask_length) CHECK(r.mask_length == o.mask_length);
        REQUIRE(r.story.size() == steps.size());
        for (size_t i = 0; i < steps.size(); ++i) {
            INFO("step " << i << ": " << r.story[i].code);
            CHECK(torch_outcome(r.story[i]) == steps[i].what);
        }
        // Where PyTorch stops on the line as written, the lab stops with the same error (branches are other spellings).
        std::string first_error;
        for (const MistakeStep& s : r.story)
            if (s.branch == 0 && !s.error.empty() && first_error.empty()) first_error = s.error;
        CHECK(r.error == first_error);
        errors_at_w_o += contains(r.story.back().error, "mat1 and mat2 shapes cannot be multiplied");
        ++stories;
    }
    CHECK(stories >= 30);
    CHECK(lengths >= 20);
    CHECK(errors_at_w_o >= 3);
}

TEST_CASE("seq_len 10 with a mask for 5: the tutorial's exact broadcast error, as PyTorch prints it") {
    const std::string tutorial = "The size of tensor a (10) must match the size of tensor b (5) at non-singleton dimension 3";
    const auto stories = torch_stories();
    const std::vector<TorchLine>& torch = stories.at("mask_wrong_length:n=5 512 8 10 10 2");
    TorchLine paper{"", 512, 8, 10, 10, 2, ""};
    // The length follows the knobs (half the keys) unless the learner sets one: both give 5 here.
    for (const MistakeOptions o : {MistakeOptions{}, MistakeOptions{5}}) {
        const MistakeResult r = run("mask_wrong_length", paper, o);
        CHECK(r.mask_length == 5);
        CHECK(render(r.buggy_line, Lang::En).find("torch.ones(5, 5)") != std::string::npos);
        REQUIRE(r.story.size() == 4);
        CHECK(r.error == torch[1].what);  // masked_fill (out of place) names the mask first: a (5), b (10)
        for (size_t i : {2, 3}) {        // in place and added: the scores first, the tutorial's text
            CHECK(r.story[i].error == torch[i].what);
            CHECK(torch[i].what == "RuntimeError: " + tutorial);
        }
        CHECK(contains(en(r.symptom), tutorial));
    }
}

TEST_CASE("GQA K/V groups copied with .repeat: the heads PyTorch sends to another group, and only they, change") {
    // PyTorch 1.13: groups (1, 2, 1, 1).repeat(1, 2, 1, 1) -> [0, 1, 0, 1]; repeat_interleave(2, dim=1) -> [0, 0, 1, 1].
    const TorchLine* line = nullptr;
    const std::vector<TorchLine> lines = torch_lines();
    for (const TorchLine& t : lines)
        if (t.key == "claim:gqa_repeat_groups") line = &t;
    REQUIRE(line);
    std::smatch m;
    REQUIRE(std::regex_match(line->what, m, std::regex(R"(repeat \[(.*)\] repeat_interleave \[(.*)\])")));
    auto numbers = [](const std::string& s) {
        static const std::regex digits(R"(\d+)");
        std::vector<int> v;
        for (std::sregex_iterator it(s.begin(), s.end(), digits), end; it != end; ++it) v.push_back(std::stoi(it->str()));
        return v;
    };
    const std::vector<int> tiled = numbers(m[1].str()), interleaved = numbers(m[2].str());
    REQUIRE(tiled.size() == 4);
    const MistakeResult r = run("gqa_wrong_order", *line);
    REQUIRE(r.runs);
    REQUIRE(r.correct.config.heads == 4);
    REQUIRE(r.correct.config.kv_heads == 2);
    const Tensor& right = r.correct[TensorId::Weights];
    const long slice = static_cast<long>(line->L_q) * line->L_kv;
    int changed = 0;
    for (int b = 0; b < line->B; ++b)
        for (int head = 0; head < 4; ++head) {
            double diff = 0;
            for (long e = 0; e < slice; ++e) {
                const long at = (static_cast<long>(b) * 4 + head) * slice + e;
                diff = std::fmax(diff, std::fabs(r.weights.data[at] - right.data[at]));
            }
            CAPTURE(head);
            if (tiled[head] == interleaved[head]) {
                CHECK(diff <= 1e-6);  // the same group: float32 sums in another order (the trace's kernels)
            } else {
                CHECK(diff > 1e-3);
                ++changed;
            }
        }
    CHECK(changed == 2 * line->B);
    CHECK(contains(render(r.symptom, Lang::En), "2 of the 4 query heads"));
    CHECK(r.output_diff > 0.01);
}
