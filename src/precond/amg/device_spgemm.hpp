// Sparse matrix products on the device for the AMG setup (A_F P_tent, A P, R (A P)): the pattern in
// two passes (spgemm.cl: row bounds, distinct columns counted, prefix sums, columns written and sorted),
// then the values by galerkin.cl's galerkin_multiply (device_galerkin.hpp), the update step's kernel, with
// the work-items of a row chosen from B's row lengths (SetupKernels::galerkin).
#pragma once

#include <memory>

#include "clkr/data/matrix.hpp"
#include "device_transpose.hpp"

namespace clkr::detail::amg {

// The pattern of A B (A: rows x inner, B: inner x cols): each row's distinct columns, ascending.
DevicePattern product_pattern(const SetupKernels& kernels, const DevicePattern& A, const DevicePattern& B);

// C = A B, A and B in CSR. Throws clkr::Error when C would pass 2^31 - 1 entries.
std::shared_ptr<Matrix> multiply(const SetupKernels& kernels, Matrix& A, Matrix& B);
// C's values = A B on C's pattern (as multiply made it): the update step.
void multiply_values(const SetupKernels& kernels, Matrix& A, Matrix& B, Matrix& C);

}  // namespace clkr::detail::amg
