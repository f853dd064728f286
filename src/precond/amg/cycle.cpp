// Upload of the hierarchy and the V-cycle: pre-smoothing, residual, restriction, the coarser level,
// prolongation and post-smoothing, with the coarsest level solved by one dense SpMV.
#include "cycle.hpp"

#include <chrono>
#include <cmath>

#include "../../runtime/format_number.hpp"
#include "../../runtime/host_threads.hpp"
#include "../diagonal_scan.hpp"
#include "clkr/runtime/error.hpp"
#include "device_csr_view.hpp"
#include "device_galerkin.hpp"
#include "phase_times.hpp"
#include "setup_errors.hpp"

namespace clkr::detail::amg {

VCycle::VCycle(Blas& blas, Matrix& A, const HostHierarchy& h, const AmgOptions& options, PhaseLog& phases)
    : blas_(blas), options_(options) {
  const auto& context = A.context();
  const MatrixOptions matrix_options = upload_options();
  const auto start = Clock::now();
  levels_.resize(h.size());
  for (std::size_t l = 0; l < h.size(); ++l) {
    const HostLevel& host = h.level(l);
    Level& level = levels_[l];
    if (l == 0) {
      level.A = &A;
    } else {
      level.owned = std::make_shared<Matrix>(context, *host.A, Format::Csr, matrix_options);
      level.A = level.owned.get();
    }
    if (l + 1 < h.size()) {
      level.P = std::make_shared<Matrix>(context, host.smoothed.P, Format::Csr, matrix_options);
      level.R = std::make_shared<Matrix>(context, host.restriction.matrix, Format::Csr, matrix_options);
      level.inv_diag = std::make_unique<Vector>(context, static_cast<std::size_t>(host.A->rows),
                                                "amg level " + std::to_string(l) + " inv_diag");
    }
    make_vectors(l);
  }
  inverse_ = std::make_unique<Matrix>(context, h.coarsest_inverse().inverse, Format::Csr, matrix_options);
  phases.add("upload", start);
  make_smoothers(&h, phases);
  make_coarse_cycle(A, phases);
}

VCycle::VCycle(Blas& blas, Matrix& A, const DeviceHierarchy& h, const AmgOptions& options, PhaseLog& phases)
    : blas_(blas), options_(options) {
  const auto start = Clock::now();
  levels_.resize(h.size());
  for (std::size_t l = 0; l < h.size(); ++l) {
    const DeviceLevel& built = h.level(l);
    Level& level = levels_[l];
    level.owned = built.A;
    level.A = l == 0 ? &A : built.A.get();
    if (l + 1 < h.size()) {
      level.P = built.smoothed.P;
      level.R = built.R;
      level.AP = built.AP;
      level.inv_diag = std::make_unique<Vector>(A.context(), static_cast<std::size_t>(level.A->rows()),
                                                "amg level " + std::to_string(l) + " inv_diag");
    }
    make_vectors(l);
  }
  inverse_ = std::make_unique<Matrix>(A.context(), h.coarsest_inverse().inverse, Format::Csr, upload_options());
  phases.add("upload", start);
  make_smoothers(nullptr, phases);
  make_coarse_cycle(A, phases);
}

void VCycle::make_vectors(std::size_t l) {
  Level& level = levels_[l];
  const auto& context = level.A->context();
  const auto rows = static_cast<std::size_t>(level.A->rows());
  const std::string name = "amg level " + std::to_string(l);
  if (l > 0) {
    level.b = std::make_unique<Vector>(context, rows, name + " b");
    level.x = std::make_unique<Vector>(context, rows, name + " x");
  }
  if (l + 1 < levels_.size()) level.r = std::make_unique<Vector>(context, rows, name + " r");
}

// The node blocks of every level first, back to back on the host, so that their loops share one team
// of workers: made level by level between the levels' device work (which releases the team), each
// level paid a team's start, ~0.5 ms on the 16-core H200 host. (The host hierarchy checked every
// level's diagonal as it built it, so a block's refusal hides no diagonal error.)
void VCycle::make_smoothers(const HostHierarchy* h, PhaseLog& phases) {
  auto start = Clock::now();
  if (options_.smoother == AmgSmoother::GaussSeidel) {
    if (blas_.location() != Location::Host)
      throw Error(
          "amg: the gauss-seidel smoother runs on the host backend only (a Blas on Location::Host; clkr solve "
          "--backend host, or backend 'host' in the C, Fortran and Python interfaces); a device smooths with "
          "chebyshev, chebyshev4 or jacobi");
    // By nodes as the point smoothers use node blocks (block_smoothing), with the host hierarchy's
    // nodes (the host backend's hierarchy is always built on the host).
    const bool by_nodes = options_.block_smoothing == AmgOptions::BlockSmoothing::On && h;
    for (std::size_t l = 0; l + 1 < levels_.size(); ++l)
      levels_[l].gauss_seidel = std::make_unique<HybridGaussSeidel>(
          blas_, levels_[l].A->host_csr(), by_nodes ? h->level(l).nodes.offsets : std::vector<std::int32_t>{0},
          host_thread_count(), static_cast<int>(l));
    phases.add("smoother setup", start);
    return;
  }
  std::vector<std::unique_ptr<NodeBlockInverse>> blocks(levels_.size());
  bool any = false;
  if (options_.block_smoothing == AmgOptions::BlockSmoothing::On && h) {
    for (std::size_t l = 0; l + 1 < levels_.size(); ++l) {
      const HostLevel& host = h->level(l);
      // Nodes of one unknown each (a scalar problem): the point smoother, no inverse to compute (it
      // took 12.5 ms for poisson3d:64 on 2 cores).
      if (!NodeBlockInverse::has_blocks(host.nodes.offsets)) continue;
      blocks[l] = std::make_unique<NodeBlockInverse>(*host.A, host.nodes.offsets, static_cast<int>(l));
      any = true;
    }
  }
  if (any) {
    // The blocks' workers must not spin through the device's turn: the finest level's diagonal scan
    // comes next, and its blocking read waited on them (the shells' smoother setup on the H200 took
    // 5-9 ms with them spinning, 3.4-3.8 before the blocks were moved ahead of the scans).
    if (blas_.location() == Location::Device) release_host_threads();
    phases.add("node blocks", start);
    start = Clock::now();
  }
  for (std::size_t l = 0; l + 1 < levels_.size(); ++l) {
    const double gershgorin = refresh_diagonal(l, h ? h->level(l).A : nullptr);
    Level& level = levels_[l];
    if (blocks[l]) {
      level.block_matrix =
          std::make_unique<Matrix>(level.A->context(), blocks[l]->matrix(), Format::Csr, upload_options());
      level.node_blocks = std::move(blocks[l]);
    }
    level.relaxation = make_relaxation(level, level.node_blocks ? level.node_blocks->gershgorin() : gershgorin, l);
  }
  phases.add("smoother setup", start);
}

// As make_smoothers: every level's blocks on the host first, then their uploads (update_values
// releases the workers, so uploading between the levels made each level start a new team). After a
// device update the levels' operators come from their host copies (Matrix::host_csr: kept from the
// first update on, refreshed by update_values and values_written_on_device, which read back only the
// values), all of them before any block is computed: a read that followed a level's parallel refresh
// waited on its spinning workers.
void VCycle::refresh_node_blocks(const HostHierarchy* h, PhaseLog& phases) {
  const auto start = Clock::now();
  std::vector<const HostCsrMatrix*> operators(levels_.size(), nullptr);
  bool any = false;
  for (std::size_t l = 0; l + 1 < levels_.size(); ++l) {
    if (!levels_[l].node_blocks) continue;
    operators[l] = h ? h->level(l).A : &levels_[l].A->host_csr();
    any = true;
  }
  if (!any) return;
  for (std::size_t l = 0; l + 1 < levels_.size(); ++l)
    if (operators[l]) levels_[l].node_blocks->refresh(*operators[l]);
  for (std::size_t l = 0; l + 1 < levels_.size(); ++l) {
    Level& level = levels_[l];
    if (level.node_blocks) level.block_matrix->update_values(level.node_blocks->matrix().values);
  }
  phases.add("node blocks", start);
}

VCycle::~VCycle() = default;

void VCycle::make_coarse_cycle(Matrix& A, PhaseLog& phases) {
  if (blas_.location() != Location::Device) return;  // the host backend launches nothing
  const auto start = Clock::now();
  const AmgCycleParams& params = blas_.params().amg_cycle;
  auto rows = [&](std::size_t l) { return static_cast<std::size_t>(levels_[l].A->rows()); };
  std::size_t first = 0;
  if (levels_.size() < 2 || rows(0) > params.fine_max_rows) {
    first = 1;
    while (first + 1 < levels_.size() && rows(first) > params.coarse_max_rows) ++first;
    if (first + 1 >= levels_.size()) return;  // no smoothed level small enough
  }
  Matrix* fine = levels_[0].A;
  if (first == 0 && !CoarseCycle::reads(A)) {
    fine_csr_ = make_fine_copy(A);
    fine = fine_csr_.get();
  }
  std::vector<CoarseLevelView> views;
  for (std::size_t l = first; l < levels_.size(); ++l) {
    Level& level = levels_[l];
    if (l + 1 == levels_.size()) {
      views.push_back({inverse_.get()});
    } else {
      views.push_back({l == 0 ? fine : level.A, level.P.get(), level.R.get(), level.inv_diag.get(),
                       level.relaxation.get(), level.block_matrix.get()});
    }
  }
  coarse_ = CoarseCycle::make(blas_, first, std::move(views), options_);
  if (!coarse_) fine_csr_.reset();
  phases.add("one-launch cycle", start);
}

MatrixOptions VCycle::upload_options() const {
  MatrixOptions options;
  options.keep_host_copy = blas_.location() == Location::Host;
  options.defer_upload = options.keep_host_copy;  // the host backend's cycle reads the host copies only
  options.format_statistics = false;
  return options;
}

SetupKernels VCycle::copy_kernels() const {
  return SetupKernels(blas_.context(), blas_.params().amg_setup, blas_.params().galerkin);
}

// On the device by csr_view.cl (no trip through the host) where it has fp64, as its kernels read and
// write double values; else through the host (a small matrix, by fine_max_rows). The copy stays for
// the updates: with the launch's own copy of its values the finest operator is held three times, each
// copy bounded by the rows (100,000 rows of 30 entries: 36 MB in double).
std::shared_ptr<Matrix> VCycle::make_fine_copy(Matrix& A) const {
  if (A.context()->info().fp64) return csr_copy(copy_kernels(), A);
  return std::make_shared<Matrix>(A.context(), A.to_host(), Format::Csr, upload_options());
}

void VCycle::refresh_fine_level(Matrix& A) {
  if (!coarse_ || coarse_->first_level() != 0) return;
  if (!fine_csr_ && CoarseCycle::reads(A)) {
    coarse_->set_first_operator(A);
    return;
  }
  if (!fine_csr_) {  // the setup's A was in CSR, this one is not
    fine_csr_ = make_fine_copy(A);
  } else if (A.context()->info().fp64) {
    refresh_csr_copy(copy_kernels(), A, *fine_csr_);
  } else {
    fine_csr_->update_values(A.to_host());
  }
  coarse_->set_first_operator(*fine_csr_);
}

std::unique_ptr<Relaxation> VCycle::make_relaxation(Level& level, double gershgorin, std::size_t l) {
  const SpectrumPolicy policy{options_.eigen_iterations, 1.1, static_cast<std::uint64_t>(l) + 1,
                              options_.update_eigen_iterations};
  Matrix* blocks = level.block_matrix.get();
  if (options_.smoother == AmgSmoother::Jacobi)
    return std::make_unique<DampedJacobi>(blas_, *level.A, gershgorin, *level.inv_diag, options_.jacobi_weight, policy,
                                          blocks);
  const ChebyshevKind kind =
      options_.smoother == AmgSmoother::Chebyshev4 ? ChebyshevKind::Fourth : ChebyshevKind::First;
  return std::make_unique<ChebyshevRelaxation>(blas_, *level.A, gershgorin, *level.inv_diag, options_.chebyshev_degree,
                                               kind, options_.chebyshev_lower_ratio, policy, blocks);
}

void VCycle::refresh(Matrix& A, const HostHierarchy& h, bool prolongators, PhaseLog& phases) {
  auto start = Clock::now();
  for (std::size_t l = 0; l < h.size(); ++l) {
    const HostLevel& host = h.level(l);
    Level& level = levels_[l];
    if (l == 0) level.A = &A;
    if (level.owned) level.owned->update_values(host.A->values);
    if (level.P && prolongators) {
      level.P->update_values(host.smoothed.P.values);
      level.R->update_values(host.restriction.matrix.values);
    }
  }
  inverse_->update_values(h.coarsest_inverse().inverse.values);
  refresh_fine_level(A);
  phases.add("upload", start);
  refresh_node_blocks(&h, phases);
  refresh_smoothers(&h, phases);
  if (coarse_) coarse_->refresh();
}

void VCycle::refresh_on_device(Matrix& A, const HostHierarchy* h, PhaseLog& phases,
                               const std::function<void(std::size_t l, Matrix& A_l)>& next_level) {
  levels_[0].A = &A;
  for (std::size_t l = 0; l + 1 < levels_.size(); ++l) {
    Level& level = levels_[l];
    Level& next = levels_[l + 1];
    if (next_level) {
      next_level(l, *level.A);
      continue;
    }
    const auto start = Clock::now();
    if (!level.AP)
      level.AP = std::make_shared<Matrix>(A.context(), h->level(l + 1).galerkin.AP, Format::Csr, upload_options());
    multiply_on_device(*level.A, *level.P, *level.AP, blas_.params().galerkin);
    multiply_on_device(*level.R, *level.AP, *next.owned, blas_.params().galerkin);
    next.owned->values_written_on_device();
    phases.add("galerkin product", start);
  }
  auto start = Clock::now();
  const HostCsrMatrix coarsest = levels_.back().A->to_host();
  for (double v : coarsest.values)
    if (!std::isfinite(v))
      throw Error("amg: the coarse operator of level " + std::to_string(levels_.size() - 1) + " holds " +
                  format_number(v) + " after the update");
  inverse_->update_values(dense_inverse(coarsest, static_cast<int>(levels_.size()) - 1).inverse.values);
  phases.add("coarse inverse", start);
  start = Clock::now();
  refresh_fine_level(A);
  if (fine_csr_) phases.add("one-launch CSR copy", start);
  refresh_node_blocks(nullptr, phases);  // the host hierarchy's values are the setup's: read the new ones back
  refresh_smoothers(h, phases);
  if (coarse_) coarse_->refresh();
}

// Every level's diagonal scan and Lanczos steps are enqueued first and collected after one wait, where
// each level waited twice (its scan's read, its run's read): on a GPU the small levels' kernels then
// follow each other without a round trip to the host between them. A bad diagonal is still reported
// for the finest level that has one.
void VCycle::refresh_smoothers(const HostHierarchy* h, PhaseLog& phases) {
  const auto start = Clock::now();
  if (options_.smoother == AmgSmoother::GaussSeidel) {
    for (std::size_t l = 0; l + 1 < levels_.size(); ++l) levels_[l].gauss_seidel->refresh(levels_[l].A->host_csr());
    phases.add("smoother setup", start);
    return;
  }
  std::vector<DiagonalScanInFlight> scans;
  scans.reserve(levels_.size());
  for (std::size_t l = 0; l + 1 < levels_.size(); ++l) {
    Level& level = levels_[l];
    scans.push_back(start_diagonal_scan(*level.A, level.inv_diag.get(), blas_.location(), h ? h->level(l).A : nullptr,
                                        &level.scan_buffers));
    level.relaxation->start_refresh(*level.A);
  }
  if (blas_.location() == Location::Device) blas_.context()->finish();
  for (std::size_t l = 0; l + 1 < levels_.size(); ++l) {
    const DiagonalScan scan = scans[l].collect();
    if (scan.first_bad_row >= 0) throw diagonal_error(l, scan.first_bad_row, scan.bad_value);
    const Level& level = levels_[l];
    level.relaxation->finish_refresh(level.node_blocks ? level.node_blocks->gershgorin() : scan.gershgorin);
  }
  phases.add("smoother setup", start);
}

double VCycle::refresh_diagonal(std::size_t l, const HostCsrMatrix* host) {
  Level& level = levels_[l];
  const DiagonalScan scan = scan_diagonal(*level.A, level.inv_diag.get(), blas_.location(), host);
  if (scan.first_bad_row >= 0) throw diagonal_error(l, scan.first_bad_row, scan.bad_value);
  return scan.gershgorin;
}

void VCycle::apply(Vector& r, Vector& z) { cycle(0, r, z, true); }

// Per level: the pre-smoother, r = b - A x, b_c = R r, the coarser level's cycle cycle_index times
// (1: a V-cycle, 2: a W-cycle; the later visits start from the earlier ones' x_c), x += P x_c, the
// post-smoother. Memory moved on a level with Chebyshev(k) smoothing and one sweep each way: 2k SpMVs
// with A, one with R and one with P, and about 14 vectors of its size per sweep, times the visits of the
// level (cycle_index^l on level l).
void VCycle::cycle(std::size_t l, Vector& b, Vector& x, bool x_is_zero) {
  if (coarse_ && l == coarse_->first_level() && coarse_->run(b, x, x_is_zero)) return;
  if (l + 1 == levels_.size()) {  // exact, whatever x held
    blas_.spmv(1.0, *inverse_, b, 0.0, x);
    return;
  }
  Level& level = levels_[l];
  Level& next = levels_[l + 1];
  if (options_.pre_sweeps > 0) {
    if (level.gauss_seidel)
      level.gauss_seidel->forward(level.A->host_csr(), b, x, x_is_zero, options_.pre_sweeps);
    else
      level.relaxation->apply(*level.A, b, x, x_is_zero, options_.pre_sweeps);
    x_is_zero = false;
  }
  residual(blas_, *level.A, b, x, *level.r, x_is_zero);
  blas_.spmv(1.0, *level.R, *level.r, 0.0, *next.b, "restrict");
  // The coarsest level is solved exactly: a second visit would change nothing.
  const int visits = l + 2 == levels_.size() ? 1 : options_.cycle_index;
  for (int visit = 0; visit < visits; ++visit) cycle(l + 1, *next.b, *next.x, visit == 0);
  blas_.spmv(1.0, *level.P, *next.x, x_is_zero ? 0.0 : 1.0, x, "prolong");
  if (options_.post_sweeps > 0) {
    if (level.gauss_seidel)
      level.gauss_seidel->backward(level.A->host_csr(), b, x, options_.post_sweeps);
    else
      level.relaxation->apply(*level.A, b, x, false, options_.post_sweeps);
  }
}

std::vector<AmgLevelInfo> VCycle::level_info() const {
  std::vector<AmgLevelInfo> info(levels_.size());
  const std::optional<std::size_t> one_launch = one_launch_level();
  const bool half = blas_.options().matrix_values == ValueStorage::Half && blas_.location() == Location::Device;
  for (std::size_t l = 0; l < levels_.size(); ++l) {
    info[l].rows = levels_[l].A->rows();
    info[l].nnz = levels_[l].A->nnz();
    // The levels of the one-launch coarse cycle read its own copies, in the working precision.
    Matrix& read = l + 1 == levels_.size() ? *inverse_ : *levels_[l].A;
    const bool launched = one_launch && l >= *one_launch;
    info[l].values = half && !launched && read.value_storage(ValueStorage::Half) == ValueStorage::Half
                         ? "half"
                         : to_string(blas_.precision());
    if (l + 1 < levels_.size()) {
      info[l].prolongator_nnz = levels_[l].P->nnz();
      if (levels_[l].relaxation) info[l].lambda_max = levels_[l].relaxation->lambda_max();
      info[l].format = to_string(levels_[l].A->format());
    } else {
      info[l].format = "dense inverse";
    }
  }
  return info;
}

std::string VCycle::smoother_description() const {
  if (levels_.size() < 2) return "none (one level)";
  return levels_[0].gauss_seidel ? levels_[0].gauss_seidel->description() : levels_[0].relaxation->description();
}

}  // namespace clkr::detail::amg
