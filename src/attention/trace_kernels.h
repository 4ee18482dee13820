// trace_kernels.h — Attention Lab core: the kernels of the recorded forward pass
// (trace.cpp), on raw C-order float arrays, outputs first (llm.c style).
//
//   matmul         c (M, N) = a (M, K) · b (K, N) + bias (N) (bias may be null)
//   matmul_nt      c (M, N) = a (M, K) · b (N, K)ᵀ                       (q · kᵀ)
//   matmul_rows    c (M, N) = a (M, K) · b (K, N), row i of a zero from column a_end[i] on
//                  (weights · v: a causal or padded row's masked keys weigh exactly 0)
//   transpose      out (cols, rows) = in (rows, cols)ᵀ                     (k_heads.transpose(-2, -1))
//   divide         out (n) = in / divisor                                 (÷√d_k)
//   masked_fill    out (rows, L) = in where keep ≠ 0, else fill           (keep (rows, L) or null)
//   softmax_rows   out (rows, L) = softmax(in, dim=-1) subtracting the row max; end[i] = where
//                  row i's non-zero weights end (L when a masked key's weight is not 0)
//
// Natively, on a CPU with FMA (AVX-512 or AVX2, -march=native with LAB_NATIVE_ARCH), the
// products are a register-blocked kernel that reads b in place; without FMA (a portable
// build) they are Eigen's. Both give every value as one multiply-add per k, in k order. Eigen 3.4 has no WebAssembly packet math — its products there are
// scalar code the compiler vectorises — so the wasm build has its own blocked SIMD128
// product (about 1.6x Eigen's speed under Node). The elementwise kernels (vec.h) are the
// same code in both builds. The training engine keeps attention.h's layers: the shipped
// checkpoints pin its wasm arithmetic byte for byte.
#pragma once

namespace lab {

// How many rows of a a caller that can split its product should hand over per call: the
// native product reads b in place, so blocks of 64 rows cost nothing; the wasm product packs
// b on every call, so there one call should take every row.
#ifdef __wasm_simd128__
constexpr int kProductBlockRows = 1 << 30;
#else
constexpr int kProductBlockRows = 64;
#endif

void matmul(float* c, const float* a, const float* b, const float* bias, int M, int K, int N);
void matmul_nt(float* c, const float* a, const float* b, int M, int K, int N);
void matmul_rows(float* c, const float* a, const float* b, const int* a_end, int M, int K, int N);

void transpose(float* out, const float* in, int rows, int cols);
void divide(float* out, const float* in, long n, float divisor);
void masked_fill(float* out, const float* in, const float* keep, int rows, int L, float fill);
// kept_end[i] (or null: L): row i of `in` holds the fill from there on (masked_fill's
// output for a keep row whose last kept key is kept_end[i] - 1); it is not read again.
void softmax_rows(float* out, int* end, const float* in, const int* kept_end, int rows, int L);

}  // namespace lab
