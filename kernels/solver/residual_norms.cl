// ||b - A x||^2 and ||b||^2 in double, for the true relative residual every solve reports
// (src/solver/true_residual.cpp): computed where A already is, so that no solve reads a matrix of
// gigabytes back to the host (or keeps a host copy of it) to check its answer. A comes in any format but
// SELL, as the preconditioners' kernels take it (src/precond/any_format_args.hpp): an ELL part (width 0
// when absent, padding column -1), a CSR part (null offsets when absent; CSR4's padding has value 0) and
// DIA diagonals (count 0 when absent; diagonal d of row i at d * pitch + i, column i + offsets[d], slots
// past the matrix's edge skipped).
//
// It must be as trustworthy as the long double host loop it replaces, whose unit roundoff is 2^-64: a
// converged residual is b - A x with |A| |x| up to cond(A) times |b|, and a plain double sum would bury a
// 1e-12 residual under cond(A) * 1e-16 of rounding. So each row's residual is summed error-free: every
// product a * x split into p + e exactly (an explicit fma; the file is built without contraction, see
// common.cl), every addition into sum + error by TwoSum, the errors collected in a second word (Ogita,
// Rump and Oishi's Dot2): the row's residual comes out as if computed in about twice double's precision
// and rounded once. The squares are summed the same way, per work-group, into (hi, lo) pairs that the
// host adds in long double. A's values and b are read in double (devices with fp64); x in the precision
// the solve left it in (-DCLKR_SINGLE, -DCLKR_QDOUBLE or -DCLKR_DOUBLE), each element exactly a double (a
// quasi-double's head + tail has at most 49 significant bits), so no double copy of x is made.
#include "common.cl"

#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#if defined(CLKR_QDOUBLE)
#define AS_DOUBLE(v) ((double)(v).x + (double)(v).y)
#else
#define AS_DOUBLE(v) ((double)(v))
#endif

#ifndef WG
#define WG 256
#endif

// (hi, lo) + v, with the rounding error of the leading addition kept in lo (TwoSum: exact).
inline double2 dd_add(const double2 acc, const double v) {
  const double s = acc.x + v;
  const double bb = s - acc.x;
  const double e = (acc.x - (s - bb)) + (v - bb);
  return (double2)(s, acc.y + e);
}

inline double2 dd_merge(const double2 a, const double2 b) {
  const double2 s = dd_add(a, b.x);
  return (double2)(s.x, s.y + b.y);
}

// v * v as (hi, lo), exactly.
inline double2 dd_square(const double v) {
  const double p = v * v;
  return (double2)(p, fma(v, v, -p));
}

// r - a * xk, error-free: the product split into p + e by fma, the sum by TwoSum.
inline double2 dd_sub_product(const double2 r, const double a, const double xk) {
  const double p = a * xk;
  double2 s = dd_add(r, -p);
  s.y -= fma(a, xk, -p);  // the product's own rounding error, exact
  return s;
}

// partials[4 g .. 4 g + 3] = (r'r hi, r'r lo, b'b hi, b'b lo) of work-group g's rows.
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void residual_norms(
    const int rows, const int columns, const int ell_width, const int ell_pitch, __global const int* ell_cols,
    __global const double* ell_vals, __global const offset_t* row_offsets, __global const int* cols,
    __global const double* vals, const int dia_count, const int dia_pitch, __global const int* dia_offsets,
    __global const double* dia_vals, CVEC_ARG(x), __global const double* b, __global double* partials) {
  __local double2 rr_scratch[WG], bb_scratch[WG];
  double2 rr = (double2)(0.0, 0.0), bb = (double2)(0.0, 0.0);
  for (int row = (int)get_global_id(0); row < rows; row += (int)get_global_size(0)) {
    const double bi = b[row];
    double2 r = (double2)(bi, 0.0);
    for (int w = 0; w < ell_width; ++w) {
      const int slot = w * ell_pitch + row;
      const int col = ell_cols[slot];
      if (col >= 0) r = dd_sub_product(r, ell_vals[slot], AS_DOUBLE(VEC_LOAD(x, col)));
    }
    for (int d = 0; d < dia_count; ++d) {
      const int col = row + dia_offsets[d];
      if (col >= 0 && col < columns)
        r = dd_sub_product(r, dia_vals[(size_t)d * dia_pitch + row], AS_DOUBLE(VEC_LOAD(x, col)));
    }
    if (row_offsets != 0) {
      const offset_t end = row_offsets[row + 1];
      for (offset_t k = row_offsets[row]; k < end; ++k) r = dd_sub_product(r, vals[k], AS_DOUBLE(VEC_LOAD(x, cols[k])));
    }
    const double ri = r.x + r.y;
    const double2 r2 = dd_square(ri), b2 = dd_square(bi);
    rr = dd_add(rr, r2.x);
    rr.y += r2.y;
    bb = dd_add(bb, b2.x);
    bb.y += b2.y;
  }
  const int lid = (int)get_local_id(0);
  rr_scratch[lid] = rr;
  bb_scratch[lid] = bb;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int span = WG / 2; span > 0; span /= 2) {
    if (lid < span) {
      rr_scratch[lid] = dd_merge(rr_scratch[lid], rr_scratch[lid + span]);
      bb_scratch[lid] = dd_merge(bb_scratch[lid], bb_scratch[lid + span]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) {
    const size_t g = get_group_id(0);
    partials[4 * g] = rr_scratch[0].x;
    partials[4 * g + 1] = rr_scratch[0].y;
    partials[4 * g + 2] = bb_scratch[0].x;
    partials[4 * g + 3] = bb_scratch[0].y;
  }
}
