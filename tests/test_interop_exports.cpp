// test_interop_exports.cpp — CSV / JSON exports read back exactly, file names, the
// PyTorch script's content, the stage prompt text and `attnlab export-script`.
// (The scripts themselves are run with PyTorch by tests/torch/check_exported_scripts.sh.)
#include <doctest/doctest.h>

#include "cli_run.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/cli.h"
#include "explain/derivation.h"
#include "interop/exports.h"
#include "interop/json_export.h"
#include "interop/npy.h"

#include "text.h"

using namespace lab;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Same float, bit for bit, or both NaN.
bool same(float a, float b) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    return std::memcmp(&a, &b, sizeof a) == 0;
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    size_t start = 0;
    while (true) {
        const size_t at = s.find(sep, start);
        out.push_back(s.substr(start, at == std::string::npos ? std::string::npos : at - start));
        if (at == std::string::npos) return out;
        start = at + 1;
    }
}

// Every number of a nested JSON array, in C order; null -> NaN.
void flatten(const nlohmann::json& j, std::vector<float>* out) {
    if (j.is_array()) {
        for (const auto& item : j) flatten(item, out);
    } else if (j.is_null()) {
        out->push_back(std::nanf(""));
    } else {
        out->push_back(static_cast<float>(j.get<double>()));
    }
}

AttentionConfig padding_config() {  // item 1 has no valid key: NaN weights, -inf scores
    AttentionConfig c;
    c.mask = MaskKind::Padding, c.padding_lengths = {4, 0};
    return c;
}

using Run = CliRun;

}  // namespace

TEST_CASE("tensor_csv: a named header and values that read back bit for bit") {
    const Trace tr = run_trace(padding_config());
    const Tensor& w = tr[TensorId::Weights];
    const std::string csv = tensor_csv(w);
    const std::vector<std::string> lines = split(csv, '\n');
    REQUIRE(lines.size() == 2 + 16 + 1);  // comment, header, B*h*L_q rows, "" after the last newline
    CHECK(lines[0] == "# weights (B=2, h=2, L_q=4, L_kv=4)");
    CHECK(lines[1] == "B,h,L_q,L_kv[0],L_kv[1],L_kv[2],L_kv[3]");
    CHECK(lines[2].rfind("0,0,0,", 0) == 0);
    CHECK(lines[17].rfind("1,1,3,", 0) == 0);
    CHECK(has(csv, "nan"));  // the fully masked item

    // Every tensor of the trace (1-D to 4-D, -inf and NaN included) round-trips.
    for (const Tensor& t : tr.tensors) {
        CAPTURE(t.name);
        const std::vector<std::string> rows = split(tensor_csv(t), '\n');
        const size_t lead = t.shape.size() - 1;
        std::vector<float> values;
        for (size_t r = 2; r < rows.size(); ++r) {
            if (rows[r].empty()) continue;
            const std::vector<std::string> cells = split(rows[r], ',');
            REQUIRE(cells.size() == lead + static_cast<size_t>(t.shape.back()));
            for (size_t k = lead; k < cells.size(); ++k) values.push_back(std::strtof(cells[k].c_str(), nullptr));
        }
        REQUIRE(values.size() == t.data.size());
        bool all_same = true;
        for (size_t k = 0; k < values.size(); ++k) all_same &= same(values[k], t.data[k]);
        CHECK(all_same);
    }
    CHECK(tensor_csv(tr[TensorId::BQ]).find("\nd_model[0],d_model[1],") != std::string::npos);
}

TEST_CASE("tensor_json and trace_json: valid JSON (null for NaN and -inf), values exact") {
    const Trace tr = run_trace(padding_config());
    for (TensorId name : {TensorId::Masked, TensorId::Weights, TensorId::Output, TensorId::BO, TensorId::Mask}) {
        const Tensor& t = tr[name];
        CAPTURE(t.name);
        const std::string text = tensor_json(t);
        CHECK_FALSE(has(text, "nan"));
        CHECK_FALSE(has(text, "inf"));
        const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
        REQUIRE_FALSE(j.is_discarded());
        CHECK(j["name"] == t.name);
        CHECK(j["shape"].get<std::vector<int>>() == t.shape);
        CHECK(j["dims"].get<std::vector<std::string>>() == t.dims);
        CHECK(j["data"].size() == static_cast<size_t>(t.shape[0]));
        std::vector<float> values;
        flatten(j["data"], &values);
        REQUIRE(values.size() == t.data.size());
        bool all_same = true;
        for (size_t k = 0; k < values.size(); ++k)
            all_same &= std::isfinite(t.data[k]) ? same(values[k], t.data[k]) : std::isnan(values[k]);
        CHECK(all_same);
    }
    const std::string whole = trace_json(tr, Lang::En);
    const nlohmann::json j = nlohmann::json::parse(whole, nullptr, false);
    REQUIRE_FALSE(j.is_discarded());
    CHECK(j["config"]["mask"] == "padding");
    CHECK(j["stages"].size() == static_cast<size_t>(kStageCount));
    CHECK(j["tensors"].size() == tr.tensors.size());
    CHECK(j["tensors"][0]["name"] == "x");
    CHECK(j["fully_masked_rows"].get<int>() == tr.fully_masked_rows);
}

TEST_CASE("export_file_name puts the configuration in the name") {
    AttentionConfig paper;
    paper.d_model = 512, paper.heads = 8, paper.seq_len = 10;
    CHECK(export_file_name(paper, "weights", "csv") == "attn_d512_h8_L10_B2_causal_s42_weights.csv");
    CHECK(export_file_name(paper, "weights", ".npy") == "attn_d512_h8_L10_B2_causal_s42_weights.npy");
    AttentionConfig c;
    c.cross = true, c.seq_len = 3, c.kv_len = 6, c.mask = MaskKind::Padding, c.mask_fill = MaskFill::NegBillion;
    c.scale = false, c.pe = false, c.bias = false, c.seed = 7;
    CHECK(export_file_name(c, "pytorch", "py") == "attn_d8_h2_L3x6_B2_padding1e9_cross_noscale_nope_nobias_s7_pytorch.py");
    CHECK(export_file_name(AttentionConfig{}, "q heads/1", "json") == "attn_d8_h2_L4_B2_causal_s42_q_heads_1.json");
    CHECK(export_file_name(AttentionConfig{}, "trace", "") == "attn_d8_h2_L4_B2_causal_s42_trace");
}

TEST_CASE("pytorch_script embeds the exact numbers and runs PyTorch's MHA") {
    const Trace tr = run_trace(AttentionConfig{});
    const std::string py = pytorch_script(tr);
    CHECK(py.rfind("#!/usr/bin/env python3\n# Attention Lab -> PyTorch", 0) == 0);
    CHECK(has(py, "#   d_model=8  h=2  d_k=d_v=4  B=2  L_q=4  L_kv=4  seed=42\n"));
    CHECK(has(py, "#   mask=causal  fill=-inf  scale=on  pe=on  bias=on  self-attention\n"));
    CHECK(has(py, "output, weights = F.multi_head_attention_forward("));
    CHECK(has(py, "need_weights=True"));
    CHECK(has(py, "average_attn_weights=False"));
    CHECK(has(py, "use_separate_proj_weight=True, q_proj_weight=w_q.T"));
    CHECK(has(py, "keep = torch.tril(torch.ones(L_q, L_kv))"));
    CHECK(has(py, "attn_mask = keep == 0"));
    CHECK(has(py, "print(\"q:\", q.shape"));
    CHECK(has(py, "print(\"q_heads:\", q_heads.shape"));
    CHECK(has(py, "tol = (4.0 * d_model + 16) * 2.0 ** -24"));
    CHECK(has(py, "torch.allclose(got, lab, atol=tol * scale, rtol=tol, equal_nan=True)"));
    CHECK(has(py, "ok_weights = agrees(weights, lab_weights)"));
    CHECK(has(py, "ok_output = agrees(output, lab_output)"));
    CHECK(has(py, "print(\"PyTorch agrees with Attention Lab: max |diff| weights=%.3g, output=%.3g\""));
    CHECK(has(py, "sys.exit(1)"));
    CHECK(has(py, "memory = x  # self-attention"));

    // Inputs, weights and biases come from the seed: regenerated, checked by CRC-32.
    CHECK(has(py, "x = normal_tensor(stream_seed(seed, \"x\"), B, L_q, d_model)\n"));
    CHECK(has(py, "w_q = uniform_tensor(stream_seed(seed, \"w_q\"), w_bound, d_model, d_model)\n"));
    CHECK(has(py, "b_o = uniform_tensor(stream_seed(seed, \"b_o\"), b_bound, d_model)\n"));
    CHECK(has(py, "same_as_lab(\"query_in\", query_in, 0x"));
    CHECK_FALSE(has(py, "w_q = tensor(["));
}

TEST_CASE("pytorch_script writes out what the seed does not give, bit for bit") {
    AttentionConfig c;
    const AttentionInputs in = make_inputs(c, {"the", "cat", "sat", "down"});  // typed tokens: their own rows
    AttentionWeights w = make_weights(c);
    w.w_q.data[3] += 0.25f;  // e.g. trained weights
    const Trace tr = run_trace(c, in, w);
    const std::string py = pytorch_script(tr);
    CHECK(has(py, "query_in = tensor([\n"));
    CHECK_FALSE(has(py, "x = normal_tensor("));
    CHECK(has(py, "b_q = uniform_tensor("));  // the biases still come from the seed
    // The literal list of w_q reads back as the lab's float32 values, bit for bit.
    const size_t begin = py.find("w_q = tensor([\n");
    REQUIRE(begin != std::string::npos);
    const size_t end = py.find("], d_model, d_model)", begin);
    REQUIRE(end != std::string::npos);
    std::string body = py.substr(begin + 15, end - begin - 15);
    for (char& ch : body) if (ch == '\n' || ch == ' ') ch = ',';
    std::vector<float> values;
    for (const std::string& cell : split(body, ','))
        if (!cell.empty()) values.push_back(std::strtof(cell.c_str(), nullptr));
    const Tensor& w_q = tr[TensorId::WQ];
    REQUIRE(values.size() == w_q.data.size());
    bool all_same = true;
    for (size_t k = 0; k < values.size(); ++k) all_same &= same(values[k], w_q.data[k]);
    CHECK(all_same);
}

TEST_CASE("the exported script at Paper base stays under 1 MB") {
    AttentionConfig c;
    c.d_model = 512, c.heads = 8, c.seq_len = 10;
    const std::string py = pytorch_script(run_trace(c));
    MESSAGE("Paper base script: " << py.size() << " bytes");
    CHECK(py.size() < 1000000);
    CHECK(has(py, "lab_output = tensor([\n"));  // the numbers it compares with are still all there
}

TEST_CASE("pytorch_script follows the mask, the fill, cross-attention and the scale switch") {
    SUBCASE("padding with -inf: key_padding_mask, NaN in the lab's weights") {
        const std::string py = pytorch_script(run_trace(padding_config()));
        CHECK(has(py, "lengths = torch.tensor([4, 0])"));
        CHECK(has(py, "key_padding_mask = torch.arange(L_kv)[None, :] >= lengths[:, None]"));
        CHECK(has(py, " nan,"));
    }
    SUBCASE("-1e9: an additive float mask per (item, head)") {
        AttentionConfig c = padding_config();
        c.mask_fill = MaskFill::NegBillion;
        const std::string py = pytorch_script(run_trace(c));
        CHECK(has(py, "masked_fill(keep.expand(B, L_q, L_kv) == 0, -1e9).repeat_interleave(h, dim=0)"));
        CHECK_FALSE(has(py, " nan,"));
    }
    SUBCASE("cross-attention regenerates the memory side") {
        AttentionConfig c;
        c.cross = true, c.seq_len = 3, c.kv_len = 6, c.mask = MaskKind::None;
        const std::string py = pytorch_script(run_trace(c));
        CHECK(has(py, "B, L_q, L_kv, d_model, h = 2, 3, 6, 8, 2\n"));
        CHECK(has(py, "memory = normal_tensor(stream_seed(seed, \"memory\"), B, L_kv, d_model)\n"));
        CHECK(has(py, "cross-attention (queries from x"));
        CHECK(has(py, "attn_mask = key_padding_mask = None  # no mask"));
    }
    SUBCASE("scale off: the explicit steps instead of MHA; bias off: zeros") {
        AttentionConfig c;
        c.scale = false, c.bias = false, c.mask = MaskKind::Custom, c.custom_keep = {1, 0, 0, 0, 1, 1, 0, 0, 1, 0, 1, 0, 1, 1, 1, 1};
        const std::string py = pytorch_script(run_trace(c));
        CHECK_FALSE(has(py, "F.multi_head_attention_forward("));
        CHECK(has(py, "masked = scores.masked_fill(keep == 0, -inf)"));
        CHECK(has(py, "    [1, 0, 1, 0],\n"));
        CHECK(has(py, "b_q = torch.zeros(d_model)  # bias off"));
        CHECK(has(py, "concat = context.transpose(1, 2).contiguous().view(B, L_q, h * d_v)"));
    }
}

TEST_CASE("stage_prompt_text: formula, PyTorch line, shapes, values and checks") {
    const Trace tr = run_trace(AttentionConfig{});
    const int scale = static_cast<int>(StageId::Scale);
    const std::string text = stage_prompt_text(tr, scale, 1, 1, Lang::En);
    CHECK(has(text, "stage 5 of 10: Scale by 1/sqrt(d_k)"));
    CHECK(has(text, "Paper formula: S' = Q K^T / sqrt(d_k)\n"));
    CHECK(has(text, "PyTorch: scores = scores / math.sqrt(d_k)\n"));
    CHECK(has(text, "Config: d_model=8, h=2, d_k=d_v=4, B=2, L_q=4, L_kv=4, mask=causal, fill=-inf, scale on"));
    CHECK(has(text, "/ sqrt(d_k)"));
    CHECK(has(text, "(B=2, h=2, L_q=4, L_kv=4)"));
    CHECK(has(text, "Values of scaled, batch item 1, head 1 (L_q=4 x L_kv=4):"));
    CHECK(has(text, format_value(tr[TensorId::Scaled].at({1, 1, 2, 1}))));
    CHECK(has(text, "Checks:\n"));
    CHECK_FALSE(has(text, "..."));  // 4x4 fits
    CHECK_FALSE(has(text, "http"));

    // The softmax stage lists its invariants; a big config is cut with "...".
    AttentionConfig big;
    big.d_model = 64, big.heads = 8, big.seq_len = 10;
    const Trace tb = run_trace(big);
    const std::string soft = stage_prompt_text(tb, static_cast<int>(StageId::Softmax), 0, 7, Lang::En);
    CHECK(has(soft, "Values of weights, batch item 0, head 7 (L_q=10 x L_kv=10), first 4 rows x 8 columns:"));
    CHECK(has(soft, "  ..."));
    CHECK(has(soft, "ok    "));
    CHECK(has(soft, en(find_check(tb.stage(StageId::Softmax), "rows_sum_to_1")->label)));
    const std::string proj = stage_prompt_text(tb, static_cast<int>(StageId::Project), 1, 0, Lang::En);
    CHECK(has(proj, "Values of q, batch item 1 (L_q=10 x d_model=64), first 4 rows x 8 columns:"));
    CHECK(stage_prompt_text(tr, -1, 0, 0, Lang::En).empty());
    CHECK(stage_prompt_text(tr, kStageCount, 0, 0, Lang::En).empty());
    CHECK_FALSE(stage_prompt_text(tr, 0, 99, 99, Lang::En).empty());  // item and head are clamped
}

TEST_CASE("attnlab export-script writes the PyTorch script") {
    const std::string path = (std::filesystem::temp_directory_path() / "attnlab_test_script.py").string();
    std::filesystem::remove(path);
    const Run r = run({"export-script", "--mask", "padding:4,2", "--seed", "3", "--out", path});
    CHECK(r.code == 0);
    CHECK(has(r.out, "wrote " + path));
    std::string text, error;
    REQUIRE(read_file(path, &text, &error));
    AttentionConfig c;
    c.mask = MaskKind::Padding, c.padding_lengths = {4, 2}, c.seed = 3;
    CHECK(text == pytorch_script(run_trace(c)));

    const Run to_stdout = run({"export-script", "--heads", "1"});
    CHECK(to_stdout.code == 0);
    CHECK(to_stdout.out.rfind("#!/usr/bin/env python3", 0) == 0);
    CHECK(has(to_stdout.out, "h=1"));

    CHECK(run({"export-script", "--heads", "3"}).code == 2);
    CHECK(run({"export-script", "--out", "/proc/attnlab-cannot-write-here.py"}).code == 1);
    CHECK(has(run({"help"}).out, "attnlab export-script"));
}

TEST_CASE("JSON text: bytes that are not UTF-8 become U+FFFD instead of stopping the writer") {
    // A garbled link's key is echoed in a note; state() must still be JSON.
    const Json j = {{"note", std::string("key '\xff", 6) + "' x"}};
    CHECK(json_text(j) == "{\"note\":\"key '\xef\xbf\xbd' x\"}");
    const nlohmann::json back = nlohmann::json::parse(json_text(j), nullptr, false);
    CHECK_FALSE(back.is_discarded());
}
