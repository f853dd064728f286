// The two updates of a CG-Lanczos step whose scalars stay on the device (src/precond/spectrum.cpp): the
// dots r'z and p'q are blas1/dot.cl's results (one `real` each, left in device buffers), which these
// kernels read, so that the host reads the run's scalars once at its end instead of twice a step. The
// first work-item also files the scalars it read in the run's history (rz, pq at `at` and `at` + 1 by
// the r update; rz_next at `at` by the p update), which the host reads at the end: no copy commands.
// Each computes what the Blas operations it replaces compute, in the same order (axpy's a*x + y,
// scale_by_diagonal's product, aypx's a*y + x), with the scalar divided in the working precision.
#include "common.cl"
#include "blas1/blas1.cl"

// alpha = rz / pq;  r = -alpha q + r;  z = dinv .* r
#define LANCZOS_R_STEP(F, i)                                                         \
  do {                                                                               \
    const real##F##_t r_ = F##_MAD(F##_SPLAT(minus_alpha), F##_LOAD(q, i), F##_LOAD(r, i)); \
    F##_STORE(r, i, r_);                                                             \
    F##_STORE(z, i, F##_MUL(F##_LOAD(dinv, i), r_));                                 \
  } while (0)
__kernel void lanczos_update_r(const ulong n, const ulong chunk, __global const real* rz, __global const real* pq,
                               CVEC_ARG(q), VEC_ARG(r), CVEC_ARG(dinv), VEC_ARG(z), __global real* history,
                               const uint at) {
  if (get_global_id(0) == 0) {
    history[at] = rz[0];
    history[at + 1] = pq[0];
  }
  const real minus_alpha = R_NEG(R_DIV(rz[0], pq[0]));
  ELEMENTWISE_LOOP(n, chunk, LANCZOS_R_STEP);
}

// beta = rz_next / rz;  p = beta p + z
#define LANCZOS_P_STEP(F, i) F##_STORE(p, i, F##_MAD(F##_SPLAT(beta), F##_LOAD(p, i), F##_LOAD(z, i)))
__kernel void lanczos_update_p(const ulong n, const ulong chunk, __global const real* rz_next,
                               __global const real* rz, CVEC_ARG(z), VEC_ARG(p), __global real* history,
                               const uint at) {
  if (get_global_id(0) == 0) history[at] = rz_next[0];
  const real beta = R_DIV(rz_next[0], rz[0]);
  ELEMENTWISE_LOOP(n, chunk, LANCZOS_P_STEP);
}
