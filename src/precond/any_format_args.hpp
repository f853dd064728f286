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

// The same and then a DIA part (count, pitch, offsets, double values; count 0 and null buffers when
// absent): the twelve arguments of the kernels that also read DIA (gershgorin.cl, residual_norms.cl).
// A DIA matrix has no ELL or CSR part. Not for SELL, whose slices are a layout of their own.
void add_any_format_or_dia_args(KernelArgs& args, Matrix& A);

}  // namespace clkr::detail
