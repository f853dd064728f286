// CSR times a block of BK vectors (SpMM), Y = A X: the vectors are stored interleaved, as a row-major
// n x BK block (element (i, j) at i*BK + j), so the BK values a matrix entry a_ic meets are contiguous
// and each matrix entry and column index is read once for all BK vectors, not BK times.
//
// Build options besides the precision:
//   -DBK=k          the number of vectors (a constant: the BK row sums live in registers)
//   -DWG=w          the work-group size (reqd_work_group_size)
//   -DROWS_CHUNKED  CPUs: each work-item owns one contiguous block of `chunk` rows (one stream per
//                   core); otherwise GPUs: a grid-stride walk over the rows (neighbouring work-items on
//                   neighbouring rows)
#include "spmv/spmv_common.cl"

// The host always passes -DBK; the default lets a build check (`clkr devices`) compile the file as it
// compiles the others, with their defaults.
#ifndef BK
#define BK 1
#endif
#ifndef WG
#define WG 256
#endif

#if defined(ROWS_CHUNKED)
#define FOR_EACH_ROW(i, n, chunk) \
  for (int i = min((int)get_global_id(0) * (chunk), (n)), i##_end = min(i + (chunk), (n)); i < i##_end; ++i)
#else
#define FOR_EACH_ROW(i, n, chunk) for (int i = (int)get_global_id(0); i < (n); i += (int)get_global_size(0))
#endif

// The loops over the BK columns are unrolled: the BK sums then live in registers (not a private array
// in memory) and the compiler can vectorize across the columns (contiguous in the block).
#define UNROLL _Pragma("unroll")

// acc[j] = sum over the row's entries of a_ic * x[c*BK + j], in the order of the entries (one chain per
// vector: the BK independent sums already keep a CPU's adder busy, which csr.cl's ROW_CHAINS does for
// a single vector). Block indices are size_t: n*BK may pass INT_MAX before n does.
inline void csr_row_sums_multi(const offset_t begin, const offset_t end, __global const int* cols, MVAL_ARG(val),
                               CVEC_ARG(x), real* acc) {
  UNROLL for (int j = 0; j < BK; ++j) acc[j] = R_ZERO;
  for (offset_t k = begin; k < end; ++k) {
    const real a = MVAL_LOAD(val, k);
    const size_t base = (size_t)cols[k] * BK;
    UNROLL for (int j = 0; j < BK; ++j) acc[j] = R_MAD(a, VEC_LOAD(x, base + j), acc[j]);
  }
}

// Y = A X for the BK interleaved vectors of X (Y written without being read).
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void spmm_csr(const int rows, const int chunk,
                                                                        __global const offset_t* row_offsets,
                                                                        __global const int* cols, MVAL_ARG(val),
                                                                        CVEC_ARG(x), VEC_ARG(y)) {
  FOR_EACH_ROW(row, rows, chunk) {
    real s[BK];
    csr_row_sums_multi(row_offsets[row], row_offsets[row + 1], cols, MVAL_PASS(val), VEC_PASS(x), s);
    const size_t base = (size_t)row * BK;
    UNROLL for (int j = 0; j < BK; ++j) VEC_STORE(y, base + j, s[j]);
  }
}
