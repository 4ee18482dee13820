// torch_print.cpp — Attention Lab interop: PyTorch 1.13's tensor printing
// (torch/_tensor_str.py: _Formatter, _vector_str, _tensor_str_with_formatter,
// get_summarized_data) for float32 tensors and the default options.
#include "interop/torch_print.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace lab {

namespace {

constexpr int kPrecision = 4, kEdgeItems = 3, kLineWidth = 80;
constexpr size_t kThreshold = 1000;

// One slice of the tensor: its first value's offset and its shape.
struct View {
    const std::vector<float>* values;
    size_t offset;
    std::vector<int> shape;
    size_t stride(size_t dim) const {
        size_t s = 1;
        for (size_t d = dim + 1; d < shape.size(); ++d) s *= static_cast<size_t>(shape[d]);
        return s;
    }
    View sub(int i) const { return {values, offset + i * stride(0), std::vector<int>(shape.begin() + 1, shape.end())}; }
};

// The indices of a dimension printed when summarising: all, or the first and last 3.
std::vector<int> shown(int size, bool summarize) {
    std::vector<int> idx;
    for (int i = 0; i < size; ++i)
        if (!summarize || size <= 2 * kEdgeItems || i < kEdgeItems || i >= size - kEdgeItems) idx.push_back(i);
    return idx;
}

// The values the formatter looks at: every value, or only those printed (get_summarized_data).
void summarized(const View& v, bool summarize, std::vector<double>* out) {
    if (v.shape.empty()) return out->push_back((*v.values)[v.offset]);
    for (int i : shown(v.shape[0], summarize)) summarized(v.sub(i), summarize, out);
}

std::string printf_str(const char* f, double v, int width = 0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, width, v);
    return buf;
}

// Python's format of a float: never "-nan".
std::string py_format(const char* f, double v, int width = 0) {
    if (std::isnan(v)) return std::string(std::max(0, width - 3), ' ') + "nan";
    return printf_str(f, v, width);
}

// _Formatter: one notation and one width for every value of the tensor.
struct Formatter {
    bool int_mode = true, sci_mode = false;
    int max_width = 1;

    explicit Formatter(const std::vector<double>& values) {
        std::vector<double> nz;
        for (double v : values)
            if (std::isfinite(v) && v != 0) nz.push_back(v);
        if (nz.empty()) return;
        double lo = HUGE_VAL, hi = 0;
        for (double v : nz) lo = std::min(lo, std::fabs(v)), hi = std::max(hi, std::fabs(v));
        for (double v : nz) int_mode &= v == std::ceil(v);
        sci_mode = hi / lo > 1000.0 || hi > 1.0e8 || (!int_mode && lo < 1.0e-4);
        for (double v : nz) {
            const int len = static_cast<int>(sci_mode   ? py_format("%*.4e", v).size()
                                             : int_mode ? py_format("%*.0f", v).size() + 1
                                                        : py_format("%*.4f", v).size());
            max_width = std::max(max_width, len);
        }
    }

    std::string format(double v) const {
        std::string s;
        if (sci_mode) s = py_format("%*.4e", v, max_width);
        else if (int_mode) s = (std::isinf(v) || std::isnan(v)) ? py_format("%*.0f", v) : py_format("%*.0f", v) + ".";
        else s = py_format("%*.4f", v);
        if (static_cast<int>(s.size()) < max_width) s.insert(0, max_width - s.size(), ' ');
        return s;
    }
};

std::string vector_str(const View& v, int indent, bool summarize, const Formatter& f) {
    const int element_length = f.max_width + 2;
    const int per_line = std::max(1, (kLineWidth - indent) / element_length);
    std::vector<std::string> data;
    const int n = v.shape[0];
    for (int i : shown(n, summarize)) {
        if (summarize && n > 2 * kEdgeItems && i == n - kEdgeItems) data.push_back(" ...");
        data.push_back(f.format((*v.values)[v.offset + i]));
    }
    std::string s = "[";
    for (size_t i = 0; i < data.size(); ++i) {
        if (i) s += i % per_line == 0 ? ",\n" + std::string(indent + 1, ' ') : ", ";
        s += data[i];
    }
    return s + "]";
}

std::string tensor_str(const View& v, int indent, bool summarize, const Formatter& f) {
    if (v.shape.size() == 1) return vector_str(v, indent, summarize, f);
    const int n = v.shape[0];
    const std::string sep = "," + std::string(v.shape.size() - 1, '\n') + std::string(indent + 1, ' ');
    std::string s = "[";
    bool first = true;
    for (int i : shown(n, summarize)) {
        if (!first) s += sep;
        if (summarize && n > 2 * kEdgeItems && i == n - kEdgeItems) s += "..." + sep;
        s += tensor_str(v.sub(i), indent + 1, summarize, f);
        first = false;
    }
    return s + "]";
}

}  // namespace

std::string torch_repr(const std::vector<float>& values, const std::vector<int>& shape) {
    if (values.empty()) return "tensor([])";
    const View all{&values, 0, shape};
    const bool summarize = values.size() > kThreshold;
    std::vector<double> seen;
    summarized(all, summarize, &seen);
    const Formatter f(seen);
    if (shape.empty()) return "tensor(" + f.format(values[0]) + ")";
    return "tensor(" + tensor_str(all, 7, summarize, f) + ")";
}

}  // namespace lab
