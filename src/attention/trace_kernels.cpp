// trace_kernels.cpp — Attention Lab core: the recorded pass's kernels (trace_kernels.h).
#include "attention/trace_kernels.h"

#include <algorithm>
#include <cstring>

#include "base/vec.h"

#ifdef __wasm_simd128__
#include <wasm_simd128.h>

#include <vector>
#elif defined(__FMA__) && (defined(__AVX512F__) || defined(__AVX2__))
#include <immintrin.h>

#include <vector>
#else
#include "attention/attention.h"
#include "base/eigen_maps.h"
#endif

namespace lab {

#ifdef __wasm_simd128__

namespace {

// A blocked product in the GotoBLAS manner: b is packed kKc rows × kNc columns at a
// time into panels of 16 columns (k-major), and a micro-kernel keeps a 2 × 16 block of
// c in eight SIMD128 registers while it walks k, reading a's rows where they are.
constexpr int kMr = 2, kNr = 16, kKc = 256, kNc = 512;

struct Operand {
    const float* b;
    int ld;
    bool transposed;  // b (N, K): element (k, n) at b[n * ld + k]
};

// Packs b[k0 .. k0+kc) × [n0 .. n0+nc) into panels of kNr columns, zero-padded.
void pack_b(float* packed, const Operand& op, int k0, int kc, int n0, int nc) {
    for (int p = 0; p < nc; p += kNr) {
        const int width = std::min(kNr, nc - p);
        float* panel = packed + static_cast<long>(p) * kc;
        for (int k = 0; k < kc; ++k) {
            float* row = panel + k * kNr;
            if (op.transposed) {
                for (int j = 0; j < width; ++j) row[j] = op.b[static_cast<long>(n0 + p + j) * op.ld + k0 + k];
            } else {
                std::memcpy(row, op.b + static_cast<long>(k0 + k) * op.ld + n0 + p, sizeof(float) * width);
            }
            for (int j = width; j < kNr; ++j) row[j] = 0.0f;
        }
    }
}

// c[0..rows) × [0..width) (+)= a[0..rows) × [0..kc) · panel; rows ≤ kMr.
template <int Rows>
void micro_kernel(float* c, int ldc, const float* a, int lda, const float* panel, int kc, int width, bool accumulate) {
    v128_t acc[Rows][4];
    for (int r = 0; r < Rows; ++r)
        for (int v = 0; v < 4; ++v) acc[r][v] = wasm_f32x4_splat(0.0f);
    for (int k = 0; k < kc; ++k) {
        const float* bk = panel + k * kNr;
        const v128_t b0 = wasm_v128_load(bk), b1 = wasm_v128_load(bk + 4), b2 = wasm_v128_load(bk + 8),
                     b3 = wasm_v128_load(bk + 12);
        for (int r = 0; r < Rows; ++r) {
            const v128_t x = wasm_f32x4_splat(a[static_cast<long>(r) * lda + k]);
            acc[r][0] = wasm_f32x4_add(acc[r][0], wasm_f32x4_mul(x, b0));
            acc[r][1] = wasm_f32x4_add(acc[r][1], wasm_f32x4_mul(x, b1));
            acc[r][2] = wasm_f32x4_add(acc[r][2], wasm_f32x4_mul(x, b2));
            acc[r][3] = wasm_f32x4_add(acc[r][3], wasm_f32x4_mul(x, b3));
        }
    }
    for (int r = 0; r < Rows; ++r) {
        float block[kNr];
        for (int v = 0; v < 4; ++v) wasm_v128_store(block + 4 * v, acc[r][v]);
        float* out = c + static_cast<long>(r) * ldc;
        if (accumulate)
            for (int j = 0; j < width; ++j) out[j] += block[j];
        else
            std::memcpy(out, block, sizeof(float) * width);
    }
}

// One packed kc × nc block of b against every row of a: rows whose a_end stops
// before k0 skip it (their a is zero there); a row pair stops where both rows' a does.
void block_product(float* c, int ldc, const float* a, int lda, const float* packed, const int* a_end, int M, int k0,
                   int kc, int nc) {
    for (int m = 0; m < M; m += kMr) {
        const int rows = std::min(kMr, M - m);
        int k_stop = kc;
        if (a_end) {
            int end = a_end[m];
            if (rows > 1) end = std::max(end, a_end[m + 1]);
            k_stop = std::max(0, std::min(kc, end - k0));
            if (k_stop == 0 && k0 > 0) continue;
        }
        for (int p = 0; p < nc; p += kNr) {
            float* cm = c + static_cast<long>(m) * ldc + p;
            const float* am = a + static_cast<long>(m) * lda + k0;
            const float* panel = packed + static_cast<long>(p) * kc;
            const int width = std::min(kNr, nc - p);
            if (rows == kMr) micro_kernel<kMr>(cm, ldc, am, lda, panel, k_stop, width, k0 > 0);
            else micro_kernel<1>(cm, ldc, am, lda, panel, k_stop, width, k0 > 0);
        }
    }
}

void gemm(float* c, const float* a, const Operand& b, const int* a_end, int M, int K, int N) {
    static thread_local std::vector<float> packed;  // kept between calls; one per thread (attnlab table3 trains on threads)
    packed.resize(static_cast<size_t>(kKc) * kNc);
    for (int n0 = 0; n0 < N; n0 += kNc) {
        const int nc = std::min(kNc, N - n0);
        for (int k0 = 0; k0 < K || k0 == 0; k0 += kKc) {
            const int kc = std::min(kKc, K - k0);
            pack_b(packed.data(), b, k0, kc, n0, nc);
            block_product(c + n0, N, a, K, packed.data(), a_end, M, k0, kc, nc);
        }
    }
}

}  // namespace

void matmul(float* c, const float* a, const float* b, const float* bias, int M, int K, int N) {
    gemm(c, a, {b, N, false}, nullptr, M, K, N);
    if (!bias) return;
    for (int i = 0; i < M; ++i)  // (Σ) + b, as nn.Linear's addmm rounds it
        for (int j = 0; j < N; ++j) c[static_cast<long>(i) * N + j] += bias[j];
}

void matmul_nt(float* c, const float* a, const float* b, int M, int K, int N) { gemm(c, a, {b, K, true}, nullptr, M, K, N); }

void matmul_rows(float* c, const float* a, const float* b, const int* a_end, int M, int K, int N) {
    gemm(c, a, {b, N, false}, a_end, M, K, N);
}

#elif defined(__FMA__) && (defined(__AVX512F__) || defined(__AVX2__))

namespace {

// The native build for a CPU with FMA (AVX-512 or AVX2): b is read where it lies, a panel of
// kPanelVecs vectors of columns at a time, and a micro-kernel keeps a kRows × panel block
// of c in registers while it walks k. Eigen's product packs b first; at M = 20 rows (the
// tutorials' B2 L10) that copy of a 512 × 512 weight matrix costs as much as the product,
// and at M = 512 this kernel is still ~1.25x Eigen's speed here. Every c value is one fused
// multiply-add per k in k order, from 0, as Eigen's kernel does: the same floats.
#if defined(__AVX512F__)
typedef __m512 Lanes;
constexpr int kWidth = 16, kPanelVecs = 4;  // 6 × 4 accumulators of the 32 registers
inline Lanes load_lanes(const float* p) { return _mm512_loadu_ps(p); }
inline void store_lanes(float* p, Lanes v) { _mm512_storeu_ps(p, v); }
inline Lanes splat_lanes(float x) { return _mm512_set1_ps(x); }
inline Lanes fma_lanes(Lanes a, Lanes b, Lanes c) { return _mm512_fmadd_ps(a, b, c); }
inline Lanes add_lanes(Lanes a, Lanes b) { return _mm512_add_ps(a, b); }
// The first n (< kWidth) lanes; the others read as 0 and are not written.
inline Lanes load_first(const float* p, int n) { return _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << n) - 1), p); }
inline void store_first(float* p, Lanes v, int n) { _mm512_mask_storeu_ps(p, static_cast<__mmask16>((1u << n) - 1), v); }
#else
typedef __m256 Lanes;
constexpr int kWidth = 8, kPanelVecs = 2;  // 6 × 2 accumulators of the 16 registers
inline Lanes load_lanes(const float* p) { return _mm256_loadu_ps(p); }
inline void store_lanes(float* p, Lanes v) { _mm256_storeu_ps(p, v); }
inline Lanes splat_lanes(float x) { return _mm256_set1_ps(x); }
inline Lanes fma_lanes(Lanes a, Lanes b, Lanes c) { return _mm256_fmadd_ps(a, b, c); }
inline Lanes add_lanes(Lanes a, Lanes b) { return _mm256_add_ps(a, b); }
inline __m256i first_mask(int n) { return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)); }
inline Lanes load_first(const float* p, int n) { return _mm256_maskload_ps(p, first_mask(n)); }
inline void store_first(float* p, Lanes v, int n) { _mm256_maskstore_ps(p, first_mask(n), v); }
#endif
constexpr int kRows = 6;

struct Product {
    float* c;
    const float* a;
    const float* b;     // (K, N) row-major
    const float* bias;  // (N) or null
    const int* a_end;   // or null
    int M, K, N;
};

// c[m0 .. m0+Rows) × [n0 .. n0+Vecs·kWidth) = a · b (+ bias), over k < k_end; with
// Vecs = 1, `width` (≤ kWidth) columns: the last few of a row that no whole vector covers.
template <int Rows, int Vecs>
void micro_kernel(const Product& p, int m0, int n0, int k_end, int width) {
    Lanes acc[Rows][Vecs];
    for (int r = 0; r < Rows; ++r)
        for (int v = 0; v < Vecs; ++v) acc[r][v] = splat_lanes(0.0f);
    const float* a = p.a + static_cast<long>(m0) * p.K;
    const bool part = width < kWidth;
    for (int k = 0; k < k_end; ++k) {
        const float* bk = p.b + static_cast<long>(k) * p.N + n0;
        Lanes bv[Vecs];
        for (int v = 0; v < Vecs; ++v) bv[v] = part ? load_first(bk, width) : load_lanes(bk + v * kWidth);
        for (int r = 0; r < Rows; ++r) {
            const Lanes x = splat_lanes(a[static_cast<long>(r) * p.K + k]);
            for (int v = 0; v < Vecs; ++v) acc[r][v] = fma_lanes(x, bv[v], acc[r][v]);
        }
    }
    for (int r = 0; r < Rows; ++r)
        for (int v = 0; v < Vecs; ++v) {
            float* out = p.c + static_cast<long>(m0 + r) * p.N + n0 + v * kWidth;
            Lanes value = acc[r][v];
            if (p.bias) {
                const float* bias = p.bias + n0 + v * kWidth;
                value = add_lanes(value, part ? load_first(bias, width) : load_lanes(bias));
            }
            if (part) store_first(out, value, width);
            else store_lanes(out, value);
        }
}

template <int Vecs>
void rows_kernel(const Product& p, int m0, int rows, int n0, int k_end, int width = kWidth) {
    switch (rows) {
        case 1: return micro_kernel<1, Vecs>(p, m0, n0, k_end, width);
        case 2: return micro_kernel<2, Vecs>(p, m0, n0, k_end, width);
        case 3: return micro_kernel<3, Vecs>(p, m0, n0, k_end, width);
        case 4: return micro_kernel<4, Vecs>(p, m0, n0, k_end, width);
        case 5: return micro_kernel<5, Vecs>(p, m0, n0, k_end, width);
        default: return micro_kernel<kRows, Vecs>(p, m0, n0, k_end, width);
    }
}

// Where a block of rows stops reading a: the last of its rows' ends (rows of a are zero
// past their end, so the rows that end sooner add exact zeros).
int block_k_end(const Product& p, int m0, int rows) {
    if (!p.a_end) return p.K;
    return std::min(p.K, *std::max_element(p.a_end + m0, p.a_end + m0 + rows));
}

// Panel by panel, so a K × panel slice of b (128 KB at K = 512) stays in cache while
// every block of rows walks it.
void gemm(const Product& p) {
    constexpr int panel = kPanelVecs * kWidth;
    int n0 = 0;
    for (; n0 + panel <= p.N; n0 += panel)
        for (int m0 = 0; m0 < p.M; m0 += kRows) {
            const int rows = std::min(kRows, p.M - m0);
            rows_kernel<kPanelVecs>(p, m0, rows, n0, block_k_end(p, m0, rows));
        }
    for (; n0 + kWidth <= p.N; n0 += kWidth)
        for (int m0 = 0; m0 < p.M; m0 += kRows) {
            const int rows = std::min(kRows, p.M - m0);
            rows_kernel<1>(p, m0, rows, n0, block_k_end(p, m0, rows));
        }
    if (n0 < p.N)
        for (int m0 = 0; m0 < p.M; m0 += kRows) {
            const int rows = std::min(kRows, p.M - m0);
            rows_kernel<1>(p, m0, rows, n0, block_k_end(p, m0, rows), p.N - n0);
        }
}

}  // namespace

void matmul(float* c, const float* a, const float* b, const float* bias, int M, int K, int N) {
    gemm({c, a, b, bias, nullptr, M, K, N});
}

void matmul_nt(float* c, const float* a, const float* b, int M, int K, int N) {
    thread_local std::vector<float> b_t;  // bᵀ (K, N), kept between calls
    b_t.resize(static_cast<size_t>(K) * N);
    transpose(b_t.data(), b, N, K);
    gemm({c, a, b_t.data(), nullptr, nullptr, M, K, N});
}

void matmul_rows(float* c, const float* a, const float* b, const int* a_end, int M, int K, int N) {
    gemm({c, a, b, nullptr, a_end, M, K, N});
}

#else  // native without FMA (a portable build): Eigen

void matmul(float* c, const float* a, const float* b, const float* bias, int M, int K, int N) {
    linear(c, a, b, bias, M, K, N);
}

void matmul_nt(float* c, const float* a, const float* b, int M, int K, int N) {
    MatMap<float>(c, M, N).noalias() = ConstMatMap<float>(a, M, K) * ConstMatMap<float>(b, N, K).transpose();
}

void matmul_rows(float* c, const float* a, const float* b, const int* a_end, int M, int K, int N) {
    constexpr int kRows = 64;  // a block of rows multiplies only up to where its a ends
    for (int m = 0; m < M; m += kRows) {
        const int rows = std::min(kRows, M - m);
        const int k_end = std::max(1, *std::max_element(a_end + m, a_end + m + rows));
        MatMap<float>(c + static_cast<long>(m) * N, rows, N).noalias() =
            ConstMatMap<float>(a + static_cast<long>(m) * K, rows, K).leftCols(k_end) * ConstMatMap<float>(b, K, N).topRows(k_end);
    }
}

#endif

void transpose(float* out, const float* in, int rows, int cols) {
    constexpr int kTile = 16;  // a 16 × 16 tile: both sides' cache lines used in full
    for (int r0 = 0; r0 < rows; r0 += kTile)
        for (int c0 = 0; c0 < cols; c0 += kTile)
            for (int r = r0; r < std::min(rows, r0 + kTile); ++r)
                for (int c = c0; c < std::min(cols, c0 + kTile); ++c)
                    out[static_cast<long>(c) * rows + r] = in[static_cast<long>(r) * cols + c];
}

void divide(float* out, const float* in, long n, float divisor) {
    const vec::Float d = vec::splat(divisor);
    long i = 0;
    for (; i + vec::kLanes <= n; i += vec::kLanes) vec::store(out + i, vec::load(in + i) / d);
    for (; i < n; ++i) out[i] = in[i] / divisor;
}

void masked_fill(float* out, const float* in, const float* keep, int rows, int L, float fill) {
    const long n = static_cast<long>(rows) * L;
    if (!keep) {
        std::memcpy(out, in, sizeof(float) * n);
        return;
    }
    const vec::Float f = vec::splat(fill), zero = vec::splat(0.0f);
    long i = 0;
    for (; i + vec::kLanes <= n; i += vec::kLanes) vec::store(out + i, vec::load(keep + i) != zero ? vec::load(in + i) : f);
    for (; i < n; ++i) out[i] = keep[i] != 0.0f ? in[i] : fill;
}

namespace {

// Largest value of x[0..n), -inf when n is 0.
float row_max(const float* x, int n) {
    const float neg_inf = -__builtin_inff();
    vec::Float m = vec::splat(neg_inf);
    int j = 0;
    for (; j + vec::kLanes <= n; j += vec::kLanes) m = vec::max(m, vec::load(x + j));
    if (j < n) m = vec::max(m, vec::load_part(x + j, n - j, neg_inf));
    return vec::max_lanes(m);
}

// out[j] = e^(x[j] - max) for j < n; returns their sum.
float exp_shifted(float* out, const float* x, int n, float max) {
    const vec::Float shift = vec::splat(max);
    vec::Float sum = vec::splat(0.0f);
    int j = 0;
    for (; j + vec::kLanes <= n; j += vec::kLanes) {
        const vec::Float e = vec::exp(vec::load(x + j) - shift);
        vec::store(out + j, e);
        sum += e;
    }
    if (j < n) {
        const vec::Float e = vec::exp(vec::load_part(x + j, n - j, -__builtin_inff()) - shift);  // padding: e^-inf = 0
        vec::store_part(out + j, e, n - j);
        sum += e;
    }
    return vec::sum_lanes(sum);
}

void divide_in_place(float* x, int n, float divisor) { divide(x, x, n, divisor); }

}  // namespace

void softmax_rows(float* out, int* end, const float* in, const int* kept_end, int rows, int L) {
    for (int i = 0; i < rows; ++i) {
        const float* x = in + static_cast<long>(i) * L;
        float* y = out + static_cast<long>(i) * L;
        // Keys from `kept` on hold the fill: their weight is e^(fill - max), 0 unless the row
        // keeps no key (NaN for -inf, uniform for -1e9, as PyTorch).
        int kept = kept_end ? kept_end[i] : L;
        float max = row_max(x, kept);
        if (kept < L) max = x[kept] > max ? x[kept] : max;
        float tail = 0.0f;
        if (kept < L) exp_shifted(&tail, x + kept, 1, max);
        if (tail != 0.0f) kept = L;  // not exactly 0 (or NaN): every key counts
        const float sum = exp_shifted(y, x, kept, max);
        divide_in_place(y, kept, sum);
        std::fill(y + kept, y + L, 0.0f);
        end[i] = kept;
    }
}

}  // namespace lab
