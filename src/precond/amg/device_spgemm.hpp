// Sparse matrix products on the device for the AMG setup (A_F P_tent, A P, R (A P)): the pattern in
// two passes (spgemm.cl: row bounds, distinct columns counted, prefix sums, columns written and sorted),
// then the values (spgemm_values.cl: the sums of galerkin.cl's galerkin_multiply, which the update step
// recomputes them with, to the bit, with long rows shared by a work-group).
#pragma once

#include <memory>

#include "clkr/data/matrix.hpp"
#include "device_transpose.hpp"

namespace clkr::detail::amg {

// The pattern of A B (A: rows x inner, B: inner x cols): each row's distinct columns, ascending. With
// `bound`, also each row's number of products (what the numeric kernels split rows by).
DevicePattern product_pattern(const SetupKernels& kernels, const DevicePattern& A, const DevicePattern& B,
                              cl::Buffer* bound = nullptr);

// C = A B, with each row's number of products, by which the numeric kernels split the rows (kept for
// the update step: it depends on the patterns only).
struct DeviceProduct {
  std::shared_ptr<Matrix> C;
  cl::Buffer bound;
};

// C = A B, A and B in CSR. Throws clkr::Error when C would pass 2^31 - 1 entries.
DeviceProduct multiply(const SetupKernels& kernels, Matrix& A, Matrix& B);
// C's values = A B on C's pattern (as multiply made it, with its `bound`): the update step.
void multiply_values(const SetupKernels& kernels, Matrix& A, Matrix& B, Matrix& C, const cl::Buffer& bound);

}  // namespace clkr::detail::amg
