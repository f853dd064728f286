// Transposes and row sorting on the device for the AMG setup: R = P^T, an aggregate's members (the rows
// of P_tent^T), and the canonical (ascending) column order of every pattern built with atomics.
#pragma once

#include <cstdint>

#include "clkr/data/matrix.hpp"
#include "device_setup_kernels.hpp"

namespace clkr::detail::amg {

// A CSR pattern on the device: rows + 1 offsets, nnz column indices.
struct DevicePattern {
  std::int32_t rows = 0, cols = 0, nnz = 0;
  cl::Buffer offsets, columns;
};

// Sorts keys[offsets[s] .. offsets[s+1]) ascending for every s < segments (segment_sort.cl).
void sort_segments(const SetupKernels& kernels, std::int32_t segments, const cl::Buffer& offsets,
                   const cl::Buffer& keys);

// The pattern of A^T (rows ascending within each column of A), A given by its pattern.
DevicePattern transpose_pattern(const SetupKernels& kernels, const DevicePattern& A);

// A CSR matrix's pattern as the device setup's functions take it.
DevicePattern pattern_of(const Matrix& A);

// A^T as a matrix: the pattern above and A's values placed by transpose_values.
Matrix transpose(const SetupKernels& kernels, Matrix& A);
// At's values from A's (At = transpose(A) on the same patterns): the update step's refresh.
void transpose_values(const SetupKernels& kernels, Matrix& A, Matrix& At);

}  // namespace clkr::detail::amg
