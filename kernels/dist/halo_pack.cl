// The send buffer of a halo exchange: out[i] = x[indices[i]], the local values the neighbouring ranks
// need, gathered on the device so that one contiguous read brings them to the host.
#include "common.cl"
#include "blas1/blas1.cl"

// A gather has no vector form: the chunked split's vector part (CLKR_VW elements from i) runs the
// scalar step CLKR_VW times.
#define PACK_ONE(i) VEC_STORE(out, i, VEC_LOAD(x, indices[i]))
#define PACK_STEP_S(i) PACK_ONE(i)
#if defined(CLKR_CHUNKED)
#define PACK_STEP_V(i) \
  for (ulong k_ = (i); k_ < (i) + CLKR_VW; ++k_) PACK_ONE(k_)
#endif
#define PACK_STEP(F, i) PACK_STEP_##F(i)

__kernel void halo_pack(const ulong n, const ulong chunk, __global const int* indices, CVEC_ARG(x), VEC_ARG(out)) {
  ELEMENTWISE_LOOP(n, chunk, PACK_STEP);
}
