// Smoothed test vectors: an algebraic near-null space for matrices whose constants are not one
// (adaptive smoothed aggregation, Brezina, Falgout, MacLachlan, Manteuffel, McCormick and Ruge 2004).
// Where an AMG built on the constants converges slowly, the error it leaves after a few steps is made
// of the modes it cannot reduce: with those as the near-null space, the next hierarchy's coarse levels
// represent them. Each vector is the error of `steps` iterations of CG preconditioned by the first
// hierarchy's cycle on A e = 0 from a random start (CG's polynomial concentrates the error on the
// slowest modes faster than the stationary iteration e <- (I - M^-1 A) e of the paper).
#pragma once

#include <functional>
#include <vector>

#include "clkr/blas/blas.hpp"
#include "clkr/data/matrix.hpp"
#include "clkr/data/vector.hpp"
#include "clkr/precond/preconditioner.hpp"

namespace clkr::detail::amg {

// z = M^-1 r with the hierarchy to improve on.
using CycleApply = std::function<void(Vector& r, Vector& z)>;

// `count` vectors of A.rows() elements, each scaled to a largest magnitude of 1. The random starts are
// seeded per vector (the same matrix gives the same vectors). A vector's iteration stops early when
// r'z falls below 1e-12 of its start (the error is then a millionth of its start in the A-norm, still
// far above rounding): a strong hierarchy leaves little to find. Throws clkr::Error when a scalar of
// the iteration is NaN or Inf, or a vector vanishes (naming it).
std::vector<std::vector<double>> smoothed_test_vectors(Blas& blas, Matrix& A, const CycleApply& apply, int count,
                                                       int steps);

// Whether rebuilding on `vectors` test vectors of `steps` iterations pays for a solve that reports
// `evidence`, a first setup having taken `setup_seconds`: the saving, taken as a quarter of the
// forecast iterations' time (the rebuilt hierarchy took 2.5-20x fewer iterations at up to twice
// their cost on the SuiteSparse matrices that needed it), must exceed the cost, vectors * steps
// iterations of the first hierarchy plus twice its setup (a second build on more vectors). A forecast
// of +inf (no fall in the residual yet) always pays.
bool test_vectors_pay(const SlowConvergence& evidence, int vectors, int steps, double setup_seconds);

}  // namespace clkr::detail::amg
