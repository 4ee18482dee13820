// golden.h — test helper: compare an output with a committed capture in tests/golden/.
//
// The captures pin what the lab prints (CLI tables and messages, notes, prompt texts,
// PyTorch scripts, JSON exports) so a refactor cannot change them unnoticed. They pin the
// digits that are portable: builds for other vector ISAs (AVX-512, AVX2 + FMA, SSE without
// FMA, wasm SIMD) sum in other orders and differ in the last bits of a float. Text is
// compared word for word, byte for byte, with its numbers compared as numbers within
// kRelative (or kAbsolute, for rounding residues such as "max |sum - 1| = 6e-08"), or one
// rounding of their last printed digit apart (whole numbers: counts, exactly); JSON by
// value (key order free, numbers within kRelative or kJsonAbsolute, strings as texts).
//
//   LAB_UPDATE_GOLDENS=1 build/native/lab_tests -tc='golden*'   rewrites the captures
#pragma once
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace golden {

inline std::string path(const std::string& name) { return std::string(LAB_FIXTURE_DIR) + "/../golden/" + name; }

inline bool updating() {
    const char* v = std::getenv("LAB_UPDATE_GOLDENS");
    return v && *v && std::string(v) != "0";
}

inline bool read(const std::string& name, std::string* text) {
    std::ifstream in(path(name), std::ios::binary);
    if (!in) return false;
    std::ostringstream ss;
    ss << in.rdbuf();
    *text = ss.str();
    return true;
}

inline void write(const std::string& name, const std::string& text) {
    std::ofstream out(path(name), std::ios::binary);
    out << text;
    REQUIRE_MESSAGE(out.good(), "cannot write " << path(name));
}

// The line of `want` that holds position `at`, and the same line of `got`.
inline std::string line_at(const std::string& want, const std::string& got, size_t at) {
    at = std::min(at, want.size());
    const size_t line_start = at == 0 ? std::string::npos : want.rfind('\n', at - 1);
    const size_t from = line_start == std::string::npos ? 0 : line_start + 1;
    size_t line = 1;
    for (size_t k = 0; k < from; ++k) line += want[k] == '\n';
    size_t got_from = 0;
    for (size_t n = 1; n < line && got_from != std::string::npos; ++n) {
        got_from = got.find('\n', got_from);
        if (got_from != std::string::npos) ++got_from;
    }
    const std::string got_line = got_from == std::string::npos ? "(no such line)" : got.substr(got_from, 160);
    return "line " + std::to_string(line) + "\n  want: " + want.substr(from, 160) + "\n  got:  " + got_line;
}

constexpr double kRelative = 2e-6;  // a float32 result rounded in another order: a few ulps
constexpr double kAbsolute = 1e-4;  // a residue of rounding (a sum's distance from 1, an error max, a
                                    // difference "by 5.4e-05%"): no number this lab prints with a meaning
                                    // is below it, and those it prints at that scale have 4 decimals
constexpr double kJsonAbsolute = 1e-6;  // JSON numbers are tensor values too: a small weight means something

inline bool numbers_agree(double a, double b, double absolute = kAbsolute) {
    return a == b || std::fabs(a - b) <= kRelative * std::fmax(std::fabs(a), std::fabs(b)) + absolute;
}

// One unit in the last printed place of a number with a decimal point ("27.0378": 1e-4,
// "6.5e-08": 1e-09), 0 for a whole number (a count must stay exact).
inline double printed_unit(const std::string& number) {
    const size_t point = number.find('.');
    if (point == std::string::npos) return 0;
    const size_t e = number.find_first_of("eE");
    const size_t decimals = (e == std::string::npos ? number.size() : e) - point - 1;
    const int exponent = e == std::string::npos ? 0 : std::atoi(number.c_str() + e + 1);
    return std::pow(10.0, exponent - static_cast<int>(decimals));
}

// Two printed numbers: the same value to the portable digits, or one rounding of the last
// printed digit apart (27.03785 prints as 27.0378 in one build and 27.0379 in another).
inline bool printed_numbers_agree(const std::string& a, const std::string& b) {
    const double x = std::strtod(a.c_str(), nullptr), y = std::strtod(b.c_str(), nullptr);
    return numbers_agree(x, y) || std::fabs(x - y) <= std::fmax(printed_unit(a), printed_unit(b)) * (1 + 1e-9);
}

// The length of the decimal number at s[i] ("-0.5763", "6e-08", "12"), or 0.
inline size_t number_at(const std::string& s, size_t i) {
    size_t j = i;
    if (j < s.size() && (s[j] == '-' || s[j] == '+')) ++j;
    const size_t digits_from = j;
    while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
    if (j < s.size() && s[j] == '.') ++j;
    while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
    if (j == digits_from || (j == digits_from + 1 && s[digits_from] == '.')) return 0;
    if (j < s.size() && (s[j] == 'e' || s[j] == 'E')) {
        size_t k = j + 1;
        if (k < s.size() && (s[k] == '-' || s[k] == '+')) ++k;
        const size_t exp_from = k;
        while (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) ++k;
        if (k > exp_from) j = k;
    }
    return j - i;
}

// Where two texts first differ beyond the portable digits (npos: they agree).
inline size_t text_difference(const std::string& want, const std::string& got) {
    size_t i = 0, j = 0;
    while (i < want.size() && j < got.size()) {
        // A number starts at a digit, or at a sign or point before one, not inside a word ("x86").
        const bool word_before = i > 0 && (std::isalnum(static_cast<unsigned char>(want[i - 1])) || want[i - 1] == '_');
        const size_t a = word_before ? 0 : number_at(want, i), b = word_before ? 0 : number_at(got, j);
        if (a && b) {
            if (!printed_numbers_agree(want.substr(i, a), got.substr(j, b))) return i;
            i += a, j += b;
        } else if (want[i] == got[j]) {
            ++i, ++j;
        } else {
            return i;
        }
    }
    return i == want.size() && j == got.size() ? std::string::npos : i;
}

// Text, its numbers to the portable digits.
inline void check_text(const std::string& name, const std::string& got) {
    if (updating()) return write(name, got);
    std::string want;
    REQUIRE_MESSAGE(read(name, &want), "missing golden " << path(name) << " (LAB_UPDATE_GOLDENS=1 writes it)");
    const size_t at = text_difference(want, got);
    CHECK_MESSAGE(at == std::string::npos,
                  name << " differs from its golden beyond the portable digits at " << line_at(want, got, at));
}

// JSON values: same keys (any order), same array lengths, booleans equal, numbers to the
// portable digits, strings as texts (their numbers to the portable digits: a check's detail).
inline std::string json_difference(const nlohmann::json& want, const nlohmann::json& got, const std::string& at) {
    if (want.is_number() && got.is_number()) {
        if (numbers_agree(want.get<double>(), got.get<double>(), kJsonAbsolute)) return "";
        return at + ": " + want.dump() + " != " + got.dump();
    }
    if (want.is_string() && got.is_string()) {
        if (text_difference(want.get<std::string>(), got.get<std::string>()) == std::string::npos) return "";
        return at + ": " + want.dump().substr(0, 120) + " != " + got.dump().substr(0, 120);
    }
    if (want.type() != got.type()) return at + ": " + want.dump().substr(0, 80) + " != " + got.dump().substr(0, 80);
    if (want.is_object()) {
        for (auto it = want.begin(); it != want.end(); ++it) {
            if (!got.contains(it.key())) return at + "." + it.key() + ": missing";
            const std::string d = json_difference(it.value(), got[it.key()], at + "." + it.key());
            if (!d.empty()) return d;
        }
        for (auto it = got.begin(); it != got.end(); ++it)
            if (!want.contains(it.key())) return at + "." + it.key() + ": not in the golden";
        return "";
    }
    if (want.is_array()) {
        if (want.size() != got.size())
            return at + ": " + std::to_string(want.size()) + " elements != " + std::to_string(got.size());
        for (size_t i = 0; i < want.size(); ++i) {
            const std::string d = json_difference(want[i], got[i], at + "[" + std::to_string(i) + "]");
            if (!d.empty()) return d;
        }
        return "";
    }
    return want == got ? "" : at + ": " + want.dump().substr(0, 120) + " != " + got.dump().substr(0, 120);
}

inline void check_json(const std::string& name, const std::string& got_text) {
    const nlohmann::json got = nlohmann::json::parse(got_text, nullptr, false);
    REQUIRE_MESSAGE(!got.is_discarded(), name << ": not JSON: " << got_text.substr(0, 200));
    if (updating()) return write(name, got.dump(1) + "\n");
    std::string want_text;
    REQUIRE_MESSAGE(read(name, &want_text), "missing golden " << path(name) << " (LAB_UPDATE_GOLDENS=1 writes it)");
    const nlohmann::json want = nlohmann::json::parse(want_text, nullptr, false);
    REQUIRE(!want.is_discarded());
    const std::string d = json_difference(want, got, "$");
    CHECK_MESSAGE(d.empty(), name << " differs from its golden at " << d);
}

}  // namespace golden
