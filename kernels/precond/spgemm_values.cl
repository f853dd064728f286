// The numeric phase of the AMG setup's sparse products C = A B on the device, on the pattern spgemm.cl
// made (A, B and C in CSR, double): the same sums as galerkin.cl's galerkin_multiply, term for term in
// the same order, so the same bits, without its weak spot, a long row of C done by one work-item (the
// coarse levels' rows of R (A P) have thousands of products, and a few hundred such rows would leave a
// GPU nearly idle for milliseconds).
//   spgemm_values_short: rows with at most SMALL_ROW products, one work-item each (galerkin.cl's
//     add_scaled_row: each term's column found in C's row by bisection);
//   spgemm_values_long: longer rows, one work-group each (groups stride over the rows). The group walks
//     A's row entry by entry; for entry a_ik its work-items share B's row k, whose columns are distinct,
//     so each adds a_ik b_kj to its own slot of C's row and no two collide; a barrier separates the
//     entries, so every slot receives its terms in A's order, as one work-item would add them. C's row
//     is accumulated in local memory (its columns and sums), or in place in global memory when it has
//     more than SORT_CAPACITY entries.
#include "common.cl"
#include "precond/setup_shape.cl"
// One work-item per row in galerkin.cl's add_scaled_row (lane 0 of 1) for the short rows.
#define LANES 1
#include "precond/galerkin.cl"


__kernel void spgemm_values_short(const int rows, __global const int* bound, __global const int* a_offsets,
                                  __global const int* a_cols, __global const double* a_vals,
                                  __global const int* b_offsets, __global const int* b_cols,
                                  __global const double* b_vals, __global const int* c_offsets,
                                  __global const int* c_cols, __global double* c_vals) {
  const int row = (int)get_global_id(0);
  if (row >= rows || bound[row] > SMALL_ROW) return;
  const int c_begin = c_offsets[row], c_end = c_offsets[row + 1];
  for (int k = c_begin; k < c_end; ++k) c_vals[k] = 0.0;
  for (int ka = a_offsets[row]; ka < a_offsets[row + 1]; ++ka)
    add_scaled_row(a_cols[ka], a_vals[ka], 0, b_offsets, b_cols, b_vals, c_begin, c_end, c_cols, c_vals);
}

// The slot of `col` in cols[0 .. length) (ascending; col is there).
#define FIND_SLOT(SPACE, NAME)                                               \
  inline int NAME(SPACE const int* cols, const int length, const int col) { \
    int lo = 0, hi = length;                                                 \
    while (lo < hi) {                                                        \
      const int mid = (lo + hi) >> 1;                                        \
      if (cols[mid] < col)                                                   \
        lo = mid + 1;                                                        \
      else                                                                   \
        hi = mid;                                                            \
    }                                                                        \
    return lo;                                                               \
  }
FIND_SLOT(__local, local_slot)
FIND_SLOT(__global, global_slot)

// Row `row`'s terms added into sums[slot of the column] (cols, sums: the row of C, in SPACE memory).
#define ACCUMULATE_ROW(FIND, FENCE)                                            \
  for (int ka = a_offsets[row]; ka < a_offsets[row + 1]; ++ka) {                      \
    const int k = a_cols[ka];                                                         \
    const double a = a_vals[ka];                                                      \
    for (int kb = b_offsets[k] + lid; kb < b_offsets[k + 1]; kb += WG)                \
      sums[FIND(cols, length, b_cols[kb])] += a * b_vals[kb];                         \
    barrier(FENCE);                                                                   \
  }

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void spgemm_values_long(
    const int rows, __global const int* bound, __global const int* a_offsets, __global const int* a_cols,
    __global const double* a_vals, __global const int* b_offsets, __global const int* b_cols,
    __global const double* b_vals, __global const int* c_offsets, __global const int* c_cols,
    __global double* c_vals) {
  __local int local_cols[SORT_CAPACITY];
  __local double local_sums[SORT_CAPACITY];
  const int lid = (int)get_local_id(0);
  for (int row = (int)get_group_id(0); row < rows; row += (int)get_num_groups(0)) {
    if (bound[row] <= SMALL_ROW) continue;  // the same for the whole group
    const int c_begin = c_offsets[row], length = c_offsets[row + 1] - c_begin;
    if (length <= SORT_CAPACITY) {
      for (int s = lid; s < length; s += WG) {
        local_cols[s] = c_cols[c_begin + s];
        local_sums[s] = 0.0;
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      {
        __local const int* cols = local_cols;
        __local double* sums = local_sums;
        ACCUMULATE_ROW(local_slot, CLK_LOCAL_MEM_FENCE)
      }
      for (int s = lid; s < length; s += WG) c_vals[c_begin + s] = local_sums[s];
      barrier(CLK_LOCAL_MEM_FENCE);  // the next row reuses the local row
    } else {
      __global const int* cols = c_cols + c_begin;
      __global double* sums = c_vals + c_begin;
      for (int s = lid; s < length; s += WG) sums[s] = 0.0;
      barrier(CLK_GLOBAL_MEM_FENCE);
      ACCUMULATE_ROW(global_slot, CLK_GLOBAL_MEM_FENCE)
    }
  }
}
