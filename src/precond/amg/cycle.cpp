// Upload of the hierarchy and the V-cycle: pre-smoothing, residual, restriction, the coarser level,
// prolongation and post-smoothing, with the coarsest level solved by one dense SpMV.
#include "cycle.hpp"

#include <chrono>

#include "clkr/runtime/error.hpp"

namespace clkr::detail::amg {
namespace {

using Clock = std::chrono::steady_clock;

void add_phase(PhaseTimes& phases, const std::string& name, Clock::time_point start) {
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  for (auto& [phase, total] : phases)
    if (phase == name) {
      total += seconds;
      return;
    }
  phases.emplace_back(name, seconds);
}

std::vector<double> inverse_of(const std::vector<double>& d) {
  std::vector<double> inv(d.size());
  for (std::size_t i = 0; i < d.size(); ++i) inv[i] = 1.0 / d[i];
  return inv;
}

}  // namespace

VCycle::VCycle(Blas& blas, Matrix& A, const HostHierarchy& h, const AmgOptions& options, PhaseTimes& phases)
    : blas_(blas), options_(options) {
  const auto& context = A.context();
  MatrixOptions matrix_options;
  // The host backend multiplies with the host CSR: keep it rather than read the device back.
  matrix_options.keep_host_copy = blas.location() == Location::Host;
  auto start = Clock::now();
  levels_.resize(h.size());
  for (std::size_t l = 0; l < h.size(); ++l) {
    const HostLevel& host = h.level(l);
    Level& level = levels_[l];
    const std::string name = "amg level " + std::to_string(l);
    if (l == 0) {
      level.A = &A;
    } else {
      level.owned = std::make_unique<Matrix>(context, *host.A, Format::Csr, matrix_options);
      level.A = level.owned.get();
      level.b = std::make_unique<Vector>(context, static_cast<std::size_t>(host.A->rows), name + " b");
      level.x = std::make_unique<Vector>(context, static_cast<std::size_t>(host.A->rows), name + " x");
    }
    if (l + 1 < h.size()) {
      level.P = std::make_unique<Matrix>(context, host.smoothed.P, Format::Csr, matrix_options);
      level.R = std::make_unique<Matrix>(context, host.restriction.matrix, Format::Csr, matrix_options);
      level.r = std::make_unique<Vector>(context, static_cast<std::size_t>(host.A->rows), name + " r");
      level.inv_diag = std::make_unique<Vector>(context, inverse_of(host.diagonal), name + " inv_diag");
    }
  }
  inverse_ = std::make_unique<Matrix>(context, h.coarsest_inverse().inverse, Format::Csr, matrix_options);
  add_phase(phases, "upload", start);
  start = Clock::now();
  for (std::size_t l = 0; l + 1 < h.size(); ++l) levels_[l].relaxation = make_relaxation(levels_[l], *h.level(l).A, l);
  add_phase(phases, "smoother setup", start);
}

VCycle::~VCycle() = default;

std::unique_ptr<Relaxation> VCycle::make_relaxation(Level& level, const HostCsrMatrix& host, std::size_t l) {
  const SpectrumPolicy policy{options_.eigen_iterations, 1.1, static_cast<std::uint64_t>(l) + 1};
  if (options_.smoother == AmgSmoother::Jacobi)
    return std::make_unique<DampedJacobi>(blas_, *level.A, &host, *level.inv_diag, options_.jacobi_weight, policy);
  return std::make_unique<ChebyshevRelaxation>(blas_, *level.A, &host, *level.inv_diag, options_.chebyshev_degree,
                                               options_.chebyshev_lower_ratio, policy);
}

void VCycle::refresh(Matrix& A, const HostHierarchy& h, PhaseTimes& phases) {
  auto start = Clock::now();
  for (std::size_t l = 0; l < h.size(); ++l) {
    const HostLevel& host = h.level(l);
    Level& level = levels_[l];
    if (l == 0) level.A = &A;
    if (level.owned) level.owned->update_values(host.A->values);
    if (level.P) {
      level.P->update_values(host.smoothed.P.values);
      level.R->update_values(host.restriction.matrix.values);
      level.inv_diag->assign(inverse_of(host.diagonal));
    }
  }
  inverse_->update_values(h.coarsest_inverse().inverse.values);
  add_phase(phases, "upload", start);
  start = Clock::now();
  for (std::size_t l = 0; l + 1 < h.size(); ++l) levels_[l].relaxation->refresh(*levels_[l].A, h.level(l).A);
  add_phase(phases, "smoother setup", start);
}

void VCycle::apply(Vector& r, Vector& z) { cycle(0, r, z); }

// Per level: the pre-smoother (from x = 0), r = b - A x, b_c = R r, the coarser level, x += P x_c,
// the post-smoother. Memory moved on a level with Chebyshev(k) smoothing and one sweep each way:
// 2k SpMVs with A, one with R and one with P, and about 14 vectors of its size per sweep.
void VCycle::cycle(std::size_t l, Vector& b, Vector& x) {
  if (l + 1 == levels_.size()) {
    blas_.spmv(1.0, *inverse_, b, 0.0, x);
    return;
  }
  Level& level = levels_[l];
  Level& next = levels_[l + 1];
  bool x_is_zero = true;
  if (options_.pre_sweeps > 0) {
    level.relaxation->apply(*level.A, b, x, true, options_.pre_sweeps);
    x_is_zero = false;
  }
  residual(blas_, *level.A, b, x, *level.r, x_is_zero);
  blas_.spmv(1.0, *level.R, *level.r, 0.0, *next.b);
  cycle(l + 1, *next.b, *next.x);
  blas_.spmv(1.0, *level.P, *next.x, x_is_zero ? 0.0 : 1.0, x);
  if (options_.post_sweeps > 0) level.relaxation->apply(*level.A, b, x, false, options_.post_sweeps);
}

std::vector<AmgLevelInfo> VCycle::level_info(const HostHierarchy& h) const {
  std::vector<AmgLevelInfo> info(h.size());
  for (std::size_t l = 0; l < h.size(); ++l) {
    const HostLevel& host = h.level(l);
    info[l].rows = host.A->rows;
    info[l].nnz = host.A->nnz();
    if (l + 1 < h.size()) {
      info[l].prolongator_nnz = host.smoothed.P.nnz();
      info[l].lambda_max = levels_[l].relaxation->lambda_max();
      info[l].format = to_string(levels_[l].A->format());
    } else {
      info[l].format = "dense inverse";
    }
  }
  return info;
}

std::string VCycle::smoother_description() const {
  return levels_.size() > 1 ? levels_[0].relaxation->description() : std::string("none (one level)");
}

}  // namespace clkr::detail::amg
