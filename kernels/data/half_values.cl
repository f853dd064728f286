// A matrix's values in half precision (ValueStorage::Half; src/data/half_values.cpp): their range, from
// which the host picks the power of two that scales them into binary16's normal range, then the
// binary16 copy. Built with -DCLKR_DOUBLE from the double values where the device has fp64, else with
// -DCLKR_SINGLE from the single copy (the quasi-double head): both convert each value to float first,
// so the copy is the same either way. (Other precisions read float values too.)
#include "common.cl"

#if defined(CLKR_DOUBLE)
typedef double source_t;
#else
typedef float source_t;
#endif

// Work-group g's largest |float(v_k)| into range[3g], its smallest nonzero one into range[3g + 1] (+Inf
// when it saw no nonzero value) and its smallest one, zeros included, into range[3g + 2] (+Inf when it
// saw none), over a grid-stride walk of the n values. `big`, `small` and `least` hold a float per
// work-item; the group size is a power of two.
__kernel void half_value_range(__global const source_t* v, const ulong n, __global float* range, __local float* big,
                               __local float* small, __local float* least) {
  const size_t lid = get_local_id(0), wg = get_local_size(0);
  float largest = 0.0f, smallest = INFINITY, lowest = INFINITY;
  for (size_t k = get_global_id(0); k < n; k += get_global_size(0)) {
    const float a = fabs((float)v[k]);
    largest = fmax(largest, a);
    lowest = fmin(lowest, a);
    if (a > 0.0f) smallest = fmin(smallest, a);
  }
  big[lid] = largest;
  small[lid] = smallest;
  least[lid] = lowest;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t span = wg / 2; span > 0; span /= 2) {
    if (lid < span) {
      big[lid] = fmax(big[lid], big[lid + span]);
      small[lid] = fmin(small[lid], small[lid + span]);
      least[lid] = fmin(least[lid], least[lid + span]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) {
    range[3 * get_group_id(0)] = big[0];
    range[3 * get_group_id(0) + 1] = small[0];
    range[3 * get_group_id(0) + 2] = least[0];
  }
}

// h_k = binary16(float(v_k) * scale), rounded to nearest even; scale is the host's power of two, so the
// product is exact and the one rounding is the conversion's.
__kernel void half_values(__global const source_t* v, __global half* h, const ulong n, const float scale) {
  const size_t k = get_global_id(0);
  if (k < n) vstore_half_rte((float)v[k] * scale, k, h);
}
