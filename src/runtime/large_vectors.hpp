// Large host arrays backed by transparent huge pages. The AMG setup and the upload paths allocate
// hundreds of MB of fresh arrays; with 4 KiB pages their first touch (the zero fill of resize, one
// thread) takes a page fault every 4 KiB, and on the H200 machine that was 40% of the AMG setup
// (1.26 s -> 0.75 s on poisson3d:128 with glibc's huge-page tunable). Linux's THP in its default
// "madvise" mode backs a range with 2 MiB pages only when asked: these helpers reserve the array
// first (no page touched yet), ask for huge pages on it, then fill it. Elsewhere, or for small
// arrays, they are plain resize/assign/reserve. CLKR_HUGE_PAGES=0 turns the advice off: where memory
// is already faulted in (a process repeating setups of the same size) 2 MiB pages can cost more than
// they save (the 2-core development VM: warm poisson3d:64 setups 20% slower, cold ones 1.6x faster).
#pragma once

#include <cstddef>
#include <vector>

namespace clkr::detail {

// madvise(MADV_HUGEPAGE) on the 2 MiB-aligned part of [data, data + bytes), for ranges of 4 MiB or
// more; a no-op elsewhere (and where the kernel refuses: the advice is only a hint).
void advise_huge_pages(const void* data, std::size_t bytes);

// v.reserve(n), with huge pages asked for when v had to allocate.
template <class T>
void reserve_large(std::vector<T>& v, std::size_t n) {
  if (v.capacity() >= n) return;
  if (v.empty()) std::vector<T>().swap(v);  // free the old block: the new one is fresh, untouched memory
  v.reserve(n);
  advise_huge_pages(v.data(), n * sizeof(T));
}

// v.resize(n, value) and v.assign(n, value), with huge pages asked for before the first touch.
template <class T>
void resize_large(std::vector<T>& v, std::size_t n, const T& value = T()) {
  reserve_large(v, n);
  v.resize(n, value);
}
template <class T>
void assign_large(std::vector<T>& v, std::size_t n, const T& value = T()) {
  v.clear();
  reserve_large(v, n);
  v.assign(n, value);
}
// A new vector of n copies of value.
template <class T>
std::vector<T> large_vector(std::size_t n, const T& value = T()) {
  std::vector<T> v;
  assign_large(v, n, value);
  return v;
}

}  // namespace clkr::detail
