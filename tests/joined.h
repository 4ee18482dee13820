// joined.h — test helper: tokens as one string, e.g. joined({"小", "猫"}, "") == "小猫".
#pragma once
#include <string>
#include <vector>

inline std::string joined(const std::vector<std::string>& tokens, const char* sep) {
    std::string s;
    for (const std::string& t : tokens) s += (s.empty() ? "" : sep) + t;
    return s;
}
