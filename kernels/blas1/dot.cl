// DOT, x'y, as a two-stage reduction that stays on the device: dot_partial leaves one partial sum
// per work-group, dot_final adds them in one work-group and writes the result (one `real`: a float,
// a (head, tail) float pair, or a double). NRM2 runs the same kernels with y = x. Every addition is
// in the precision's arithmetic, so a quasi-double dot is quasi-double end to end.
#include "common.cl"
#include "blas1/blas1.cl"

// The sum of `value` over the work-group (any size), returned to every work-item. A tree over the
// next power of two at or above the group size, skipping partners past the end.
inline real group_sum(real value, __local real* scratch) {
  const uint lid = get_local_id(0);
  const uint size = get_local_size(0);
  uint stride = 1;
  while (stride < size) stride *= 2;
  scratch[lid] = value;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (stride /= 2; stride > 0; stride /= 2) {
    if (lid < stride && lid + stride < size) scratch[lid] = R_ADD(scratch[lid], scratch[lid + stride]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  return scratch[0];
}

// partial[group] = sum of x_i*y_i over the elements of this work-group's work-items.
__kernel void dot_partial(const ulong n, const ulong chunk, CVEC_ARG(x), CVEC_ARG(y), __global real* partial,
                          __local real* scratch) {
  real sum = R_ZERO;
#if defined(CLKR_CHUNKED)
  CHUNK_RANGE(n, chunk, begin, vector_end, end);
  // CLKR_VW independent accumulators: a vector register's worth of parallel dependency chains.
  realV lanes = RV_ZERO;
  for (ulong i = begin; i < vector_end; i += CLKR_VW) lanes = RV_MAD(RV_LOAD(x, i), RV_LOAD(y, i), lanes);
  for (ulong i = vector_end; i < end; ++i) sum = R_MAD(VEC_LOAD(x, i), VEC_LOAD(y, i), sum);
  sum = R_ADD(rv_sum(lanes), sum);
#else
  for (ulong i = get_global_id(0); i < n; i += get_global_size(0)) sum = R_MAD(VEC_LOAD(x, i), VEC_LOAD(y, i), sum);
#endif
  sum = group_sum(sum, scratch);
  if (get_local_id(0) == 0) partial[get_group_id(0)] = sum;
}

// result[0] = sum of partial[0 .. count); run as a single work-group. count == 0 writes zero.
__kernel void dot_final(const uint count, __global const real* partial, __global real* result,
                        __local real* scratch) {
  real sum = R_ZERO;
  for (uint i = get_local_id(0); i < count; i += get_local_size(0)) sum = R_ADD(sum, partial[i]);
  sum = group_sum(sum, scratch);
  if (get_local_id(0) == 0) result[0] = sum;
}
