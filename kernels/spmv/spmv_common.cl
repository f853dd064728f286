// Shared by the SpMV kernels (csr.cl, csr4.cl, ell.cl, hyb.cl): the row-sum accumulator, four-wide
// value loads, the (alpha, beta) store variants and the row loop every one-row-per-work-item kernel uses.
//
// Build options besides the precision (see src/blas/spmv.cpp):
//   -DALPHA_ONE   alpha == 1: the row sum is stored without a multiplication
//   -DBETA_ZERO   beta == 0: y is written without being read (NaN or garbage in y cannot propagate)
//   -DKAHAN       single precision only: compensated row sums (see acc_t below)
//   -DHALF_VALUES single precision only: the matrix values in binary16 (common.cl's MVAL_*)
#include "common.cl"

#if defined(KAHAN) && !defined(CLKR_SINGLE)
#error "-DKAHAN is for single precision only (quasi-double and double sums are already accurate)"
#endif

// ---- four consecutive values (CSR4) ----------------------------------------------------------------
// real4 holds elements 4*k4 .. 4*k4+3 of a value array; REAL4_S0..S3 extract them as reals.
#if defined(CLKR_QDOUBLE)
typedef float8 real4;  // heads in .s0123, tails in .s4567
#define VEC_LOAD4(x, k4) ((float8)(vload4((k4), x##_hi), vload4((k4), x##_lo)))
#define REAL4_S0(v) ((float2)((v).s0, (v).s4))
#define REAL4_S1(v) ((float2)((v).s1, (v).s5))
#define REAL4_S2(v) ((float2)((v).s2, (v).s6))
#define REAL4_S3(v) ((float2)((v).s3, (v).s7))
#else
#if defined(CLKR_DOUBLE)
typedef double4 real4;
#else
typedef float4 real4;
#endif
#define VEC_LOAD4(x, k4) vload4((k4), x)
#define REAL4_S0(v) ((v).s0)
#define REAL4_S1(v) ((v).s1)
#define REAL4_S2(v) ((v).s2)
#define REAL4_S3(v) ((v).s3)
#endif
// Four consecutive matrix values (common.cl's MVAL_*): from binary16 with -DHALF_VALUES.
#if defined(HALF_VALUES)
#define MVAL_LOAD4(v, k4) (vload_half4((k4), (v)) * v##_unscale)
#else
#define MVAL_LOAD4(v, k4) VEC_LOAD4(v, k4)
#endif

// ---- the row-sum accumulator ------------------------------------------------------------------------
// acc_add(acc, a, x) adds a*x; acc_merge combines two partial sums (CSR-vector reduction); acc_value
// gives the sum as a real.
#if defined(KAHAN)
// Compensated dot product (Ogita, Rump and Oishi's Dot2, a Kahan-style summation that also catches
// the rounding error of each product): .x is the running float sum, .y collects the exact errors of
// every product (qd_two_prod) and every addition (qd_two_sum). The result is as accurate as if the
// row were summed in twice the working precision and then rounded, so cancellation within a long
// row no longer costs the digits it does in plain float.
typedef float2 acc_t;
#define ACC_ZERO ((float2)(0.0f, 0.0f))

inline float2 acc_add(float2 acc, float a, float x) {
  const float2 p = qd_two_prod(a, x);
  const float2 s = qd_two_sum(acc.x, p.x);
  return (float2)(s.x, acc.y + (p.y + s.y));
}

inline float2 acc_merge(float2 a, float2 b) {
  const float2 s = qd_two_sum(a.x, b.x);
  return (float2)(s.x, (a.y + b.y) + s.y);
}

inline float acc_value(float2 acc) { return acc.x + acc.y; }
#else
typedef real acc_t;
#define ACC_ZERO R_ZERO
#define acc_add(acc, a, x) R_MAD((a), (x), (acc))
#define acc_merge(a, b) R_ADD((a), (b))
#define acc_value(acc) (acc)
#endif

// ---- a row's entries one stride apart, their loads in groups ----------------------------------------
// acc plus the terms of entries k, k + stride, ... below end (CSR: stride 1, or the lanes of a row;
// ELL and SELL: the pitch or the slice height), added one by one in that order; an entry whose column
// is negative (ELL's and SELL's padding, which only follows a row's entries) adds nothing.
//
// The entries go in groups of ROW_GROUP: a group's columns and values are loaded first, then its
// elements of x, then the additions. A GPU issues a warp's instructions in order, so a loop that adds
// each term as soon as it has loaded it waits twice per entry (the column, then x[column]) with
// nothing else in flight; in groups it waits twice per group. Same terms in the same order: the same
// sum, bit for bit, as the entry-by-entry loop. -DROW_GROUP is SpmvParams::row_load_group: 8 on GPUs,
// 1 on CPUs, whose cores overlap the loads themselves. x is read through ROW_X_LOAD (the persistent CG,
// whose other work-groups write x during the launch, reads it through the L2: VEC_LOAD_SHARED).
#ifndef ROW_GROUP
#define ROW_GROUP 8
#endif
#ifndef ROW_X_LOAD
#define ROW_X_LOAD VEC_LOAD
#endif
// Positions in long whatever offset_t is: a group's last position may lie past 2^31 - 1 (ELL's slots
// one pitch apart) although every entry's does not.
inline acc_t strided_row_sum(acc_t acc, long k, const long end, const int stride, __global const int* cols,
                             MVAL_ARG(val), CVEC_ARG(x)) {
#if ROW_GROUP == 1
  // Entry by entry, written as the plain loop: PoCL compiled the one-slot groups below into code 1.2-2.4x
  // slower than this (ELL and SELL on poisson3d:48 and s2rmq4m1).
  for (; k < end; k += stride) {
    const int c = COL_LOAD(cols, k);
    if (c < 0) break;
    acc = acc_add(acc, MVAL_LOAD(val, k), ROW_X_LOAD(x, c));
  }
#else
  for (; k < end; k += (long)ROW_GROUP * stride) {
    int c[ROW_GROUP];
    real a[ROW_GROUP], v[ROW_GROUP];
#pragma unroll
    for (int j = 0; j < ROW_GROUP; ++j) {
      const long kj = k + (long)j * stride;
      c[j] = -1;
      a[j] = R_ZERO;
      if (kj < end) {
        c[j] = COL_LOAD(cols, kj);
        a[j] = MVAL_LOAD(val, kj);
      }
    }
#pragma unroll
    for (int j = 0; j < ROW_GROUP; ++j) {
      v[j] = R_ZERO;
      if (c[j] >= 0) v[j] = ROW_X_LOAD(x, c[j]);
    }
#pragma unroll
    for (int j = 0; j < ROW_GROUP; ++j)
      if (c[j] >= 0) acc = acc_add(acc, a[j], v[j]);
    if (c[ROW_GROUP - 1] < 0) break;  // past the row's end, or into its padding: nothing more to add
  }
#endif
  return acc;
}

// ---- storing the result -----------------------------------------------------------------------------

#if defined(ALPHA_ONE)
#define SPMV_SCALE(alpha, s) (s)
#else
#define SPMV_SCALE(alpha, s) R_MUL((alpha), (s))
#endif

// y[row] = alpha*s + beta*y[row], or a fused epilogue in its place (spmv_epilogue.cl)
#if defined(SPMV_RESIDUAL) || defined(SPMV_CHEBYSHEV) || defined(SPMV_CORRECTION)
#include "spmv/spmv_epilogue.cl"
#elif defined(BETA_ZERO)
#define SPMV_STORE(y, row, alpha, beta, s) VEC_STORE(y, row, SPMV_SCALE(alpha, s))
#else
#define SPMV_STORE(y, row, alpha, beta, s) \
  VEC_STORE(y, row, R_MAD((beta), VEC_LOAD(y, row), SPMV_SCALE(alpha, s)))
#endif

// Every kernel that stores through SPMV_STORE ends its parameter list with SPMV_EPILOGUE_ARGS: the
// operands of a fused epilogue (spmv_epilogue.cl), or nothing.
#ifndef SPMV_EPILOGUE_ARGS
#define SPMV_EPILOGUE_ARGS
#endif

// y[row] += alpha*s (HYB's overflow pass, after the ELL pass has applied beta)
#define SPMV_ACCUMULATE(y, row, alpha, s) VEC_STORE(y, row, R_ADD(VEC_LOAD(y, row), SPMV_SCALE(alpha, s)))

// ---- the rows of a work-item -------------------------------------------------------------------------
// Work-item g owns rows [g*rows_per_item, min((g+1)*rows_per_item, rows)) (an empty range past the end):
// one row per work-item on GPUs (rows_per_item == 1, neighbouring work-items on neighbouring rows),
// a contiguous block of rows per work-item on CPUs (each core streams through its own part of the
// matrix, as a CPU code would).
inline int2 row_range(const int rows, const int rows_per_item) {
  const size_t first = get_global_id(0) * (size_t)rows_per_item;
  const int begin = first < (size_t)rows ? (int)first : rows;
  const int end = rows - begin < rows_per_item ? rows : begin + rows_per_item;
  return (int2)(begin, end);
}
