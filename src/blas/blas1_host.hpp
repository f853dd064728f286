// The host reference BLAS1 (Location::Host): plain loops, parallel with OpenMP, on the Vectors'
// host copies in the arithmetic of the precision, quasi-double included (the same double-single
// algorithms as kernels/common.cl, in quasi_double_host.hpp).
#pragma once

#include "clkr/data/precision.hpp"
#include "clkr/data/vector.hpp"
#include "quasi_double_host.hpp"

namespace clkr::detail {

// ---- BLAS1 on host copies -------------------------------------------------------------------------
// Callers have checked contexts and sizes.
void axpy_host(Precision p, double a, Vector& x, Vector& y);  // y = a*x + y
void aypx_host(Precision p, double a, Vector& x, Vector& y);  // y = a*y + x
void scal_host(Precision p, double a, Vector& x);             // x = a*x
void copy_host(Precision p, Vector& x, Vector& y);            // y = x
double dot_host(Precision p, Vector& x, Vector& y);           // x'y

}  // namespace clkr::detail
