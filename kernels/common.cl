// Shared by every clkr kernel: the `real` type and arithmetic macros for the precision selected
// at build time (-DCLKR_SINGLE, -DCLKR_QDOUBLE or -DCLKR_DOUBLE), and quasi-double arithmetic.
//
// Kernels are written once against these macros:
//   real                 the register type (float, float2 = (head, tail), double)
//   REAL_ARG(a)          a scalar kernel parameter (float, float2, double)
//   VEC_ARG(x)           a vector kernel parameter; quasi-double expands to two float arrays x_hi, x_lo
//   CVEC_ARG(x)          the same, read-only
//   VEC_LOAD(x, i)       element i as a real
//   VEC_STORE(x, i, v)   store a real into element i
//   R_ADD, R_SUB, R_MUL, R_DIV, R_MAD(a, b, c) = a*b + c, R_ZERO, R_NEG, R_FROM_FLOAT(f)
// Host code passes one buffer per vector in single and double, and (head, tail) buffers in
// quasi-double; scalars are float, (head, tail) float2, or double.

// The error-free transformations below are only exact when the compiler neither fuses a*b+c into
// an fma nor reassociates; never build clkr kernels with -cl-fast-relaxed-math or -cl-mad-enable.
#pragma OPENCL FP_CONTRACT OFF

// ---- quasi-double (double-single) arithmetic: value = x + y, |y| <= ulp(x)/2 -----------------------

// s + e == a + b exactly (Knuth's TwoSum, no precondition on |a|, |b|).
inline float2 qd_two_sum(float a, float b) {
  float s = a + b;
  float bb = s - a;
  float e = (a - (s - bb)) + (b - bb);
  return (float2)(s, e);
}

// s + e == a + b exactly when |a| >= |b| (Dekker's FastTwoSum).
inline float2 qd_quick_two_sum(float a, float b) {
  float s = a + b;
  float e = b - (s - a);
  return (float2)(s, e);
}

// p + e == a * b exactly: the explicit fma gives the rounding error of the product.
inline float2 qd_two_prod(float a, float b) {
  float p = a * b;
  float e = fma(a, b, -p);
  return (float2)(p, e);
}

inline float2 qd_add(float2 a, float2 b) {
  float2 s = qd_two_sum(a.x, b.x);
  float2 t = qd_two_sum(a.y, b.y);
  s.y += t.x;
  s = qd_quick_two_sum(s.x, s.y);
  s.y += t.y;
  return qd_quick_two_sum(s.x, s.y);
}

inline float2 qd_neg(float2 a) { return (float2)(-a.x, -a.y); }

inline float2 qd_sub(float2 a, float2 b) { return qd_add(a, qd_neg(b)); }

inline float2 qd_mul(float2 a, float2 b) {
  float2 p = qd_two_prod(a.x, b.x);
  p.y += a.x * b.y + a.y * b.x;
  return qd_quick_two_sum(p.x, p.y);
}

inline float2 qd_div(float2 a, float2 b) {
  float q1 = a.x / b.x;
  float2 r = qd_sub(a, qd_mul((float2)(q1, 0.0f), b));
  float q2 = r.x / b.x;
  r = qd_sub(r, qd_mul((float2)(q2, 0.0f), b));
  float q3 = r.x / b.x;
  float2 q = qd_quick_two_sum(q1, q2);
  return qd_add(q, (float2)(q3, 0.0f));
}

// ---- precision selection ------------------------------------------------------------------------

#if defined(CLKR_DOUBLE)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
#define REAL_ARG(a) const double a
#define VEC_ARG(x) __global double* x
#define CVEC_ARG(x) __global const double* x
#define VEC_LOAD(x, i) ((x)[i])
#define VEC_STORE(x, i, v) ((x)[i] = (v))
#define R_ADD(a, b) ((a) + (b))
#define R_SUB(a, b) ((a) - (b))
#define R_MUL(a, b) ((a) * (b))
#define R_DIV(a, b) ((a) / (b))
#define R_MAD(a, b, c) ((a) * (b) + (c))
#define R_NEG(a) (-(a))
#define R_ZERO 0.0
#define R_FROM_FLOAT(f) ((double)(f))

#elif defined(CLKR_QDOUBLE)
typedef float2 real;
#define REAL_ARG(a) const float2 a
#define VEC_ARG(x) __global float *x##_hi, __global float *x##_lo
#define CVEC_ARG(x) __global const float *x##_hi, __global const float *x##_lo
#define VEC_LOAD(x, i) ((float2)((x##_hi)[i], (x##_lo)[i]))
// (.s0/.s1, not .x/.y: a macro parameter named x would capture the component name.)
#define VEC_STORE(x, i, v)    \
  do {                        \
    const float2 v_ = (v);    \
    (x##_hi)[i] = v_.s0;      \
    (x##_lo)[i] = v_.s1;      \
  } while (0)
#define R_ADD(a, b) qd_add((a), (b))
#define R_SUB(a, b) qd_sub((a), (b))
#define R_MUL(a, b) qd_mul((a), (b))
#define R_DIV(a, b) qd_div((a), (b))
#define R_MAD(a, b, c) qd_add(qd_mul((a), (b)), (c))
#define R_NEG(a) qd_neg(a)
#define R_ZERO ((float2)(0.0f, 0.0f))
#define R_FROM_FLOAT(f) ((float2)((f), 0.0f))

#elif defined(CLKR_SINGLE)
typedef float real;
#define REAL_ARG(a) const float a
#define VEC_ARG(x) __global float* x
#define CVEC_ARG(x) __global const float* x
#define VEC_LOAD(x, i) ((x)[i])
#define VEC_STORE(x, i, v) ((x)[i] = (v))
#define R_ADD(a, b) ((a) + (b))
#define R_SUB(a, b) ((a) - (b))
#define R_MUL(a, b) ((a) * (b))
#define R_DIV(a, b) ((a) / (b))
#define R_MAD(a, b, c) ((a) * (b) + (c))
#define R_NEG(a) (-(a))
#define R_ZERO 0.0f
#define R_FROM_FLOAT(f) (f)

#else
#error "build clkr kernels with -DCLKR_SINGLE, -DCLKR_QDOUBLE or -DCLKR_DOUBLE"
#endif

// ---- passing vectors on to helper functions --------------------------------------------------------
// VEC_PASS(x) forwards a CVEC_ARG/VEC_ARG parameter to a function declared with the same macro.
#if defined(CLKR_QDOUBLE)
#define VEC_PASS(x) x##_hi, x##_lo
#else
#define VEC_PASS(x) x
#endif

// ---- matrix values: in the precision, or in half precision (-DHALF_VALUES) ----------------------------
// A kernel takes a matrix's value array as MVAL_ARG(v), reads value k with MVAL_LOAD(v, k) and forwards
// the array with MVAL_PASS(v): without -DHALF_VALUES these are CVEC_ARG, VEC_LOAD and VEC_PASS. With it
// (single precision only: Matrix values in ValueStorage::Half, for a Blas with BlasOptions::matrix_values
// Half) the array holds IEEE binary16 numbers h_k = half(float(a_k) * 2^e), 2^e chosen by the host so
// that every nonzero value lies in half's normal range (src/data/half_values.cpp), and the float
// v_unscale = 2^-e follows it. A load widens h_k to float and multiplies by 2^-e, both exact: the kernel
// computes with a_k rounded to 11 significant bits, reading 2 bytes a value instead of 4. Declaring a
// half pointer and loading through vload_half needs no cl_khr_fp16. The solvers' fused kernels, which
// never read half values, declare their value arrays as CVEC_ARG: the same parameter without the option.
// ---- the matrix's entries as a stream (-DSTREAM_LOADS: SpmvParams::stream_loads, NVIDIA only) ---------
// An SpMV reads each entry of the matrix once but gathers elements of x again and again (a column is
// gathered by every row that has it). With plain loads the entries' lines push x's out of the L1 and the
// L2; PTX's cache-streaming load (ld.global.cs) allocates its lines evict-first in both, the hint for
// data read once. COL_LOAD(cols, k) reads a column index; MVAL_LOAD (below) a value. The host passes the
// option only to NVIDIA's compiler (src/blas/spmv.cpp, stream_loads_option): the loads are inline PTX.
#if defined(STREAM_LOADS)
inline int stream_load_int(__global const int* p) {
  int v;
  asm("ld.global.cs.s32 %0, [%1];" : "=r"(v) : "l"(p));
  return v;
}
inline float stream_load_float(__global const float* p) {
  float v;
  asm("ld.global.cs.f32 %0, [%1];" : "=f"(v) : "l"(p));
  return v;
}
#if defined(CLKR_DOUBLE)
inline double stream_load_double(__global const double* p) {
  double v;
  asm("ld.global.cs.f64 %0, [%1];" : "=d"(v) : "l"(p));
  return v;
}
#define STREAM_LOAD_REAL(v, k) stream_load_double((v) + (k))
#elif defined(CLKR_SINGLE)
#define STREAM_LOAD_REAL(v, k) stream_load_float((v) + (k))
#else
#define STREAM_LOAD_REAL(v, k) ((float2)(stream_load_float((v##_hi) + (k)), stream_load_float((v##_lo) + (k))))
#endif
#define COL_LOAD(cols, k) stream_load_int((cols) + (k))
#else
#define COL_LOAD(cols, k) ((cols)[k])
#endif

#if defined(HALF_VALUES)
#if !defined(CLKR_SINGLE)
#error "-DHALF_VALUES is for single precision only"
#endif
#define MVAL_ARG(v) __global const half *v, const float v##_unscale
#define MVAL_LOAD(v, k) (vload_half((k), (v)) * v##_unscale)
#define MVAL_PASS(v) v, v##_unscale
#else
#define MVAL_ARG(v) CVEC_ARG(v)
#if defined(STREAM_LOADS)
#define MVAL_LOAD(v, k) STREAM_LOAD_REAL(v, k)
#else
#define MVAL_LOAD(v, k) VEC_LOAD(v, k)
#endif
#define MVAL_PASS(v) VEC_PASS(v)
#endif

// ---- row offsets: 32 or 64 bits ---------------------------------------------------------------------
// A CSR matrix's row offsets (and so the positions of its entries) are 64-bit past 2^31 - 1 entries
// (-DWIDE_OFFSETS, set by the host from Matrix::CsrPart::wide_offsets), else 32-bit: the common case
// reads half the offset bytes and keeps 32-bit index arithmetic. Rows and columns stay int.
#ifdef WIDE_OFFSETS
typedef long offset_t;
#else
typedef int offset_t;
#endif
