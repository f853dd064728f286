// Internal interface between the Blas object (src/blas/blas.cpp: dispatch and counters) and the SpMV
// implementations (src/blas/spmv.cpp: kernels per format; src/blas/spmv_host.cpp: the host reference).
#pragma once

#include "clkr/blas/blas.hpp"

namespace clkr::detail {

// Work counted from the operation and the storage format, not estimated from time.
struct OpCost {
  double flops = 0;
  double bytes = 0;
};

// Bytes SpMV must move: values and indices as stored (padding included; 2 bytes a value in
// ValueStorage::Half, the storage A.value_storage() gives), row offsets, x read once per stored entry
// in the ideal cached case counted once (cols elements), y written (and read if beta != 0).
OpCost spmv_cost(const Matrix& A, Precision p, double beta, ValueStorage storage = ValueStorage::Working);

// A fused epilogue (kernels/spmv/spmv_epilogue.cl): what the SpMV kernel does with each row's sum
// s = (A x)[i] in place of y = alpha s + beta y (alpha and beta are then ignored). The AMG's smoothers
// use them (src/precond/relaxation_kernels.cpp) to save an elementwise pass and a launch per SpMV.
struct SpmvEpilogue {
  enum class Kind {
    Residual,    // y = r = b - s, and with d_out given d_out = c2 dinv r (a Chebyshev sweep's first
                 // correction, left for the next step to add to its x: Pending below)
    Chebyshev,   // x is the previous correction d: r = r_in - s, d' = c1 d + c2 dinv r, xs += d', and
                 // unless `last`, y = r and d_out = d' (r_in may be y)
    Correction,  // a smoother's correction from a scaling matrix (the node blocks' inverse) applied to a
                 // residual x: y = d' = c1 d_prev + c2 s (c2 s without d_prev; d_prev may be y), and
                 // xs += d' (xs = d' with set_x)
  };
  Kind kind = Kind::Residual;
  Vector* b = nullptr;
  double c1 = 0, c2 = 0;
  Vector* dinv = nullptr;
  Vector* r_in = nullptr;
  Vector* d_out = nullptr;
  Vector* xs = nullptr;
  bool last = false;
  Vector* d_prev = nullptr;
  bool set_x = false;
  // Chebyshev: the previous correction (the SpMV's x) not yet added to xs, when the step before left
  // it so to save a pass over xs: Add, xs += x[row] + d'; Set, xs = x[row] + d' (xs's old values
  // not read: a sweep from zero).
  enum class Pending { None, Add, Set };
  Pending pending = Pending::None;
};

// Whether the kernels of A's format take an epilogue: all but HYB (its second pass adds to the first's y).
bool spmv_epilogue_supported(const Matrix& A);

// The work of an SpMV with this epilogue (the SpMV's own bytes and flops plus the epilogue's vectors).
OpCost spmv_epilogue_cost(const Matrix& A, Precision p, const SpmvEpilogue& epilogue,
                          ValueStorage storage = ValueStorage::Working);

// y = alpha*A*x + beta*y on the device, or the epilogue's operation when one is given; returns the event
// of the last kernel (for profiling; a format with two kernels, HYB, also reports the first through
// `first`). `storage` Half (single precision only) reads A's binary16 values where they fit
// (Matrix::csr_values says when), its single values elsewhere.
cl::Event spmv_device(Context& context, const SpmvParams& params, Precision p, bool kahan, double alpha, Matrix& A,
                      Vector& x, double beta, Vector& y, cl::Event* first = nullptr,
                      const SpmvEpilogue* epilogue = nullptr, ValueStorage storage = ValueStorage::Working);

// The -D option of a kernel reading `values` (" -DHALF_VALUES" for binary16 ones, else nothing).
std::string value_option(const Matrix::Values& values);

// The epilogue's operation on the host, in double, from A's host CSR (the host backend's fused smoother
// steps and the reference of the device kernels' tests).
void spmv_epilogue_host(Matrix& A, Vector& x, Vector& y, const SpmvEpilogue& epilogue);

// The -D option of the DIA kernels' tiles (SpmvParams::dia_tile_rows; none for 0: a row at a time).
std::string dia_tile_option(const SpmvParams& params);

// The row kernels' -D options for precision p: -DROW_CHAINS and -DROW_GROUP.
std::string row_sum_build_options(const SpmvParams& params, Precision p);

// -DSTREAM_LOADS where SpmvParams::stream_loads asks for it, the device is NVIDIA's (the loads are
// inline PTX) and the kernels are the load-balanced CSR ones (`balanced_rows`: csr_balanced_applies),
// else nothing: the matrix kernels' option for reading the entries as a stream. Other kernels never
// get it: on an H100 it made the CSR row kernel 3.3x slower on poisson3d:192 (rows of 7 entries share
// cache lines, which evict-first loads drop before the next row reads them).
std::string stream_loads_option(const SpmvParams& params, const DeviceInfo& info, bool balanced_rows);

// Throws clkr::Error unless y = alpha*A*x + beta*y is well posed for these operands (sizes, no aliasing).
void check_operands(const Matrix& A, const Vector& x, const Vector& y);

// Throws clkr::Error unless the epilogue's operands fit A and none aliases what the kernel reads from
// other rows (x) or writes besides (y, d_out, xs, each its own vector).
void check_epilogue(const SpmvEpilogue& e, const Matrix& A, const Vector& x, const Vector& y);

// The host reference: plain loops (OpenMP), in the arithmetic of precision p.
void spmv_host(Precision p, bool kahan, double alpha, Matrix& A, Vector& x, double beta, Vector& y);

}  // namespace clkr::detail
