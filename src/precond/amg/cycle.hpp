// The device side of the AMG preconditioner: every level's operator, prolongator P and restriction R as
// clkr::Matrix objects on the preconditioner's context, its smoother, its work vectors, the coarsest
// inverse, and the V-cycle that runs on them through the Blas alone.
#pragma once

#include <memory>
#include <vector>

#include "../relaxation.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/precond/amg.hpp"
#include "hierarchy.hpp"

namespace clkr::detail::amg {

class VCycle {
 public:
  // Uploads the hierarchy (level 0's operator is A itself) and sets up the smoothers.
  VCycle(Blas& blas, Matrix& A, const HostHierarchy& hierarchy, const AmgOptions& options, PhaseTimes& phases);
  ~VCycle();

  // After HostHierarchy::refresh: new values uploaded on the same patterns (P's and R's only when
  // `prolongators` changed too), smoothers refreshed.
  void refresh(Matrix& A, const HostHierarchy& hierarchy, bool prolongators, PhaseTimes& phases);
  // The update step on the device, from A's new values (already there): P and R kept, every coarse
  // operator R A P recomputed by device kernels (the A P patterns of `hierarchy` uploaded on first
  // use), the coarsest inverse from its operator read back, the smoothers refreshed. Needs fp64. The
  // host hierarchy's values are left as the setup made them.
  void refresh_on_device(Matrix& A, const HostHierarchy& hierarchy, PhaseTimes& phases);

  // z = one V-cycle applied to r, from z = 0.
  void apply(Vector& r, Vector& z);

  std::vector<AmgLevelInfo> level_info() const;
  std::string smoother_description() const;

 private:
  struct Level {
    Matrix* A = nullptr;  // level 0: the caller's matrix
    std::unique_ptr<Matrix> owned, P, R;
    std::unique_ptr<Matrix> AP;  // A P of this level, for the device update (made on first use)
    std::unique_ptr<Vector> inv_diag, b, x, r;
    std::unique_ptr<Relaxation> relaxation;
  };

  void cycle(std::size_t l, Vector& b, Vector& x);
  std::unique_ptr<Relaxation> make_relaxation(Level& level, double gershgorin, std::size_t l);
  // 1 / diag of level l's operator into its inv_diag (on the device where the Blas is and the device
  // has fp64; else on the host, from `host` when given: the level's operator with its current values),
  // and Gershgorin's bound, which it returns. Refuses a diagonal entry that is not positive and finite.
  double refresh_diagonal(std::size_t l, const HostCsrMatrix* host);

  Blas& blas_;
  AmgOptions options_;
  std::vector<Level> levels_;        // the last is the coarsest: solved by `inverse_`
  std::unique_ptr<Matrix> inverse_;  // the coarsest operator's dense inverse
};

}  // namespace clkr::detail::amg
