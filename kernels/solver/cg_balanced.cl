// Step 1 of the fused CG (cg.cl) for CSR matrices with very unequal rows: q = A p and the per-work-group
// partial sums of p'q, with the load-balanced SpMV of kernels/spmv/csr_balanced.cl (row blocks of about
// equal nonzeros). Steps 2 and 3 are cg.cl's.
#include "spmv/csr_balanced.cl"
#include "solver/group_reduce.cl"

// GPUs: the work-groups take the row blocks in turn (block b to group b mod groups).
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void cg_spmv_csr_balanced_dot(
    const int blocks, __global const int* first_rows, __global const offset_t* row_offsets, __global const int* cols,
    CVEC_ARG(val), CVEC_ARG(p), VEC_ARG(q), VEC_ARG(partials), __local real* scratch, __local acc_t* products) {
  real pq = R_ZERO;
  for (int b = (int)get_group_id(0); b < blocks; b += (int)get_num_groups(0)) {
    acc_t s;
    const int row = balanced_block_sums(first_rows[b], first_rows[b + 1], row_offsets, cols, VEC_PASS(val),
                                        VEC_PASS(p), products, scratch, &s);
    if (row >= 0) {
      VEC_STORE(q, row, acc_value(s));
      pq = R_MAD(VEC_LOAD(p, row), acc_value(s), pq);
    }
  }
  pq = group_sum(pq, scratch);
  if (get_local_id(0) == 0) VEC_STORE(partials, get_group_id(0), pq);
}

// CPUs: each work-item walks the rows of its blocks (equal shares of entries + rows) as the scalar
// kernel does.
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void cg_spmv_csr_balanced_rows_dot(
    const int blocks, __global const int* first_rows, __global const offset_t* row_offsets, __global const int* cols,
    CVEC_ARG(val), CVEC_ARG(p), VEC_ARG(q), VEC_ARG(partials), __local real* scratch) {
  real pq = R_ZERO;
  for (int b = (int)get_global_id(0); b < blocks; b += (int)get_global_size(0)) {
    const int last = first_rows[b + 1];
    offset_t begin = row_offsets[first_rows[b]];
    for (int row = first_rows[b]; row < last; ++row) {
      const offset_t end = row_offsets[row + 1];
      const real s = acc_value(csr_row_sum(begin, end, cols, VEC_PASS(val), VEC_PASS(p)));
      VEC_STORE(q, row, s);
      pq = R_MAD(VEC_LOAD(p, row), s, pq);
      begin = end;
    }
  }
  pq = group_sum(pq, scratch);
  if (get_local_id(0) == 0) VEC_STORE(partials, get_group_id(0), pq);
}
