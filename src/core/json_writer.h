// json_writer.h — Attention Lab core: a minimal streaming JSON writer (std only),
// used by the dump manifest, `attnlab trace --format json` and the page's state().
#pragma once
#include <string>
#include <vector>

namespace lab {

class JsonWriter {
public:
    JsonWriter& begin_object();
    JsonWriter& end_object();
    JsonWriter& begin_array();
    JsonWriter& end_array();
    JsonWriter& key(const std::string& k);
    JsonWriter& value(const std::string& s);
    JsonWriter& value(const char* s) { return value(std::string(s)); }
    JsonWriter& value(double d);  // NaN and inf become null (JSON has neither)
    JsonWriter& value(int i);
    JsonWriter& value(long i);
    JsonWriter& value(unsigned u);
    JsonWriter& value(bool b);
    JsonWriter& null();
    JsonWriter& values(const std::vector<int>& v);
    JsonWriter& values(const std::vector<std::string>& v);
    // Pre-rendered JSON, e.g. a nested object from another writer.
    JsonWriter& raw(const std::string& json);

    const std::string& str() const { return out_; }

private:
    void separate();
    std::string out_;
    std::vector<bool> first_;  // per open container: no element written yet
    bool after_key_ = false;
};

std::string json_quote(const std::string& s);

}  // namespace lab
