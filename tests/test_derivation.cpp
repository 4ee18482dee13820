// test_derivation.cpp — hover texts show the numbers that produced a cell.
#include <doctest/doctest.h>

#include <cmath>

#include "explain/derivation.h"
#include "trace/trace.h"

#include "text.h"

using namespace lab;

namespace {
std::string derive(const Trace& tr, TensorId t, const std::vector<int>& index) { return en(derive_cell(tr, t, index)); }
}  // namespace

namespace {
bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("derivations of the score-like tensors") {
    AttentionConfig c;  // d_k = 4: every term of q.k is listed
    const Trace tr = run_trace(c);
    const std::string score = derive(tr, TensorId::Scores, {1, 1, 2, 1});
    CHECK(contains(score, "q_2\xc2\xb7k_1 = "));
    CHECK(contains(score, format_value(tr[TensorId::Scores].at({1, 1, 2, 1}))));
    // the four products are listed: count the multiplication dots in the terms
    int dots = 0;
    for (size_t p = score.find("k_1 = ") + 6; (p = score.find("\xc2\xb7", p)) != std::string::npos; p += 2) ++dots;
    CHECK(dots == 4);
    CHECK(contains(derive(tr, TensorId::Scaled, {0, 0, 1, 0}), "/ sqrt(4)"));
    CHECK(contains(derive(tr, TensorId::Masked, {0, 0, 1, 3}), "causal mask: key 3 comes after query 1"));
    CHECK(contains(derive(tr, TensorId::Masked, {0, 0, 1, 3}), "-inf"));
    const std::string w = derive(tr, TensorId::Weights, {0, 1, 3, 2});
    CHECK(contains(w, "exp(s - max)"));
    CHECK(contains(w, "(row sum 1.0000)"));
    CHECK(contains(derive(tr, TensorId::Concat, {0, 1, 6}), "head=1"));
    CHECK(contains(derive(tr, TensorId::Output, {0, 0, 0}), "[head 1]"));
    CHECK(derive(tr, TensorId::Scores, {9, 0, 0, 0}).empty());
    TensorId nope;
    CHECK_FALSE(tensor_id("nope", &nope));
    CHECK(derive(tr, TensorId::Pe, {0, 0}).find("pe[0, 0] = ") == 0);
}

TEST_CASE("large d_k: a summary instead of 64 terms; fully masked rows explained") {
    AttentionConfig c;
    c.d_model = 512, c.heads = 8, c.seq_len = 3, c.mask = MaskKind::Padding, c.padding_lengths = {3, 0};
    const Trace tr = run_trace(c);
    const std::string s = derive(tr, TensorId::Scores, {0, 0, 0, 1});
    CHECK(contains(s, "64 terms"));
    CHECK(contains(derive(tr, TensorId::Weights, {1, 0, 0, 0}), "every key of this row is masked"));
    CHECK(contains(derive(tr, TensorId::Masked, {1, 0, 0, 2}), "padding mask"));
}

TEST_CASE("format_value") {
    CHECK(format_value(0.5f) == "0.5000");
    CHECK(format_value(-INFINITY) == "-inf");
    CHECK(format_value(NAN) == "NaN");
    CHECK(format_value(1e-9f) == "1.000e-09");
}
