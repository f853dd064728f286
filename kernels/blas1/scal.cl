// SCAL, x = a*x, in the precision (common.cl) and split (blas1.cl) selected at build time.
#include "common.cl"
#include "blas1/blas1.cl"

__kernel void scal(const ulong n, const ulong chunk, REAL_ARG(a), VEC_ARG(x)) {
#if defined(CLKR_CHUNKED)
  CHUNK_RANGE(n, chunk, begin, vector_end, end);
  const realV av = RV_SPLAT(a);
  for (ulong i = begin; i < vector_end; i += CLKR_VW) RV_STORE(x, i, RV_MUL(av, RV_LOAD(x, i)));
  for (ulong i = vector_end; i < end; ++i) VEC_STORE(x, i, R_MUL(a, VEC_LOAD(x, i)));
#else
  for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) VEC_STORE(x, i, R_MUL(a, VEC_LOAD(x, i)));
#endif
}
