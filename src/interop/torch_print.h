// torch_print.h — Attention Lab interop: a float32 tensor printed the way PyTorch's
// print(t) / repr(t) prints it with the default print options (precision 4, summarised
// above 1000 values with 3 edge items, lines of at most 80 characters, fixed, integer or
// scientific notation chosen from the values), so `attnlab trace --print weights` reads
// like print(attn[0, 0]) in a tutorial. tests/fixtures/print/ holds torch's own output
// of the same values (tests/torch/print_fixture.py).
#pragma once
#include <string>
#include <vector>

namespace lab {

// "tensor([[0.2500, 0.7500],\n        [1.0000, 0.0000]])" for shape {2, 2}; values row-major.
std::string torch_repr(const std::vector<float>& values, const std::vector<int>& shape);

}  // namespace lab
