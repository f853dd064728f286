// Precision conversions of device arrays (Vector copies and Matrix values): double to quasi-double
// (head, tail) or single (head), and back. Every kernel touches a double, so the file is built with
// -DCLKR_DOUBLE and only on devices with fp64; elsewhere src/data converts on the host.
#include "common.cl"

// head = float(d), tail = float(d - head). d - head is exact in double (head is d rounded to 24 bits),
// so head + tail equals d to within 2^-48 relative. Casts round to nearest even, as the host's do, so
// the device and host splits agree bit for bit.
__kernel void split_double(__global const double* d, __global float* head, __global float* tail, const ulong n) {
  const size_t i = get_global_id(0);
  if (i < n) {
    const double v = d[i];
    const float h = (float)v;
    head[i] = h;
    tail[i] = (float)(v - (double)h);
  }
}

// The single copy alone (the head of the split above).
__kernel void narrow_double(__global const double* d, __global float* head, const ulong n) {
  const size_t i = get_global_id(0);
  if (i < n) head[i] = (float)d[i];
}

// d = head + tail rounded once to double; for a split double, d again to within 2^-48 relative.
__kernel void merge_quasi_double(__global const float* head, __global const float* tail, __global double* d,
                                 const ulong n) {
  const size_t i = get_global_id(0);
  if (i < n) d[i] = (double)head[i] + (double)tail[i];
}

// d = head, exactly.
__kernel void widen_single(__global const float* head, __global double* d, const ulong n) {
  const size_t i = get_global_id(0);
  if (i < n) d[i] = (double)head[i];
}

// out[i] = values[index[i]] (index[i] < 0: 0): a matrix's diagonal gathered from its values.
__kernel void gather_double(__global const double* values, __global const int* index, __global double* out,
                            const ulong n) {
  const size_t i = get_global_id(0);
  if (i < n) out[i] = index[i] >= 0 ? values[index[i]] : 0.0;
}
