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

// True when a sum of squares computed in precision p cannot have lost anything to overflow or
// underflow: finite, and far enough above the smallest normal number that squares which underflowed
// weigh less than the precision's rounding (float's exponent range for single and quasi-double).
bool sum_of_squares_is_safe(Precision p, double sum_of_squares);
// ||x||_2 of the values without overflow or underflow: the largest |x_i| scales the others (LAPACK's
// dnrm2 idea), the squares summed in long double. Inf if any x_i is infinite, NaN if any is NaN.
double scaled_nrm2(const std::vector<double>& x);

}  // namespace clkr::detail
