// The first entry of a value array that is NaN or infinite (an overflow in a coarse operator that the
// AMG setup must refuse, naming the entry): *first = the smallest such index, left as it was (n) when
// every value is finite. One work-item per entry; an atomic minimum, so the same answer on every run.
#include "common.cl"

__kernel void first_nonfinite(const int n, __global const double* values, __global int* first) {
  const int k = (int)get_global_id(0);
  if (k < n && !isfinite(values[k])) atomic_min(first, k);
}
