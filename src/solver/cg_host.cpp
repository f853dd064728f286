// CG of small systems on CPU devices, run on the host (cg_host.hpp says why): the host backend's CG
// and PCG iteration with its BLAS calls fused into three loops over plain arrays.
#include "cg_host.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <tuple>
#include <vector>

#include "../blas/host_arithmetic.hpp"
#include "../runtime/host_threads.hpp"
#include "clkr/precond/jacobi.hpp"
#include "clkr/solver/cg.hpp"
#include "solver_core.hpp"

namespace clkr::detail {
namespace {

// Nonzeros from which the host loops run on every OpenMP thread: below, a fork and join per loop
// (a few microseconds) costs more than the loop's share it saves (measured: docs/performance.md).
constexpr std::size_t kThreadedNnz = 50000;

const Jacobi* as_jacobi(const Preconditioner* M) {
  return preconditioned(M) ? dynamic_cast<const Jacobi*>(M) : nullptr;
}

// The host copy of v in arithmetic A, as an array of its own.
template <class A>
std::vector<typename A::real> host_values(Vector& v) {
  const auto view = A::view(v, Access::Read);
  std::vector<typename A::real> values(v.size());
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = view.get(static_cast<std::ptrdiff_t>(i));
  return values;
}

// The iteration's state: A in CSR with values in the precision, and the vectors of CG (z and the
// inverse diagonal only with Jacobi).
template <class A>
class HostCg {
 public:
  using real = typename A::real;

  HostCg(Blas& blas, Matrix& matrix, Vector& b, Vector* inverse_diagonal)
      : blas_(blas), csr_(matrix.host_csr()), n_(static_cast<std::size_t>(csr_.rows)), b_(host_values<A>(b)) {
    values_.reserve(csr_.values.size());
    for (double v : csr_.values) values_.push_back(A::scalar(v));
    x_.assign(n_, A::zero());
    r_.assign(n_, A::zero());
    p_.assign(n_, A::zero());
    q_.assign(n_, A::zero());
    if (inverse_diagonal) {
      inv_diag_ = host_values<A>(*inverse_diagonal);
      z_.assign(n_, A::zero());
    }
    split_rows();
  }

  bool preconditioned() const { return !inv_diag_.empty(); }
  // z = M^-1 r computed so far (with Jacobi).
  std::uint64_t applications() const { return applications_; }
  std::vector<real>& x() { return x_; }

  // r = b - A x;  z = M^-1 r;  p = z (r without M).  Returns {r'r, r'z} (r'z = r'r without M).
  std::pair<double, double> restart() {
    if (preconditioned()) ++applications_;
    return timed("cg_host_residual", spmv_flops() + 5.0 * n_, spmv_bytes() + 2.0 * n_ * sizeof(real),
                 [&] { return restart_loop(); });
  }

  // q = A p;  returns p'q.
  double spmv_dot() {
    return timed("cg_host_spmv_dot", spmv_flops() + 2.0 * n_, spmv_bytes(), [&] { return spmv_dot_loop(); });
  }

  // x += alpha p;  r -= alpha q;  z = M^-1 r.  Returns {r'r, r'z}.
  std::pair<double, double> update_xr(double alpha) {
    if (preconditioned()) ++applications_;
    const double vectors = preconditioned() ? 8.0 : 6.0;
    return timed("cg_host_update_xr", (preconditioned() ? 9.0 : 6.0) * n_, vectors * n_ * sizeof(real),
                 [&] { return update_xr_loop(alpha); });
  }

  // p = z + beta p (r for z without M).
  void update_p(double beta) {
    timed("cg_host_update_p", 2.0 * n_, 3.0 * n_ * sizeof(real), [&] {
      update_p_loop(beta);
      return 0;
    });
  }

 private:
  // Bytes and flops of one product with A: values, column indices and row offsets, the vector
  // gathered (counted once) and the result written.
  double spmv_bytes() const {
    return static_cast<double>(values_.size()) * (sizeof(real) + sizeof(std::int32_t)) +
           static_cast<double>(n_ + 1) * sizeof(std::int32_t) + 2.0 * n_ * sizeof(real);
  }
  double spmv_flops() const { return 2.0 * static_cast<double>(values_.size()); }

  // Runs body() on the host and counts it under `op` in the Blas's counters, so the solve report and
  // the benchmarks see this path's time as they see kernels'.
  template <class Body>
  auto timed(const char* op, double flops, double bytes, Body&& body) {
    const auto start = std::chrono::steady_clock::now();
    auto result = body();
    blas_.record_host(op, flops, bytes,
                      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return result;
  }

  // Two sums a loop accumulates (r'r and r'z, or p'q alone).
  struct Sums {
    real first = A::zero(), second = A::zero();
    Sums operator+(const Sums& o) const { return {A::add(first, o.first), A::add(second, o.second)}; }
  };

  // step(i, sums) for every row, over the row ranges of chunks_ (one thread each where there are
  // several), each range with four sums taking rows in turn: the adder's latency is hidden and the
  // result depends only on the ranges, not on the threads' timing.
  template <class Step>
  Sums over_rows(const Step& step) const {
    const auto range = [&](std::size_t begin, std::size_t end) {
      Sums s0, s1, s2, s3;
      std::size_t i = begin;
      for (; i + 4 <= end; i += 4) {
        step(i, s0);
        step(i + 1, s1);
        step(i + 2, s2);
        step(i + 3, s3);
      }
      for (; i < end; ++i) step(i, s0);
      return (s0 + s1) + (s2 + s3);
    };
    const auto chunks = static_cast<std::ptrdiff_t>(bounds_.size() - 1);
    if (chunks == 1) return range(0, n_);
    std::vector<Sums> partial(bounds_.size() - 1);
    const int threads = static_cast<int>(chunks);
#pragma omp parallel for schedule(static, 1) num_threads(threads)
    for (std::ptrdiff_t c = 0; c < chunks; ++c) partial[c] = range(bounds_[c], bounds_[c + 1]);
    Sums total = partial[0];
    for (std::size_t c = 1; c < partial.size(); ++c) total = total + partial[c];
    return total;
  }

  std::pair<double, double> restart_loop() {
    const real minus_one = A::scalar(-1.0);
    const Sums sums = over_rows([&](std::size_t i, Sums& s) {
      const real r = A::mad(minus_one, row_times(x_.data(), i), b_[i]);
      r_[i] = r;
      s.first = A::mad(r, r, s.first);
      if (preconditioned()) {
        const real z = A::mul(inv_diag_[i], r);
        z_[i] = z;
        s.second = A::mad(r, z, s.second);
        p_[i] = z;
      } else {
        p_[i] = r;
      }
    });
    return {A::to_double(sums.first), A::to_double(preconditioned() ? sums.second : sums.first)};
  }

  double spmv_dot_loop() {
    const Sums sums = over_rows([&](std::size_t i, Sums& s) {
      const real q = row_times(p_.data(), i);
      q_[i] = q;
      s.first = A::mad(p_[i], q, s.first);
    });
    return A::to_double(sums.first);
  }

  std::pair<double, double> update_xr_loop(double alpha) {
    const real a = A::scalar(alpha), minus_a = A::scalar(-alpha);
    const Sums sums = over_rows([&](std::size_t i, Sums& s) {
      x_[i] = A::mad(a, p_[i], x_[i]);
      const real r = A::mad(minus_a, q_[i], r_[i]);
      r_[i] = r;
      s.first = A::mad(r, r, s.first);
      if (preconditioned()) {
        const real z = A::mul(inv_diag_[i], r);
        z_[i] = z;
        s.second = A::mad(r, z, s.second);
      }
    });
    return {A::to_double(sums.first), A::to_double(preconditioned() ? sums.second : sums.first)};
  }

  void update_p_loop(double beta) {
    const real b = A::scalar(beta);
    const std::vector<real>& z = preconditioned() ? z_ : r_;
    over_rows([&](std::size_t i, Sums&) { p_[i] = A::mad(b, p_[i], z[i]); });
  }

  // (A v)_i in four partial sums, as the device's CSR row kernels add it.
  real row_times(const real* v, std::size_t i) const {
    const std::int32_t* cols = csr_.col_indices.data();
    const real* values = values_.data();
    std::int64_t k = csr_.row_offsets[i];
    const std::int64_t end = csr_.row_offsets[i + 1];
    real s0 = A::zero(), s1 = A::zero(), s2 = A::zero(), s3 = A::zero();
    for (; k + 4 <= end; k += 4) {
      s0 = A::mad(values[k], v[cols[k]], s0);
      s1 = A::mad(values[k + 1], v[cols[k + 1]], s1);
      s2 = A::mad(values[k + 2], v[cols[k + 2]], s2);
      s3 = A::mad(values[k + 3], v[cols[k + 3]], s3);
    }
    for (; k < end; ++k) s0 = A::mad(values[k], v[cols[k]], s0);
    return A::add(A::add(s0, s1), A::add(s2, s3));
  }

  // Row ranges of about equal nonzeros, one per thread when the system is large enough for threads
  // to pay (kThreadedNnz), else one.
  void split_rows() {
    const int threads = values_.size() >= kThreadedNnz ? std::max(1, host_thread_count()) : 1;
    bounds_.assign(1, 0);
    const double per_chunk = static_cast<double>(values_.size()) / threads;
    std::size_t row = 0;
    for (int c = 1; c < threads; ++c) {
      const auto target = static_cast<std::int64_t>(per_chunk * c);
      while (row < n_ && csr_.row_offsets[row] < target) ++row;
      bounds_.push_back(row);
    }
    bounds_.push_back(n_);
  }

  Blas& blas_;
  const HostCsrMatrix& csr_;
  std::size_t n_;
  std::vector<real> values_, b_, x_, r_, p_, q_, z_, inv_diag_;
  std::vector<std::size_t> bounds_;  // row ranges: bounds_[c] to bounds_[c + 1]
  std::uint64_t applications_ = 0;
};

template <class A>
void iterate(HostCg<A>& cg, const SolveOptions& options, SolveMonitor& monitor) {
  const bool jacobi = cg.preconditioned();
  auto [rr, rz] = cg.restart();
  if (jacobi && !monitor.check_finite(0, "r'z", rz)) return;
  if (!monitor.record_start("r'r", rr, std::sqrt(rr))) return;
  if (jacobi && !positive_rz(monitor, 0, rz)) return;
  for (int k = 1; k <= options.max_iterations; ++k) {
    const double pq = cg.spmv_dot();
    if (!positive_curvature(monitor, k, pq)) return;
    auto [rr_new, rz_new] = cg.update_xr(rz / pq);
    if (!monitor.check_finite(k, "r'r", rr_new) || (jacobi && !monitor.check_finite(k, "r'z", rz_new))) return;
    monitor.record(k, std::sqrt(rr_new));
    if (monitor.reached(std::sqrt(rr_new))) {
      // Confirm on r = b - A x: if the recursive residual drifted, restart from x with p = M^-1 r.
      std::tie(rr_new, rz_new) = cg.restart();
      if (monitor.check_explicit(k, std::sqrt(rr_new)) == AfterCheck::Stop) return;
      if (jacobi && !positive_rz(monitor, k, rz_new)) return;
    } else {
      if (jacobi && !positive_rz(monitor, k, rz_new)) return;
      cg.update_p(rz_new / rz);
    }
    rz = rz_new;
  }
}

}  // namespace

std::string host_cg_unsupported(const Blas& blas, const Preconditioner* M) {
  if (blas.location() != Location::Device) return "the Blas computes on the host backend already";
  if (preconditioned(M) && !as_jacobi(M)) return "the preconditioner is " + to_string(M->kind()) + ", not Jacobi";
  if (as_jacobi(M) && M->precision() != blas.precision())
    return "the Jacobi preconditioner computes in " + to_string(M->precision()) + ", the solver in " +
           to_string(blas.precision());
  return {};
}

std::size_t host_cg_max_nnz(const Blas& blas) {
  const CgParams& cg = blas.params().cg;
  return blas.precision() == Precision::QuasiDouble ? cg.host_max_nnz_quasi_double : cg.host_max_nnz;
}

bool host_cg_preferred(const Blas& blas, const Matrix& A, const Preconditioner* M) {
  return cg_runs_on_host(CgPath::Auto, blas.context()->info(), blas.params(), blas.precision(), A.nnz()) &&
         host_cg_unsupported(blas, M).empty();
}

void cg_host(Blas& blas, Matrix& A, Preconditioner* M, Vector& b, Vector& x, bool x_is_zero,
             const SolveOptions& options, SolveMonitor& monitor) {
  Jacobi* jacobi = preconditioned(M) ? dynamic_cast<Jacobi*>(M) : nullptr;
  std::uint64_t applications = 0;
  with_host_arithmetic(blas.precision(), [&](auto arith) {
    using Arith = decltype(arith);
    HostCg<Arith> cg(blas, A, b, jacobi ? &jacobi->inverse_diagonal() : nullptr);
    if (!x_is_zero) cg.x() = host_values<Arith>(x);
    iterate(cg, options, monitor);
    applications = cg.applications();
    const auto view = Arith::view(x, Access::Write);
    for (std::size_t i = 0; i < cg.x().size(); ++i) view.set(static_cast<std::ptrdiff_t>(i), cg.x()[i]);
  });
  // Jacobi was applied once at the start, once per iteration and once per restart: as apply() counts.
  if (jacobi) jacobi->count_applications(applications);
  // The solvers' promise: x ends valid in blas.precision() at blas.location().
  x.device(blas.precision(), Access::Read);
}

}  // namespace clkr::detail

namespace clkr {

bool cg_runs_on_host(CgPath path, const DeviceInfo& device, const DeviceParams& params, Precision precision,
                     std::int64_t nnz) {
  if (path == CgPath::Host) return true;
  const std::size_t limit =
      precision == Precision::QuasiDouble ? params.cg.host_max_nnz_quasi_double : params.cg.host_max_nnz;
  return path == CgPath::Auto && device.type == DeviceType::Cpu && static_cast<std::size_t>(nnz) <= limit;
}

}  // namespace clkr
