/* A C program built against the installed clkr with nothing but `pkg-config --cflags --libs clkr`:
 * solves a 1D Poisson system through the C API and prints "c consumer ok" when x is right. */
#include <clkr/clkr.h>
#include <math.h>
#include <stdio.h>

#define N 50

int main(void) {
  int32_t offsets[N + 1], cols[3 * N];
  double values[3 * N], x_true[N], b[N], x[N] = {0};
  int row, col, k = 0;
  clkr_context ctx;
  clkr_matrix A;
  clkr_result result;
  double error = 0;
  offsets[0] = 0;
  for (row = 0; row < N; ++row) {
    for (col = row > 0 ? row - 1 : 0; col <= row + 1 && col < N; ++col) {
      cols[k] = col;
      values[k++] = col == row ? 2.0 : -1.0;
    }
    offsets[row + 1] = k;
    x_true[row] = 1.0 + row;
  }
  for (row = 0; row < N; ++row) {
    b[row] = 0;
    for (k = offsets[row]; k < offsets[row + 1]; ++k) b[row] += values[k] * x_true[cols[k]];
  }
  if (clkr_context_create(NULL, &ctx) != CLKR_OK ||
      clkr_matrix_create_csr32(ctx, N, N, offsets[N], offsets, cols, values, 0, &A) != CLKR_OK ||
      clkr_solve(ctx, A, b, x, NULL, &result) != CLKR_OK) {
    fprintf(stderr, "c consumer failed: %s\n", clkr_last_error());
    return 1;
  }
  for (row = 0; row < N; ++row) error = fmax(error, fabs(x[row] - x_true[row]) / N);
  printf("C API: %s in %d iterations, error %.2e\n", result.status_name, result.iterations, error);
  clkr_matrix_destroy(A);
  clkr_context_destroy(ctx);
  if (result.status != CLKR_SOLVE_CONVERGED || error > 1e-6) return 1;
  printf("c consumer ok\n");
  return 0;
}
