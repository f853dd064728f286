// One row of the (2 dims + 1)-point Laplacian on an n^dims grid (Dirichlet boundary, grid points in
// lexicographic order, x fastest): what poisson2d/poisson3d write for the whole matrix and what a rank
// of a distributed solve writes for its own rows only.
#pragma once

#include <cstdint>

namespace clkr::detail {

// Calls put(column, value) for each entry of `row`, in increasing column order: the lower neighbours
// from the slowest axis in, the diagonal 2 dims, then the upper neighbours from the fastest axis out.
template <class Put>
void laplacian_row(std::int64_t row, std::int64_t n, int dims, Put&& put) {
  std::int64_t stride[3] = {1, n, n * n};
  std::int64_t coord[3];
  for (int d = 0; d < dims; ++d) coord[d] = row / stride[d] % n;
  for (int d = dims - 1; d >= 0; --d)
    if (coord[d] > 0) put(row - stride[d], -1.0);
  put(row, 2.0 * dims);
  for (int d = 0; d < dims; ++d)
    if (coord[d] < n - 1) put(row + stride[d], -1.0);
}

}  // namespace clkr::detail
