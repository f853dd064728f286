// Internal interface between the Blas object (src/blas/blas.cpp: dispatch and counters) and the SpMV
// implementations (src/blas/spmv.cpp: kernels per format, host reference).
#pragma once

#include "clkr/blas/blas.hpp"

namespace clkr::detail {

// Work counted from the operation and the storage format, not estimated from time.
struct OpCost {
  double flops = 0;
  double bytes = 0;
};

// Bytes SpMV must move: values and indices as stored (padding included), row offsets, x read once per
// stored entry in the ideal cached case counted once (cols elements), y written (and read if beta != 0).
OpCost spmv_cost(const Matrix& A, Precision p, double beta);

// y = alpha*A*x + beta*y on the device; returns the event of the last kernel (for profiling; a format
// with two kernels, HYB, also reports the first through `first`).
cl::Event spmv_device(Context& context, const SpmvParams& params, Precision p, bool kahan, double alpha, Matrix& A,
                      Vector& x, double beta, Vector& y, cl::Event* first = nullptr);

// The -D option of the DIA kernels' tiles (SpmvParams::dia_tile_rows; none for 0: a row at a time).
std::string dia_tile_option(const SpmvParams& params);

// The host reference: plain loops (OpenMP), in the arithmetic of precision p.
void spmv_host(Precision p, bool kahan, double alpha, Matrix& A, Vector& x, double beta, Vector& y);

}  // namespace clkr::detail
