// Matrix::update_values in a format other than CSR (src/data/value_upload.cpp): new values, in CSR
// order, each to where the format stores that entry. Every entry has a slot of its own, so no two
// work-items write the same element, and the padding, which no slot names, keeps the zeros it was
// uploaded with. Built per precision: in quasi-double both halves of each value move.
#include "common.cl"

// values[k] is entry first + k, for k < n (one chunk of the upload). Its slot >= 0 is an index in the
// column-major part (ELL's, SELL's or DIA's values), a slot < 0 the index -slot - 1 in the CSR-like
// part (HYB's overflow, CSR4's rows). Slots are 64-bit (offset_t, -DWIDE_OFFSETS) where a part holds
// 2^31 - 1 elements or more.
__kernel void scatter_values(CVEC_ARG(values), __global const offset_t* slots, VEC_ARG(column_major),
                             VEC_ARG(csr_like), const ulong first, const ulong n) {
  const size_t k = get_global_id(0);
  if (k >= n) return;
  const offset_t slot = slots[first + k];
  if (slot >= 0) {
    VEC_STORE(column_major, slot, VEC_LOAD(values, k));
  } else {
    VEC_STORE(csr_like, -slot - 1, VEC_LOAD(values, k));
  }
}
