// Spectrum bounds of D^-1 A: CG-Lanczos Ritz values on the device (scalars kept there until the run
// ends) or the host backend, Gershgorin, and the tridiagonal eigenvalue bisection.
#include "spectrum.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "../runtime/format_number.hpp"
#include "clkr/blas/kernel_args.hpp"
#include "clkr/runtime/error.hpp"
#include "diagonal_scan.hpp"
#include "lanczos_start.hpp"
#include "relaxation_kernels.hpp"

namespace clkr::detail {
namespace {

// How many eigenvalues of the tridiagonal (a, b) lie below x (the sign changes of its Sturm sequence).
int eigenvalues_below(const std::vector<double>& a, const std::vector<double>& b, double x) {
  int count = 0;
  double q = 1;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double off = i > 0 ? b[i - 1] * b[i - 1] : 0.0;
    q = a[i] - x - (i > 0 ? off / q : 0.0);
    if (q == 0) q = -std::numeric_limits<double>::min();  // a zero pivot counts as negative
    if (q < 0) ++count;
  }
  return count;
}

// The k-th smallest eigenvalue (0-based) within [lo, hi].
double kth_eigenvalue(const std::vector<double>& a, const std::vector<double>& b, int k, double lo, double hi) {
  for (int iteration = 0; iteration < 200; ++iteration) {
    const double mid = 0.5 * (lo + hi);
    if (mid <= lo || mid >= hi || hi - lo <= 1e-13 * std::max(std::abs(lo), std::abs(hi))) break;
    if (eigenvalues_below(a, b, mid) > k)
      hi = mid;
    else
      lo = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace

std::pair<double, double> tridiagonal_extremes(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.empty()) return {0.0, 0.0};
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const double radius = (i > 0 ? std::abs(b[i - 1]) : 0.0) + (i + 1 < a.size() ? std::abs(b[i]) : 0.0);
    lo = std::min(lo, a[i] - radius);
    hi = std::max(hi, a[i] + radius);
  }
  const double pad = 1e-12 * std::max(std::abs(lo), std::abs(hi)) + std::numeric_limits<double>::min();
  lo -= pad;
  hi += pad;
  const int n = static_cast<int>(a.size());
  return {kth_eigenvalue(a, b, 0, lo, hi), kth_eigenvalue(a, b, n - 1, lo, hi)};
}

double gershgorin_bound(const HostCsrMatrix& A) { return scan_diagonal(A, nullptr).gershgorin; }

double gershgorin_bound(Matrix& A) { return scan_diagonal(A, nullptr, Location::Device).gershgorin; }

namespace {

// The scalars of `steps` steps of Jacobi-preconditioned CG on A y = r0 from y = 0, r0 = `r` on entry:
// rz_0, pq_0, rz_1, pq_1, ..., rz_steps (rz_j = r_j' D^-1 r_j, pq_j = p_j' A p_j). Each step is
// q = A p, alpha = rz / pq, r -= alpha q, z = D^-1 r, beta = rz_next / rz, p = z + beta p. Every step
// runs, also past a breakdown (its scalars are then meaningless, and the caller stops reading them
// there). r, z, p, q: the run's vectors (r holds the start vector).
class CgScalars {
 public:
  CgScalars(Blas& blas, Matrix& A, Vector& dinv, Matrix* blocks, LanczosWork& work)
      : blas_(blas),
        A_(A),
        dinv_(dinv),
        blocks_(blocks),
        r_(work.r),
        z_(work.z),
        p_(work.p),
        q_(work.q),
        work_(work),
        kernels_(blas) {}

  // On the host the scalars are returned; on the device they are filed there and `history` receives
  // them once the queue reaches the read (scalars_from_history converts them).
  std::vector<double> run(int steps, PendingRead& history) {
    precondition();
    blas_.copy(z_, p_);
    if (blas_.location() != Location::Device) return on_host(steps);
    on_device(steps, history);
    return {};
  }

 private:
  // z = D^-1 r, or B^-1 r with node blocks.
  void precondition() {
    if (blocks_) {
      blas_.spmv(1.0, *blocks_, r_, 0.0, z_);
    } else {
      kernels_.scale_by_diagonal(1.0, dinv_, r_, z_);
    }
  }

  // The host backend: the scalars are at hand after every dot.
  std::vector<double> on_host(int steps) {
    std::vector<double> scalars{blas_.dot(r_, z_)};
    for (int j = 0; j < steps; ++j) {
      blas_.spmv(1.0, A_, p_, 0.0, q_);
      const double rz = scalars.back(), pq = blas_.dot(p_, q_);
      blas_.axpy(-(rz / pq), q_, r_);
      precondition();
      const double rz_next = blas_.dot(r_, z_);
      blas_.aypx(rz_next / rz, z_, p_);
      scalars.push_back(pq);
      scalars.push_back(rz_next);
    }
    return scalars;
  }

  // On the device the dots' results stay there: kernels/precond/lanczos.cl's updates read them and file
  // them in one buffer that is read once, after the last step (one wait for the run, or for the runs of
  // every level together, instead of two a step; and no copy commands: there were two a step, of nine).
  void on_device(int steps, PendingRead& read) {
    const Precision precision = blas_.precision();
    const std::size_t element = bytes_per_element(precision);
    const std::size_t count = 2 * static_cast<std::size_t>(steps) + 1;
    Context& context = *blas_.context();
    const cl::Buffer& history = work_.history;
    // rz, rz_next and pq in three kept buffers: rz and rz_next trade places every step.
    const cl::Buffer* rz_at = &work_.scalars[0];
    const cl::Buffer* rz_next_at = &work_.scalars[1];
    DeviceScalar rz = blas_.dot_async(r_, z_, *rz_at);
    const std::size_t n = r_.size();
    const double e = static_cast<double>(element) * static_cast<double>(n);
    cl::Kernel& update_r = blas_.elementwise_kernel("precond/lanczos.cl", "lanczos_update_r");
    cl::Kernel& update_p = blas_.elementwise_kernel("precond/lanczos.cl", "lanczos_update_p");
    for (int j = 0; j < steps; ++j) {
      blas_.spmv(1.0, A_, p_, 0.0, q_);
      const DeviceScalar pq = blas_.dot_async(p_, q_, work_.scalars[2]);
      KernelArgs(update_r, precision)
          .value(cl_ulong{0})
          .value(cl_ulong{0})
          .value(rz.buffer())
          .value(pq.buffer())
          .vector(q_.device(precision, Access::Read))
          .vector(r_.device(precision, Access::ReadWrite))
          .vector(dinv_.device(precision, Access::Read))
          .vector(z_.device(precision, Access::Write))
          .value(history)
          .value(static_cast<cl_uint>(2 * j));  // rz_j, pq_j
      blas_.launch_elementwise("lanczos_update_r", update_r, n, 3.0 * static_cast<double>(n), 5.0 * e);
      // With node blocks the kernel's z = D^-1 r is replaced by z = B^-1 r (one SpMV more a step; the
      // scalars still stay on the device).
      if (blocks_) blas_.spmv(1.0, *blocks_, r_, 0.0, z_);
      DeviceScalar rz_next = blas_.dot_async(r_, z_, *rz_next_at);
      KernelArgs(update_p, precision)
          .value(cl_ulong{0})
          .value(cl_ulong{0})
          .value(rz_next.buffer())
          .value(rz.buffer())
          .vector(z_.device(precision, Access::Read))
          .vector(p_.device(precision, Access::ReadWrite))
          .value(history)
          .value(static_cast<cl_uint>(2 * j + 2));  // rz_{j+1}
      blas_.launch_elementwise("lanczos_update_p", update_p, n, 2.0 * static_cast<double>(n), 3.0 * e);
      rz = std::move(rz_next);
      std::swap(rz_at, rz_next_at);
    }
    read.enqueue(context, history, count * element);
  }

  Blas& blas_;
  Matrix& A_;
  Vector& dinv_;
  Matrix* blocks_;
  Vector &r_, &z_, &p_, &q_;
  LanczosWork& work_;
  RelaxationKernels kernels_;
};

// The device run's scalars as doubles: each a float, a (head, tail) float pair or a double.
std::vector<double> scalars_from_history(const std::vector<unsigned char>& bytes, Precision precision) {
  const std::size_t element = bytes_per_element(precision);
  std::vector<double> scalars(bytes.size() / element);
  for (std::size_t k = 0; k < scalars.size(); ++k) {
    const unsigned char* at = bytes.data() + k * element;
    if (precision == Precision::Double) {
      std::memcpy(&scalars[k], at, sizeof(double));
    } else {
      float part[2] = {0.0f, 0.0f};
      std::memcpy(part, at, element);
      scalars[k] = static_cast<double>(part[0]) + static_cast<double>(part[1]);
    }
  }
  return scalars;
}

}  // namespace

LanczosWork::LanczosWork(const std::shared_ptr<Context>& context, std::size_t n, int steps, Precision precision,
                         Location location)
    : r(context, n, "lanczos.r"),
      z(context, n, "lanczos.z"),
      p(context, n, "lanczos.p"),
      q(context, n, "lanczos.q"),
      steps(steps),
      precision(precision),
      location(location) {
  if (location != Location::Device) return;  // the host backend's dots return their values
  const std::size_t element = bytes_per_element(precision);
  history = context->allocate((2 * static_cast<std::size_t>(steps) + 1) * element, "lanczos scalars");
  for (cl::Buffer& b : scalars) b = context->allocate(element, "lanczos dot result");
}

bool LanczosWork::fits(std::size_t n, int run_steps, Precision run_precision, Location run_location) const {
  return r.size() == n && run_steps <= steps && run_precision == precision && run_location == location;
}

SpectrumRun start_spectrum_estimate(Blas& blas, Matrix& A, Vector& dinv, int steps, std::uint64_t seed,
                                    std::unique_ptr<LanczosWork>* kept, Matrix* blocks) {
  SpectrumRun run;
  const std::size_t n = static_cast<std::size_t>(A.rows());
  if (n == 0 || steps <= 0) return run;
  run.steps_ = steps;
  run.precision_ = blas.precision();
  translate_cl_errors("the spectrum estimate", [&] {
    // A work set made here may go when this returns: the queued commands hold its buffers until they ran.
    std::unique_ptr<LanczosWork> made;
    std::unique_ptr<LanczosWork>& work = kept ? *kept : made;
    if (!work || !work->fits(n, steps, blas.precision(), blas.location()))
      work = std::make_unique<LanczosWork>(A.context(), n, steps, blas.precision(), blas.location());
    fill_lanczos_start(blas, work->r, seed);
    run.scalars_ = CgScalars(blas, A, dinv, blocks, *work).run(steps, run.history_);
  });
  run.on_device_ = run.scalars_.empty();
  return run;
}

SpectrumEstimate estimate_spectrum(Blas& blas, Matrix& A, Vector& dinv, int steps, std::uint64_t seed, const char* who,
                                   Matrix* blocks) {
  SpectrumRun run = start_spectrum_estimate(blas, A, dinv, steps, seed, nullptr, blocks);
  if (run.in_flight()) A.context()->finish();
  return run.finish(who);
}

SpectrumEstimate SpectrumRun::finish(const char* who) {
  SpectrumEstimate estimate;
  if (steps_ <= 0) return estimate;
  const int steps = steps_;
  if (on_device_) {
    scalars_ = translate_cl_errors("the spectrum estimate",
                                   [&] { return scalars_from_history(history_.bytes(), precision_); });
    on_device_ = false;
  }
  const std::vector<double>& s = scalars_;
  auto check = [&](const char* name, double value, int step) {
    if (value > 0 && std::isfinite(value)) return;
    throw Error(std::string(who) + ": the spectrum estimate met " + name + " = " + format_number(value) +
                " at Lanczos step " + std::to_string(step) + ": the matrix (or its diagonal) is not positive definite");
  };
  // The CG coefficients, step by step, until the first step that breaks down.
  const double rz_start = s[0];
  check("r'D^-1 r", rz_start, 0);
  std::vector<double> alpha, beta;
  for (int j = 0; j < steps; ++j) {
    const double rz = s[2 * j], pq = s[2 * j + 1], rz_next = s[2 * j + 2];
    check("p'Ap", pq, j);
    alpha.push_back(rz / pq);
    // r'D^-1 r below zero by more than rounding of a vanishing residual: D is not positive definite.
    if (!std::isfinite(rz_next) || rz_next < -1e-28 * rz_start) check("r'D^-1 r", rz_next, j + 1);
    // The Krylov space is exhausted (n <= steps, or an invariant subspace): T is complete.
    if (rz_next <= 1e-28 * rz_start) break;
    beta.push_back(rz_next / rz);
  }
  const std::size_t k = alpha.size();
  std::vector<double> diagonal(k), off(k > 0 ? k - 1 : 0);
  for (std::size_t j = 0; j < k; ++j) {
    diagonal[j] = 1.0 / alpha[j] + (j > 0 ? beta[j - 1] / alpha[j - 1] : 0.0);
    if (j + 1 < k) off[j] = std::sqrt(beta[j]) / alpha[j];
  }
  const auto [lo, hi] = tridiagonal_extremes(diagonal, off);
  estimate.lambda_min = lo;
  estimate.lambda_max = hi;
  estimate.steps = static_cast<int>(k);
  estimate.diagonal = std::move(diagonal);
  estimate.off = std::move(off);
  return estimate;
}

double SpectrumEstimate::lambda_max_after(int k) const {
  if (k >= steps) return lambda_max;
  if (k <= 0) return 0;
  const std::vector<double> a(diagonal.begin(), diagonal.begin() + k), b(off.begin(), off.begin() + (k - 1));
  return tridiagonal_extremes(a, b).second;
}

}  // namespace clkr::detail
