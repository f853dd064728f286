/* Tests of the C API (include/clkr/clkr.h), compiled as C99: 2D Poisson systems assembled here in CSR
 * (0- and 1-based, 32- and 64-bit indices) are solved with every solver and preconditioner and checked
 * against the known solution (b = A x_true); value updates reach solves and solvers; and every kind of bad
 * input returns an error status whose message names the problem. Exit code: the number of failed checks
 * (capped), 0 when all pass. */
#include "capi_support.h"

static void test_every_combination(clkr_context ctx, const Csr* A, const double* b, const double* x_true) {
  static const char* solvers[] = {"cg", "pcg", "gmres", "fgmres", "bicgstab"};
  static const char* preconditioners[] = {"none", "jacobi", "chebyshev", "amg"};
  clkr_matrix m = upload(ctx, A, 0, 0);
  size_t s, p;
  char label[96];
  for (s = 0; s < sizeof solvers / sizeof *solvers; ++s) {
    for (p = 0; p < sizeof preconditioners / sizeof *preconditioners; ++p) {
      clkr_solve_options o = clkr_solve_options_default();
      /* pcg is CG with Jacobi: the other preconditioners are refused (tested below). */
      if (strcmp(solvers[s], "pcg") == 0 && p != 0 && p != 1) continue;
      o.solver = solvers[s];
      o.preconditioner = preconditioners[p];
      o.relative_tolerance = 1e-10;
      sprintf(label, "%s + %s, double", solvers[s], preconditioners[p]);
      solve_and_check(ctx, m, b, x_true, A->n, &o, 1e-7, label);
    }
  }
  {
    static const char* precisions[] = {"single", "qdouble"};
    static const double tolerances[] = {1e-5, 1e-9};
    for (p = 0; p < 2; ++p) {
      for (s = 0; s < sizeof solvers / sizeof *solvers; s += 2) { /* cg, gmres, bicgstab */
        clkr_solve_options o = clkr_solve_options_default();
        o.solver = solvers[s];
        o.preconditioner = "jacobi";
        o.precision = precisions[p];
        o.relative_tolerance = tolerances[p];
        sprintf(label, "%s + jacobi, %s", solvers[s], precisions[p]);
        solve_and_check(ctx, m, b, x_true, A->n, &o, 1e3 * tolerances[p], label);
      }
    }
  }
  clkr_matrix_destroy(m);
}

/* A 0 x 0 matrix is valid, and solving with it converges at once. */
static void test_empty(clkr_context ctx) {
  const int32_t offsets[] = {1};
  clkr_matrix m = NULL;
  clkr_result r;
  double b = 0, x = 0;
  CHECK(clkr_matrix_create_csr32(ctx, 0, 0, 0, offsets, NULL, NULL, 1, &m) == CLKR_OK, "empty: %s", clkr_last_error());
  CHECK(clkr_solve(ctx, m, &b, &x, NULL, &r) == CLKR_OK && r.status == CLKR_SOLVE_CONVERGED && r.iterations == 0,
        "empty solve: %s", clkr_last_error());
  CHECK(clkr_matrix_destroy(m) == CLKR_OK, "destroy: %s", clkr_last_error());
}

static void test_layouts(clkr_context ctx, const Csr* A0, const Csr* A1, const double* b, const double* x_true) {
  int base, wide;
  char label[64];
  for (base = 0; base <= 1; ++base) {
    for (wide = 0; wide <= 1; ++wide) {
      clkr_solve_options o = clkr_solve_options_default();
      clkr_matrix m = upload(ctx, base ? A1 : A0, base, wide);
      int64_t rows = 0, cols = 0, nnz = 0;
      CHECK(clkr_matrix_size(m, &rows, &cols, &nnz) == CLKR_OK && rows == A0->n && cols == A0->n && nnz == A0->nnz,
            "size %lld x %lld, %lld", (long long)rows, (long long)cols, (long long)nnz);
      sprintf(label, "cg, base %d, %s indices", base, wide ? "64-bit" : "32-bit");
      solve_and_check(ctx, m, b, x_true, A0->n, &o, 1e-6, label);
      clkr_matrix_destroy(m);
    }
  }
}

/* New values (A scaled by 2, then A + I) reach clkr_solve, and a kept solver after clkr_solver_update. */
static void test_update_values(clkr_context ctx, const Csr* A, const double* x_true) {
  const int64_t n = A->n;
  double* values = malloc((size_t)A->nnz * sizeof *values);
  double* b = malloc((size_t)n * sizeof *b);
  double* x = calloc((size_t)n, sizeof *x);
  Csr shifted = *A;
  clkr_matrix m = upload(ctx, A, 0, 1);
  clkr_solve_options o = clkr_solve_options_default();
  clkr_solver solver = NULL;
  clkr_result r;
  int64_t r0, k;
  o.preconditioner = "amg";
  o.relative_tolerance = 1e-10;
  CHECK(clkr_solver_create(m, &o, &solver) == CLKR_OK, "solver: %s", clkr_last_error());
  for (k = 0; k < A->nnz; ++k) values[k] = 2 * A->values[k];
  CHECK(clkr_matrix_update_values(m, values, A->nnz) == CLKR_OK, "update: %s", clkr_last_error());
  shifted.values = values;
  multiply(&shifted, 0, x_true, b);
  solve_and_check(ctx, m, b, x_true, n, &o, 1e-7, "clkr_solve after update (2 A)");

  /* A + I: diagonal entries are where the column equals the row. */
  for (r0 = 0; r0 < n; ++r0)
    for (k = A->offsets[r0]; k < A->offsets[r0 + 1]; ++k) values[k] = A->values[k] + (A->cols[k] == r0 ? 1.0 : 0.0);
  CHECK(clkr_matrix_update_values(m, values, A->nnz) == CLKR_OK, "update: %s", clkr_last_error());
  CHECK(clkr_solver_update(solver) == CLKR_OK, "solver update: %s", clkr_last_error());
  multiply(&shifted, 0, x_true, b);
  CHECK(clkr_solver_solve(solver, b, x, &r) == CLKR_OK, "solver solve: %s", clkr_last_error());
  CHECK(r.status == CLKR_SOLVE_CONVERGED && relative_error(x, x_true, n) < 1e-7, "solver after update: %s, error %.3e",
        r.status_name, relative_error(x, x_true, n));
  printf("%-40s %4d iterations  error %.2e\n", "kept AMG solver after update (A + I)", r.iterations,
         relative_error(x, x_true, n));

  /* The exact answer as initial guess: nothing left to do. */
  o.use_initial_guess = 1;
  memcpy(x, x_true, (size_t)n * sizeof *x);
  CHECK(clkr_solve(ctx, m, b, x, &o, &r) == CLKR_OK && r.status == CLKR_SOLVE_CONVERGED && r.iterations <= 1,
        "initial guess: %s after %d iterations", r.status_name, r.iterations);

  /* The solver keeps the matrix alive after the matrix handle is gone. */
  CHECK(clkr_matrix_destroy(m) == CLKR_OK, "destroy: %s", clkr_last_error());
  CHECK(clkr_solver_solve(solver, b, x, &r) == CLKR_OK && r.status == CLKR_SOLVE_CONVERGED,
        "solver after its matrix handle was destroyed: %s", clkr_last_error());
  CHECK(clkr_solver_destroy(solver) == CLKR_OK, "destroy solver: %s", clkr_last_error());
  free(values);
  free(b);
  free(x);
}

/* k right-hand sides in one column-major block with padding between columns (ldb > n): each column equals
 * the separate solve of that column, bit for bit, and the padding is left alone. */
static void test_solve_many(clkr_context ctx, const Csr* A) {
  const int64_t n = A->n, ld = n + 3;
  const int k = 3;
  int j;
  int64_t i;
  double* B = calloc((size_t)(ld * k), sizeof *B);
  double* X = calloc((size_t)(ld * k), sizeof *X);
  double* x = calloc((size_t)n, sizeof *x);
  clkr_result results[3], r;
  clkr_solver solver;
  clkr_matrix m = upload(ctx, A, 0, 0);
  clkr_solve_options o = clkr_solve_options_default();
  o.preconditioner = "amg";
  o.relative_tolerance = 1e-10;
  for (j = 0; j < k; ++j)
    for (i = 0; i < ld; ++i) {
      B[j * ld + i] = i < n ? sin(0.1 * (double)(i + 1) * (j + 1)) : NAN; /* NaN padding must not be read */
      X[j * ld + i] = i < n ? 0.0 : -7.0;
    }
  CHECK(clkr_solver_create(m, &o, &solver) == CLKR_OK, "solver: %s", clkr_last_error());
  CHECK(clkr_solver_solve_many(solver, k, B, ld, X, ld, results) == CLKR_OK, "solve many: %s", clkr_last_error());
  for (j = 0; j < k; ++j) {
    CHECK(clkr_solver_solve(solver, B + j * ld, x, &r) == CLKR_OK, "solve column %d: %s", j, clkr_last_error());
    CHECK(results[j].status == CLKR_SOLVE_CONVERGED && results[j].iterations == r.iterations &&
              memcmp(x, X + j * ld, (size_t)n * sizeof *x) == 0,
          "column %d: %s in %d iterations, alone %d", j, results[j].status_name, results[j].iterations, r.iterations);
    CHECK(X[j * ld + n] == -7.0 && X[j * ld + n + 2] == -7.0, "column %d: padding overwritten", j);
  }
  printf("%-40s %4d iterations (column 0)\n", "solve_many: 3 columns, one AMG setup", results[0].iterations);
  CHECK(clkr_solver_solve_many(solver, 0, NULL, 0, NULL, 0, NULL) == CLKR_OK, "k = 0: %s", clkr_last_error());
  EXPECT_ERROR(clkr_solver_solve_many(solver, -1, B, ld, X, ld, results), CLKR_ERROR_INVALID_ARGUMENT,
               "is negative");
  EXPECT_ERROR(clkr_solver_solve_many(solver, k, B, n - 1, X, ld, results), CLKR_ERROR_INVALID_ARGUMENT,
               "must be at least the rows of A");
  EXPECT_ERROR(clkr_solver_solve_many(solver, k, NULL, ld, X, ld, results), CLKR_ERROR_INVALID_ARGUMENT, "B is NULL");
  clkr_solver_destroy(solver);
  clkr_matrix_destroy(m);
  free(B);
  free(X);
  free(x);
}

static void test_bad_input(clkr_context ctx, const Csr* A, const double* b) {
  const int64_t n = A->n;
  double* x = calloc((size_t)n, sizeof *x);
  double* values = malloc((size_t)A->nnz * sizeof *values);
  int64_t* cols = malloc((size_t)A->nnz * sizeof *cols);
  clkr_matrix m = NULL, freed = NULL;
  clkr_context other = NULL;
  clkr_solver freed_solver = NULL;
  clkr_solve_options o = clkr_solve_options_default();
  clkr_result r;
  const int32_t rect_offsets[] = {0, 1, 2}, rect_cols[] = {0, 2};
  const double rect_values[] = {1, 1};
  char name[8];

  EXPECT_ERROR(clkr_context_create(NULL, NULL), CLKR_ERROR_INVALID_ARGUMENT, "out is NULL");
  CHECK(
      clkr_context_create("no-such-device-anywhere", &other) != CLKR_OK && other == NULL && mentions("no-such-device"),
      "bad device selector: '%s'", clkr_last_error());
  CHECK(clkr_context_device_name(ctx, name, (int)sizeof name) == CLKR_OK && strlen(name) < sizeof name,
        "device name: %s", clkr_last_error());

  /* Matrices. */
  EXPECT_ERROR(clkr_matrix_create_csr64(ctx, n, n, A->nnz, NULL, A->cols, A->values, 0, &m),
               CLKR_ERROR_INVALID_ARGUMENT, "row_offsets is NULL");
  EXPECT_ERROR(clkr_matrix_create_csr64(ctx, n, n, A->nnz, A->offsets, A->cols, A->values, 0, NULL),
               CLKR_ERROR_INVALID_ARGUMENT, "out is NULL");
  EXPECT_ERROR(clkr_matrix_create_csr64(ctx, n, n, A->nnz - 1, A->offsets, A->cols, A->values, 0, &m),
               CLKR_ERROR_INVALID_ARGUMENT, "nnz is");
  EXPECT_ERROR(clkr_matrix_create_csr64(ctx, n, n, A->nnz, A->offsets, A->cols, A->values, 1, &m),
               CLKR_ERROR_INVALID_ARGUMENT, "row_offsets[0] is 0, expected the index base 1");
  EXPECT_ERROR(clkr_matrix_create_csr64(ctx, n, n, A->nnz, A->offsets, A->cols, A->values, 2, &m),
               CLKR_ERROR_INVALID_ARGUMENT, "index base 2");
  EXPECT_ERROR(clkr_matrix_create_csr64(NULL, n, n, A->nnz, A->offsets, A->cols, A->values, 0, &m),
               CLKR_ERROR_INVALID_HANDLE, "ctx is NULL");
  CHECK(m == NULL, "a failed create leaves out NULL");
  /* Row 3 (0-based, starting at offset 10 in this grid) with its first two columns swapped. */
  memcpy(cols, A->cols, (size_t)A->nnz * sizeof *cols);
  {
    const int64_t k = A->offsets[3], swap = cols[k];
    cols[k] = cols[k + 1];
    cols[k + 1] = swap;
  }
  EXPECT_ERROR(clkr_matrix_create_csr64(ctx, n, n, A->nnz, A->offsets, cols, A->values, 0, &m),
               CLKR_ERROR_INVALID_ARGUMENT, "column indices of row 3 not strictly increasing");
  cols[A->offsets[3]] = cols[A->offsets[3] + 1];
  EXPECT_ERROR(clkr_matrix_create_csr64(ctx, n, n, A->nnz, A->offsets, cols, A->values, 0, &m),
               CLKR_ERROR_INVALID_ARGUMENT, "a duplicate");
  memcpy(values, A->values, (size_t)A->nnz * sizeof *values);
  values[7] = NAN;
  EXPECT_ERROR(clkr_matrix_create_csr64(ctx, n, n, A->nnz, A->offsets, A->cols, values, 0, &m),
               CLKR_ERROR_INVALID_ARGUMENT, "non-finite value");

  /* Value updates. */
  m = upload(ctx, A, 0, 1);
  EXPECT_ERROR(clkr_matrix_update_values(m, A->values, A->nnz + 1), CLKR_ERROR_INVALID_ARGUMENT, "nnz is");
  EXPECT_ERROR(clkr_matrix_update_values(m, NULL, A->nnz), CLKR_ERROR_INVALID_ARGUMENT, "values is NULL");
  EXPECT_ERROR(clkr_matrix_update_values(m, values, A->nnz), CLKR_ERROR_INVALID_ARGUMENT,
               "entry 7 (row 2, column 1) is nan");

  /* Options. */
  o.solver = "sor";
  EXPECT_ERROR(clkr_solve(ctx, m, b, x, &o, &r), CLKR_ERROR_INVALID_ARGUMENT, "options.solver");
  o = clkr_solve_options_default();
  o.preconditioner = "ilu";
  EXPECT_ERROR(clkr_solve(ctx, m, b, x, &o, &r), CLKR_ERROR_INVALID_ARGUMENT, "options.preconditioner");
  o = clkr_solve_options_default();
  o.precision = "half";
  EXPECT_ERROR(clkr_solve(ctx, m, b, x, &o, &r), CLKR_ERROR_INVALID_ARGUMENT, "options.precision");
  o = clkr_solve_options_default();
  o.solver = "pcg";
  o.preconditioner = "amg";
  EXPECT_ERROR(clkr_solve(ctx, m, b, x, &o, &r), CLKR_ERROR_INVALID_ARGUMENT, "'pcg' is CG with Jacobi");
  o = clkr_solve_options_default();
  o.relative_tolerance = 0;
  EXPECT_ERROR(clkr_solve(ctx, m, b, x, &o, &r), CLKR_ERROR_INVALID_ARGUMENT, "options.relative_tolerance");
  o = clkr_solve_options_default();
  o.max_iterations = 0;
  EXPECT_ERROR(clkr_solver_create(m, &o, &freed_solver), CLKR_ERROR_INVALID_ARGUMENT, "options.max_iterations");

  /* Solve arguments. */
  EXPECT_ERROR(clkr_solve(ctx, m, NULL, x, NULL, &r), CLKR_ERROR_INVALID_ARGUMENT, "b is NULL");
  EXPECT_ERROR(clkr_solve(ctx, m, b, NULL, NULL, &r), CLKR_ERROR_INVALID_ARGUMENT, "x is NULL");
  EXPECT_ERROR(clkr_solve(ctx, NULL, b, x, NULL, &r), CLKR_ERROR_INVALID_HANDLE, "A is NULL");
  values[7] = A->values[7];
  memcpy(values, b, (size_t)n * sizeof *values);
  values[5] = INFINITY;
  CHECK(clkr_solve(ctx, m, values, x, NULL, &r) == CLKR_ERROR_INVALID_ARGUMENT, "b with Inf: '%s'", clkr_last_error());
  CHECK(clkr_context_create("", &other) == CLKR_OK, "second context: %s", clkr_last_error());
  EXPECT_ERROR(clkr_solve(other, m, b, x, NULL, &r), CLKR_ERROR_INVALID_ARGUMENT, "another context");
  clkr_context_destroy(other);
  CHECK(clkr_matrix_create_csr32(ctx, 2, 3, 2, rect_offsets, rect_cols, rect_values, 0, &freed) == CLKR_OK, "2 x 3: %s",
        clkr_last_error());
  CHECK(clkr_solve(ctx, freed, b, x, NULL, &r) == CLKR_ERROR_INVALID_ARGUMENT && mentions("square"),
        "non-square matrix: '%s'", clkr_last_error());
  o = clkr_solve_options_default();
  o.preconditioner = "amg";
  EXPECT_ERROR(clkr_solver_create(freed, &o, &freed_solver), CLKR_ERROR_INVALID_ARGUMENT, "2 x 3, not square");

  /* Destroyed handles. */
  CHECK(clkr_matrix_destroy(freed) == CLKR_OK, "destroy: %s", clkr_last_error());
  EXPECT_ERROR(clkr_matrix_update_values(freed, A->values, 2), CLKR_ERROR_INVALID_HANDLE, "not a live clkr_matrix");
  EXPECT_ERROR(clkr_solve(ctx, freed, b, x, NULL, &r), CLKR_ERROR_INVALID_HANDLE, "not a live clkr_matrix");
  EXPECT_ERROR(clkr_matrix_destroy(freed), CLKR_ERROR_INVALID_HANDLE, "not a live clkr_matrix");
  EXPECT_ERROR(clkr_context_device_name(other, name, (int)sizeof name), CLKR_ERROR_INVALID_HANDLE,
               "not a live clkr_context");
  CHECK(clkr_solver_create(m, NULL, &freed_solver) == CLKR_OK, "solver: %s", clkr_last_error());
  CHECK(clkr_solver_destroy(freed_solver) == CLKR_OK, "destroy solver: %s", clkr_last_error());
  EXPECT_ERROR(clkr_solver_solve(freed_solver, b, x, &r), CLKR_ERROR_INVALID_HANDLE, "not a live clkr_solver");
  EXPECT_ERROR(clkr_solver_update(freed_solver), CLKR_ERROR_INVALID_HANDLE, "not a live clkr_solver");
  CHECK(clkr_matrix_destroy(NULL) == CLKR_OK && clkr_context_destroy(NULL) == CLKR_OK &&
            clkr_solver_destroy(NULL) == CLKR_OK,
        "destroying NULL does nothing");
  clkr_matrix_destroy(m);
  free(x);
  free(values);
  free(cols);
}

/* The default precision ("auto", or NULL) is double where the device has fp64 and quasi-double where it
 * has none, so that the defaults solve on any device; "double" asked for on a device without fp64 is
 * refused by name. CLKR_HIDE_FP64=1 makes the context's device one without doubles. */
static void test_default_precision(const Csr* A, const double* b, const double* x_true) {
  clkr_solve_options o = clkr_solve_options_default();
  clkr_context no_fp64 = NULL;
  clkr_matrix m = NULL;
  clkr_result r;
  double* x = calloc((size_t)A->n, sizeof *x);
  CHECK(strcmp(o.precision, "auto") == 0, "the default precision is '%s'", o.precision);
  setenv("CLKR_HIDE_FP64", "1", 1);
  CHECK(clkr_context_create(NULL, &no_fp64) == CLKR_OK, "context without fp64: %s", clkr_last_error());
  unsetenv("CLKR_HIDE_FP64");
  m = upload(no_fp64, A, 0, 0);
  o.relative_tolerance = 1e-11;
  solve_and_check(no_fp64, m, b, x_true, A->n, &o, 1e-9, "default precision without fp64 (qdouble)");
  o.precision = NULL;
  solve_and_check(no_fp64, m, b, x_true, A->n, &o, 1e-9, "precision NULL without fp64 (qdouble)");
  o.precision = "double";
  EXPECT_ERROR(clkr_solve(no_fp64, m, b, x, &o, &r), CLKR_ERROR_INVALID_ARGUMENT, "fp64");
  o.precision = "Auto";
  o.preconditioner = "amg";
  solve_and_check(no_fp64, m, b, x_true, A->n, &o, 1e-9, "amg, precision Auto without fp64");
  clkr_matrix_destroy(m);
  clkr_context_destroy(no_fp64);
  free(x);
}

int main(void) {
  const int64_t g = 16;
  Csr A0 = laplacian(g, 0), A1 = laplacian(g, 1);
  double* x_true = malloc((size_t)A0.n * sizeof *x_true);
  double* b = malloc((size_t)A0.n * sizeof *b);
  clkr_context ctx = NULL;
  int64_t i;
  for (i = 0; i < A0.n; ++i) x_true[i] = sin(0.1 * (double)i) + 0.5;
  multiply(&A0, 0, x_true, b);

  if (clkr_context_create(NULL, &ctx) != CLKR_OK) {
    fprintf(stderr, "no device: %s\n", clkr_last_error());
    return 1;
  }
  test_every_combination(ctx, &A0, b, x_true);
  test_layouts(ctx, &A0, &A1, b, x_true);
  test_empty(ctx);
  test_update_values(ctx, &A0, x_true);
  test_solve_many(ctx, &A0);
  test_bad_input(ctx, &A0, b);
  test_default_precision(&A0, b, x_true);
  CHECK(clkr_context_destroy(ctx) == CLKR_OK, "destroy context: %s", clkr_last_error());

  free_csr(&A0);
  free_csr(&A1);
  free(x_true);
  free(b);
  printf("%d failed checks\n", failures);
  return failures > 100 ? 100 : failures;
}
