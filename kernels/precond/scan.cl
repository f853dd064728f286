// Exclusive prefix sums of int counts on the device, for the AMG setup's compactions (row offsets of
// every matrix it builds, aggregate numbers): offsets[i] = counts[0] + ... + counts[i-1] and
// offsets[n] = the total. In place: `values` holds the counts in [0, n) on entry and the offsets in
// [0, n] on exit. Three launches, each work-group owning one contiguous chunk:
//   1. scan_chunk_sums: sums[g] = the sum of chunk g (in long: a total past 2^31 is seen, not wrapped);
//   2. scan_chunk_offsets: one work-group turns sums[0..groups) into their exclusive prefix sums and
//      writes the total to sums[groups];
//   3. scan_chunks: each chunk scanned in tiles of WG x SCAN_ITEMS elements from its offset.
// Integer sums: the result does not depend on the launch shape. WG is a power of two.
#include "common.cl"
#include "precond/setup_shape.cl"


// The exclusive prefix sum of `v` over the work-group (Hillis-Steele in local memory); *total gets
// the sum of all. Every work-item of the group must call it.
inline long group_exclusive_scan(const long v, __local long* scratch, long* total) {
  const int lid = (int)get_local_id(0);
  scratch[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int offset = 1; offset < WG; offset <<= 1) {
    const long add = lid >= offset ? scratch[lid - offset] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    scratch[lid] += add;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const long inclusive = scratch[lid];
  *total = scratch[WG - 1];
  barrier(CLK_LOCAL_MEM_FENCE);
  return inclusive - v;
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void scan_chunk_sums(const int n, const int chunk,
                                                                               __global const int* values,
                                                                               __global long* sums) {
  __local long scratch[WG];
  const int begin = (int)min((long)get_group_id(0) * chunk, (long)n);
  const int end = (int)min((long)begin + chunk, (long)n);
  long sum = 0;
  for (int i = begin + (int)get_local_id(0); i < end; i += WG) sum += values[i];
  long total;
  group_exclusive_scan(sum, scratch, &total);
  if (get_local_id(0) == 0) sums[get_group_id(0)] = total;
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void scan_chunk_offsets(const int groups,
                                                                                  __global long* sums) {
  __local long scratch[WG];
  long carry = 0;
  for (int base = 0; base < groups; base += WG) {
    const int i = base + (int)get_local_id(0);
    const long v = i < groups ? sums[i] : 0;
    long total;
    const long before = group_exclusive_scan(v, scratch, &total);
    if (i < groups) sums[i] = carry + before;
    carry += total;
  }
  if (get_local_id(0) == 0) sums[groups] = carry;
}

// A tile is WG x SCAN_ITEMS elements, SCAN_ITEMS consecutive ones per work-item summed in registers, so
// the group scan (2 log2(WG) barriers) runs once per SCAN_ITEMS elements a work-item: with one element
// each, the barriers, not the memory, bounded the scan (on an H200 its 49 launches in jumping3d:256's
// setup took 6.3 ms, in tiles of 16 elements a work-item 2.1 ms). Positions in long: a tile may reach
// past 2^31 - 1 when n is close to it.
#ifndef SCAN_ITEMS
#define SCAN_ITEMS 16
#endif
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void scan_chunks(const int n, const int chunk,
                                                                           const int groups,
                                                                           __global int* values,
                                                                           __global const long* sums) {
  __local long scratch[WG];
  const int begin = (int)min((long)get_group_id(0) * chunk, (long)n);
  const int end = (int)min((long)begin + chunk, (long)n);
  long carry = sums[get_group_id(0)];
  for (long base = begin; base < end; base += WG * SCAN_ITEMS) {
    const long first = base + (long)get_local_id(0) * SCAN_ITEMS;
    int v[SCAN_ITEMS];
    long sum = 0;
    for (int j = 0; j < SCAN_ITEMS; ++j) {
      v[j] = first + j < end ? values[first + j] : 0;
      sum += v[j];
    }
    long total;
    long running = carry + group_exclusive_scan(sum, scratch, &total);
    for (int j = 0; j < SCAN_ITEMS; ++j) {
      if (first + j < end) values[first + j] = (int)running;
      running += v[j];
    }
    carry += total;
  }
  if (get_group_id(0) == get_num_groups(0) - 1 && get_local_id(0) == 0) values[n] = (int)sums[groups];
}
