// Fused epilogues of the SpMV kernels: what a kernel does with row `row`'s sum s = (A x)[row] in place
// of y = alpha*s + beta*y (alpha and beta are then ignored). They serve the AMG's smoothers
// (src/precond/relaxation.cpp): each saves an elementwise pass over vectors the SpMV has just touched,
// and a launch. Included by spmv_common.cl when one of the options below is given; the operands come
// after the kernel's own parameters (SPMV_EPILOGUE_ARGS), named epi_* so that no kernel's locals clash.
//
//   -DSPMV_RESIDUAL   y = b - s: a residual with no copy of b into y first; with
//                     -DSPMV_RESIDUAL_CORRECTION also d_out = c2 * dinv[row] * y (a Chebyshev sweep's first
//                     correction, which the next step adds to xs: -DSPMV_PENDING_ADD).
//   -DSPMV_CHEBYSHEV  a Chebyshev step whose SpMV input x is the previous step's correction d:
//                       r = r_in - s                      (r_in may be y itself, or b on a first step)
//                       d = c1 * x[row] + c2 * dinv[row] * r
//                       xs[row] += d
//                     and, unless -DSPMV_LAST (the sweep's last step, whose r and d nobody reads),
//                       y = r,  d_out = d             (d_out must not be x: other rows still read x)
//                     With -DSPMV_PENDING_ADD the previous correction x was not yet added to xs:
//                       xs[row] += x[row] + d;  with -DSPMV_PENDING_SET xs[row] = x[row] + d (a sweep from
//                       zero: xs's old values are not read).
//   -DSPMV_CORRECTION a smoother's correction from the inverse node blocks (below).
//
// The arithmetic is the one of relaxation.cl's chebyshev_update, so the fused and the unfused smoother
// differ only in where the SpMV's sum is rounded (here it is not stored and re-read).

#if defined(SPMV_RESIDUAL) && defined(SPMV_RESIDUAL_CORRECTION)
#define SPMV_EPILOGUE_ARGS , CVEC_ARG(epi_b), REAL_ARG(epi_c2), CVEC_ARG(epi_dinv), VEC_ARG(epi_d_out)
#define SPMV_STORE(y, row, alpha, beta, s)                                              \
  do {                                                                                  \
    const int row_ = (row);                                                             \
    const real r_ = R_SUB(VEC_LOAD(epi_b, row_), (s));                                  \
    VEC_STORE(y, row_, r_);                                                             \
    VEC_STORE(epi_d_out, row_, R_MUL(epi_c2, R_MUL(VEC_LOAD(epi_dinv, row_), r_)));     \
  } while (0)

#elif defined(SPMV_RESIDUAL)
#define SPMV_EPILOGUE_ARGS , CVEC_ARG(epi_b)
#define SPMV_STORE(y, row, alpha, beta, s) VEC_STORE(y, row, R_SUB(VEC_LOAD(epi_b, row), (s)))

#elif defined(SPMV_CHEBYSHEV)
#define SPMV_EPILOGUE_ARGS \
  , REAL_ARG(epi_c1), REAL_ARG(epi_c2), CVEC_ARG(epi_dinv), CVEC_ARG(epi_r_in), VEC_ARG(epi_d_out), VEC_ARG(epi_xs)
#if defined(SPMV_LAST)
#define SPMV_CHEBYSHEV_KEEP(y, row, r_, d_)
#else
#define SPMV_CHEBYSHEV_KEEP(y, row, r_, d_) \
  VEC_STORE(y, row, r_);                    \
  VEC_STORE(epi_d_out, row, d_);
#endif
#if defined(SPMV_PENDING_SET)
#define SPMV_CHEBYSHEV_X(row_, d_prev_, d_) VEC_STORE(epi_xs, row_, R_ADD(d_prev_, d_))
#elif defined(SPMV_PENDING_ADD)
#define SPMV_CHEBYSHEV_X(row_, d_prev_, d_) VEC_STORE(epi_xs, row_, R_ADD(VEC_LOAD(epi_xs, row_), R_ADD(d_prev_, d_)))
#else
#define SPMV_CHEBYSHEV_X(row_, d_prev_, d_) VEC_STORE(epi_xs, row_, R_ADD(VEC_LOAD(epi_xs, row_), d_))
#endif
#define SPMV_STORE(y, row, alpha, beta, s)                                                       \
  do {                                                                                           \
    const int row_ = (row);                                                                      \
    const real r_ = R_SUB(VEC_LOAD(epi_r_in, row_), (s));                                        \
    const real d_prev_ = VEC_LOAD(x, row_);                                                      \
    const real d_ = R_MAD(epi_c1, d_prev_, R_MUL(epi_c2, R_MUL(VEC_LOAD(epi_dinv, row_), r_))); \
    SPMV_CHEBYSHEV_KEEP(y, row_, r_, d_)                                                         \
    SPMV_CHEBYSHEV_X(row_, d_prev_, d_);                                                         \
  } while (0)

#elif defined(SPMV_CORRECTION)
// -DSPMV_CORRECTION  a smoother's correction from a scaling matrix (the inverse node blocks) applied to
//                    the residual x:  d = c1 * d_prev[row] + c2 * s  (c2 * s without -DSPMV_FROM_D),
//                    y = d, xs[row] += d (xs[row] = d with -DSPMV_SET_X). d_prev may be y.
#define SPMV_EPILOGUE_ARGS , REAL_ARG(epi_c1), REAL_ARG(epi_c2), CVEC_ARG(epi_d), VEC_ARG(epi_xs)
#if defined(SPMV_FROM_D)
#define SPMV_CORRECTION_OF(row_, s) R_MAD(epi_c1, VEC_LOAD(epi_d, row_), R_MUL(epi_c2, (s)))
#else
#define SPMV_CORRECTION_OF(row_, s) R_MUL(epi_c2, (s))
#endif
#if defined(SPMV_SET_X)
#define SPMV_CORRECTION_X(row_, d_) VEC_STORE(epi_xs, row_, d_)
#else
#define SPMV_CORRECTION_X(row_, d_) VEC_STORE(epi_xs, row_, R_ADD(VEC_LOAD(epi_xs, row_), d_))
#endif
#define SPMV_STORE(y, row, alpha, beta, s)         \
  do {                                             \
    const int row_ = (row);                        \
    const real d_ = SPMV_CORRECTION_OF(row_, (s)); \
    VEC_STORE(y, row_, d_);                        \
    SPMV_CORRECTION_X(row_, d_);                   \
  } while (0)
#endif
