// The host reference SpMV (the host backend's, in the arithmetic of each precision) and the fused
// epilogues on the host; the device kernels are spmv.cpp's.
#include <cstdint>

#include "../data/row_runs.hpp"
#include "host_row_dot.hpp"
#include "quasi_double_host.hpp"
#include "spmv.hpp"

namespace clkr::detail {
namespace {

// ---- host arithmetic ---------------------------------------------------------------------------------
// Operation for operation what kernels/common.cl and kernels/spmv/spmv_common.cl compute; the
// quasi-double arithmetic is quasi_double_host.hpp's.

// Kahan-style compensated dot product (Dot2), as spmv_common.cl's acc_add with -DKAHAN.
struct Compensated {
  float sum = 0, error = 0;
  void add(float a, float x) {
    const Qd p = qd_two_prod(a, x);
    const Qd s = qd_two_sum(sum, p.hi);
    sum = s.hi;
    error = error + (p.lo + s.lo);
  }
  float value() const { return sum + error; }
};

// Row i of A x in double (host_row_dot.hpp's sums), as the device's CSR row kernels and the host CG
// (cg_host.cpp) add it.
[[gnu::always_inline]] inline double row_dot(const std::int64_t* offsets, const std::int32_t* cols, const double* vals,
                                             const double* x, std::int32_t i) {
  return entries_dot(offsets[i], offsets[i + 1], cols, vals, x);
}

// Rows first .. first + M - 1 of A x, rows with the same columns (host_row_dot.hpp).
template <int M>
[[gnu::always_inline]] inline void run_dot(const std::int64_t* offsets, const std::int32_t* cols, const double* vals,
                                           const double* x, std::int32_t first, double* out) {
  run_entries_dot<M>(offsets, cols, vals, x, first, 0, offsets[first + 1] - offsets[first], out);
}

template <class RowFn>
void for_each_row(std::int32_t rows, const RowFn& row_fn) {
#pragma omp parallel for schedule(static)
  for (std::int32_t i = 0; i < rows; ++i) row_fn(i);
}

// fn(i, row i of A x) for every row, in double: by runs of rows with the same columns where A has them
// (Matrix::host_row_runs), else row by row.
template <class SumFn>
void for_each_row_sum(const Matrix& A, const double* x, const SumFn& fn) {
  const HostCsrMatrix& H = A.host_csr();
  const std::int64_t* offsets = H.row_offsets.data();
  const std::int32_t* cols = H.col_indices.data();
  const double* vals = H.values.data();
  const std::vector<std::int32_t>& runs = A.host_row_runs();
  if (runs.empty()) {
    for_each_row(H.rows, [&](std::int32_t i) { fn(i, row_dot(offsets, cols, vals, x, i)); });
    return;
  }
  static_assert(kRowRunMaxRows == 3, "run_dot's cases below");
  const auto count = static_cast<std::int32_t>(runs.size()) - 1;
#pragma omp parallel for schedule(static)
  for (std::int32_t q = 0; q < count; ++q) {
    const std::int32_t first = runs[q], rows = runs[q + 1] - first;
    double s[kRowRunMaxRows];
    if (rows == 1) {
      s[0] = row_dot(offsets, cols, vals, x, first);
    } else if (rows == 2) {
      run_dot<2>(offsets, cols, vals, x, first, s);
    } else {
      run_dot<3>(offsets, cols, vals, x, first, s);
    }
    for (std::int32_t j = 0; j < rows; ++j) fn(first + j, s[j]);
  }
}

void host_single(bool kahan, double alpha, const HostCsrMatrix& A, Vector& x, double beta, Vector& y) {
  const float* xs = x.host_single(Access::Read);
  float* ys = y.host_single(beta == 0 ? Access::Write : Access::ReadWrite);
  const float a = static_cast<float>(alpha), b = static_cast<float>(beta);
  const std::int64_t* offsets = A.row_offsets.data();
  const std::int32_t* cols = A.col_indices.data();
  const double* vals = A.values.data();
  for_each_row(A.rows, [&](std::int32_t i) {
    float s = 0;
    if (kahan) {
      Compensated c;
      for (std::int64_t k = offsets[i]; k < offsets[i + 1]; ++k) c.add(static_cast<float>(vals[k]), xs[cols[k]]);
      s = c.value();
    } else {
      for (std::int64_t k = offsets[i]; k < offsets[i + 1]; ++k) s = static_cast<float>(vals[k]) * xs[cols[k]] + s;
    }
    ys[i] = beta == 0 ? a * s : b * ys[i] + a * s;
  });
}

void host_quasi_double(double alpha, const HostCsrMatrix& A, Vector& x, double beta, Vector& y) {
  const Vector::HostQuasiDouble xq = x.host_quasi_double(Access::Read);
  const Vector::HostQuasiDouble yq = y.host_quasi_double(beta == 0 ? Access::Write : Access::ReadWrite);
  const Qd a = qd_from_double(alpha), b = qd_from_double(beta);
  const std::int64_t* offsets = A.row_offsets.data();
  const std::int32_t* cols = A.col_indices.data();
  const double* vals = A.values.data();
  for_each_row(A.rows, [&](std::int32_t i) {
    Qd s;
    for (std::int64_t k = offsets[i]; k < offsets[i + 1]; ++k)
      s = qd_add(qd_mul(qd_from_double(vals[k]), Qd{xq.head[cols[k]], xq.tail[cols[k]]}), s);
    Qd r = qd_mul(a, s);
    if (beta != 0) r = qd_add(qd_mul(b, Qd{yq.head[i], yq.tail[i]}), r);
    yq.head[i] = r.hi;
    yq.tail[i] = r.lo;
  });
}

void host_double(double alpha, const Matrix& A, Vector& x, double beta, Vector& y) {
  const double* xd = x.host_double(Access::Read);
  double* yd = y.host_double(beta == 0 ? Access::Write : Access::ReadWrite);
  for_each_row_sum(A, xd, [&](std::int32_t i, double s) { yd[i] = beta == 0 ? alpha * s : beta * yd[i] + alpha * s; });
}

}  // namespace

void spmv_epilogue_host(Matrix& A, Vector& x, Vector& y, const SpmvEpilogue& e) {
  check_operands(A, x, y);
  check_epilogue(e, A, x, y);
  const double* xd = x.host_double(Access::Read);
  if (e.kind == SpmvEpilogue::Kind::Residual) {
    const double* b = e.b == &y ? nullptr : e.b->host_double(Access::Read);
    double* yd = y.host_double(e.b == &y ? Access::ReadWrite : Access::Write);
    if (b == nullptr) b = yd;
    if (!e.d_out) {
      for_each_row_sum(A, xd, [&](std::int32_t i, double s) { yd[i] = b[i] - s; });
      return;
    }
    const double* dinv = e.dinv->host_double(Access::Read);
    double* d_out = e.d_out->host_double(Access::Write);
    for_each_row_sum(A, xd, [&](std::int32_t i, double s) {
      yd[i] = b[i] - s;
      d_out[i] = e.c2 * (dinv[i] * yd[i]);
    });
    return;
  }
  if (e.kind == SpmvEpilogue::Kind::Correction) {
    const double* d = e.d_prev == &y || !e.d_prev ? nullptr : e.d_prev->host_double(Access::Read);
    double* yd = y.host_double(e.d_prev == &y ? Access::ReadWrite : Access::Write);
    if (e.d_prev == &y) d = yd;
    double* xs = e.xs->host_double(e.set_x ? Access::Write : Access::ReadWrite);
    for_each_row_sum(A, xd, [&](std::int32_t i, double s) {
      const double c = d ? e.c1 * d[i] + e.c2 * s : e.c2 * s;
      yd[i] = c;
      xs[i] = e.set_x ? c : xs[i] + c;
    });
    return;
  }
  const double* dinv = e.dinv->host_double(Access::Read);
  const double* r_in = e.r_in == &y ? nullptr : e.r_in->host_double(Access::Read);
  double* yd = e.last ? nullptr : y.host_double(e.r_in == &y ? Access::ReadWrite : Access::Write);
  if (r_in == nullptr) r_in = e.last ? y.host_double(Access::Read) : yd;
  double* d_out = e.last ? nullptr : e.d_out->host_double(Access::Write);
  using Pending = SpmvEpilogue::Pending;
  double* xs = e.xs->host_double(e.pending == Pending::Set ? Access::Write : Access::ReadWrite);
  for_each_row_sum(A, xd, [&](std::int32_t i, double s) {
    const double r = r_in[i] - s;
    const double d = e.c1 * xd[i] + e.c2 * (dinv[i] * r);
    if (!e.last) {
      yd[i] = r;
      d_out[i] = d;
    }
    xs[i] = e.pending == Pending::Set ? xd[i] + d : e.pending == Pending::Add ? xs[i] + (xd[i] + d) : xs[i] + d;
  });
}

void spmv_host(Precision p, bool kahan, double alpha, Matrix& A, Vector& x, double beta, Vector& y) {
  check_operands(A, x, y);
  const HostCsrMatrix& host = A.host_csr();
  switch (p) {
    case Precision::Single:
      host_single(kahan, alpha, host, x, beta, y);
      return;
    case Precision::QuasiDouble:
      host_quasi_double(alpha, host, x, beta, y);
      return;
    case Precision::Double:
      host_double(alpha, A, x, beta, y);
      return;
  }
}

}  // namespace clkr::detail
