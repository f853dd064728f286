// Load-balanced CSR SpMV, y = alpha*A*x + beta*y, for matrices whose row lengths vary a lot (power-law,
// circuit and network matrices), where one long row would serialise a row-per-work-item kernel. The
// rows are cut on the host into row blocks of about equal nonzeros (src/data/row_blocks.cpp):
// block b holds rows [first_rows[b], first_rows[b+1]).
//
//   spmv_csr_balanced        GPUs (CSR-adaptive, after Greathouse and Daga, SC'14): one work-group per
//                            block. A block of several short rows (at most BLOCK entries, at most WG
//                            rows) is streamed: the work-group multiplies its entries into local memory
//                            with consecutive work-items on consecutive entries (coalesced), then
//                            `lanes` = WG / rows (a power of two) work-items reduce each row there. A
//                            block of one row, however long, is that row alone: the whole work-group
//                            walks it and reduces. Every work-item thus does about BLOCK / WG entries.
//   spmv_csr_balanced_rows   CPUs: one work-item per block (a few blocks per core), each walking its rows
//                            as the scalar kernel does; the blocks hold equal shares of entries + rows,
//                            so no core waits for one with the long rows.
//
// The fused and persistent CG kernels (kernels/solver/cg_balanced.cl, cg_persistent.cl) call
// balanced_block_sums and balanced_rows_sums too; BALANCED_X_LOAD reads x (the persistent kernel reads p
// written by other work-groups in the same launch, through its coherent load).
#include "spmv/csr.cl"

#ifndef BALANCED_X_LOAD
#define BALANCED_X_LOAD VEC_LOAD
#endif

// The largest power of two <= v (v >= 1).
inline int floor_power_of_two(const int v) {
  int p = 1;
  while (p <= v / 2) p *= 2;
  return p;
}

// The row sums of block [row0, row1) by the work-group (WG work-items, WG a power of two, `products`
// holding as many acc_t as the block's entries when it has several rows, `partial` WG acc_t). Returns
// the row whose sum work-item `lid` holds in *sum, or -1 (most work-items of a block). Every work-item
// of the group must call it with the same block: it contains barriers.
inline int balanced_block_sums(const int row0, const int row1, __global const offset_t* row_offsets,
                               __global const int* cols, MVAL_ARG(val), CVEC_ARG(x), __local acc_t* products,
                               __local acc_t* partial, acc_t* sum) {
  const int lid = (int)get_local_id(0), wg = (int)get_local_size(0);
  const int rows = row1 - row0;
  const offset_t k0 = row_offsets[row0], end = row_offsets[row1];
  // Several rows: the block's products into local memory first, neighbouring work-items on neighbouring
  // entries. Every barrier here is reached by the whole group unconditionally (CPU runtimes such as
  // PoCL compile a work-group into loops between barriers and need them outside branches), and no
  // branch skips a loop between two barriers: a loop that does not apply walks an empty range instead.
  // (PoCL 5.0's work-group generation aborts on a branch around a loop there, pocl/pocl#2281.)
  const bool stream = rows > 1;
  const offset_t stream_end = stream ? end : k0;
  for (offset_t k = k0 + lid; k < stream_end; k += wg)
    products[k - k0] = acc_add(ACC_ZERO, MVAL_LOAD(val, k), BALANCED_X_LOAD(x, COL_LOAD(cols, k)));
  barrier(CLK_LOCAL_MEM_FENCE);
  // Then `lanes` work-items per row sum its products; one row alone is summed by the whole group
  // straight from global memory.
  const int lanes = stream ? floor_power_of_two(wg / rows) : wg;
  const int row = lid / lanes, lane = lid % lanes;
  acc_t acc = ACC_ZERO;
  const offset_t direct_end = stream ? k0 : end;
  for (offset_t k = k0 + lid; k < direct_end; k += wg)
    acc = acc_add(acc, MVAL_LOAD(val, k), BALANCED_X_LOAD(x, COL_LOAD(cols, k)));
  const int mine = row0 + min(row, rows - 1);  // a row of the block whichever the work-item (rows >= 1)
  // Within the block: its entries fit local memory, so int positions.
  const int stop = stream && row < rows ? (int)(row_offsets[mine + 1] - k0) : 0;
  for (int k = (int)(row_offsets[mine] - k0) + lane; k < stop; k += lanes) acc = acc_merge(acc, products[k]);
  // The `lanes` partial sums of each row, halved in local memory (barriers only: OpenCL 1.2 has no
  // sub-group operations); every work-item of the group runs the same number of steps.
  partial[lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int span = lanes / 2; span > 0; span /= 2) {
    if (lane < span) partial[lid] = acc_merge(partial[lid], partial[lid + span]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  *sum = partial[lid];
  barrier(CLK_LOCAL_MEM_FENCE);  // products and partial are reused by the next block
  return lane == 0 && row < rows ? row0 + row : -1;
}

__kernel void spmv_csr_balanced(const int blocks, __global const int* first_rows, __global const offset_t* row_offsets,
                                __global const int* cols, MVAL_ARG(val), CVEC_ARG(x), REAL_ARG(alpha),
                                REAL_ARG(beta), VEC_ARG(y), __local acc_t* products,
                                __local acc_t* partial SPMV_EPILOGUE_ARGS) {
  for (int b = (int)get_group_id(0); b < blocks; b += (int)get_num_groups(0)) {
    acc_t s;
    const int row = balanced_block_sums(first_rows[b], first_rows[b + 1], row_offsets, cols, MVAL_PASS(val),
                                        VEC_PASS(x), products, partial, &s);
    if (row >= 0) SPMV_STORE(y, row, alpha, beta, acc_value(s));
  }
}

__kernel void spmv_csr_balanced_rows(const int blocks, __global const int* first_rows,
                                     __global const offset_t* row_offsets, __global const int* cols, MVAL_ARG(val),
                                     CVEC_ARG(x), REAL_ARG(alpha), REAL_ARG(beta), VEC_ARG(y) SPMV_EPILOGUE_ARGS) {
  for (int b = (int)get_global_id(0); b < blocks; b += (int)get_global_size(0)) {
    const int last = first_rows[b + 1];
    offset_t begin = row_offsets[first_rows[b]];
    for (int row = first_rows[b]; row < last; ++row) {
      const offset_t end = row_offsets[row + 1];
      SPMV_STORE(y, row, alpha, beta, acc_value(csr_row_sum(begin, end, cols, MVAL_PASS(val), VEC_PASS(x))));
      begin = end;
    }
  }
}
