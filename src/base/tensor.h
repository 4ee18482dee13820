// tensor.h — Attention Lab core: a named, shaped block of float32 values.
//
// Storage order is explicit: C order (row-major, last index fastest), the same as
// NumPy's default and PyTorch's contiguous tensors, so a dump is a plain memcpy
// and a B×h×L×d_k slice for one (batch, head) is one contiguous L×d_k block.
#pragma once
#include <cstddef>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

namespace lab {

// Numbers live on 64-byte boundaries. Eigen's vectorised reductions (the sums in LayerNorm
// and softmax) start at the first SIMD-aligned element, so where malloc happened to put a
// block decided how a row was summed: the same checkpoint traced into /tmp/x and into a
// longer --out path gave logits 6e-6 apart. From a 64-byte base every row lands the same
// way on every run and every ISA's vector width (16, 32 or 64 bytes).
constexpr std::size_t kNumberAlignment = 64;

template <typename T>
struct AlignedAllocator {
    using value_type = T;
    AlignedAllocator() = default;
    template <typename U>
    AlignedAllocator(const AlignedAllocator<U>&) noexcept {}
    T* allocate(std::size_t n) {
        return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t{kNumberAlignment}));
    }
    void deallocate(T* p, std::size_t) noexcept { ::operator delete(p, std::align_val_t{kNumberAlignment}); }
    template <typename U>
    bool operator==(const AlignedAllocator<U>&) const noexcept { return true; }
    template <typename U>
    bool operator!=(const AlignedAllocator<U>&) const noexcept { return false; }
};
template <typename T>
using AlignedVector = std::vector<T, AlignedAllocator<T>>;

// An aligned allocator that leaves a new float uninitialised (resize(n) without a value): a
// recorded tensor is written in full by its stage, and zero-filling 64 MB first (the
// seq_len 512 trace) cost ~3 ms. resize(n, 0.0f) and Tensor::zeros still give zeros.
template <typename T>
struct UninitAllocator : AlignedAllocator<T> {
    template <typename U>
    struct rebind {
        using other = UninitAllocator<U>;
    };
    UninitAllocator() = default;
    template <typename U>
    UninitAllocator(const UninitAllocator<U>&) noexcept {}
    template <typename U>
    void construct(U* p) noexcept {
        ::new (static_cast<void*>(p)) U;
    }
    template <typename U, typename... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};
using Floats = std::vector<float, UninitAllocator<float>>;

struct Tensor {
    std::string name;               // stable id used in dumps and the UI, e.g. "q_heads"
    std::vector<int> shape;         // e.g. {2, 8, 10, 64}
    std::vector<std::string> dims;  // named dims, e.g. {"B", "h", "L_q", "d_k"}
    Floats data;                    // C order

    static Tensor zeros(std::string name, std::vector<int> shape, std::vector<std::string> dims);

    size_t size() const { return data.size(); }
    float* ptr() { return data.data(); }
    const float* ptr() const { return data.data(); }
    // Offset of a multi-index in C order; index.size() must equal shape.size().
    size_t offset(std::initializer_list<int> index) const;
    float at(std::initializer_list<int> index) const { return data[offset(index)]; }
};

size_t element_count(const std::vector<int>& shape);
// "2×8×10×64" — the numbers only.
std::string shape_numbers(const std::vector<int>& shape);
// "(B=2, h=8, L_q=10, d_k=64)" — what the tutorials print, with names (a missing
// name prints as "?"). The one shape formatter: tables, panels, prompts, CSV headers.
std::string shape_named(const std::vector<int>& shape, const std::vector<std::string>& dims);
inline std::string shape_named(const Tensor& t) { return shape_named(t.shape, t.dims); }

}  // namespace lab
