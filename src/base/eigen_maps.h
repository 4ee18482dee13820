// eigen_maps.h — Attention Lab core: Eigen views of the core's C-order buffers.
//
// Every array in the core is C order (row-major), so every map says RowMajor
// explicitly; templates on the scalar serve float and double alike.
#pragma once
#include <Eigen/Core>

namespace lab {

template <typename T>
using RowMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using MatMap = Eigen::Map<RowMat<T>>;
template <typename T>
using ConstMatMap = Eigen::Map<const RowMat<T>>;
template <typename T>
using VecMap = Eigen::Map<Eigen::Matrix<T, 1, Eigen::Dynamic>>;
template <typename T>
using ConstVecMap = Eigen::Map<const Eigen::Matrix<T, 1, Eigen::Dynamic>>;

}  // namespace lab
