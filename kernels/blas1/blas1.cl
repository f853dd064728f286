// Shared by the BLAS1 kernels: how a vector is split across work-items (-DCLKR_GRID_STRIDE or
// -DCLKR_CHUNKED) and, for the chunked variant, `realV`: CLKR_VW consecutive elements of the
// precision's `real` read and written with vloadN/vstoreN, with the arithmetic of common.cl.
//
// GridStride (GPUs): work-item g handles g, g + G, g + 2G, ... so a wavefront reads consecutive
// addresses. Chunked (CPUs): work-item g owns elements [g*chunk, min((g+1)*chunk, n)); `chunk` is a
// multiple of CLKR_VW chosen by the host, so every work-item's vector part starts VW-aligned and only
// the last work-item can have a tail of fewer than VW elements, handled one at a time. One contiguous
// stream per core is what CPU prefetchers and caches want; a grid-stride walk touches each cache line
// from many work-items that a CPU runs one after another, and measured 20x slower on PoCL.
#include "common.cl"

#if defined(CLKR_CHUNKED) == defined(CLKR_GRID_STRIDE)
#error "build BLAS1 kernels with exactly one of -DCLKR_CHUNKED or -DCLKR_GRID_STRIDE"
#endif

#if defined(CLKR_CHUNKED)

#ifndef CLKR_VW
#define CLKR_VW 8
#endif
#if CLKR_VW != 2 && CLKR_VW != 4 && CLKR_VW != 8 && CLKR_VW != 16
#error "CLKR_VW must be 2, 4, 8 or 16"
#endif

#define CLKR_CAT_(a, b) a##b
#define CLKR_CAT(a, b) CLKR_CAT_(a, b)
#define CLKR_VLOAD CLKR_CAT(vload, CLKR_VW)
#define CLKR_VSTORE CLKR_CAT(vstore, CLKR_VW)

// This work-item's elements: [begin, end), of which [begin, vector_end) is a multiple of CLKR_VW.
// A work-item past the end of the vector gets an empty range.
#define CHUNK_RANGE(n, chunk, begin, vector_end, end)                  \
  const ulong begin = min((ulong)get_global_id(0) * (chunk), (n));     \
  const ulong end = min(begin + (chunk), (n));                         \
  const ulong vector_end = begin + (end - begin) / CLKR_VW * CLKR_VW

#if defined(CLKR_QDOUBLE)

// CLKR_VW quasi-double numbers as two float vectors. The qdv_* functions are common.cl's qd_*
// applied lane by lane, in the same operation order, so a lane computes exactly what the scalar
// functions compute for that element (the vector body and the remainder loop agree bit for bit).
typedef CLKR_CAT(float, CLKR_VW) floatV;
typedef struct {
  floatV hi, lo;
} realV;

inline realV qdv_make(floatV hi, floatV lo) {
  realV r;
  r.hi = hi;
  r.lo = lo;
  return r;
}

inline realV qdv_two_sum(floatV a, floatV b) {
  const floatV s = a + b;
  const floatV bb = s - a;
  return qdv_make(s, (a - (s - bb)) + (b - bb));
}

inline realV qdv_quick_two_sum(floatV a, floatV b) {
  const floatV s = a + b;
  return qdv_make(s, b - (s - a));
}

inline realV qdv_two_prod(floatV a, floatV b) {
  const floatV p = a * b;
  return qdv_make(p, fma(a, b, -p));
}

inline realV qdv_add(realV a, realV b) {
  realV s = qdv_two_sum(a.hi, b.hi);
  const realV t = qdv_two_sum(a.lo, b.lo);
  s.lo += t.hi;
  s = qdv_quick_two_sum(s.hi, s.lo);
  s.lo += t.lo;
  return qdv_quick_two_sum(s.hi, s.lo);
}

inline realV qdv_mul(realV a, realV b) {
  realV p = qdv_two_prod(a.hi, b.hi);
  p.lo += a.hi * b.lo + a.lo * b.hi;
  return qdv_quick_two_sum(p.hi, p.lo);
}

#define RV_LOAD(x, i) qdv_make(CLKR_VLOAD(0, (x##_hi) + (i)), CLKR_VLOAD(0, (x##_lo) + (i)))
#define RV_STORE(x, i, v)                    \
  do {                                       \
    const realV v_ = (v);                    \
    CLKR_VSTORE(v_.hi, 0, (x##_hi) + (i));   \
    CLKR_VSTORE(v_.lo, 0, (x##_lo) + (i));   \
  } while (0)
#define RV_ADD(a, b) qdv_add((a), (b))
#define RV_MUL(a, b) qdv_mul((a), (b))
#define RV_MAD(a, b, c) qdv_add(qdv_mul((a), (b)), (c))
#define RV_SPLAT(s) qdv_make((floatV)((s).x), (floatV)((s).y))
#define RV_ZERO qdv_make((floatV)(0.0f), (floatV)(0.0f))

#else  // single, double: realV is a built-in vector type and the R_* macros apply lane-wise

#if defined(CLKR_DOUBLE)
typedef CLKR_CAT(double, CLKR_VW) realV;
#else
typedef CLKR_CAT(float, CLKR_VW) realV;
#endif
#define RV_LOAD(x, i) CLKR_VLOAD(0, (x) + (i))
#define RV_STORE(x, i, v) CLKR_VSTORE((v), 0, (x) + (i))
#define RV_ADD(a, b) R_ADD((a), (b))
#define RV_MUL(a, b) R_MUL((a), (b))
#define RV_MAD(a, b, c) R_MAD((a), (b), (c))
#define RV_SPLAT(s) ((realV)(s))
#define RV_ZERO ((realV)(R_ZERO))

#endif

// The sum of v's lanes in the precision's arithmetic, as a pairwise tree.
inline real rv_sum(realV v) {
#if defined(CLKR_QDOUBLE)
  float lanes_hi[CLKR_VW], lanes_lo[CLKR_VW];
#else
  real lanes[CLKR_VW];
#endif
  RV_STORE(lanes, 0, v);
  for (int width = CLKR_VW / 2; width > 0; width /= 2)
    for (int k = 0; k < width; ++k) VEC_STORE(lanes, k, R_ADD(VEC_LOAD(lanes, k), VEC_LOAD(lanes, k + width)));
  return VEC_LOAD(lanes, 0);
}

#endif  // CLKR_CHUNKED

// ---- elementwise kernels written once for both splits ---------------------------------------------
// ELEMENTWISE_LOOP(n, chunk, STEP) runs STEP(F, i) over this work-item's elements, where F is the
// family of macros to use: V (realV: CLKR_VW elements from i on) in the vector part of a chunk, S
// (real: element i) elsewhere. A step is written once against F##_LOAD, F##_STORE, F##_ADD, F##_MUL,
// F##_MAD and F##_SPLAT (a scalar kernel argument as an F value); real##F##_t is the family's type:
//   #define AXPY_STEP(F, i) F##_STORE(y, i, F##_MAD(F##_SPLAT(a), F##_LOAD(x, i), F##_LOAD(y, i)))
#define S_LOAD(x, i) VEC_LOAD(x, i)
#define S_STORE(x, i, v) VEC_STORE(x, i, v)
#define S_ADD(a, b) R_ADD(a, b)
#define S_MUL(a, b) R_MUL(a, b)
#define S_MAD(a, b, c) R_MAD(a, b, c)
#define S_SPLAT(a) (a)
typedef real realS_t;
#if defined(CLKR_CHUNKED)
typedef realV realV_t;
#define V_LOAD(x, i) RV_LOAD(x, i)
#define V_STORE(x, i, v) RV_STORE(x, i, v)
#define V_ADD(a, b) RV_ADD(a, b)
#define V_MUL(a, b) RV_MUL(a, b)
#define V_MAD(a, b, c) RV_MAD(a, b, c)
#define V_SPLAT(a) RV_SPLAT(a)
#define ELEMENTWISE_LOOP(n, chunk, STEP)                                            \
  do {                                                                              \
    CHUNK_RANGE(n, chunk, begin_, vector_end_, end_);                               \
    for (ulong i_ = begin_; i_ < vector_end_; i_ += CLKR_VW) STEP(V, i_);          \
    for (ulong i_ = vector_end_; i_ < end_; ++i_) STEP(S, i_);                      \
  } while (0)
#else
#define ELEMENTWISE_LOOP(n, chunk, STEP)                                                  \
  do {                                                                                    \
    for (ulong i_ = get_global_id(0); i_ < (n); i_ += get_global_size(0)) STEP(S, i_);  \
  } while (0)
#endif
