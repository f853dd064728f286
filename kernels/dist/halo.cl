// The two elementwise steps around a distributed SpMV's exchange, split as the BLAS1 kernels are
// (blas1.cl: ELEMENTWISE_LOOP):
//   halo_pack  out[i] = x[indices[i]]: the local values the neighbouring ranks need, gathered so that
//              one contiguous read brings them to the host;
//   halo_add   y[rows[i]] += t[i]: the halo block's products (t, one per row that has halo entries)
//              added into the rows they belong to, so the halo SpMV touches only those rows.
#include "common.cl"
#include "blas1/blas1.cl"

// A gather or scatter has no vector form: ELEMENTWISE_LOOP's vector step (family V: CLKR_VW elements
// from i, chunked split only) runs the scalar one CLKR_VW times; its scalar step (family S) is one element.
#define EACH_S(i, ONE) ONE(i)
#define EACH_V(i, ONE) \
  for (ulong k_ = (i); k_ < (i) + CLKR_VW; ++k_) ONE(k_)

#define PACK_ONE(i) VEC_STORE(out, i, VEC_LOAD(x, indices[i]))
#define PACK_STEP(F, i) EACH_##F(i, PACK_ONE)
__kernel void halo_pack(const ulong n, const ulong chunk, __global const int* indices, CVEC_ARG(x), VEC_ARG(out)) {
  ELEMENTWISE_LOOP(n, chunk, PACK_STEP);
}

// rows[] holds each row at most once, so no two work-items add into the same y element.
#define ADD_ONE(i) VEC_STORE(y, rows[i], R_ADD(VEC_LOAD(y, rows[i]), VEC_LOAD(t, i)))
#define ADD_STEP(F, i) EACH_##F(i, ADD_ONE)
__kernel void halo_add(const ulong n, const ulong chunk, __global const int* rows, CVEC_ARG(t), VEC_ARG(y)) {
  ELEMENTWISE_LOOP(n, chunk, ADD_STEP);
}
