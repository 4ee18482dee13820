// npy.h — Attention Lab interop: NumPy .npy files (format 1.0, '<f4', C order).
#pragma once
#include <string>
#include <vector>

#include "base/tensor.h"

namespace lab {

// The whole file's bytes for a tensor.
std::string encode_npy(const Tensor& t);
// The whole file's bytes for any array of fixed-size items in host order, written
// little-endian: descr "<f4", "<i8", ... (the training checkpoints' int64 batches).
std::string encode_npy_items(const char* descr, const std::vector<int>& shape, const void* data, size_t item_bytes);
// Parses .npy bytes holding little-endian float32 in C order. On failure returns
// false and says why in *error (e.g. "expected dtype '<f4', got '<f8'").
bool decode_npy(const std::string& bytes, Tensor* out, std::string* error);

bool write_file(const std::string& path, const std::string& bytes, std::string* error);
// max_bytes > 0: a longer file (or an endless one, like /dev/zero) is refused with a
// message giving the limit, after reading at most max_bytes + 1 bytes.
bool read_file(const std::string& path, std::string* bytes, std::string* error, size_t max_bytes = 0);

}  // namespace lab
