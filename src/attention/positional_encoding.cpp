// positional_encoding.cpp — Attention Lab core: sinusoidal positional encoding.
#include "attention/positional_encoding.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace lab {

namespace {

void compute_table(float* out, int len, int d_model) {
    // Columns 2i and 2i+1 share one frequency: 1 / 10000^(2i/d_model).
    std::vector<double> divisor(static_cast<size_t>(d_model / 2 + 1));
    for (int col = 0; col < d_model; col += 2) divisor[col / 2] = std::pow(10000.0, static_cast<double>(col) / d_model);
    for (int pos = 0; pos < len; ++pos) {
        float* row = out + static_cast<long>(pos) * d_model;
        for (int col = 0; col < d_model; col += 2) {
            const double angle = pos / divisor[col / 2];
            row[col] = static_cast<float>(std::sin(angle));
            if (col + 1 < d_model) row[col + 1] = static_cast<float>(std::cos(angle));
        }
    }
}

}  // namespace

void sinusoidal_positional_encoding(float* out, int len, int d_model) {
    // A row depends on its position and d_model only, so the longest table computed so far
    // for this d_model serves every shorter one: a knob change at seq_len 512 would otherwise
    // spend more time in sin and cos than in the projections' products.
    thread_local std::vector<float> table;
    thread_local int table_len = 0, table_d = 0;
    if (table_d != d_model || table_len < len) {
        table.assign(static_cast<size_t>(len) * d_model, 0.0f);
        compute_table(table.data(), len, d_model);
        table_len = len, table_d = d_model;
    }
    std::copy(table.begin(), table.begin() + static_cast<long>(len) * d_model, out);
}

}  // namespace lab
