// One pass over a matrix for the diagonal-based smoothers: Gershgorin's bound on the spectrum of
// D^-1 A, the first diagonal entry that is not positive and finite, and optionally 1 / diag(A) written
// into a Vector: on the device by kernels/precond/gershgorin.cl (the AMG's update step then moves no
// operator and no diagonal across the bus), or on the host.
#pragma once

#include <cstdint>

#include "../runtime/pending_read.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/data/host_csr_matrix.hpp"

namespace clkr::detail {

struct DiagonalScan {
  double gershgorin = 0;            // max_i sum_j |a_ij| / |a_ii| over the rows with a_ii != 0
  std::int64_t first_bad_row = -1;  // the first row with a_ii <= 0, NaN or Inf; -1 when there is none
  double bad_value = 0;             // a_ii of that row
};

// The scan of a host matrix (dinv, when given, receives 1 / a_ii per row).
DiagonalScan scan_diagonal(const HostCsrMatrix& A, std::vector<double>* dinv);

// The scan of a device matrix. `dinv` (when not null) receives 1 / diag(A): its double device copy is
// written by the kernel where the device has fp64, `where` is Location::Device and A is not in SELL (the working
// precision's copy is then converted on the device when first used); otherwise everything is computed
// on the host, from `host` when given (A's values on the host) or A.host_csr(), and dinv assigned.
DiagonalScan scan_diagonal(Matrix& A, Vector* dinv, Location where, const HostCsrMatrix* host = nullptr);

// The device scan's per-work-group results, kept by a caller that scans repeatedly (the AMG's levels at
// every update: on NVIDIA's OpenCL two buffers allocated and released around the kernel cost ~160 us).
struct DiagonalScanBuffers {
  cl::Buffer maxima, bad_rows;
  std::size_t groups = 0;
};

// The same in two steps, so that the scans of several matrices (the AMG's levels) share one wait: the
// scan enqueued with its reads, and collect() once the caller has waited for the queue (Context::finish;
// collect waits for the reads itself otherwise). On the host the scan is done when start returns.
class DiagonalScanInFlight {
 public:
  bool in_flight() const { return A_ != nullptr; }
  DiagonalScan collect();

 private:
  friend DiagonalScanInFlight start_diagonal_scan(Matrix&, Vector*, Location, const HostCsrMatrix*,
                                                  DiagonalScanBuffers*);
  Matrix* A_ = nullptr;  // the device scan's matrix (for the bad row's value); null once collected, or on the host
  std::size_t groups_ = 0;
  PendingRead maxima_, bad_;  // each work-group's maximum and first bad row
  DiagonalScan result_;
};
DiagonalScanInFlight start_diagonal_scan(Matrix& A, Vector* dinv, Location where, const HostCsrMatrix* host = nullptr,
                                         DiagonalScanBuffers* kept = nullptr);

// The first row whose diagonal entry is not positive (zero, negative, missing or NaN), with its value in
// *value; -1 when there is none. One pass on the device where the scan runs there; the diagonal the
// Matrix keeps on the host otherwise, and to settle a row the device flagged (it flags Inf too).
std::int64_t first_nonpositive_diagonal(Matrix& A, Location where, double* value);

// Whether scan_diagonal(A, dinv, where) runs on the device (it then moves neither A nor its diagonal
// across the bus: a few bytes are read back).
bool diagonal_scan_on_device(const Matrix& A, Location where);

}  // namespace clkr::detail
