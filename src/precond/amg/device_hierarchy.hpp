// The smoothed-aggregation hierarchy built on the device (AmgOptions::setup_on): per level strength of
// connection, aggregation, the tentative and smoothed prolongators, R = P^T and R (A P), all by kernels
// on the preconditioner's device, the operators staying there as clkr::Matrix objects that the V-cycle
// (cycle.cpp) uses as they are; only the coarsest operator (at most a few thousand rows) comes to the
// host, for its dense inverse. One unknown per node, the constant near-null space and the standard
// aggregation (block_size 1, no near_null_space, no aggressive_levels), in double (fp64);
// device_setup_refusal() says when the host setup must build it instead. The same hierarchy on every
// run: every kernel is deterministic.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "clkr/blas/blas.hpp"
#include "clkr/precond/amg.hpp"
#include "coarse_solver.hpp"
#include "device_prolongator.hpp"
#include "phase_times.hpp"

namespace clkr::detail::amg {

struct DeviceLevel {
  std::shared_ptr<Matrix> A;  // the level's operator (null on level 0: the caller's matrix)
  // The operator in CSR for the setup's kernels (level 0: A or its copy, which is let go after the setup
  // unless an update needs it: update_prolongator, or A in SELL).
  std::shared_ptr<Matrix> csr;
  // To the next coarser level (absent on the coarsest):
  std::shared_ptr<Matrix> R, AP;
  DeviceSmoothed smoothed;  // P, with its damping
  // What re-smoothing P needs (the strength graph itself is dropped after the aggregation):
  cl::Buffer keep;                   // the entries of the operator the filtered matrix keeps
  std::shared_ptr<Matrix> filtered;  // A_F
  std::shared_ptr<Matrix> tentative;
};

class DeviceHierarchy {
 public:
  // Builds the hierarchy for A (kept by reference: it must outlive the hierarchy). Phases are timed
  // into `phases` (each waits for the device), every kernel into `blas`'s counters (also the update's;
  // blas must outlive the hierarchy). Throws clkr::Error as the host setup does: a diagonal
  // entry that is not positive (row and level), no progress (the level), NaN/Inf in a coarse operator.
  DeviceHierarchy(Blas& blas, Matrix& A, const AmgOptions& options, PhaseLog& phases);

  std::size_t size() const { return levels_.size(); }
  const DeviceLevel& level(std::size_t l) const { return levels_[l]; }
  const DenseInverse& coarsest_inverse() const { return coarse_; }

  // The update step, level by level: level l + 1's operator R (A P) recomputed from the new values of
  // level l's operator `A` (level 0: the caller's matrix; below: already refreshed) by the setup's
  // product kernels (the same bits as galerkin.cl's); with `prolongators`, first level l's filtered
  // matrix, P and R too.
  void refresh_next_level(std::size_t l, Matrix& A, bool prolongators, PhaseLog& phases);

 private:
  SetupKernels kernels_;
  AmgOptions options_;
  std::vector<DeviceLevel> levels_;
  DenseInverse coarse_;
  cl::Buffer nonfinite_;  // the NaN/Inf check's result, kept for every level's check at every update
};

// Empty when the device setup can build the hierarchy for `options` with `blas` (its device and
// location), else the reason it cannot ("block_size 3: ...").
std::string device_setup_refusal(const AmgOptions& options, const Blas& blas);

}  // namespace clkr::detail::amg
