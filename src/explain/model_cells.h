// model_cells.h — Attention Lab core (internal): what the hover derivations of a model
// trace share — a cell's flat offset, a tensor's rows and columns seen as (rows, n) with
// n its last axis, and the linear layers of the views (out = in · w + b).
#pragma once
#include <string>
#include <vector>

#include "trace/trace.h"

namespace lab::cells {

inline size_t flat_of(const Tensor& t, const std::vector<int>& idx) {
    size_t off = 0;
    for (size_t i = 0; i < idx.size(); ++i) off = off * t.shape[i] + idx[i];
    return off;
}

inline const float* row_of(const Tensor& t, size_t row) { return t.ptr() + row * static_cast<size_t>(t.shape.back()); }

inline std::vector<float> column_of(const Tensor& t, int col) {
    const size_t n = static_cast<size_t>(t.shape.back());
    std::vector<float> out(t.size() / n);
    for (size_t r = 0; r < out.size(); ++r) out[r] = t.data[r * n + col];
    return out;
}

// "name[0, 3, 5]"
inline std::string cell_text(const std::string& name, const std::vector<int>& idx) {
    std::string s = name + "[";
    for (size_t i = 0; i < idx.size(); ++i) s += (i ? ", " : "") + std::to_string(idx[i]);
    return s + "]";
}

struct LinearRow {
    TensorId in, w, b, out;
};
inline const LinearRow kLinears[] = {
    {TensorId::QueryIn, TensorId::WQ, TensorId::BQ, TensorId::Q},
    {TensorId::KeyValueIn, TensorId::WK, TensorId::BK, TensorId::K},
    {TensorId::KeyValueIn, TensorId::WV, TensorId::BV, TensorId::V},
    {TensorId::Concat, TensorId::WO, TensorId::BO, TensorId::Output},
    {TensorId::FfnIn, TensorId::W1, TensorId::B1, TensorId::FfnHidden},
    {TensorId::FfnRelu, TensorId::W2, TensorId::B2, TensorId::FfnOut},
    {TensorId::Top, TensorId::WGen, TensorId::BGen, TensorId::Logits}};

// The linear of the views that writes `out` (null for another tensor).
inline const LinearRow* linear_writing(TensorId out) {
    for (const LinearRow& l : kLinears)
        if (l.out == out) return &l;
    return nullptr;
}

}  // namespace lab::cells
