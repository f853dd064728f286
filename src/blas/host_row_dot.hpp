// A row's product with x on the host, in double, as the device's CSR row kernels add it: the host SpMV
// (spmv_host.cpp) and the host Gauss-Seidel sweep (precond/hybrid_gauss_seidel.cpp) share it.
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

}  // namespace clkr::detail
