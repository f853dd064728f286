// Keeping single and quasi-double solves inside the float range: a symmetric diagonal scaling
// D A D (equilibration) and a scaling of b by a power of two, decided from A's values and b before a
// solve, applied around it and reported. Float's exponent ends at 2^+-127: a stiffness matrix with
// entries of 1e14 and b = A x of 1e15 makes p'Ap ~ 1e45 in CG's first step (bcsstk25), an infinity
// that double precision never sees. Scaling by powers of two is exact, so a matrix that needs none is
// solved exactly as before.
#pragma once

#include <string>
#include <vector>

#include "clkr/data/host_csr_matrix.hpp"
#include "clkr/data/precision.hpp"

namespace clkr::detail {

struct Equilibration {
  // Row/column factors d_i (powers of two) of D A D; empty when the matrix is left as it is.
  std::vector<double> d;
  // b (after D) is multiplied by this power of two; x by its inverse on the way out.
  double b_scale = 1;
  // What was done and why, for SolveResult::scaling; empty when nothing was.
  std::string description;
  bool needed() const { return !d.empty() || b_scale != 1; }
};

// The scaling a solve in `precision` needs for A x = b (nothing in double). D A D is used only when
// `may_scale_matrix` (no preconditioner of the caller's, which was built for A itself). Throws
// clkr::Error when A cannot be brought into float's range: values past it with a preconditioner, or a
// scaled matrix still spanning more than the range (naming the largest value).
Equilibration plan_equilibration(const HostCsrMatrix& A, const std::vector<double>& b, Precision precision,
                                 bool may_scale_matrix);

// D A D.
HostCsrMatrix scaled_matrix(const HostCsrMatrix& A, const std::vector<double>& d);

}  // namespace clkr::detail
