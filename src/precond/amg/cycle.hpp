// The device side of the AMG preconditioner: every level's operator, prolongator P and restriction R as
// clkr::Matrix objects on the preconditioner's context, its smoother, its work vectors, the coarsest
// inverse, and the V-cycle that runs on them through the Blas alone.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "../diagonal_scan.hpp"
#include "../hybrid_gauss_seidel.hpp"
#include "../node_block_inverse.hpp"
#include "../relaxation.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/precond/amg.hpp"
#include "coarse_cycle.hpp"
#include "device_hierarchy.hpp"
#include "device_setup_kernels.hpp"
#include "hierarchy.hpp"

namespace clkr::detail::amg {

class VCycle {
 public:
  // Uploads the hierarchy (level 0's operator is A itself) and sets up the smoothers.
  VCycle(Blas& blas, Matrix& A, const HostHierarchy& hierarchy, const AmgOptions& options, PhaseLog& phases);
  // Takes the device-built hierarchy's matrices as they are (shared, not copied): only the coarsest
  // inverse is uploaded.
  VCycle(Blas& blas, Matrix& A, const DeviceHierarchy& hierarchy, const AmgOptions& options, PhaseLog& phases);
  ~VCycle();

  // After HostHierarchy::refresh: new values uploaded on the same patterns (P's and R's only when
  // `prolongators` changed too), smoothers refreshed.
  void refresh(Matrix& A, const HostHierarchy& hierarchy, bool prolongators, PhaseLog& phases);
  // The update step on the device, from A's new values (already there): P and R kept, every coarse
  // operator R A P recomputed by device kernels (galerkin.cl; the A P patterns of a host-built
  // `hierarchy` uploaded on first use), the coarsest inverse from its operator read back, the smoothers
  // refreshed (both kinds of hierarchy: 1 / diag and Gershgorin's bound in one device pass, the bounds
  // from AmgOptions::update_eigen_iterations Lanczos steps). Needs fp64. The host hierarchy's values are
  // left as the setup made them. A device-built hierarchy passes `next_level(l, A_l)` instead, which
  // recomputes level l + 1's operator (and what it derives from, P and R if they are re-smoothed) from
  // level l's operator A_l with its new values.
  void refresh_on_device(Matrix& A, const HostHierarchy* hierarchy, PhaseLog& phases,
                         const std::function<void(std::size_t l, Matrix& A_l)>& next_level = {});

  // z = one cycle (V or W: AmgOptions::cycle_index) applied to r, from z = 0.
  void apply(Vector& r, Vector& z);

  std::vector<AmgLevelInfo> level_info() const;
  std::string smoother_description() const;
  // The first level whose cycle runs as one launch (coarse_cycle.hpp; 0: the whole cycle), or none
  // (or no longer: a launch was aborted).
  std::optional<std::size_t> one_launch_level() const {
    if (!coarse_ || coarse_->fell_back()) return std::nullopt;
    return coarse_->first_level();
  }

 private:
  struct Level {
    Matrix* A = nullptr;                  // level 0: the caller's matrix
    std::shared_ptr<Matrix> owned, P, R;  // shared with a device-built hierarchy
    std::shared_ptr<Matrix> AP;           // A P of this level, for the device update (made on first use)
    std::unique_ptr<Vector> inv_diag, b, x, r;
    // The level's smoother: one of the two (gauss_seidel with AmgSmoother::GaussSeidel, on the host
    // backend; the relaxation's kernels otherwise).
    std::unique_ptr<Relaxation> relaxation;
    std::unique_ptr<HybridGaussSeidel> gauss_seidel;
    // With AmgOptions::block_smoothing on a level with nodes of several unknowns: the inverse node
    // blocks on the host and as the matrix the smoother multiplies by.
    std::unique_ptr<NodeBlockInverse> node_blocks;
    std::unique_ptr<Matrix> block_matrix;
    DiagonalScanBuffers scan_buffers;  // the update's diagonal scan of A, kept across updates
  };

  void cycle(std::size_t l, Vector& b, Vector& x, bool x_is_zero);
  // The work vectors of level l (rows of its operator).
  void make_vectors(std::size_t l);
  // The smoothers of every level but the coarsest, with their inverse diagonals and Gershgorin bounds
  // (refresh_diagonal; from a host-built hierarchy's host operators where the scan runs on the host),
  // and their node blocks (block_smoothing, a host-built hierarchy, nodes of more than one unknown).
  void make_smoothers(const HostHierarchy* hierarchy, PhaseLog& phases);
  std::unique_ptr<Relaxation> make_relaxation(Level& level, double gershgorin, std::size_t l);
  // After new values: the node blocks recomputed from the host hierarchy's operators (`hierarchy`, when
  // its values are the new ones) or from the levels' operators read back (null), and uploaded.
  void refresh_node_blocks(const HostHierarchy* hierarchy, PhaseLog& phases);
  // 1 / diag of level l's operator into its inv_diag (on the device where the Blas is and the device
  // has fp64; else on the host, from `host` when given: the level's operator with its current values),
  // and Gershgorin's bound, which it returns. Refuses a diagonal entry that is not positive and finite.
  double refresh_diagonal(std::size_t l, const HostCsrMatrix* host);
  // After new values: every smoother's inverse diagonal and spectrum bounds, all levels' device work
  // behind one wait (`hierarchy`: the host-built one, whose operators the scans read on the host).
  void refresh_smoothers(const HostHierarchy* hierarchy, PhaseLog& phases);
  // The one-launch cycle: from the finest level where it has at most amg_cycle.fine_max_rows rows,
  // else from the first level below it with at most amg_cycle.coarse_max_rows (none where
  // CoarseCycle::make declines).
  void make_coarse_cycle(Matrix& A, PhaseLog& phases);
  SetupKernels copy_kernels() const;
  // For the matrices the cycle uploads from the host: the host CSR kept where the Blas is the host
  // backend (it multiplies with it rather than read the device back), no format statistics (nothing
  // reads them: MatrixOptions::format_statistics).
  MatrixOptions upload_options() const;
  // A CSR copy of the finest operator A (one the launch cannot read as it is) for the one launch.
  std::shared_ptr<Matrix> make_fine_copy(Matrix& A) const;
  // After new values, where the one launch runs from level 0: its CSR copy of A refreshed, or A (which
  // may be another object with the same pattern) given to it.
  void refresh_fine_level(Matrix& A);

  Blas& blas_;
  AmgOptions options_;
  std::vector<Level> levels_;        // the last is the coarsest: solved by `inverse_`
  std::unique_ptr<Matrix> inverse_;  // the coarsest operator's dense inverse
  std::unique_ptr<CoarseCycle> coarse_;
  // A CSR copy of the finest operator for the one launch, where that runs from level 0 and A is in
  // another format (the launch reads CSR; the level-0 kernels keep A's own format for a fallback).
  std::shared_ptr<Matrix> fine_csr_;
};

}  // namespace clkr::detail::amg
