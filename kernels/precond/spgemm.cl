// The symbolic phase of a sparse product C = A B on the device (the AMG setup's A_F P_tent, A P and
// R (A P)): the pattern of each row of C, the distinct columns of the rows of B that A's row selects.
// The numeric phase is galerkin.cl's galerkin_multiply, the update step's kernel, on this pattern.
//   spgemm_bounds: bound[i] = sum over A's row i of the lengths of B's rows (the products of row i,
//     an upper bound on its entries), and the size of the global-memory hash table a row needs when
//     its bound passes half of HASH_CAPACITY (else 0);
//   spgemm_count_short / spgemm_fill_short: rows with bound <= SMALL_ROW, one work-item each, the
//     distinct columns kept sorted in private memory: counts[i] = their number, then C's columns;
//   spgemm_count_long / spgemm_fill_long: longer rows, one work-group each (groups stride over the
//     rows), the columns inserted into a hash table (open addressing, atomic compare-and-swap) in
//     local memory, or in global memory at scratch + scratch_offsets[i] for rows past HASH_CAPACITY/2;
//     the fill writes the row's columns in table order, and segment_sort.cl sorts them.
// Counts and patterns depend only on the sets of columns, never on the order of the atomics.
#include "common.cl"
#include "precond/setup_shape.cl"


__kernel void spgemm_bounds(const int rows, __global const int* a_offsets, __global const int* a_cols,
                            __global const int* b_offsets, __global int* bound, __global int* scratch_size) {
  const int row = (int)get_global_id(0);
  if (row >= rows) return;
  long products = 0;
  for (int k = a_offsets[row]; k < a_offsets[row + 1]; ++k) {
    const int j = a_cols[k];
    products += b_offsets[j + 1] - b_offsets[j];
  }
  // Clamped: a row of 2^30 products or more cannot be hashed; its table size makes the host refuse.
  products = min(products, (long)(1 << 30));
  bound[row] = (int)products;
  int table = 0;
  if (products > HASH_CAPACITY / 2) {
    table = 1;
    while (table < 2 * products && table < (1 << 30)) table <<= 1;
  }
  scratch_size[row] = table;
}

// The distinct columns of row `row` of A B in ascending order in `sorted`, their number returned
// (the row's bound is at most SMALL_ROW, so they fit).
inline int short_row_columns(const int row, __global const int* a_offsets, __global const int* a_cols,
                             __global const int* b_offsets, __global const int* b_cols, int* sorted) {
  int count = 0;
  for (int k = a_offsets[row]; k < a_offsets[row + 1]; ++k) {
    const int j = a_cols[k];
    for (int kb = b_offsets[j]; kb < b_offsets[j + 1]; ++kb) {
      const int col = b_cols[kb];
      int at = count;
      while (at > 0 && sorted[at - 1] > col) --at;
      if (at > 0 && sorted[at - 1] == col) continue;
      for (int m = count; m > at; --m) sorted[m] = sorted[m - 1];
      sorted[at] = col;
      ++count;
    }
  }
  return count;
}

__kernel void spgemm_count_short(const int rows, __global const int* a_offsets, __global const int* a_cols,
                                 __global const int* b_offsets, __global const int* b_cols,
                                 __global const int* bound, __global int* counts) {
  const int row = (int)get_global_id(0);
  if (row >= rows || bound[row] > SMALL_ROW) return;
  int sorted[SMALL_ROW];
  counts[row] = short_row_columns(row, a_offsets, a_cols, b_offsets, b_cols, sorted);
}

__kernel void spgemm_fill_short(const int rows, __global const int* a_offsets, __global const int* a_cols,
                                __global const int* b_offsets, __global const int* b_cols,
                                __global const int* bound, __global const int* c_offsets, __global int* c_cols) {
  const int row = (int)get_global_id(0);
  if (row >= rows || bound[row] > SMALL_ROW) return;
  int sorted[SMALL_ROW];
  const int count = short_row_columns(row, a_offsets, a_cols, b_offsets, b_cols, sorted);
  const int begin = c_offsets[row];
  for (int m = 0; m < count; ++m) c_cols[begin + m] = sorted[m];
}

// Open addressing with linear probing; -1 marks a free slot. A multiplicative hash by an odd constant
// is a bijection on the low bits, so columns close together (the usual case) rarely collide.
#define HASH_TABLE_FUNCTIONS(SPACE, NAME)                                                                  \
  inline void NAME##_insert(SPACE int* table, const int mask, const int key, __local int* unique) {        \
    int slot = (int)(((uint)key * 2654435761u) & (uint)mask);                                              \
    for (;;) {                                                                                             \
      const int old = atomic_cmpxchg(&table[slot], -1, key);                                               \
      if (old == -1) {                                                                                     \
        atomic_inc(unique);                                                                                \
        return;                                                                                            \
      }                                                                                                    \
      if (old == key) return;                                                                              \
      slot = (slot + 1) & mask;                                                                            \
    }                                                                                                      \
  }                                                                                                        \
  /* Every column of row `row` of A B into the table (cleared first); *unique counts the distinct. */      \
  inline void NAME##_hash_row(const int row, __global const int* a_offsets, __global const int* a_cols,    \
                              __global const int* b_offsets, __global const int* b_cols, SPACE int* table, \
                              const int size, __local int* unique) {                                       \
    const int lid = (int)get_local_id(0);                                                                  \
    for (int s = lid; s < size; s += WG) table[s] = -1;                                                    \
    if (lid == 0) *unique = 0;                                                                             \
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);                                                   \
    /* A short row of A shares the group out: `lanes` work-items walk each of B's rows together. */       \
    const int begin = a_offsets[row], length = a_offsets[row + 1] - begin;                                 \
    const int lanes = length >= WG ? 1 : WG / max(length, 1);                                              \
    const int teams = WG / lanes, team = lid / lanes, lane = lid % lanes;                                  \
    if (team < teams) {                                                                                    \
      for (int e = begin + team; e < begin + length; e += teams) {                                         \
        const int j = a_cols[e];                                                                           \
        for (int kb = b_offsets[j] + lane; kb < b_offsets[j + 1]; kb += lanes)                             \
          NAME##_insert(table, size - 1, b_cols[kb], unique);                                              \
      }                                                                                                    \
    }                                                                                                      \
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);                                                   \
  }                                                                                                        \
  /* The table's keys into C's row, in table order. */                                                    \
  inline void NAME##_compact(SPACE const int* table, const int size, __global int* out, __local int* cursor) { \
    const int lid = (int)get_local_id(0);                                                                  \
    if (lid == 0) *cursor = 0;                                                                             \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                          \
    /* Every work-item runs the same steps (a key of -1 past the end) rather than a loop of its own        \
       trip count here: PoCL 5.0's work-group generation aborted on that loop between two barriers. */     \
    for (int base = 0; base < size; base += WG) {                                                          \
      const int key = base + lid < size ? table[base + lid] : -1;                                          \
      if (key >= 0) out[atomic_inc(cursor)] = key;                                                         \
    }                                                                                                      \
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);                                                   \
  }

HASH_TABLE_FUNCTIONS(__local, local)
HASH_TABLE_FUNCTIONS(__global, global)

// The local table's size for a row of `bound` products: a power of two at least twice the bound.
inline int local_table_size(const int bound) {
  int size = 64;
  while (size < 2 * bound) size <<= 1;
  return size;
}

// Row loop shared by the two long-row kernels: WORK(table, size) runs once the row's table is built.
#define LONG_ROWS(WORK_LOCAL, WORK_GLOBAL)                                                                 \
  __local int table[HASH_CAPACITY];                                                                        \
  __local int unique, cursor;                                                                              \
  for (int row = (int)get_group_id(0); row < rows; row += (int)get_num_groups(0)) {                       \
    const int b = bound[row];                                                                              \
    if (b <= SMALL_ROW) continue; /* the same for the whole group */                                       \
    if (b <= HASH_CAPACITY / 2) {                                                                          \
      const int size = local_table_size(b);                                                                \
      local_hash_row(row, a_offsets, a_cols, b_offsets, b_cols, table, size, &unique);                     \
      WORK_LOCAL;                                                                                          \
    } else {                                                                                               \
      __global int* global_table = scratch + scratch_offsets[row];                                         \
      const int size = scratch_offsets[row + 1] - scratch_offsets[row];                                    \
      global_hash_row(row, a_offsets, a_cols, b_offsets, b_cols, global_table, size, &unique);             \
      WORK_GLOBAL;                                                                                         \
    }                                                                                                      \
    barrier(CLK_LOCAL_MEM_FENCE); /* the next row reuses the table */                                      \
  }

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void spgemm_count_long(
    const int rows, __global const int* a_offsets, __global const int* a_cols, __global const int* b_offsets,
    __global const int* b_cols, __global const int* bound, __global const int* scratch_offsets,
    __global int* scratch, __global int* counts) {
  LONG_ROWS(if (get_local_id(0) == 0) counts[row] = unique, if (get_local_id(0) == 0) counts[row] = unique)
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void spgemm_fill_long(
    const int rows, __global const int* a_offsets, __global const int* a_cols, __global const int* b_offsets,
    __global const int* b_cols, __global const int* bound, __global const int* scratch_offsets,
    __global int* scratch, __global const int* c_offsets, __global int* c_cols) {
  LONG_ROWS(local_compact(table, size, c_cols + c_offsets[row], &cursor),
            global_compact(global_table, size, c_cols + c_offsets[row], &cursor))
}
