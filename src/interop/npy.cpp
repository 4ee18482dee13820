// npy.cpp — Attention Lab interop: .npy encode/decode.
//
// Header: "\x93NUMPY", version 1.0, little-endian u16 header length, then a Python
// dict literal padded with spaces to a multiple of 64 bytes and ended by '\n'.
#include "interop/npy.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>

namespace lab {

namespace {
bool little_endian() {
    const uint16_t one = 1;
    unsigned char first;
    std::memcpy(&first, &one, 1);
    return first == 1;
}
}  // namespace

std::string encode_npy_items(const char* descr, const std::vector<int>& shape, const void* data, size_t item_bytes) {
    std::string dict = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (";
    // A Python tuple: (4,) for one dimension, (2, 4) for more.
    for (size_t i = 0; i < shape.size(); ++i) dict += (i ? ", " : "") + std::to_string(shape[i]);
    dict += shape.size() == 1 ? ",), }" : "), }";
    const size_t preamble = 10;  // magic (6) + version (2) + header length (2)
    size_t total = preamble + dict.size() + 1;
    dict.append((64 - total % 64) % 64, ' ');
    dict += '\n';
    std::string out = "\x93NUMPY";
    out += '\x01';
    out += '\x00';
    const uint16_t len = static_cast<uint16_t>(dict.size());
    out += static_cast<char>(len & 0xff);
    out += static_cast<char>(len >> 8);
    out += dict;
    const size_t at = out.size(), count = element_count(shape);
    out.resize(at + count * item_bytes);
    if (count == 0) return out;  // no data (an empty loss curve): memcpy may not be given a null pointer
    if (little_endian()) {
        std::memcpy(&out[at], data, count * item_bytes);
    } else {
        const unsigned char* in = static_cast<const unsigned char*>(data);
        for (size_t i = 0; i < count; ++i)
            for (size_t b = 0; b < item_bytes; ++b) out[at + i * item_bytes + b] = static_cast<char>(in[i * item_bytes + item_bytes - 1 - b]);
    }
    return out;
}

std::string encode_npy(const Tensor& t) { return encode_npy_items("<f4", t.shape, t.data.data(), 4); }

bool decode_npy(const std::string& bytes, Tensor* out, std::string* error) {
    auto fail = [&](const std::string& why) {
        if (error) *error = why;
        return false;
    };
    if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) return fail("not a .npy file (bad magic)");
    const unsigned major = static_cast<unsigned char>(bytes[6]);
    size_t header_len, header_at;
    if (major == 1) {
        header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<unsigned char>(bytes[9]) << 8);
        header_at = 10;
    } else if (major == 2 || major == 3) {
        if (bytes.size() < 12) return fail("truncated .npy header");
        header_len = 0;
        for (int b = 3; b >= 0; --b) header_len = (header_len << 8) | static_cast<unsigned char>(bytes[8 + b]);
        header_at = 12;
    } else {
        return fail("unsupported .npy version " + std::to_string(major));
    }
    if (header_at + header_len > bytes.size()) return fail("truncated .npy header");
    const std::string header = bytes.substr(header_at, header_len);
    auto value_of = [&](const std::string& key) -> std::string {
        const size_t k = header.find("'" + key + "'");
        if (k == std::string::npos) return "";
        size_t v = header.find(':', k);
        if (v == std::string::npos) return "";
        ++v;
        while (v < header.size() && header[v] == ' ') ++v;
        const char open = header[v];
        const char close = open == '\'' ? '\'' : open == '(' ? ')' : ',';
        const size_t end = header.find(close, v + 1);
        if (end == std::string::npos) return "";
        return header.substr(v, end - v + (close == ',' ? 0 : 1));
    };
    const std::string descr = value_of("descr");
    if (descr != "'<f4'") return fail("expected dtype '<f4', got " + (descr.empty() ? "nothing" : descr));
    if (value_of("fortran_order").find("False") == std::string::npos) return fail("expected C order (fortran_order False)");
    std::string shape_text = value_of("shape");
    if (shape_text.size() < 2) return fail("missing shape");
    std::vector<int> shape;
    std::istringstream is(shape_text.substr(1, shape_text.size() - 2));
    std::string item;
    while (std::getline(is, item, ',')) {
        if (item.find_first_not_of(' ') == std::string::npos) continue;
        char* end = nullptr;
        const long n = std::strtol(item.c_str(), &end, 10);
        if (n < 0 || n > (1L << 30)) return fail("bad dimension '" + item + "'");
        shape.push_back(static_cast<int>(n));
    }
    const size_t count = element_count(shape);
    const size_t data_at = header_at + header_len;
    if (bytes.size() - data_at != count * 4)
        return fail("data has " + std::to_string(bytes.size() - data_at) + " bytes, shape needs " + std::to_string(count * 4));
    out->shape = shape;
    out->dims.assign(shape.size(), "");
    out->data.resize(count);
    for (size_t i = 0; i < count; ++i) {
        uint32_t u = 0;
        for (int b = 3; b >= 0; --b) u = (u << 8) | static_cast<unsigned char>(bytes[data_at + i * 4 + b]);
        std::memcpy(&out->data[i], &u, 4);
    }
    return true;
}

bool write_file(const std::string& path, const std::string& bytes, std::string* error) {
    std::ofstream f(path, std::ios::binary);
    if (f) f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!f) {
        if (error) *error = "cannot write " + path;
        return false;
    }
    return true;
}

bool read_file(const std::string& path, std::string* bytes, std::string* error, size_t max_bytes) {
    std::ifstream f(path, std::ios::binary);
    if (!f) {
        if (error) *error = "cannot open " + path;
        return false;
    }
    if (max_bytes == 0) {
        std::ostringstream ss;
        ss << f.rdbuf();
        *bytes = ss.str();
        return true;
    }
    bytes->assign(max_bytes + 1, '\0');
    f.read(&(*bytes)[0], static_cast<std::streamsize>(max_bytes + 1));
    bytes->resize(static_cast<size_t>(f.gcount()));
    if (bytes->size() > max_bytes) {
        if (error) *error = path + " is larger than the limit of " + std::to_string(max_bytes) + " bytes; not read";
        bytes->clear();
        return false;
    }
    return true;
}

}  // namespace lab
