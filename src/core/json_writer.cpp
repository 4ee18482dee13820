// json_writer.cpp — Attention Lab core: JSON writer.
#include "json_writer.h"

#include <cmath>
#include <cstdio>

namespace lab {

std::string json_quote(const std::string& s) {
    std::string out = "\"";
    for (unsigned char ch : s) {
        switch (ch) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            case '\r': out += "\\r"; break;
            default:
                if (ch < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", ch);
                    out += buf;
                } else {
                    out += static_cast<char>(ch);
                }
        }
    }
    return out + "\"";
}

void JsonWriter::separate() {
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (!first_.empty()) {
        if (!first_.back()) out_ += ", ";
        first_.back() = false;
    }
}

JsonWriter& JsonWriter::begin_object() {
    separate();
    out_ += '{';
    first_.push_back(true);
    return *this;
}
JsonWriter& JsonWriter::end_object() {
    first_.pop_back();
    out_ += '}';
    return *this;
}
JsonWriter& JsonWriter::begin_array() {
    separate();
    out_ += '[';
    first_.push_back(true);
    return *this;
}
JsonWriter& JsonWriter::end_array() {
    first_.pop_back();
    out_ += ']';
    return *this;
}
JsonWriter& JsonWriter::key(const std::string& k) {
    separate();
    out_ += json_quote(k) + ": ";
    after_key_ = true;
    return *this;
}
JsonWriter& JsonWriter::value(const std::string& s) {
    separate();
    out_ += json_quote(s);
    return *this;
}
JsonWriter& JsonWriter::value(double d) {
    separate();
    if (!std::isfinite(d)) {
        out_ += "null";
        return *this;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", d);
    out_ += buf;
    return *this;
}
JsonWriter& JsonWriter::value(int i) { return raw(std::to_string(i)); }
JsonWriter& JsonWriter::value(long i) { return raw(std::to_string(i)); }
JsonWriter& JsonWriter::value(unsigned u) { return raw(std::to_string(u)); }
JsonWriter& JsonWriter::value(bool b) { return raw(b ? "true" : "false"); }
JsonWriter& JsonWriter::null() { return raw("null"); }
JsonWriter& JsonWriter::values(const std::vector<int>& v) {
    begin_array();
    for (int x : v) value(x);
    return end_array();
}
JsonWriter& JsonWriter::values(const std::vector<std::string>& v) {
    begin_array();
    for (const auto& x : v) value(x);
    return end_array();
}
JsonWriter& JsonWriter::raw(const std::string& json) {
    separate();
    out_ += json;
    return *this;
}

}  // namespace lab
