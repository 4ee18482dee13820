// golden.h — test helper: compare an output with a committed capture in tests/golden/.
//
// The captures pin what the lab prints (CLI tables and messages, notes, prompt texts,
// PyTorch scripts, JSON exports) so a refactor cannot change them unnoticed. Text is
// compared byte for byte; JSON by value (key order free, numbers to 1e-7 relative:
// the writer may print more digits than the 9 a float needs).
//
//   LAB_UPDATE_GOLDENS=1 build/native/lab_tests -tc='golden*'   rewrites the captures
#pragma once
#include <doctest/doctest.h>

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

// Line and a few lines of context where two texts first differ.
inline std::string first_difference(const std::string& want, const std::string& got) {
    size_t i = 0;
    while (i < want.size() && i < got.size() && want[i] == got[i]) ++i;
    const size_t line_start = want.rfind('\n', i == 0 ? 0 : i - 1);
    const size_t from = line_start == std::string::npos ? 0 : line_start + 1;
    size_t line = 1;
    for (size_t k = 0; k < from; ++k) line += want[k] == '\n';
    return "line " + std::to_string(line) + "\n  want: " + want.substr(from, 160) + "\n  got:  " + got.substr(from, 160);
}

// Byte-for-byte text.
inline void check_text(const std::string& name, const std::string& got) {
    if (updating()) return write(name, got);
    std::string want;
    REQUIRE_MESSAGE(read(name, &want), "missing golden " << path(name) << " (LAB_UPDATE_GOLDENS=1 writes it)");
    CHECK_MESSAGE(want == got, name << " differs from its golden at " << first_difference(want, got));
}

// JSON values: same keys (any order), same array lengths, strings and booleans equal,
// numbers within 1e-7 relative (or 1e-12 absolute).
inline std::string json_difference(const nlohmann::json& want, const nlohmann::json& got, const std::string& at) {
    if (want.is_number() && got.is_number()) {
        const double a = want.get<double>(), b = got.get<double>();
        if (a == b || std::fabs(a - b) <= 1e-7 * std::fmax(std::fabs(a), std::fabs(b)) + 1e-12) return "";
        return at + ": " + want.dump() + " != " + got.dump();
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
