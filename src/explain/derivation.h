// derivation.h — Attention Lab core: where one number of the trace came from, as a
// message for the hover tooltip (q_i·k_j with its terms for scores, the division for
// scaled, exp(s - max)/Σ for weights, which head a concat column came from, ...).
#pragma once
#include <string>
#include <vector>

#include "base/message.h"
#include "trace/trace.h"

namespace lab {

// index: one entry per dim of the tensor (full index, batch and head included).
// Empty when the trace lacks the tensor or the index is out of range.
Msg derive_cell(const Trace& trace, TensorId tensor, const std::vector<int>& index);

// "a0·b0 + a1·b1 + ..." of a dot product: every term for up to 8, else the three
// largest |terms| (they explain the sign) and the sums of the positive and negative ones.
Msg dot_terms(const float* a, const float* b, int count);

// "0.1234", "-inf", "NaN", "1.2e-08": how the lab prints one value.
std::string format_value(float v);

}  // namespace lab
