// A row's product with x on the host, in double, as the device's CSR row kernels add it, alone or for
// a run of rows with one pattern: the host SpMV (spmv_host.cpp) and the host Gauss-Seidel sweep
// (precond/hybrid_gauss_seidel.cpp) share them.
#pragma once

#include <cstdint>

namespace clkr::detail {

// sum over the entries k .. end - 1 of vals[k] * x[cols[k]] in four partial sums (entries k, k+1, k+2,
// k+3 to sums 0-3, the rest to sum 0, added as (s0 + s1) + (s2 + s3)): one running sum waits on its own
// addition every entry (4 cycles a step), four keep the adder busy. Always inlined: called once a row,
// a call costs as much as a short row's entries (poisson3d:64's 7).
[[gnu::always_inline]] inline double entries_dot(std::int64_t k, std::int64_t end, const std::int32_t* cols,
                                                 const double* vals, const double* x) {
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (; k + 4 <= end; k += 4) {
    s0 = vals[k] * x[cols[k]] + s0;
    s1 = vals[k + 1] * x[cols[k + 1]] + s1;
    s2 = vals[k + 2] * x[cols[k + 2]] + s2;
    s3 = vals[k + 3] * x[cols[k + 3]] + s3;
  }
  for (; k < end; ++k) s0 = vals[k] * x[cols[k]] + s0;
  return (s0 + s1) + (s2 + s3);
}

// The same sums for M rows first .. first + M - 1 that share their columns, over the entries k .. end - 1
// of each (counted from the row's start): each row's sums entry for entry as entries_dot's (so the same
// bits), with each column index and x entry read once for the M rows.
template <int M>
[[gnu::always_inline]] inline void run_entries_dot(const std::int64_t* offsets, const std::int32_t* cols,
                                                   const double* vals, const double* x, std::int32_t first,
                                                   std::int64_t k, std::int64_t end, double* out) {
  const std::int32_t* c = cols + offsets[first];
  const double* v[M];
  double s0[M], s1[M], s2[M], s3[M];
  for (int j = 0; j < M; ++j) {
    v[j] = vals + offsets[first + j];
    s0[j] = s1[j] = s2[j] = s3[j] = 0;
  }
  for (; k + 4 <= end; k += 4) {
    const double x0 = x[c[k]], x1 = x[c[k + 1]], x2 = x[c[k + 2]], x3 = x[c[k + 3]];
    for (int j = 0; j < M; ++j) {
      s0[j] = v[j][k] * x0 + s0[j];
      s1[j] = v[j][k + 1] * x1 + s1[j];
      s2[j] = v[j][k + 2] * x2 + s2[j];
      s3[j] = v[j][k + 3] * x3 + s3[j];
    }
  }
  for (; k < end; ++k) {
    const double xk = x[c[k]];
    for (int j = 0; j < M; ++j) s0[j] = v[j][k] * xk + s0[j];
  }
  for (int j = 0; j < M; ++j) out[j] = (s0[j] + s1[j]) + (s2[j] + s3[j]);
}

}  // namespace clkr::detail
