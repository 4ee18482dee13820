// test_torch_print.cpp — `attnlab trace --print` and torch_repr() print exactly what
// PyTorch 1.13 prints for the same float32 values: tests/fixtures/print/torch_print.txt,
// written by tests/torch/print_fixture.py with Debian's python3-torch.
#include <doctest/doctest.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "cli/cli.h"
#include "interop/torch_print.h"

using namespace lab;

namespace {

struct PrintCase {
    std::string kind, name;      // "case" (values given) or "cli" (the lab's own run)
    std::vector<int> shape;
    std::vector<float> values;
    std::string args;            // cli: the attnlab trace arguments
    std::string repr;            // what PyTorch printed
};

std::vector<int> ints(const std::string& s) {
    std::istringstream in(s);
    std::vector<int> out;
    for (int v; in >> v;) out.push_back(v);
    return out;
}

std::vector<float> floats_from_bits(const std::string& s) {
    std::istringstream in(s);
    std::vector<float> out;
    for (std::string hex; in >> hex;) {
        const uint32_t bits = static_cast<uint32_t>(std::stoul(hex, nullptr, 16));
        float f;
        std::memcpy(&f, &bits, sizeof f);
        out.push_back(f);
    }
    return out;
}

std::vector<PrintCase> cases() {
    std::ifstream in(std::string(LAB_FIXTURE_DIR) + "/print/torch_print.txt");
    REQUIRE_MESSAGE(in.good(), "tests/fixtures/print/torch_print.txt (tests/torch/print_fixture.py writes it)");
    std::vector<PrintCase> out;
    PrintCase c;
    bool in_repr = false;
    for (std::string line; std::getline(in, line);) {
        if (in_repr && line == "end") out.push_back(c), c = PrintCase(), in_repr = false;
        else if (in_repr) c.repr += (c.repr.empty() ? "" : "\n") + line;
        else if (line.rfind("case ", 0) == 0 || line.rfind("cli ", 0) == 0) c.kind = line.substr(0, line.find(' ')), c.name = line.substr(line.find(' ') + 1);
        else if (line.rfind("shape", 0) == 0) c.shape = ints(line.substr(5));
        else if (line.rfind("bits ", 0) == 0) c.values = floats_from_bits(line.substr(5));
        else if (line.rfind("args ", 0) == 0) c.args = line.substr(5);
        else if (line == "repr") in_repr = true;
    }
    REQUIRE(out.size() >= 30);
    return out;
}

// How far apart two printed numbers may be: one unit of the last digit printed, e.g.
// 1e-6 for "7.9328e-02" and 1e-4 for "0.2386".
double last_digit_unit(const std::string& number) {
    const size_t dot = number.find('.'), e = number.find_first_of("eE");
    const int exponent = e == std::string::npos ? 0 : std::stoi(number.substr(e + 1));
    const size_t end = e == std::string::npos ? number.size() : e;
    const int decimals = dot == std::string::npos ? 0 : static_cast<int>(end - dot - 1);
    return std::pow(10.0, exponent - decimals);
}

bool starts_number(const std::string& s, size_t i) {
    const auto digit = [&](size_t k) { return k < s.size() && std::isdigit(static_cast<unsigned char>(s[k])); };
    return digit(i) || ((s[i] == '-' || s[i] == '+') && digit(i + 1));
}

// The lab's own numbers can differ in the last bit between builds (native and wasm sum in
// different orders), which may move the last printed digit, and a value that is a sum of
// 512 products cancelling to 6.7e-04 keeps only its absolute precision. PyTorch's layout
// must hold exactly (every character that is not a number, every number's width and place);
// each number must be within one unit of the last digit PyTorch printed, or within 1e-5.
bool prints_like(const std::string& got, const std::string& want, std::string& why) {
    if (got.size() != want.size()) return why = "different lengths", false;
    for (size_t i = 0; i < want.size();) {
        if (!starts_number(want, i) || !starts_number(got, i)) {
            if (got[i] != want[i]) return why = "layout differs at character " + std::to_string(i), false;
            ++i;
            continue;
        }
        char* got_end = nullptr;
        char* want_end = nullptr;
        const double a = std::strtod(got.c_str() + i, &got_end), b = std::strtod(want.c_str() + i, &want_end);
        const size_t len = static_cast<size_t>(want_end - (want.c_str() + i));
        if (got_end - (got.c_str() + i) != static_cast<std::ptrdiff_t>(len))
            return why = "number widths differ at character " + std::to_string(i), false;
        if (std::fabs(a - b) > std::fmax(1.0001 * last_digit_unit(want.substr(i, len)), 1e-5))
            return why = got.substr(i, len) + " against PyTorch's " + want.substr(i, len), false;
        i += len;
    }
    return true;
}

}  // namespace

TEST_CASE("prints_like: the layout exactly, the numbers to the last digit printed or 1e-5") {
    std::string why;
    CHECK(prints_like("tensor([[ 7.9328e-02, -1.0e+09]])", "tensor([[ 7.9327e-02, -1.0e+09]])", why));
    CHECK(prints_like("tensor([[ 6.7302e-04, -1.0e+09]])", "tensor([[ 6.7366e-04, -1.0e+09]])", why));
    CHECK_FALSE(prints_like("tensor([[ 7.9529e-02, -1.0e+09]])", "tensor([[ 7.9327e-02, -1.0e+09]])", why));
    CHECK_FALSE(prints_like("tensor([[0.2388, 0.7614]])", "tensor([[0.2386, 0.7614]])", why));
    CHECK_FALSE(prints_like("tensor([[0.2386, 0.7614]])", "tensor([[0.2386,  0.761]])", why));
    CHECK_FALSE(prints_like("tensor([0.2386, 0.7614])", "tensor([[0.2386, 0.761]])", why));
    CHECK_FALSE(prints_like("tensor([[nan, 1.]])", "tensor([[0.0, 1.]])", why));
}

TEST_CASE("torch_repr prints every branch of PyTorch's formatter exactly as PyTorch does") {
    int n = 0;
    for (const PrintCase& c : cases()) {
        if (c.kind != "case") continue;
        INFO(c.name);
        CHECK(torch_repr(c.values, c.shape) == c.repr);
        ++n;
    }
    CHECK(n >= 20);
}

TEST_CASE("attnlab trace --print TENSOR --item B --head H prints the slice as print(t[B, H]) does") {
    int n = 0;
    for (const PrintCase& c : cases()) {
        if (c.kind != "cli") continue;
        INFO(c.name << ": attnlab trace " << c.args);
        std::vector<std::string> args = {"trace"};
        std::istringstream words(c.args);
        for (std::string w; words >> w;) args.push_back(w);
        std::ostringstream out, err;
        REQUIRE(run_cli(args, out, err) == 0);
        const std::string text = out.str();
        const size_t header = text.find('\n');
        REQUIRE(header != std::string::npos);
        std::string why;
        CHECK_MESSAGE(prints_like(text.substr(header + 1), c.repr + "\n", why), why);  // after the "# what was taken" line
        ++n;
    }
    CHECK(n >= 10);
}

TEST_CASE("--print names what it took, and refuses what does not exist") {
    std::ostringstream out, err;
    REQUIRE(run_cli({"trace", "--print", "weights", "--item", "1", "--head", "1"}, out, err) == 0);
    CHECK(out.str().rfind("weights[1, 1]  # batch item 1, head 1: (L_q=4, L_kv=4) of (B=2, h=2, L_q=4, L_kv=4)\ntensor([[", 0) == 0);
    struct Bad {
        std::vector<std::string> args;
        const char* says;
    };
    for (const Bad& b : {Bad{{"trace", "--print", "attn"}, "'attn' is not a tensor of the trace; one of: x, memory, pe"},
                         Bad{{"trace", "--no-pe", "--print", "pe"}, "the trace has no pe: positional encoding is off"},
                         Bad{{"trace", "--print", "weights", "--item", "2"}, "--item 2: the batch has 2 items (0..1)"},
                         Bad{{"trace", "--print", "q_heads", "--head", "7"}, "--head 7: there are 2 heads (0..1)"},
                         Bad{{"trace", "--print", "weights", "--item", "x"}, "--item 'x' is not a whole number"},
                         Bad{{"trace", "--print"}, "--print needs a value"}}) {
        std::ostringstream o, e;
        INFO(b.says);
        CHECK(run_cli(b.args, o, e) == 2);
        CHECK(e.str().find(b.says) != std::string::npos);
    }
    std::ostringstream o, e;
    CHECK(run_cli({"trace", "--print", "output", "--head", "1"}, o, e) == 0);
    CHECK(e.str().find("note: output has no h dimension (B=2, L_q=4, d_model=8); --head ignored") != std::string::npos);
}
