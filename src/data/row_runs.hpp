// Internal to src/data: runs of consecutive CSR rows with the same columns (a mesh node's unknowns
// often couple to exactly the same unknowns), for the host backend's SpMV (src/blas/spmv_host.cpp),
// which then reads a run's column indices and x entries once for all of its rows.
#pragma once

#include <cstdint>
#include <vector>

#include "clkr/data/host_csr_matrix.hpp"

namespace clkr::detail {

// The most rows a run holds: the SpMV keeps four partial sums per row of a run in registers (12 of
// x86-64's 16 vector registers for three rows).
constexpr std::int32_t kRowRunMaxRows = 3;

// The first row of every run of 1 to kRowRunMaxRows consecutive rows with the same column indices,
// then A.rows; empty when the runs would hold fewer than 1.15 rows on average (a loop over runs of
// one row costs 5-10% more than the plain row loop: bcsstk25, 15,439 rows in 15,373 runs).
std::vector<std::int32_t> row_runs(const HostCsrMatrix& A);

}  // namespace clkr::detail
