// The elementwise updates of the diagonal-based preconditioners and smoothers (Jacobi, damped Jacobi,
// Chebyshev), with dinv = 1 / diag(A) in the working precision. Split as the BLAS1 kernels (blas1.cl).
#include "common.cl"
#include "blas1/blas1.cl"

// z = w * dinv .* r: the Jacobi preconditioner (w = 1), a damped-Jacobi sweep from x = 0.
#define SCALE_STEP(F, i) F##_STORE(z, i, F##_MUL(F##_SPLAT(w), F##_MUL(F##_LOAD(dinv, i), F##_LOAD(r, i))))
__kernel void scale_by_diagonal(const ulong n, const ulong chunk, REAL_ARG(w), CVEC_ARG(dinv), CVEC_ARG(r),
                                VEC_ARG(z)) {
  ELEMENTWISE_LOOP(n, chunk, SCALE_STEP);
}

// x = x + w * dinv .* r: a damped-Jacobi sweep (r = b - A x).
#define CORRECT_STEP(F, i) \
  F##_STORE(x, i, F##_MAD(F##_SPLAT(w), F##_MUL(F##_LOAD(dinv, i), F##_LOAD(r, i)), F##_LOAD(x, i)))
__kernel void add_scaled_by_diagonal(const ulong n, const ulong chunk, REAL_ARG(w), CVEC_ARG(dinv), CVEC_ARG(r),
                                     VEC_ARG(x)) {
  ELEMENTWISE_LOOP(n, chunk, CORRECT_STEP);
}

// A Chebyshev step (r = b - A x): d = c1 * d + c2 * dinv .* r, then x = x + d.
#define CHEBYSHEV_STEP(F, i)                                                                              \
  do {                                                                                                    \
    const real##F##_t d_ = F##_MAD(F##_SPLAT(c1), F##_LOAD(d, i),                                        \
                                   F##_MUL(F##_SPLAT(c2), F##_MUL(F##_LOAD(dinv, i), F##_LOAD(r, i)))); \
    F##_STORE(d, i, d_);                                                                                  \
    F##_STORE(x, i, F##_ADD(F##_LOAD(x, i), d_));                                                         \
  } while (0)
__kernel void chebyshev_update(const ulong n, const ulong chunk, REAL_ARG(c1), REAL_ARG(c2), CVEC_ARG(dinv),
                               CVEC_ARG(r), VEC_ARG(d), VEC_ARG(x)) {
  ELEMENTWISE_LOOP(n, chunk, CHEBYSHEV_STEP);
}

// The first Chebyshev step: d = c2 * dinv .* r, then x = x + d (d's old values are not read).
#define CHEBYSHEV_FIRST_STEP(F, i)                                                          \
  do {                                                                                      \
    const real##F##_t d_ = F##_MUL(F##_SPLAT(c2), F##_MUL(F##_LOAD(dinv, i), F##_LOAD(r, i))); \
    F##_STORE(d, i, d_);                                                                    \
    F##_STORE(x, i, F##_ADD(F##_LOAD(x, i), d_));                                           \
  } while (0)
__kernel void chebyshev_first(const ulong n, const ulong chunk, REAL_ARG(c2), CVEC_ARG(dinv), CVEC_ARG(r), VEC_ARG(d),
                              VEC_ARG(x)) {
  ELEMENTWISE_LOOP(n, chunk, CHEBYSHEV_FIRST_STEP);
}

// The first Chebyshev step from x = 0, whose residual is b: d = c2 * dinv .* b, then x = d (x is not read).
#define CHEBYSHEV_START_STEP(F, i)                                                          \
  do {                                                                                      \
    const real##F##_t d_ = F##_MUL(F##_SPLAT(c2), F##_MUL(F##_LOAD(dinv, i), F##_LOAD(b, i))); \
    F##_STORE(d, i, d_);                                                                    \
    F##_STORE(x, i, d_);                                                                    \
  } while (0)
__kernel void chebyshev_start(const ulong n, const ulong chunk, REAL_ARG(c2), CVEC_ARG(dinv), CVEC_ARG(b), VEC_ARG(d),
                              VEC_ARG(x)) {
  ELEMENTWISE_LOOP(n, chunk, CHEBYSHEV_START_STEP);
}
