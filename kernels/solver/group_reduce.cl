// Work-group reductions of the fused CG kernels (cg.cl, cg_persistent.cl, dist/pipelined_cg.cl), for
// a work-group of WG work-items (a power of two, set by the host with -DWG), and their walk over the
// elements.
#include "common.cl"

#ifndef WG
#define WG 256
#endif

// The elements (rows of an SpMV) a work-item handles: a grid-stride walk on GPUs (coalesced), one
// contiguous chunk per work-item on CPUs (-DCG_CHUNKED; `chunk` from the host), as BLAS1 does.
#if defined(CG_CHUNKED)
#define FOR_EACH_ELEMENT(i, n, chunk) \
  for (int i = min((int)get_global_id(0) * (chunk), (n)), i##_end = min(i + (chunk), (n)); i < i##_end; ++i)
#else
#define FOR_EACH_ELEMENT(i, n, chunk) for (int i = (int)get_global_id(0); i < (n); i += (int)get_global_size(0))
#endif

// Element i of an array other work-groups wrote: read through a volatile pointer, so that it comes
// from the device's coherent memory, not from a per-compute-unit cache (NVIDIA's L1 is not coherent)
// or a register loaded before a grid barrier (cg_persistent.cl). Outside one launch this is a plain load.
#if defined(CLKR_QDOUBLE)
#define VEC_LOAD_SHARED(x, i) \
  ((float2)(((volatile __global const float*)(x##_hi))[i], ((volatile __global const float*)(x##_lo))[i]))
#else
#define VEC_LOAD_SHARED(x, i) (((volatile __global const real*)(x))[i])
#endif

// The sum of `v` over the work-group, in the precision's arithmetic, returned to every work-item.
inline real group_sum(real v, __local real* scratch) {
  const int lid = (int)get_local_id(0);
  scratch[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int span = WG / 2; span > 0; span /= 2) {
    if (lid < span) scratch[lid] = R_ADD(scratch[lid], scratch[lid + span]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const real total = scratch[0];
  barrier(CLK_LOCAL_MEM_FENCE);  // scratch may be reused right after
  return total;
}

// The sum of `v` over the LANES work-items that share a row (consecutive local ids, LANES a power of
// two, -DLANES; 1: v itself), returned to each of them; every work-item of the group must call it.
#if defined(LANES) && LANES > 1
inline real row_lanes_sum(real v, __local real* scratch) {
  const int lid = (int)get_local_id(0), lane = lid % LANES;
  scratch[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int span = LANES / 2; span > 0; span /= 2) {
    if (lane < span) scratch[lid] = R_ADD(scratch[lid], scratch[lid + span]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const real total = scratch[lid - lane];
  barrier(CLK_LOCAL_MEM_FENCE);  // scratch may be reused right after
  return total;
}
#else
#define row_lanes_sum(v, scratch) (v)
#endif

// The sum of partials[first, first + count), returned to every work-item of the group. Every group that
// calls this on the same partials gets the same bits: the summation order depends only on count and WG.
inline real sum_partials(const int first, const int count, CVEC_ARG(partials), __local real* scratch) {
  real v = R_ZERO;
  for (int k = (int)get_local_id(0); k < count; k += WG) v = R_ADD(v, VEC_LOAD_SHARED(partials, first + k));
  return group_sum(v, scratch);
}

// a > 0 and finite (quasi-double: judged on the head).
#if defined(CLKR_QDOUBLE)
#define R_POSITIVE_FINITE(a) ((a).x > 0.0f && isfinite((a).x))
#define R_FINITE(a) isfinite((a).x)
#define R_LESS_EQUAL(a, b) ((a).x < (b).x || ((a).x == (b).x && (a).y <= (b).y))
#else
#define R_POSITIVE_FINITE(a) ((a) > 0 && isfinite(a))
#define R_FINITE(a) isfinite(a)
#define R_LESS_EQUAL(a, b) ((a) <= (b))
#endif
