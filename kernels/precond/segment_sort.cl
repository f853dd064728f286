// Sorts the segments keys[offsets[s] .. offsets[s+1]) of int keys ascending, in place: the column
// indices of each row of a matrix the AMG setup built in an order set by atomics (a transpose's
// scatter, a sparse product's hash table), made canonical and so deterministic. Two kernels split the
// segments by length, each skipping the other's:
//   segment_sort_short: one work-item per segment of at most SMALL_ROW keys, insertion sort;
//   segment_sort_long: one work-group per longer segment (work-groups stride over the segments): up to
//     SORT_CAPACITY keys (a power of two) by a bitonic network in local memory, past that by heapsort
//     in global memory by one work-item (rare: a row longer than local memory holds).
#include "common.cl"
#include "precond/setup_shape.cl"


__kernel void segment_sort_short(const int segments, __global const int* offsets, __global int* keys) {
  const int s = (int)get_global_id(0);
  if (s >= segments) return;
  const int begin = offsets[s], end = offsets[s + 1];
  if (end - begin > SMALL_ROW) return;
  for (int i = begin + 1; i < end; ++i) {
    const int key = keys[i];
    int j = i;
    for (; j > begin && keys[j - 1] > key; --j) keys[j] = keys[j - 1];
    keys[j] = key;
  }
}

// Restores the max-heap property below `root` in keys[0 .. size).
inline void sift_down(__global int* keys, int root, const int size) {
  const int key = keys[root];
  for (int child = 2 * root + 1; child < size; child = 2 * root + 1) {
    if (child + 1 < size && keys[child + 1] > keys[child]) ++child;
    if (keys[child] <= key) break;
    keys[root] = keys[child];
    root = child;
  }
  keys[root] = key;
}

inline void heapsort(__global int* keys, const int size) {
  for (int root = size / 2 - 1; root >= 0; --root) sift_down(keys, root, size);
  for (int end = size - 1; end > 0; --end) {
    const int top = keys[0];
    keys[0] = keys[end];
    keys[end] = top;
    sift_down(keys, 0, end);
  }
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void segment_sort_long(const int segments,
                                                                                 __global const int* offsets,
                                                                                 __global int* keys) {
  __local int tile[SORT_CAPACITY];
  const int lid = (int)get_local_id(0);
  for (int s = (int)get_group_id(0); s < segments; s += (int)get_num_groups(0)) {
    const int begin = offsets[s], length = offsets[s + 1] - begin;
    if (length <= SMALL_ROW) continue;  // the same for the whole group: no barrier is skipped by some only
    if (length > SORT_CAPACITY) {
      if (lid == 0) heapsort(keys + begin, length);
      continue;
    }
    int padded = 1;
    while (padded < length) padded <<= 1;
    for (int i = lid; i < padded; i += WG) tile[i] = i < length ? keys[begin + i] : INT_MAX;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int size = 2; size <= padded; size <<= 1) {
      for (int stride = size >> 1; stride > 0; stride >>= 1) {
        for (int i = lid; i < padded; i += WG) {
          const int partner = i ^ stride;
          if (partner > i) {
            const int a = tile[i], b = tile[partner];
            const bool ascending = (i & size) == 0;
            if ((a > b) == ascending) {
              tile[i] = b;
              tile[partner] = a;
            }
          }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
      }
    }
    for (int i = lid; i < length; i += WG) keys[begin + i] = tile[i];
    barrier(CLK_LOCAL_MEM_FENCE);  // the next segment reuses the tile
  }
}
