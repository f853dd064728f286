/* What clkr_matrix_create_csr32/csr64 cost for a simulator's own arrays: the time to make the matrix on
 * the device and the host memory it needs beyond the caller's arrays (the growth of the peak resident
 * size), for the 7-point Laplacian on an N^3 grid. One layout per run, since the peak only grows:
 *   clkr_bench_capi_upload N csr32|csr32-base1|csr64 [repeats]
 * 0-based csr32 is uploaded from the arrays themselves; the others go through one converted host copy.
 * Only the C API is used, so the same source links against any clkr build (before/after comparisons). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "clkr/clkr.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double peak_mib(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return (double)u.ru_maxrss / 1024.0; /* kilobytes on Linux */
}

int main(int argc, char** argv) {
  const int64_t g = argc > 1 ? atoll(argv[1]) : 100;
  const char* layout = argc > 2 ? argv[2] : "csr32";
  const int repeats = argc > 3 ? atoi(argv[3]) : 5;
  const int base = strcmp(layout, "csr32-base1") == 0 ? 1 : 0;
  const int wide = strcmp(layout, "csr64") == 0;
  const int64_t n = g * g * g;
  int64_t nnz = 0, i, j, k;
  int64_t* offsets64 = malloc((size_t)(n + 1) * sizeof *offsets64);
  int64_t* cols64 = malloc((size_t)(7 * n) * sizeof *cols64);
  int32_t *offsets32 = NULL, *cols32 = NULL;
  double* values = malloc((size_t)(7 * n) * sizeof *values);
  double best = 1e30, before;
  clkr_context ctx;
  int r;
  offsets64[0] = base;
  for (i = 0; i < g; ++i)
    for (j = 0; j < g; ++j)
      for (k = 0; k < g; ++k) {
        const int64_t row = (i * g + j) * g + k;
        const int64_t neighbour[7] = {i > 0 ? row - g * g : -1, j > 0 ? row - g : -1,        k > 0 ? row - 1 : -1, row,
                                      k < g - 1 ? row + 1 : -1, j < g - 1 ? row + g : -1, i < g - 1 ? row + g * g : -1};
        int e;
        for (e = 0; e < 7; ++e) {
          if (neighbour[e] < 0) continue;
          cols64[nnz] = neighbour[e] + base;
          values[nnz++] = e == 3 ? 6.0 : -1.0;
        }
        offsets64[row + 1] = nnz + base;
      }
  if (!wide) {
    offsets32 = malloc((size_t)(n + 1) * sizeof *offsets32);
    cols32 = malloc((size_t)nnz * sizeof *cols32);
    for (i = 0; i <= n; ++i) offsets32[i] = (int32_t)offsets64[i];
    for (i = 0; i < nnz; ++i) cols32[i] = (int32_t)cols64[i];
    free(offsets64);
    free(cols64);
    offsets64 = cols64 = NULL;
  }
  if (clkr_context_create(NULL, &ctx) != CLKR_OK) {
    fprintf(stderr, "clkr: %s\n", clkr_last_error());
    return 1;
  }
  before = peak_mib();
  for (r = 0; r < repeats; ++r) {
    clkr_matrix m;
    const double start = now();
    const clkr_status s = wide ? clkr_matrix_create_csr64(ctx, n, n, nnz, offsets64, cols64, values, base, &m)
                               : clkr_matrix_create_csr32(ctx, n, n, nnz, offsets32, cols32, values, base, &m);
    const double seconds = now() - start;
    if (s != CLKR_OK) {
      fprintf(stderr, "clkr: %s\n", clkr_last_error());
      return 1;
    }
    if (seconds < best) best = seconds;
    clkr_matrix_destroy(m);
  }
  printf("poisson3d:%lld %s: %lld rows, %lld entries; create %.1f ms (best of %d); peak resident +%.0f MiB\n",
         (long long)g, layout, (long long)n, (long long)nnz, 1e3 * best, repeats, peak_mib() - before);
  clkr_context_destroy(ctx);
  free(offsets64);
  free(cols64);
  free(offsets32);
  free(cols32);
  free(values);
  return 0;
}
