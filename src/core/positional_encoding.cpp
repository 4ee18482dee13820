// positional_encoding.cpp — Attention Lab core: sinusoidal positional encoding.
#include "positional_encoding.h"

#include <cmath>
#include <vector>

namespace lab {

void sinusoidal_positional_encoding(float* out, int len, int d_model) {
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

}  // namespace lab
