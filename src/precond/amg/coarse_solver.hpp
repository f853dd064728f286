// The direct solve of the coarsest level: its inverse as a dense matrix, computed once on the host in
// double and applied on the device as one SpMV with a dense row per unknown (a few hundred rows: one
// launch, no host round trip inside the V-cycle, where a factorisation's triangular solves would be
// sequential chains of tiny kernels or a transfer to the host and back).
#pragma once

#include <cstdint>
#include <vector>

#include "clkr/data/host_csr_matrix.hpp"

namespace clkr::detail::amg {

struct DenseInverse {
  HostCsrMatrix inverse;     // n x n, every entry stored (a CSR matrix with dense rows)
  std::int32_t dropped = 0;  // pivots taken as zero: the null space of a singular SPD operator
  bool symmetric = false;    // factored by LDL^T (else LU with partial pivoting)
};

// Symmetric A: LDL^T without pivoting, a pivot at or below 1e-12 of the largest diagonal entry taken as
// zero (a pseudo-inverse on that direction: pure-Neumann problems have a singular coarse operator
// whose null space the right-hand side does not see); a clearly negative pivot, or a zero one with a
// nonzero column below it, means A is indefinite and falls back to LU. Otherwise LU with partial
// pivoting. Throws clkr::Error naming `level` when A is singular (LU) or not finite.
DenseInverse dense_inverse(const HostCsrMatrix& A, int level);

}  // namespace clkr::detail::amg
