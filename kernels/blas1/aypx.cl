// AYPX, y = a*y + x (CG's search-direction update), in the precision (common.cl) and split
// (blas1.cl) selected at build time.
#include "common.cl"
#include "blas1/blas1.cl"

__kernel void aypx(const ulong n, const ulong chunk, REAL_ARG(a), CVEC_ARG(x), VEC_ARG(y)) {
#if defined(CLKR_CHUNKED)
  CHUNK_RANGE(n, chunk, begin, vector_end, end);
  const realV av = RV_SPLAT(a);
  for (ulong i = begin; i < vector_end; i += CLKR_VW) RV_STORE(y, i, RV_MAD(av, RV_LOAD(y, i), RV_LOAD(x, i)));
  for (ulong i = vector_end; i < end; ++i) VEC_STORE(y, i, R_MAD(a, VEC_LOAD(y, i), VEC_LOAD(x, i)));
#else
  for (ulong i = get_global_id(0); i < n; i += get_global_size(0))
    VEC_STORE(y, i, R_MAD(a, VEC_LOAD(y, i), VEC_LOAD(x, i)));
#endif
}
