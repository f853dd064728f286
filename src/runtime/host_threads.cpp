// omp_pause_resource_all (OpenMP 5.0) and omp_get_max_threads where the library is built with OpenMP;
// see host_threads.hpp.
#include "host_threads.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace clkr::detail {

void release_host_threads() {
#ifdef _OPENMP
  if (omp_in_parallel()) return;  // the caller's own team: not ours to end
  omp_pause_resource_all(omp_pause_soft);
#endif
}

int host_thread_count() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

}  // namespace clkr::detail
