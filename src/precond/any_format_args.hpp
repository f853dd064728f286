// The arguments by which the preconditioners' kernels that read A in any storage format take it
// (kernels/precond/galerkin.cl, gershgorin.cl): an ELL part (width, pitch, columns, double values; width
// 0 and null buffers when absent) and a CSR part (offsets, columns, double values; null when absent),
// which covers CSR, CSR4 (its padding has value 0), ELL and HYB.
#pragma once

#include "clkr/blas/kernel_args.hpp"
#include "clkr/data/matrix.hpp"

namespace clkr::detail {

// Appends A's eight arguments to `args`.
void add_any_format_args(KernelArgs& args, Matrix& A);

}  // namespace clkr::detail
