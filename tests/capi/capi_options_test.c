/* Tests of the C API's matrix input and solve options beyond plain CSR (compiled as C99): COO triplets
 * with duplicates (and their value updates), the device storage format, the preconditioners' own
 * settings, mixed precision (iterative refinement), AMG's near-null space, the 0-based 32-bit CSR that
 * is uploaded from the caller's arrays, and a device that runs out of memory; every one with its bad
 * input. Exit code: the number of
 * failed checks (capped), 0 when all pass. */
#include "capi_support.h"

/* A as COO triplets counted from `base`, every entry split into two halves (duplicates to be summed),
 * listed in reverse order: what an element-by-element assembly hands over. */
typedef struct {
  int64_t count;
  int64_t* rows;
  int64_t* cols;
  double* values;
} Coo;

static Coo split_triplets(const Csr* A, int base) {
  Coo t;
  int64_t r, k, at = 2 * A->nnz;
  t.count = at;
  t.rows = malloc((size_t)at * sizeof *t.rows);
  t.cols = malloc((size_t)at * sizeof *t.cols);
  t.values = malloc((size_t)at * sizeof *t.values);
  for (r = 0; r < A->n; ++r) {
    for (k = A->offsets[r]; k < A->offsets[r + 1]; ++k) {
      int half;
      for (half = 0; half < 2; ++half) {
        --at;
        t.rows[at] = r + base;
        t.cols[at] = A->cols[k] + base;
        t.values[at] = 0.5 * A->values[k];
      }
    }
  }
  return t;
}

static void free_coo(Coo* t) {
  free(t->rows);
  free(t->cols);
  free(t->values);
}

static void test_coo(clkr_context ctx, const Csr* A, const double* b, const double* x_true) {
  const int64_t n = A->n;
  Coo t1 = split_triplets(A, 1), t0 = split_triplets(A, 0);
  int32_t* rows32 = narrow(t1.rows, t1.count);
  int32_t* cols32 = narrow(t1.cols, t1.count);
  double* doubled = malloc((size_t)t0.count * sizeof *doubled);
  double* b2 = malloc((size_t)n * sizeof *b2);
  clkr_matrix m32 = NULL, m64 = NULL, bad = NULL;
  clkr_solve_options o = clkr_solve_options_default();
  int64_t rows = 0, nnz = 0, k;
  o.preconditioner = "jacobi";
  o.relative_tolerance = 1e-10;

  CHECK(clkr_matrix_create_coo32(ctx, n, n, t1.count, rows32, cols32, t1.values, 1, &m32) == CLKR_OK, "coo32: %s",
        clkr_last_error());
  CHECK(clkr_matrix_create_coo64(ctx, n, n, t0.count, t0.rows, t0.cols, t0.values, 0, &m64) == CLKR_OK, "coo64: %s",
        clkr_last_error());
  CHECK(clkr_matrix_size(m32, &rows, NULL, &nnz) == CLKR_OK && rows == n && nnz == A->nnz,
        "duplicates summed: %lld entries from %lld triplets", (long long)nnz, (long long)t1.count);
  solve_and_check(ctx, m32, b, x_true, n, &o, 1e-7, "coo32, 1-based, duplicates summed");
  solve_and_check(ctx, m64, b, x_true, n, &o, 1e-7, "coo64, 0-based, duplicates summed");

  /* New values of the same triplets (2 A), summed the same way: the solution of 2 A x = 2 b. */
  for (k = 0; k < t0.count; ++k) doubled[k] = 2 * t0.values[k];
  for (k = 0; k < n; ++k) b2[k] = 2 * b[k];
  CHECK(clkr_matrix_update_values(m64, doubled, t0.count) == CLKR_OK, "coo update: %s", clkr_last_error());
  solve_and_check(ctx, m64, b2, x_true, n, &o, 1e-7, "coo64 after update_values (2 A)");

  /* Bad input, each naming the triplet or the count. */
  EXPECT_ERROR(clkr_matrix_update_values(m64, doubled, A->nnz), CLKR_ERROR_INVALID_ARGUMENT, "made from 2432 triplets");
  doubled[5] = NAN;
  EXPECT_ERROR(clkr_matrix_update_values(m32, doubled, t1.count), CLKR_ERROR_INVALID_ARGUMENT,
               "the value of triplet 6 (index base 1) is nan");
  t0.cols[3] = n;
  EXPECT_ERROR(clkr_matrix_create_coo64(ctx, n, n, t0.count, t0.rows, t0.cols, t0.values, 0, &bad),
               CLKR_ERROR_INVALID_ARGUMENT, "entry 3");
  EXPECT_ERROR(clkr_matrix_create_coo32(ctx, n, n, t1.count, rows32, cols32, t1.values, 0, &bad),
               CLKR_ERROR_INVALID_ARGUMENT, "out of range");
  EXPECT_ERROR(clkr_matrix_create_coo32(ctx, n, n, t1.count, NULL, cols32, t1.values, 1, &bad),
               CLKR_ERROR_INVALID_ARGUMENT, "row_indices is NULL");
  EXPECT_ERROR(clkr_matrix_create_coo32(ctx, n, n, t1.count, rows32, cols32, t1.values, 1, NULL),
               CLKR_ERROR_INVALID_ARGUMENT, "out is NULL");
  CHECK(bad == NULL, "a failed create leaves out NULL");
  CHECK(clkr_matrix_destroy(m32) == CLKR_OK, "destroy: %s", clkr_last_error());
  EXPECT_ERROR(clkr_matrix_update_values(m32, t1.values, t1.count), CLKR_ERROR_INVALID_HANDLE,
               "not a live clkr_matrix");
  clkr_matrix_destroy(m64);
  free_coo(&t0);
  free_coo(&t1);
  free(rows32);
  free(cols32);
  free(doubled);
  free(b2);
}

static void test_formats(clkr_context ctx, const Csr* A, const double* b, const double* x_true) {
  static const char* formats[] = {"csr4", "ell", "hyb", "sell", "dia", "csr", "auto"};
  clkr_matrix m = upload(ctx, A, 0, 1);
  clkr_solve_options o = clkr_solve_options_default();
  char name[16], label[64];
  size_t f;
  o.preconditioner = "jacobi";
  o.relative_tolerance = 1e-10;
  CHECK(clkr_matrix_format(m, name, (int)sizeof name) == CLKR_OK && strcmp(name, "csr") == 0, "made in %s", name);
  for (f = 0; f < sizeof formats / sizeof *formats; ++f) {
    CHECK(clkr_matrix_convert(m, formats[f]) == CLKR_OK, "convert to %s: %s", formats[f], clkr_last_error());
    CHECK(clkr_matrix_format(m, name, (int)sizeof name) == CLKR_OK, "format: %s", clkr_last_error());
    CHECK(strcmp(formats[f], "auto") == 0 || strcmp(name, formats[f]) == 0, "converted to %s, is %s", formats[f], name);
    sprintf(label, "cg + jacobi, converted to %s (%s)", formats[f], name);
    solve_and_check(ctx, m, b, x_true, A->n, &o, 1e-7, label);
  }
  EXPECT_ERROR(clkr_matrix_convert(m, "bsr"), CLKR_ERROR_INVALID_ARGUMENT, "unknown matrix format 'bsr'");
  CHECK(mentions("auto"), "the accepted names include auto: %s", clkr_last_error());
  EXPECT_ERROR(clkr_matrix_convert(m, NULL), CLKR_ERROR_INVALID_ARGUMENT, "format is NULL");
  EXPECT_ERROR(clkr_matrix_format(m, name, 0), CLKR_ERROR_INVALID_ARGUMENT, "leaves no room");
  clkr_matrix_destroy(m);
  EXPECT_ERROR(clkr_matrix_convert(m, "ell"), CLKR_ERROR_INVALID_HANDLE, "not a live clkr_matrix");
  EXPECT_ERROR(clkr_matrix_format(NULL, name, (int)sizeof name), CLKR_ERROR_INVALID_HANDLE, "m is NULL");
}

/* The iterations of a solve with these options (-1 on failure). */
static int iterations(clkr_context ctx, clkr_matrix m, const double* b, int64_t n, const clkr_solve_options* o,
                      clkr_result* r) {
  double* x = calloc((size_t)n, sizeof *x);
  const clkr_status s = clkr_solve(ctx, m, b, x, o, r);
  free(x);
  CHECK(s == CLKR_OK && r->status == CLKR_SOLVE_CONVERGED, "%s (%s): %s", o->settings, r->status_name,
        clkr_last_error());
  return s == CLKR_OK ? r->iterations : -1;
}

static void test_settings(clkr_context ctx, const Csr* A, const double* b, const double* x_true) {
  clkr_matrix m = upload(ctx, A, 0, 0);
  clkr_solve_options o = clkr_solve_options_default();
  clkr_result r;
  double* x = calloc((size_t)A->n, sizeof *x);
  int low, high, one_level, two_levels;
  o.relative_tolerance = 1e-10;

  /* Each setting is seen: a higher Chebyshev degree takes fewer iterations, one AMG level is a direct solve. */
  o.preconditioner = "chebyshev";
  o.settings = "chebyshev.degree=2";
  low = iterations(ctx, m, b, A->n, &o, &r);
  o.settings = "chebyshev.degree=8; chebyshev.eigen_iterations=30";
  high = iterations(ctx, m, b, A->n, &o, &r);
  CHECK(high > 0 && high < low, "chebyshev degree 8: %d iterations, degree 2: %d", high, low);
  o.preconditioner = "amg";
  o.settings = "amg.coarse_size=40";
  two_levels = iterations(ctx, m, b, A->n, &o, &r);
  o.settings = "amg.coarse_size=40, amg.max_levels=1";
  one_level = iterations(ctx, m, b, A->n, &o, &r);
  CHECK(one_level >= 0 && one_level <= 2 && two_levels > one_level,
        "one AMG level (a direct solve): %d iterations, more levels: %d", one_level, two_levels);
  o.settings = "amg.smoother=jacobi, amg.sweeps=2, amg.coarse_size=40 amg.strength_threshold=0.05";
  solve_and_check(ctx, m, b, x_true, A->n, &o, 1e-7, "amg with jacobi smoothing, 2 sweeps");
  o.settings = "amg.cycle=w, amg.coarse_size=40";
  solve_and_check(ctx, m, b, x_true, A->n, &o, 1e-7, "amg with a w-cycle");
  o.settings = "amg.smoother=chebyshev4, amg.coarse_size=40";
  solve_and_check(ctx, m, b, x_true, A->n, &o, 1e-7, "amg with the fourth-kind chebyshev smoother");
  o.settings = "amg.update_prolongator=true, precond.precision=single";
  solve_and_check(ctx, m, b, x_true, A->n, &o, 1e-7, "amg in single inside a double cg");
  o.settings = "precond.precision=half";
  solve_and_check(ctx, m, b, x_true, A->n, &o, 1e-7, "amg on binary16 values inside a double cg");
  o.settings = "amg.block_size=2, amg.block_smoothing=true, amg.coarse_size=40";
  solve_and_check(ctx, m, b, x_true, A->n, &o, 1e-7, "amg with node-block smoothing on nodes of 2");
  o.settings = "amg.test_vectors=2, amg.test_vector_steps=5, amg.coarse_size=40";
  solve_and_check(ctx, m, b, x_true, A->n, &o, 1e-7, "amg on two smoothed test vectors");
  o.settings = "amg.test_vectors=13";
  EXPECT_ERROR(clkr_solve(ctx, m, b, x, &o, &r), CLKR_ERROR_INVALID_ARGUMENT, "test_vectors = 13");
  /* Strengthening on demand: asked from iteration 2 on, the AMG declines (its forecast saving does
     not cover six test vectors here) and the solve is the plain one. */
  o.settings = "amg.strengthen_test_vectors=2, amg.coarse_size=40, cg.strengthen_check=2";
  solve_and_check(ctx, m, b, x_true, A->n, &o, 1e-7, "amg that may strengthen itself, asked from iteration 2");
  CHECK(iterations(ctx, m, b, A->n, &o, &r) > 0 && strcmp(r.strengthened, "") == 0,
        "a declined strengthening leaves result.strengthened empty: '%s'", r.strengthened);
  o.settings = "amg.strengthen_test_vectors=13";
  EXPECT_ERROR(clkr_solve(ctx, m, b, x, &o, &r), CLKR_ERROR_INVALID_ARGUMENT, "strengthen_test_vectors = 13");
  o.settings = "cg.strengthen_check=-1";
  EXPECT_ERROR(clkr_solve(ctx, m, b, x, &o, &r), CLKR_ERROR_INVALID_ARGUMENT, "strengthen_check = -1 must be >= 0");

  /* Bad settings: the key, the value or the reason named. */
  o.settings = "amg.coarse_sise=10";
  EXPECT_ERROR(clkr_solve(ctx, m, b, x, &o, &r), CLKR_ERROR_INVALID_ARGUMENT, "unknown key 'amg.coarse_sise'");
  CHECK(mentions("amg.coarse_size"), "the known keys listed: %s", clkr_last_error());
  o.settings = "amg.coarse_size=ten";
  EXPECT_ERROR(clkr_solve(ctx, m, b, x, &o, &r), CLKR_ERROR_INVALID_ARGUMENT, "amg.coarse_size=ten: not an integer");
  o.settings = "amg.strength_threshold=nan";
  EXPECT_ERROR(clkr_solve(ctx, m, b, x, &o, &r), CLKR_ERROR_INVALID_ARGUMENT, "not a finite number");
  o.settings = "amg.cycle=f";
  EXPECT_ERROR(clkr_solve(ctx, m, b, x, &o, &r), CLKR_ERROR_INVALID_ARGUMENT, "amg.cycle=f: expected v or w");
  o.settings = "amg.smoother=sor";
  EXPECT_ERROR(clkr_solve(ctx, m, b, x, &o, &r), CLKR_ERROR_INVALID_ARGUMENT, "amg.smoother");
  o.settings = "chebyshev.degree=4";
  EXPECT_ERROR(clkr_solve(ctx, m, b, x, &o, &r), CLKR_ERROR_INVALID_ARGUMENT,
               "chebyshev.degree applies to the preconditioner 'chebyshev' only");
  o.settings = "amg.coarse_size";
  EXPECT_ERROR(clkr_solve(ctx, m, b, x, &o, &r), CLKR_ERROR_INVALID_ARGUMENT, "not a key=value pair");
  o.settings = "amg.update_prolongator=maybe";
  EXPECT_ERROR(clkr_solve(ctx, m, b, x, &o, &r), CLKR_ERROR_INVALID_ARGUMENT, "not a boolean");
  o.settings = "amg.coarse_size=0";
  CHECK(clkr_solve(ctx, m, b, x, &o, &r) == CLKR_ERROR_INVALID_ARGUMENT && mentions("coarse_size"),
        "a value out of range is the AMG's error: '%s'", clkr_last_error());
  o.settings = "precond.precision=quarter";
  EXPECT_ERROR(clkr_solve(ctx, m, b, x, &o, &r), CLKR_ERROR_INVALID_ARGUMENT, "precond.precision: unknown");
  CHECK(mentions("half"), "the precisions listed: %s", clkr_last_error());
  o.preconditioner = "none";
  o.settings = "precond.precision=single";
  EXPECT_ERROR(clkr_solve(ctx, m, b, x, &o, &r), CLKR_ERROR_INVALID_ARGUMENT, "needs a preconditioner");
  free(x);
  clkr_matrix_destroy(m);
}

static void test_mixed_precision(clkr_context ctx, const Csr* A, const double* b, const double* x_true) {
  clkr_matrix m = upload(ctx, A, 0, 0);
  clkr_solve_options o = clkr_solve_options_default();
  clkr_solver solver = NULL;
  clkr_result r;
  double* x = calloc((size_t)A->n, sizeof *x);
  o.precision = "mixed";
  o.relative_tolerance = 1e-11;
  solve_and_check(ctx, m, b, x_true, A->n, &o, 1e-8, "mixed: cg in single, reliable updates");
  o.solver = "gmres";
  o.settings = "refinement.inner_tolerance=1e-3";
  solve_and_check(ctx, m, b, x_true, A->n, &o, 1e-8, "mixed: gmres in single, restarted");
  o.solver = "cg";
  o.settings = "refinement.scheme=restarted, refinement.inner_max_iterations=500";
  CHECK(clkr_solver_create(m, &o, &solver) == CLKR_OK, "mixed solver: %s", clkr_last_error());
  CHECK(clkr_solver_solve(solver, b, x, &r) == CLKR_OK && r.status == CLKR_SOLVE_CONVERGED &&
            r.inner_iterations > r.iterations && relative_error(x, x_true, A->n) < 1e-8,
        "restarted refinement: %s, %d outer and %d inner iterations", r.status_name, r.iterations, r.inner_iterations);
  clkr_solver_destroy(solver);

  /* The preconditioner works inside, in single precision: reliable-update PCG. */
  o.preconditioner = "amg";
  o.settings = "";
  CHECK(clkr_solve(ctx, m, b, x, &o, &r) == CLKR_OK && r.status == CLKR_SOLVE_CONVERGED &&
            r.true_relative_residual < 1e-10 && relative_error(x, x_true, A->n) < 1e-8 &&
            r.inner_iterations < 40 && r.inner_iterations >= r.iterations,
        "mixed amg-pcg: %s (%s), %d updates and %d inner iterations, true residual %.2e", r.status_name,
        clkr_last_error(), r.iterations, r.inner_iterations, r.true_relative_residual);
  o.settings = "precond.precision=double";
  EXPECT_ERROR(clkr_solve(ctx, m, b, x, &o, &r), CLKR_ERROR_INVALID_ARGUMENT, "does not apply to precision 'mixed'");
  o.preconditioner = "none";
  o.solver = "bicgstab";
  o.settings = "refinement.scheme=reliable";
  EXPECT_ERROR(clkr_solve(ctx, m, b, x, &o, &r), CLKR_ERROR_INVALID_ARGUMENT, "runs CG inside");
  o.precision = "double";
  o.settings = "refinement.scheme=restarted";
  EXPECT_ERROR(clkr_solve(ctx, m, b, x, &o, &r), CLKR_ERROR_INVALID_ARGUMENT, "applies to precision 'mixed'");
  o.precision = "quad";
  EXPECT_ERROR(clkr_solve(ctx, m, b, x, &o, &r), CLKR_ERROR_INVALID_ARGUMENT, "single, qdouble, double, mixed");
  o = clkr_solve_options_default();
  o.solver = "ir";
  EXPECT_ERROR(clkr_solve(ctx, m, b, x, &o, &r), CLKR_ERROR_INVALID_ARGUMENT, "the precision 'mixed'");
  free(x);
  clkr_matrix_destroy(m);
}

/* The host backend: CG as on the device (the same iterations to within one), the AMG with the
 * Gauss-Seidel smoother that only the host backend has (a device refuses it, so a converged solve proves
 * the host ran), a value update followed through the host copy of the matrix, and the refusals. */
static void test_host_backend(clkr_context ctx, const Csr* A, const double* b, const double* x_true) {
  clkr_matrix m = upload(ctx, A, 0, 0);
  clkr_solve_options o = clkr_solve_options_default();
  clkr_solver solver = NULL;
  clkr_result device_r, host_r, r;
  double* x = calloc((size_t)A->n, sizeof *x);
  double* doubled = malloc((size_t)A->nnz * sizeof *doubled);
  double* half_x = malloc((size_t)A->n * sizeof *half_x);
  int64_t k;
  const int device_its = iterations(ctx, m, b, A->n, &o, &device_r);
  o.backend = "host";
  const int host_its = iterations(ctx, m, b, A->n, &o, &host_r);
  CHECK(host_its > 0 && abs(host_its - device_its) <= 1, "cg: %d iterations on the host backend, %d on the device",
        host_its, device_its);
  /* CG's path on the device ("persistent", "fused", ..., or "host: ..." on a CPU device); none on the
   * host backend. */
  CHECK(strlen(device_r.path) > 0 && strcmp(host_r.path, "") == 0, "path: '%s' on the device, '%s' on the host",
        device_r.path, host_r.path);
  solve_and_check(ctx, m, b, x_true, A->n, &o, 1e-6, "host backend: cg");
  o.precision = "mixed";
  solve_and_check(ctx, m, b, x_true, A->n, &o, 1e-6, "host backend: mixed");
  o.precision = "auto"; /* double on the host backend; on the device below, qdouble where it lacks fp64 */
  o.preconditioner = "amg";
  o.settings = "amg.smoother=gauss-seidel, amg.coarse_size=20";
  solve_and_check(ctx, m, b, x_true, A->n, &o, 1e-6, "host backend: amg, gauss-seidel");
  CHECK(clkr_solver_create(m, &o, &solver) == CLKR_OK, "host amg solver: %s", clkr_last_error());
  for (k = 0; k < A->nnz; ++k) doubled[k] = 2 * A->values[k];
  for (k = 0; k < A->n; ++k) half_x[k] = 0.5 * x_true[k];
  CHECK(clkr_matrix_update_values(m, doubled, A->nnz) == CLKR_OK, "update: %s", clkr_last_error());
  CHECK(clkr_solver_update(solver) == CLKR_OK, "solver update: %s", clkr_last_error());
  CHECK(clkr_solver_solve(solver, b, x, &r) == CLKR_OK && r.status == CLKR_SOLVE_CONVERGED &&
            relative_error(x, half_x, A->n) < 1e-6,
        "host backend after doubling the values: %s, error %.3e (x should halve)", r.status_name,
        relative_error(x, half_x, A->n));
  clkr_solver_destroy(solver);
  CHECK(clkr_matrix_update_values(m, A->values, A->nnz) == CLKR_OK, "values back: %s", clkr_last_error());

  o.backend = "device";
  EXPECT_ERROR(clkr_solve(ctx, m, b, x, &o, &r), CLKR_ERROR_INVALID_ARGUMENT, "runs on the host backend only");
  o.backend = "gpu";
  EXPECT_ERROR(clkr_solve(ctx, m, b, x, &o, &r), CLKR_ERROR_INVALID_ARGUMENT,
               "options.backend: unknown backend 'gpu' (expected device or host)");
  o = clkr_solve_options_default();
  o.backend = "host";
  o.settings = "cg.path=fused";
  EXPECT_ERROR(clkr_solve(ctx, m, b, x, &o, &r), CLKR_ERROR_INVALID_ARGUMENT, "does not apply to backend 'host'");
  o.backend = NULL;  /* NULL: the device, as a zero-initialized struct of an older program has it */
  solve_and_check(ctx, m, b, x_true, A->n, &o, 1e-6, "backend NULL: the device");
  free(x);
  free(doubled);
  free(half_x);
  clkr_matrix_destroy(m);
}

/* AMG's near-null space given as the constant vector is the default: the same iterations. */
static void test_near_null_space(clkr_context ctx, const Csr* A, const double* b) {
  clkr_matrix m = upload(ctx, A, 0, 0);
  clkr_solve_options o = clkr_solve_options_default();
  clkr_result r;
  double* ones = malloc((size_t)A->n * sizeof *ones);
  double* x = calloc((size_t)A->n, sizeof *x);
  int64_t i;
  int plain, given;
  for (i = 0; i < A->n; ++i) ones[i] = 1.0;
  o.preconditioner = "amg";
  o.settings = "amg.coarse_size=40"; /* below the 256 rows: a hierarchy made from the near-null space */
  o.relative_tolerance = 1e-10;
  plain = iterations(ctx, m, b, A->n, &o, &r);
  o.near_null_space = ones;
  o.near_null_space_vectors = 1;
  given = iterations(ctx, m, b, A->n, &o, &r);
  CHECK(given == plain && given > 0, "the constant as near-null space: %d iterations, default %d", given, plain);
  ones[7] = INFINITY;
  CHECK(clkr_solve(ctx, m, b, x, &o, &r) == CLKR_ERROR_INVALID_ARGUMENT, "an Inf in the near-null space: '%s'",
        clkr_last_error());
  o.near_null_space = NULL;
  EXPECT_ERROR(clkr_solve(ctx, m, b, x, &o, &r), CLKR_ERROR_INVALID_ARGUMENT, "options.near_null_space is NULL");
  o.near_null_space_vectors = -1;
  EXPECT_ERROR(clkr_solve(ctx, m, b, x, &o, &r), CLKR_ERROR_INVALID_ARGUMENT, "is negative");
  o.near_null_space = ones;
  o.near_null_space_vectors = 1;
  o.preconditioner = "jacobi";
  o.settings = NULL;
  EXPECT_ERROR(clkr_solve(ctx, m, b, x, &o, &r), CLKR_ERROR_INVALID_ARGUMENT, "near_null_space applies to");
  free(ones);
  free(x);
  clkr_matrix_destroy(m);
}

/* clkr_rigid_body_modes: two nodes about the origin give the translations and omega x r, column after
 * column; rotation unknowns follow the displacements; bad input is refused, naming it. */
static void test_rigid_body_modes(void) {
  const double xyz[6] = {1, 0, 0, -1, 0, 0};
  const double plane[4] = {0, 0, 2, 0};
  double modes[6 * 12];
  int count = 0, i;
  CHECK(clkr_rigid_body_modes(xyz, 2, 3, 0, modes, &count) == CLKR_OK && count == 6, "3D modes: %s (%d)",
        clkr_last_error(), count);
  for (i = 0; i < 6; ++i) CHECK(modes[i] == (i % 3 == 0 ? 1.0 : 0.0), "translation x, entry %d: %g", i, modes[i]);
  /* The rotation about z (the sixth mode): (1, 0, 0) moves along +y, (-1, 0, 0) along -y. */
  CHECK(modes[5 * 6 + 1] == 1.0 && modes[5 * 6 + 4] == -1.0 && modes[5 * 6] == 0.0, "rotation about z: %g %g %g",
        modes[5 * 6], modes[5 * 6 + 1], modes[5 * 6 + 4]);
  CHECK(clkr_rigid_body_modes(xyz, 2, 3, 6, modes, &count) == CLKR_OK && count == 6, "shell modes: %s",
        clkr_last_error());
  CHECK(modes[5 * 12 + 5] == 1.0 && modes[5 * 12 + 11] == 1.0, "rotation unknowns of the z rotation: %g %g",
        modes[5 * 12 + 5], modes[5 * 12 + 11]);
  CHECK(clkr_rigid_body_modes(plane, 2, 2, 0, modes, &count) == CLKR_OK && count == 3, "2D modes: %s",
        clkr_last_error());
  CHECK(modes[2 * 4 + 1] == -1.0 && modes[2 * 4 + 3] == 1.0, "2D rotation: %g %g", modes[9], modes[11]);
  EXPECT_ERROR(clkr_rigid_body_modes(xyz, 2, 4, 0, modes, &count), CLKR_ERROR_INVALID_ARGUMENT, "expected 2 or 3");
  EXPECT_ERROR(clkr_rigid_body_modes(xyz, 2, 3, 5, modes, &count), CLKR_ERROR_INVALID_ARGUMENT, "unknowns per node");
  EXPECT_ERROR(clkr_rigid_body_modes(xyz, 0, 3, 0, modes, &count), CLKR_ERROR_INVALID_ARGUMENT, "nodes = 0");
  EXPECT_ERROR(clkr_rigid_body_modes(NULL, 2, 3, 0, modes, &count), CLKR_ERROR_INVALID_ARGUMENT,
               "coordinates is NULL");
}

/* AMG's nodes of different sizes (nodes of 1 and 3 rows in turn): aggregated whole, the solve converges; bad
 * offsets, a negative count, a NULL array and another preconditioner are refused, naming what is wrong. */
static void test_node_offsets(clkr_context ctx, const Csr* A, const double* b) {
  clkr_matrix m = upload(ctx, A, 0, 0);
  clkr_solve_options o = clkr_solve_options_default();
  clkr_result r;
  int* offsets = malloc((size_t)(A->n + 1) * sizeof *offsets);
  double* x = calloc((size_t)A->n, sizeof *x);
  int nodes = 0, row = 0, given;
  offsets[0] = 0;
  while (row < A->n) {
    row += nodes % 2 == 0 ? 1 : 3;
    if (row > A->n) row = (int)A->n;
    offsets[++nodes] = row;
  }
  o.preconditioner = "amg";
  o.settings = "amg.coarse_size=40";
  o.relative_tolerance = 1e-10;
  o.node_offsets = offsets;
  o.nodes = nodes;
  given = iterations(ctx, m, b, A->n, &o, &r);
  CHECK(given > 0 && r.true_relative_residual <= 1e-9, "amg on nodes of 1 and 3 rows: %d iterations, residual %g",
        given, r.true_relative_residual);
  offsets[nodes] = (int)A->n - 1;
  EXPECT_ERROR(clkr_solve(ctx, m, b, x, &o, &r), CLKR_ERROR_INVALID_ARGUMENT, "node_offsets run from 0 to");
  offsets[nodes] = (int)A->n;
  offsets[2] = offsets[1];
  EXPECT_ERROR(clkr_solve(ctx, m, b, x, &o, &r), CLKR_ERROR_INVALID_ARGUMENT, "does not exceed node_offsets[1]");
  o.nodes = -1;
  EXPECT_ERROR(clkr_solve(ctx, m, b, x, &o, &r), CLKR_ERROR_INVALID_ARGUMENT, "options.nodes -1 is negative");
  o.nodes = nodes;
  o.node_offsets = NULL;
  EXPECT_ERROR(clkr_solve(ctx, m, b, x, &o, &r), CLKR_ERROR_INVALID_ARGUMENT, "options.node_offsets is NULL");
  o.node_offsets = offsets;
  o.preconditioner = "jacobi";
  o.settings = NULL;
  EXPECT_ERROR(clkr_solve(ctx, m, b, x, &o, &r), CLKR_ERROR_INVALID_ARGUMENT, "node_offsets applies to");
  free(offsets);
  free(x);
  clkr_matrix_destroy(m);
}

/* 0-based 32-bit CSR, uploaded from the caller's arrays, gives what the converted 64-bit copy gives, bit for
 * bit, and refuses bad arrays with the same messages. */
static void test_direct_upload(clkr_context ctx, const Csr* A, const double* b) {
  clkr_matrix direct = upload(ctx, A, 0, 0), copied = upload(ctx, A, 0, 1), bad = NULL;
  double* x1 = calloc((size_t)A->n, sizeof *x1);
  double* x2 = calloc((size_t)A->n, sizeof *x2);
  int32_t* offsets = narrow(A->offsets, A->n + 1);
  int32_t* cols = narrow(A->cols, A->nnz);
  double* values = malloc((size_t)A->nnz * sizeof *values);
  clkr_result r1, r2;
  CHECK(clkr_solve(ctx, direct, b, x1, NULL, &r1) == CLKR_OK && clkr_solve(ctx, copied, b, x2, NULL, &r2) == CLKR_OK &&
            r1.iterations == r2.iterations && memcmp(x1, x2, (size_t)A->n * sizeof *x1) == 0,
        "direct and copied uploads differ: %d and %d iterations", r1.iterations, r2.iterations);
  cols[A->offsets[3]] = cols[A->offsets[3] + 1];
  EXPECT_ERROR(clkr_matrix_create_csr32(ctx, A->n, A->n, A->nnz, offsets, cols, A->values, 0, &bad),
               CLKR_ERROR_INVALID_ARGUMENT, "column indices of row 3 not strictly increasing (3 then 3: a duplicate)");
  cols[A->offsets[3]] = (int32_t)A->cols[A->offsets[3]];
  offsets[5] = offsets[4] - 1;
  EXPECT_ERROR(clkr_matrix_create_csr32(ctx, A->n, A->n, A->nnz, offsets, cols, A->values, 0, &bad),
               CLKR_ERROR_INVALID_ARGUMENT, "row_offsets decreases at row 4");
  offsets[5] = (int32_t)A->offsets[5];
  memcpy(values, A->values, (size_t)A->nnz * sizeof *values);
  values[11] = -INFINITY;
  EXPECT_ERROR(clkr_matrix_create_csr32(ctx, A->n, A->n, A->nnz, offsets, cols, values, 0, &bad),
               CLKR_ERROR_INVALID_ARGUMENT, "non-finite value -inf");
  EXPECT_ERROR(clkr_matrix_create_csr32(ctx, A->n, A->n, A->nnz, offsets, NULL, A->values, 0, &bad),
               CLKR_ERROR_INVALID_ARGUMENT, "col_indices is NULL");
  EXPECT_ERROR(clkr_matrix_create_csr32(ctx, (int64_t)1 << 31, A->n, A->nnz, offsets, cols, A->values, 0, &bad),
               CLKR_ERROR_INVALID_ARGUMENT, "int32 limit");
  CHECK(bad == NULL, "a failed create leaves out NULL");
  clkr_matrix_destroy(direct);
  clkr_matrix_destroy(copied);
  free(x1);
  free(x2);
  free(offsets);
  free(cols);
  free(values);
}

/* CLKR_DEVICE_MEMORY_LIMIT caps a context's device memory: running out is CLKR_ERROR_DEVICE naming the
 * buffer and OpenCL's error, a malformed value is refused, and contexts made without it work. */
static void test_device_memory_limit(const Csr* A) {
  clkr_context small = NULL, ctx = NULL;
  clkr_matrix m = NULL;
  setenv("CLKR_DEVICE_MEMORY_LIMIT", "4K", 1);
  CHECK(clkr_context_create(NULL, &small) == CLKR_OK, "context with 4 kB: %s", clkr_last_error());
  EXPECT_ERROR(clkr_matrix_create_csr64(small, A->n, A->n, A->nnz, A->offsets, A->cols, A->values, 0, &m),
               CLKR_ERROR_DEVICE, "CL_MEM_OBJECT_ALLOCATION_FAILURE (out of device memory");
  CHECK(m == NULL, "a failed create leaves out NULL");
  clkr_context_destroy(small);
  setenv("CLKR_DEVICE_MEMORY_LIMIT", "lots", 1);
  EXPECT_ERROR(clkr_context_create(NULL, &small), CLKR_ERROR_INVALID_ARGUMENT, "CLKR_DEVICE_MEMORY_LIMIT=lots");
  unsetenv("CLKR_DEVICE_MEMORY_LIMIT");
  CHECK(clkr_context_create(NULL, &ctx) == CLKR_OK, "context: %s", clkr_last_error());
  m = upload(ctx, A, 0, 1);
  clkr_matrix_destroy(m);
  clkr_context_destroy(ctx);
}

int main(void) {
  Csr A = laplacian(16, 0);
  double* x_true = malloc((size_t)A.n * sizeof *x_true);
  double* b = malloc((size_t)A.n * sizeof *b);
  clkr_context ctx = NULL;
  int64_t i;
  for (i = 0; i < A.n; ++i) x_true[i] = sin(0.1 * (double)i) + 0.5;
  multiply(&A, 0, x_true, b);
  if (clkr_context_create(NULL, &ctx) != CLKR_OK) {
    fprintf(stderr, "no device: %s\n", clkr_last_error());
    return 1;
  }
  test_coo(ctx, &A, b, x_true);
  test_formats(ctx, &A, b, x_true);
  test_settings(ctx, &A, b, x_true);
  test_mixed_precision(ctx, &A, b, x_true);
  test_host_backend(ctx, &A, b, x_true);
  test_near_null_space(ctx, &A, b);
  test_node_offsets(ctx, &A, b);
  test_rigid_body_modes();
  test_direct_upload(ctx, &A, b);
  test_device_memory_limit(&A);
  CHECK(clkr_context_destroy(ctx) == CLKR_OK, "destroy context: %s", clkr_last_error());
  free_csr(&A);
  free(x_true);
  free(b);
  printf("%d failed checks\n", failures);
  return failures > 100 ? 100 : failures;
}
