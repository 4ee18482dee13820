// vec.h — Attention Lab core: a float vector of the build's SIMD width, in the GCC/Clang
// vector extension (AVX natively when the build targets it, SSE2 otherwise; SIMD128 in
// the WebAssembly build), for the trace's elementwise kernels and the invariant scans.
//
// Every operation is plain IEEE arithmetic (no fused multiply-add: the project compiles
// ISO C++, where GCC does not contract), so a kernel written with these gives the same
// floats for the same lane count. Loads and stores are unaligned.
#pragma once
#include <cstdint>
#include <cstring>

namespace lab {
namespace vec {

#if defined(__AVX__)
constexpr int kLanes = 8;
#else
constexpr int kLanes = 4;
#endif
typedef float Float __attribute__((vector_size(kLanes * 4)));
typedef int32_t Int __attribute__((vector_size(kLanes * 4)));
typedef double Double __attribute__((vector_size(kLanes * 8)));  // sums of floats, lane by lane

inline Float load(const float* p) {
    Float v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
inline void store(float* p, Float v) { std::memcpy(p, &v, sizeof v); }
// Written out lane by lane: clang 14 does not fold a loop over lanes for WebAssembly and
// would build the vector through memory, a store-forwarding stall per lane.
inline Float splat(float x) {
#if defined(__AVX__)
    return Float{x, x, x, x, x, x, x, x};
#else
    return Float{x, x, x, x};
#endif
}
// The first n (< kLanes) values of p, the rest `pad`.
inline Float load_part(const float* p, int n, float pad) {
    float lanes[kLanes];
    for (int i = 0; i < kLanes; ++i) lanes[i] = i < n ? p[i] : pad;
    return load(lanes);
}
inline void store_part(float* p, Float v, int n) {
    for (int i = 0; i < n; ++i) p[i] = v[i];
}
// Lane-wise max ignoring NaN in v (a NaN lane keeps `acc`).
inline Float max(Float acc, Float v) { return v > acc ? v : acc; }
inline float max_lanes(Float v) {
    float m = v[0];
    for (int i = 1; i < kLanes; ++i) m = v[i] > m ? v[i] : m;
    return m;
}
inline float sum_lanes(Float v) {
    float s = v[0];
    for (int i = 1; i < kLanes; ++i) s += v[i];
    return s;
}
inline double sum_lanes(Double v) {
    double s = v[0];
    for (int i = 1; i < kLanes; ++i) s += v[i];
    return s;
}
inline Double widen(Float v) { return __builtin_convertvector(v, Double); }
// -1 in the lanes that hold a finite value, 0 in the others (x - x is 0 only there).
inline Int finite(Float v) { return (v - v) == splat(0.0f); }
inline long sum_lanes(Int v) {
    long s = 0;
    for (int i = 0; i < kLanes; ++i) s += v[i];
    return s;
}

// e^x to about 1 ulp over the whole float range (Cephes' expf, the polynomial Eigen's
// vectorised exp uses): 0 for x < -103.97 (and -inf), denormals rounded once below
// -87.3, inf above 88.72, NaN for NaN.
inline Float exp(Float x) {
    const Float lo = splat(-104.0f), hi = splat(88.7228f);
    x = x < lo ? lo : x;  // NaN compares false and stays NaN
    x = x > hi ? hi : x;
    // n = round(x / ln 2) by the 1.5·2^23 trick (|x / ln 2| < 2^22 here).
    const Float magic = splat(12582912.0f);
    Float n = (x * splat(1.44269504088896341f) + magic) - magic;
    const Float r = (x - n * splat(0.693359375f)) - n * splat(-2.12194440e-4f);  // x - n·ln 2 in two parts
    Float p = splat(1.9875691500e-4f);
    p = p * r + splat(1.3981999507e-3f);
    p = p * r + splat(8.3334519073e-3f);
    p = p * r + splat(4.1665795894e-2f);
    p = p * r + splat(1.6666665459e-1f);
    p = p * r + splat(5.0000001201e-1f);
    p = (p * (r * r) + r) + splat(1.0f);
    // p · 2^n as (p · 2^(n/2)) · 2^(n - n/2): both factors normal, one rounding at the end.
    n = n == n ? n : splat(0.0f);  // NaN (p is NaN already) converts to no integer
    const Int ni = __builtin_convertvector(n, Int);
    const Int half = ni >> 1;
    const Float s1 = (Float)((half + 127) << 23), s2 = (Float)((ni - half + 127) << 23);
    return (p * s1) * s2;
}

}  // namespace vec
}  // namespace lab
