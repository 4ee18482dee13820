// tensor.cpp — Attention Lab core: Tensor helpers.
#include "base/tensor.h"

#include <cassert>

namespace lab {

size_t element_count(const std::vector<int>& shape) {
    size_t n = 1;
    for (int s : shape) n *= static_cast<size_t>(s);
    return n;
}

Tensor Tensor::zeros(std::string name, std::vector<int> shape, std::vector<std::string> dims) {
    assert(shape.size() == dims.size());
    Tensor t;
    t.name = std::move(name);
    t.data.assign(element_count(shape), 0.0f);
    t.shape = std::move(shape);
    t.dims = std::move(dims);
    return t;
}

size_t Tensor::offset(std::initializer_list<int> index) const {
    assert(index.size() == shape.size());
    size_t off = 0;
    size_t axis = 0;
    for (int i : index) off = off * static_cast<size_t>(shape[axis++]) + static_cast<size_t>(i);
    return off;
}

std::string shape_numbers(const std::vector<int>& shape) {
    std::string s;
    for (size_t i = 0; i < shape.size(); ++i) {
        if (i) s += "\u00d7";
        s += std::to_string(shape[i]);
    }
    return s;
}

std::string shape_named(const std::vector<int>& shape, const std::vector<std::string>& dims) {
    std::string s = "(";
    for (size_t i = 0; i < shape.size(); ++i) {
        if (i) s += ", ";
        s += (i < dims.size() ? dims[i] : "?") + "=" + std::to_string(shape[i]);
    }
    return s + ")";
}

}  // namespace lab
