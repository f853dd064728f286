// The numeric sparse products of the AMG on the device (kernels/precond/galerkin.cl): C = A B on C's
// pattern, in double, with A in any storage format but SELL and B, C in CSR. The device setup's products
// (device_spgemm.cpp, after their patterns) and every update step run it, so a setup and an update of
// the same values give the same bits.
#pragma once

#include "clkr/blas/device_params.hpp"
#include "clkr/data/matrix.hpp"

namespace clkr::detail::amg {

// How many work-items share a row of C: the power of two at or above B's mean row length (the
// entries they split), at most params.max_lanes.
std::size_t galerkin_lanes(const Matrix& B, const GalerkinParams& params);

// C's double values = A B, where C already holds the pattern of A B (as a setup computed it). Callers
// finish with C.values_written_on_device(). Returns the kernel's event (an empty one when C has no
// rows). Throws clkr::Error without fp64.
cl::Event multiply_on_device(Matrix& A, Matrix& B, Matrix& C, const GalerkinParams& params);

}  // namespace clkr::detail::amg
