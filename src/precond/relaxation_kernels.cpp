// Launches of kernels/precond/relaxation.cl and the host reference, which computes in double and
// leaves the double copy valid (rounded to single it is the single-precision result exactly for the
// one-product updates; quasi-double gets a result more accurate than the device's).
#include "relaxation_kernels.hpp"

#include <chrono>
#include <initializer_list>
#include <string>

#include "../blas/spmv.hpp"
#include "clkr/blas/kernel_args.hpp"
#include "clkr/runtime/error.hpp"

namespace clkr::detail {
namespace {

constexpr const char* kFile = "precond/relaxation.cl";

// Every operand of one update has the same size (the kernels index them all with one n).
void check_sizes(const char* op, std::size_t n, std::initializer_list<const Vector*> operands) {
  for (const Vector* v : operands)
    if (v->size() != n)
      throw Error(std::string(op) + ": vector '" + v->name() + "' has " + std::to_string(v->size()) +
                  " elements, the others " + std::to_string(n));
}

double element_bytes(const Blas& blas, double elements, std::size_t n) {
  return elements * static_cast<double>(n) * static_cast<double>(bytes_per_element(blas.precision()));
}

// Runs one SpMV with a fused epilogue where it runs (spmv_device, or spmv_epilogue_host on the host
// backend, timed there) and counts it under `op`.
void fused_spmv(Blas& blas, const char* op, Matrix& A, Vector& x, Vector& y, const SpmvEpilogue& e) {
  if (blas.location() == Location::Host) {
    const OpCost cost = spmv_epilogue_cost(A, blas.precision(), e);
    const auto start = std::chrono::steady_clock::now();
    spmv_epilogue_host(A, x, y, e);
    blas.record_host(op, cost.flops, cost.bytes,
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return;
  }
  translate_cl_errors(op, [&] {
    const ValueStorage storage = blas.options().matrix_values;
    const OpCost cost = spmv_epilogue_cost(A, blas.precision(), e, A.value_storage(storage));
    const cl::Event event = spmv_device(*blas.context(), blas.params().spmv, blas.precision(),
                                        blas.options().kahan_spmv, -1.0, A, x, 1.0, y, nullptr, &e, storage);
    blas.record(op, cost.flops, cost.bytes, {event});
  });
}

}  // namespace

void RelaxationKernels::residual(Matrix& A, Vector& b, Vector& x, Vector& r) {
  if (blas_.location() == Location::Device && !spmv_epilogue_supported(A)) {
    if (&r != &b) blas_.copy(b, r);
    blas_.spmv(-1.0, A, x, 1.0, r);
    return;
  }
  SpmvEpilogue e;
  e.kind = SpmvEpilogue::Kind::Residual;
  e.b = &b;
  fused_spmv(blas_, "spmv_residual", A, x, r, e);
}

void RelaxationKernels::residual_and_correction(Matrix& A, Vector& b, Vector& x, Vector& r, double c2, Vector& dinv,
                                                Vector& d) {
  if (blas_.location() == Location::Device && !spmv_epilogue_supported(A)) {  // the unfused sequence
    residual(A, b, x, r);
    scale_by_diagonal(c2, dinv, r, d);
    return;
  }
  SpmvEpilogue e;
  e.kind = SpmvEpilogue::Kind::Residual;
  e.b = &b;
  e.c2 = c2;
  e.dinv = &dinv;
  e.d_out = &d;
  fused_spmv(blas_, "spmv_residual", A, x, r, e);
}

void RelaxationKernels::chebyshev_spmv_step(Matrix& A, double c1, double c2, Vector& dinv, Vector& r_in, Vector& d,
                                            Vector& r, Vector& d_next, Vector& x, bool last,
                                            SpmvEpilogue::Pending pending) {
  if (blas_.location() == Location::Device && !spmv_epilogue_supported(A)) {  // the unfused sequence
    if (pending == SpmvEpilogue::Pending::Add) blas_.axpy(1.0, d, x);
    if (pending == SpmvEpilogue::Pending::Set) blas_.copy(d, x);
    if (&r_in != &r) blas_.copy(r_in, r);
    blas_.spmv(-1.0, A, d, 1.0, r);
    blas_.copy(d, d_next);
    chebyshev_update(c1, c2, dinv, r, d_next, x);
    return;
  }
  SpmvEpilogue e;
  e.kind = SpmvEpilogue::Kind::Chebyshev;
  e.c1 = c1;
  e.c2 = c2;
  e.dinv = &dinv;
  e.r_in = &r_in;
  e.d_out = &d_next;
  e.xs = &x;
  e.last = last;
  e.pending = pending;
  fused_spmv(blas_, "chebyshev_step", A, d, r, e);
}

void RelaxationKernels::node_block_correction(Matrix& B, Vector& r, double c1, double c2, Vector* d_prev, Vector& d_out,
                                              Vector& x, bool set_x) {
  SpmvEpilogue e;
  e.kind = SpmvEpilogue::Kind::Correction;
  e.c1 = c1;
  e.c2 = c2;
  e.d_prev = d_prev;
  e.xs = &x;
  e.set_x = set_x;
  fused_spmv(blas_, "node_block_correction", B, r, d_out, e);
}

void RelaxationKernels::chebyshev_start(double c2, Vector& dinv, Vector& b, Vector& d, Vector& x) {
  const std::size_t n = x.size();
  check_sizes("chebyshev_start", n, {&dinv, &b, &d});
  const double flops = 2.0 * static_cast<double>(n), bytes = element_bytes(blas_, 4, n);
  if (blas_.location() == Location::Host) {
    const double* dv = dinv.host_double(Access::Read);
    const double* bv = b.host_double(Access::Read);
    double* dd = d.host_double(Access::Write);
    double* xv = x.host_double(Access::Write);
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) xv[i] = dd[i] = c2 * (dv[i] * bv[i]);
    blas_.record("chebyshev_update", flops, bytes);
    return;
  }
  const Precision p = blas_.precision();
  cl::Kernel& k = blas_.elementwise_kernel(kFile, "chebyshev_start");
  KernelArgs(k, p)
      .value(cl_ulong{0})
      .value(cl_ulong{0})
      .real(c2)
      .vector(dinv.device(p, Access::Read))
      .vector(b.device(p, Access::Read))
      .vector(d.device(p, Access::Write))
      .vector(x.device(p, Access::Write));
  blas_.launch_elementwise("chebyshev_update", k, n, flops, bytes);
}

void RelaxationKernels::scale_by_diagonal(double w, Vector& dinv, Vector& r, Vector& z) {
  diagonal_step(false, w, dinv, r, z);
}

void RelaxationKernels::add_scaled_by_diagonal(double w, Vector& dinv, Vector& r, Vector& x) {
  diagonal_step(true, w, dinv, r, x);
}

// out = w D^-1 r, or out += w D^-1 r (`accumulate`: out is read too, one vector more to move).
void RelaxationKernels::diagonal_step(bool accumulate, double w, Vector& dinv, Vector& r, Vector& out) {
  const char* name = accumulate ? "add_scaled_by_diagonal" : "scale_by_diagonal";
  const std::size_t n = out.size();
  check_sizes(name, n, {&dinv, &r});
  const double flops = (accumulate ? 3.0 : 2.0) * static_cast<double>(n);
  const double bytes = element_bytes(blas_, accumulate ? 4 : 3, n);
  const Access out_access = accumulate ? Access::ReadWrite : Access::Write;
  if (blas_.location() == Location::Host) {
    const double* d = dinv.host_double(Access::Read);
    const double* rv = r.host_double(Access::Read);
    double* ov = out.host_double(out_access);
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
      const double step = w * (d[i] * rv[i]);
      ov[i] = accumulate ? ov[i] + step : step;
    }
    blas_.record(name, flops, bytes);
    return;
  }
  const Precision p = blas_.precision();
  cl::Kernel& k = blas_.elementwise_kernel(kFile, name);
  KernelArgs(k, p)
      .value(cl_ulong{0})
      .value(cl_ulong{0})
      .real(w)
      .vector(dinv.device(p, Access::Read))
      .vector(r.device(p, Access::Read))
      .vector(out.device(p, out_access));
  blas_.launch_elementwise(name, k, n, flops, bytes);
}

void RelaxationKernels::chebyshev_update(double c1, double c2, Vector& dinv, Vector& r, Vector& d, Vector& x) {
  chebyshev_step(false, c1, c2, dinv, r, d, x);
}

void RelaxationKernels::chebyshev_first(double c2, Vector& dinv, Vector& r, Vector& d, Vector& x) {
  chebyshev_step(true, 0.0, c2, dinv, r, d, x);
}

// The first step has no previous d to scale: its kernel neither reads d nor takes c1 (one vector fewer
// to move, and d's old values, uninitialised or NaN, cannot leak in as 0 * NaN).
void RelaxationKernels::chebyshev_step(bool first, double c1, double c2, Vector& dinv, Vector& r, Vector& d,
                                       Vector& x) {
  const char* name = first ? "chebyshev_first" : "chebyshev_update";
  const std::size_t n = x.size();
  check_sizes(name, n, {&dinv, &r, &d});
  const double flops = (first ? 3.0 : 5.0) * static_cast<double>(n);
  const double bytes = element_bytes(blas_, first ? 5 : 6, n);
  const Access d_access = first ? Access::Write : Access::ReadWrite;
  if (blas_.location() == Location::Host) {
    const double* dv = dinv.host_double(Access::Read);
    const double* rv = r.host_double(Access::Read);
    double* dd = d.host_double(d_access);
    double* xv = x.host_double(Access::ReadWrite);
#pragma omp parallel for schedule(static)
    for (std::size_t i = 0; i < n; ++i) {
      const double step = c2 * (dv[i] * rv[i]);
      dd[i] = first ? step : c1 * dd[i] + step;
      xv[i] += dd[i];
    }
    blas_.record("chebyshev_update", flops, bytes);
    return;
  }
  const Precision p = blas_.precision();
  cl::Kernel& k = blas_.elementwise_kernel(kFile, name);
  KernelArgs args(k, p);
  args.value(cl_ulong{0}).value(cl_ulong{0});
  if (!first) args.real(c1);
  args.real(c2)
      .vector(dinv.device(p, Access::Read))
      .vector(r.device(p, Access::Read))
      .vector(d.device(p, d_access))
      .vector(x.device(p, Access::ReadWrite));
  blas_.launch_elementwise("chebyshev_update", k, n, flops, bytes);
}

}  // namespace clkr::detail
