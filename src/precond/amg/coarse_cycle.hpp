// The AMG cycle's coarse levels in one launch (kernels/precond/coarse_cycle.cl): from a first coarse
// level down to the coarsest, the steps the V-cycle would launch one by one (the smoothers' schedules,
// relaxation.hpp, the residuals, restrictions, prolongations and the coarsest level's dense inverse;
// with node-block smoothing, the products with the inverse node blocks)
// become a list of steps that one kernel runs, its work-groups meeting at grid barriers.
//
// The kernel reads its own copies of the levels' operators (concatenated CSR arrays) and inverse
// diagonals, and keeps the levels' work vectors in one arena: the V-cycle's matrices are left as they
// are for its launch path. refresh() copies the values again after an update and rewrites the steps'
// coefficients from the smoothers' new bounds.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "../relaxation.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/precond/amg.hpp"

namespace clkr::detail::amg {

// One level as the coarse cycle sees it (the V-cycle's own objects; the coarsest has only A, its
// dense inverse).
struct CoarseLevelView {
  Matrix* A = nullptr;
  Matrix* P = nullptr;  // null on the coarsest level
  Matrix* R = nullptr;
  Vector* inv_diag = nullptr;
  const Relaxation* relaxation = nullptr;
  Matrix* node_blocks = nullptr;  // B^-1 where the smoother scales by node blocks (relaxation.hpp)
};

class CoarseCycle {
 public:
  // The coarse cycle of `levels` (the first is the cycle's level `first_level`, which the caller chose by
  // amg_cycle.coarse_max_rows; the last the coarsest, whose A is its dense inverse), or null where it
  // does not apply: a host Blas, fewer than two levels, a matrix not in CSR with 32-bit offsets, or more
  // than 2^31 - 1 entries or vector elements in all.
  static std::unique_ptr<CoarseCycle> make(Blas& blas, std::size_t first_level, std::vector<CoarseLevelView> levels,
                                           const AmgOptions& options);
  // Whether the launch reads `m` as it is: CSR with 32-bit offsets (make declines any other matrix).
  static bool reads(const Matrix& m) { return m.format() == Format::Csr && !m.csr_part().wide_offsets; }
  ~CoarseCycle();

  std::size_t first_level() const { return first_level_; }
  // Whether a launch was found aborted, so that the V-cycle launches the levels' steps again.
  bool fell_back() const { return aborted_; }
  // x = the cycle of the first level applied to b: from x = 0 (`x_is_zero`; x is not read), or from x
  // (a W-cycle's later visit). Returns false, having done nothing, once a launch was found aborted
  // (its work-groups were not all resident; that launch left NaN in its x): the V-cycle then launches
  // the coarse levels' steps itself from then on.
  bool run(Vector& b, Vector& x, bool x_is_zero);
  // After new values (the operators', the inverse diagonals', the smoothers' bounds): copies them and
  // rewrites the steps.
  void refresh();
  // The first level's operator from now on: a matrix with the same pattern as the one it replaces (the
  // finest level's, which an update may pass as another object); its values are copied at refresh().
  void set_first_operator(Matrix& A);

 private:
  struct Slot;
  CoarseCycle(Blas& blas, std::size_t first_level, std::vector<CoarseLevelView> levels, const AmgOptions& options);
  void build_kernel();
  void settle_groups();
  void copy_patterns();
  void copy_values();
  void write_steps();
  bool launch_was_aborted();

  Blas& blas_;
  std::size_t first_level_;
  std::vector<CoarseLevelView> levels_;
  AmgOptions options_;
  Precision precision_;
  std::vector<Slot> slots_;  // per level: where its matrices and vectors sit in the arenas
  std::size_t local_ = 0, lanes_ = 1, groups_ = 0;
  cl::Kernel kernel_;
  cl::Buffer ops_, row_offsets_, cols_, state_, staging_;
  Matrix::Values values_, arena_;  // (primary, tail) buffers in the precision
  std::optional<Vector> coef_;     // two coefficients a step
  std::size_t zero_ops_ = 0, warm_ops_ = 0;
  double zero_bytes_ = 0, warm_bytes_ = 0, zero_flops_ = 0, warm_flops_ = 0;
  std::int64_t arrivals_ = 0;  // the barrier counter's value after the launches so far
  std::uint64_t launches_ = 0;
  cl_int* status_host_ = nullptr;
  cl::Event status_read_;
  bool aborted_ = false;
};

}  // namespace clkr::detail::amg
