// Host sparse-matrix products for the AMG setup: the transpose (R = P^T), C = A B (the prolongator
// smoother's A_F P_tent) and the Galerkin triple product R A P, each as a symbolic-and-numeric
// computation and as a numeric-only refresh on a known pattern (the update step: values change,
// patterns do not). Patterns are structural (entries that cancel to zero are kept), so a refresh
// always finds every product term in the pattern computed at setup. OpenMP over rows.
#pragma once

#include <cstdint>
#include <vector>

#include "clkr/data/host_csr_matrix.hpp"

namespace clkr::detail::amg {

// A^T, and where each entry of A went: At.values[position[k]] == A.values[k].
struct Transpose {
  HostCsrMatrix matrix;
  std::vector<std::int64_t> position;
};
Transpose transpose(const HostCsrMatrix& A);
// At's values from A's, on the pattern transpose() made.
void transpose_values(const HostCsrMatrix& A, Transpose& At);

// C = A B (columns sorted within each row).
HostCsrMatrix multiply(const HostCsrMatrix& A, const HostCsrMatrix& B);
// C's values recomputed from A's and B's on C's pattern (as multiply() made it).
void multiply_values(const HostCsrMatrix& A, const HostCsrMatrix& B, HostCsrMatrix& C);

// C = R A P, computed as R (A P): for the prolongators of smoothed aggregation this is about half the
// multiply-adds of summing r_Ik a_kj p_jJ directly (A P's rows merge what R's rows would repeat), and
// A P is kept for the numeric refresh.
struct TripleProduct {
  HostCsrMatrix AP, RAP;
};
TripleProduct triple_product(const HostCsrMatrix& R, const HostCsrMatrix& A, const HostCsrMatrix& P);
void triple_product_values(const HostCsrMatrix& R, const HostCsrMatrix& A, const HostCsrMatrix& P, TripleProduct& C);

}  // namespace clkr::detail::amg
