// Bounds on the spectrum of D^-1 A (D = diag(A)) that the Chebyshev polynomials and the damped-Jacobi
// weight need: extreme Ritz values from a few Lanczos steps, or Gershgorin's bound.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "../runtime/pending_read.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/data/host_csr_matrix.hpp"

namespace clkr::detail {

struct SpectrumEstimate {
  double lambda_min = 0, lambda_max = 0;  // extreme Ritz values: inside the spectrum, converging outwards
  int steps = 0;                          // Lanczos steps taken (fewer than asked when the space is exhausted)
  std::vector<double> diagonal, off;      // the Lanczos tridiagonal T (steps x steps)

  // The largest Ritz value after the first `k` steps (the leading k x k block of T; all of it when
  // k >= steps): what a shorter run from the same start vector would have found.
  double lambda_max_after(int k) const;
};

// The extreme Ritz values of D^-1 A after `steps` Lanczos steps, taken from the coefficients of as many
// steps of Jacobi-preconditioned CG on A y = v from y = 0 with a seeded random v (the CG-Lanczos
// relation: T_jj = 1/alpha_j + beta_{j-1}/alpha_{j-1}, T_j,j+1 = sqrt(beta_j)/alpha_j). Runs on `blas`:
// on the device with the scalars kept there and read once when the run ends (kernels/precond/lanczos.cl),
// one wait for the run; `dinv` holds 1 / diag(A). Throws clkr::Error naming `who` when a
// curvature p'Ap or r'D^-1 r is not positive and finite (A or D is not SPD). With `blocks` (the
// block-diagonal inverse of A's node blocks, node_block_inverse.hpp) the spectrum is that of B^-1 A:
// z = B^-1 r by one SpMV more a step; the scalars stay on the device all the same.
SpectrumEstimate estimate_spectrum(Blas& blas, Matrix& A, Vector& dinv, int steps, std::uint64_t seed, const char* who,
                                   Matrix* blocks = nullptr);

// The vectors and device scalars of a Lanczos run (the start vector r, z, p, q; the history of its
// scalars and three dot results), kept by a caller that runs one repeatedly, as an AMG smoother does at
// every update: on NVIDIA's OpenCL a buffer allocated and released around its kernels costs ~80 us, and
// a 4-step run allocated 15: its vectors (r in two precisions), history and nine dot results
// (docs/performance-amg-host.md).
struct LanczosWork {
  // The history and dot results only where the run is on the device.
  LanczosWork(const std::shared_ptr<Context>& context, std::size_t n, int steps, Precision precision,
              Location location);
  // Whether a run of `steps` steps on n rows in `precision` at `location` can use it.
  bool fits(std::size_t n, int steps, Precision precision, Location location) const;
  Vector r, z, p, q;
  cl::Buffer history;     // rz_0, pq_0, ..., rz_steps in the run's precision
  cl::Buffer scalars[3];  // the dots' results: r'z, the next r'z, p'q
  int steps;
  Precision precision;
  Location location;
};

// The same in two steps, so that the runs of several matrices (the AMG's levels) share one wait:
// start_spectrum_estimate enqueues the run and its read; finish() gives the estimate, once the caller has
// waited for the queue (Context::finish; finish waits for the read itself otherwise), with the checks
// and errors of estimate_spectrum. On the host backend the run is done when start returns. `kept`, when
// given, holds the run's work set between runs (made or remade there when missing or too small).
class SpectrumRun {
 public:
  bool in_flight() const { return on_device_; }
  SpectrumEstimate finish(const char* who);

 private:
  friend SpectrumRun start_spectrum_estimate(Blas&, Matrix&, Vector&, int, std::uint64_t, std::unique_ptr<LanczosWork>*,
                                             Matrix*);
  int steps_ = 0;  // 0: nothing to estimate (no steps asked, or an empty matrix)
  Precision precision_ = Precision::Double;
  bool on_device_ = false;       // the scalars are still to be read from history_
  PendingRead history_;          // the device's scalars, in the run's precision
  std::vector<double> scalars_;  // rz_0, pq_0, rz_1, ..., rz_steps
};
SpectrumRun start_spectrum_estimate(Blas& blas, Matrix& A, Vector& dinv, int steps, std::uint64_t seed,
                                    std::unique_ptr<LanczosWork>* kept = nullptr, Matrix* blocks = nullptr);

// max_i sum_j |a_ij| / |a_ii|: an upper bound on |lambda| of D^-1 A (Gershgorin's theorem for the
// rows of D^-1 A). Rows with a zero diagonal are skipped (callers have refused them already).
double gershgorin_bound(const HostCsrMatrix& A);
// The same for a device matrix: by a kernel where the device has fp64 (kernels/precond/gershgorin.cl),
// else from A.host_csr().
double gershgorin_bound(Matrix& A);

// The smallest and largest eigenvalue of the symmetric tridiagonal matrix with diagonal `a` and
// off-diagonal `b` (b.size() == a.size() - 1), by bisection on Sturm sequences to ~1e-12 relative.
std::pair<double, double> tridiagonal_extremes(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace clkr::detail
