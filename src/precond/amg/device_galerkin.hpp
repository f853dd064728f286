// The numeric Galerkin products of the AMG's update step on the device (kernels/precond/galerkin.cl):
// C = A B on C's pattern, in double, with A in any storage format and B, C in CSR.
#pragma once

#include "clkr/blas/device_params.hpp"
#include "clkr/data/matrix.hpp"

namespace clkr::detail::amg {

// How many work-items share a row of C: the power of two at or above B's mean row length (the
// entries they split), at most params.max_lanes.
std::size_t galerkin_lanes(const Matrix& B, const GalerkinParams& params);

// C's double values = A B, where C already holds the pattern of A B (as the host setup computed it).
// Callers finish with C.values_written_on_device(). Throws clkr::Error without fp64.
void multiply_on_device(Matrix& A, Matrix& B, Matrix& C, const GalerkinParams& params);

}  // namespace clkr::detail::amg
