/* Shared by the C API's tests (C99): the check macros, a 2D Poisson matrix assembled in CSR with 64-bit
 * indices counted from any base, and the arithmetic to check solutions with. Everything is static: each
 * test program includes this once. */
#ifndef CLKR_CAPI_SUPPORT_H
#define CLKR_CAPI_SUPPORT_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clkr/clkr.h"

static int failures = 0;

#define CHECK(condition, ...)                                                       \
  do {                                                                              \
    if (!(condition)) {                                                             \
      ++failures;                                                                   \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #condition); \
      fprintf(stderr, __VA_ARGS__);                                                 \
      fprintf(stderr, "\n");                                                        \
    }                                                                               \
  } while (0)

/* The 5-point Laplacian on a g x g grid, in CSR with 64-bit indices counted from `base`. */
typedef struct {
  int64_t n, nnz;
  int64_t* offsets;
  int64_t* cols;
  double* values;
} Csr;

static inline Csr laplacian(int64_t g, int base) {
  Csr A;
  int64_t i, j;
  A.n = g * g;
  A.nnz = 0;
  A.offsets = malloc((size_t)(A.n + 1) * sizeof *A.offsets);
  A.cols = malloc((size_t)(5 * A.n) * sizeof *A.cols);
  A.values = malloc((size_t)(5 * A.n) * sizeof *A.values);
  A.offsets[0] = base;
  for (i = 0; i < g; ++i) {
    for (j = 0; j < g; ++j) {
      const int64_t row = i * g + j;
      /* Neighbours in increasing column order: up, left, centre, right, down. */
      const int64_t neighbour[5] = {i > 0 ? row - g : -1, j > 0 ? row - 1 : -1, row, j < g - 1 ? row + 1 : -1,
                                    i < g - 1 ? row + g : -1};
      int k;
      for (k = 0; k < 5; ++k) {
        if (neighbour[k] < 0) continue;
        A.cols[A.nnz] = neighbour[k] + base;
        A.values[A.nnz] = k == 2 ? 4.0 : -1.0;
        ++A.nnz;
      }
      A.offsets[row + 1] = A.nnz + base;
    }
  }
  return A;
}

static inline void free_csr(Csr* A) {
  free(A->offsets);
  free(A->cols);
  free(A->values);
}

static inline int32_t* narrow(const int64_t* v, int64_t n) {
  int32_t* out = malloc((size_t)n * sizeof *out);
  int64_t i;
  for (i = 0; i < n; ++i) out[i] = (int32_t)v[i];
  return out;
}

/* y = A x for A in CSR with base `base`. */
static inline void multiply(const Csr* A, int base, const double* x, double* y) {
  int64_t r, k;
  for (r = 0; r < A->n; ++r) {
    y[r] = 0;
    for (k = A->offsets[r] - base; k < A->offsets[r + 1] - base; ++k) y[r] += A->values[k] * x[A->cols[k] - base];
  }
}

/* max_i |x_i - y_i| / max_i |y_i| */
static inline double relative_error(const double* x, const double* y, int64_t n) {
  double diff = 0, scale = 0;
  int64_t i;
  for (i = 0; i < n; ++i) {
    diff = fmax(diff, fabs(x[i] - y[i]));
    scale = fmax(scale, fabs(y[i]));
  }
  return diff / scale;
}

static inline int mentions(const char* text) { return strstr(clkr_last_error(), text) != NULL; }

/* The matrix made from A in one of the four index layouts. */
static inline clkr_matrix upload(clkr_context ctx, const Csr* A, int base, int wide) {
  clkr_matrix m = NULL;
  clkr_status s;
  if (wide) {
    s = clkr_matrix_create_csr64(ctx, A->n, A->n, A->nnz, A->offsets, A->cols, A->values, base, &m);
  } else {
    int32_t* offsets = narrow(A->offsets, A->n + 1);
    int32_t* cols = narrow(A->cols, A->nnz);
    s = clkr_matrix_create_csr32(ctx, A->n, A->n, A->nnz, offsets, cols, A->values, base, &m);
    free(offsets);
    free(cols);
  }
  CHECK(s == CLKR_OK, "create (base %d, %s indices): %s", base, wide ? "64-bit" : "32-bit", clkr_last_error());
  return m;
}

/* Solves with the options and checks x against x_true to `accuracy`. */
static inline void solve_and_check(clkr_context ctx, clkr_matrix m, const double* b, const double* x_true, int64_t n,
                            const clkr_solve_options* o, double accuracy, const char* label) {
  double* x = calloc((size_t)n, sizeof *x);
  clkr_result r;
  const clkr_status s = clkr_solve(ctx, m, b, x, o, &r);
  CHECK(s == CLKR_OK, "%s: %s", label, clkr_last_error());
  if (s == CLKR_OK) {
    const double e = relative_error(x, x_true, n);
    CHECK(r.status == CLKR_SOLVE_CONVERGED, "%s: %s after %d iterations (%s)", label, r.status_name, r.iterations,
          r.message);
    CHECK(strcmp(r.status_name, "converged") == 0 || r.status != CLKR_SOLVE_CONVERGED, "%s: name %s", label,
          r.status_name);
    CHECK(e < accuracy, "%s: error %.3e >= %.1e", label, e, accuracy);
    CHECK(r.true_relative_residual < 10 * o->relative_tolerance, "%s: true residual %.3e", label,
          r.true_relative_residual);
    CHECK(r.iterations > 0 && r.solve_seconds > 0 && r.setup_seconds >= 0, "%s: iterations %d, times %g %g", label,
          r.iterations, r.solve_seconds, r.setup_seconds);
    printf("%-40s %4d iterations  error %.2e  true residual %.2e\n", label, r.iterations, e, r.true_relative_residual);
  }
  free(x);
}

#define EXPECT_ERROR(call, expected_status, text)                                                       \
  do {                                                                                                  \
    const clkr_status s_ = (call);                                                                      \
    CHECK(s_ == (expected_status) && mentions(text), "status %d, message '%s' (expected %d, '%s')", s_, \
          clkr_last_error(), expected_status, text);                                                    \
  } while (0)

#endif /* CLKR_CAPI_SUPPORT_H */
