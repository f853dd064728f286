// Prolongator smoothing: P = (I - omega D_F^-1 A_F) P_tent (one damped-Jacobi step on the tentative
// prolongator's columns), with A_F the filtered matrix (A's weak connections lumped onto its diagonal,
// which keeps A_F's row sums, hence its action on smooth vectors, and keeps P as sparse as the strong
// connections) and omega = relaxation * (4/3) / rho(D_F^-1 A_F), rho bounded by Gershgorin's theorem.
// Relaxation 0 is plain aggregation: P = P_tent, and no A_F is made.
#pragma once

#include <vector>

#include "clkr/data/host_csr_matrix.hpp"

namespace clkr::detail::amg {

struct SmoothedProlongator {
  HostCsrMatrix filtered;  // A_F
  HostCsrMatrix P;
  double rho = 0, omega = 0;
};

// `keep` marks A's entries the filtered matrix keeps (StrengthGraph::keep).
SmoothedProlongator smooth_prolongator(const HostCsrMatrix& A, const std::vector<char>& keep,
                                       const HostCsrMatrix& P_tent, double relaxation);
// The values of A_F, omega and P recomputed from A's new values, on the patterns made at setup (for a
// relaxation above 0: plain aggregation has nothing to recompute).
void smooth_prolongator_values(const HostCsrMatrix& A, const std::vector<char>& keep, const HostCsrMatrix& P_tent,
                               double relaxation, SmoothedProlongator& s);

}  // namespace clkr::detail::amg
