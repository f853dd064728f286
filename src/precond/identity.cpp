// The identity preconditioner: z = r, one buffer copy.
#include "clkr/precond/identity.hpp"

namespace clkr {

Identity::Identity(const Blas& solver, const Matrix& A) : Preconditioner(solver, A, std::nullopt, "identity") {}

void Identity::apply_checked(Vector& r, Vector& z) { blas().copy(r, z); }

}  // namespace clkr
