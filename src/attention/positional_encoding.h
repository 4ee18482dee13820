// positional_encoding.h — Attention Lab core: the sinusoidal positional encoding of §3.5.
#pragma once

namespace lab {

// out: (len, d_model), C order.
//   PE(pos, 2i)   = sin(pos / 10000^(2i/d_model))
//   PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model))
// An odd d_model ends on a sin column (its cos partner would be column d_model).
// Computed in double, stored as float, as PyTorch tutorials do in float64 → float32.
void sinusoidal_positional_encoding(float* out, int len, int d_model);

}  // namespace lab
