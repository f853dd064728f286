/* Implicit heat steps from C: (I + dt k(t) L) u_new = u_old on a g x g grid, L the 5-point Laplacian,
 * the conductivity k(t) changing every step. The matrix is uploaded once; each step replaces its
 * values (clkr_matrix_update_values), refreshes the AMG (clkr_solver_update, which keeps the hierarchy's
 * pattern) and solves from the previous solution. Exit code 0 when every step converged. */
#include <clkr/clkr.h>
#include <stdio.h>
#include <stdlib.h>

#define G 40
#define N (G * G)
#define STEPS 10

/* The values of I + c L in the row-major order of the pattern built in main. */
static void fill_values(double c, const int32_t* offsets, const int32_t* cols, double* values) {
  for (int row = 0; row < N; ++row)
    for (int32_t k = offsets[row]; k < offsets[row + 1]; ++k) values[k] = cols[k] == row ? 1.0 + 4.0 * c : -c;
}

static int check(clkr_status status, const char* what) {
  if (status != CLKR_OK) fprintf(stderr, "%s failed: %s\n", what, clkr_last_error());
  return status == CLKR_OK;
}

int main(void) {
  static int32_t offsets[N + 1], cols[5 * N];
  static double values[5 * N], u[N], u_new[N];
  int k = 0, failed = 0;
  offsets[0] = 0;
  for (int i = 0; i < G; ++i)
    for (int j = 0; j < G; ++j) {  /* neighbours in increasing column order */
      const int row = i * G + j;
      if (i > 0) cols[k++] = row - G;
      if (j > 0) cols[k++] = row - 1;
      cols[k++] = row;
      if (j < G - 1) cols[k++] = row + 1;
      if (i < G - 1) cols[k++] = row + G;
      offsets[row + 1] = k;
      u[row] = (i > G / 4 && i < 3 * G / 4 && j > G / 4 && j < 3 * G / 4) ? 1.0 : 0.0; /* a hot square */
    }
  fill_values(1.0, offsets, cols, values);

  clkr_context ctx;
  clkr_matrix A;
  clkr_solver solver;
  clkr_solve_options options = clkr_solve_options_default();
  options.preconditioner = "amg";
  options.use_initial_guess = 1;
  if (!check(clkr_context_create(NULL, &ctx), "context") ||
      !check(clkr_matrix_create_csr32(ctx, N, N, k, offsets, cols, values, 0, &A), "matrix") ||
      !check(clkr_solver_create(A, &options, &solver), "solver"))
    return 1;
  for (int step = 1; step <= STEPS; ++step) {
    fill_values(1.0 + 0.1 * step, offsets, cols, values); /* k(t) grows: new values, same pattern */
    clkr_result result;
    for (int i = 0; i < N; ++i) u_new[i] = u[i];           /* the previous solution as the guess */
    if (!check(clkr_matrix_update_values(A, values, k), "update values") ||
        !check(clkr_solver_update(solver), "update preconditioner") ||
        !check(clkr_solver_solve(solver, u, u_new, &result), "solve"))
      return 1;
    printf("step %2d: %s in %d iterations, residual %.1e\n", step, result.status_name, result.iterations,
           result.true_relative_residual);
    failed += result.status != CLKR_SOLVE_CONVERGED || result.true_relative_residual > 1e-7;
    for (int i = 0; i < N; ++i) u[i] = u_new[i];
  }
  clkr_solver_destroy(solver);
  clkr_matrix_destroy(A);
  clkr_context_destroy(ctx);
  return failed;
}
