/* The C API of clkr (C99; usable from C++ and, through fortran/clkr.f90, from Fortran).
 *
 * Every function returns a clkr_status: CLKR_OK (0) or an error code, with the message of the error in
 * clkr_last_error() (per thread, valid until the thread's next clkr call). No C++ exception crosses
 * this interface, and a NULL pointer or a destroyed handle is an error, never a crash.
 *
 *   clkr_context ctx;       clkr_context_create("", &ctx);
 *   clkr_matrix A;          clkr_matrix_create_csr32(ctx, n, n, nnz, offsets, cols, vals, 0, &A);
 *   clkr_solve_options o = clkr_solve_options_default();  o.preconditioner = "amg";
 *   clkr_result r;          clkr_solve(ctx, A, b, x, &o, &r);
 *   clkr_matrix_destroy(A); clkr_context_destroy(ctx);
 *
 * docs/c_fortran.md has the whole story. */
#ifndef CLKR_H
#define CLKR_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int clkr_status;
#define CLKR_OK 0
#define CLKR_ERROR_INVALID_ARGUMENT 1 /* NULL pointer, bad size, bad matrix, unknown option name */
#define CLKR_ERROR_INVALID_HANDLE 2   /* a handle already destroyed, or never created */
#define CLKR_ERROR_DEVICE 3           /* OpenCL failed (device lost, out of device memory, ...) */
#define CLKR_ERROR_OUT_OF_MEMORY 4    /* host memory */
#define CLKR_ERROR_INTERNAL 5         /* anything else: a bug in clkr, please report it */

/* The outcome of a solve (clkr_result.status): why the iteration stopped. */
#define CLKR_SOLVE_CONVERGED 0
#define CLKR_SOLVE_MAX_ITERATIONS 1
#define CLKR_SOLVE_NOT_SPD 2
#define CLKR_SOLVE_BREAKDOWN 3
#define CLKR_SOLVE_NON_FINITE 4
#define CLKR_SOLVE_STAGNATED 5

/* The message of this thread's latest error ("" if none yet); never NULL. */
const char* clkr_last_error(void);

/* ---- Context: one OpenCL device ------------------------------------------------------------------ */
typedef struct clkr_context_s* clkr_context;
/* device: "P:D" (platform and device index), "gpu", "cpu" or a substring of the device name; NULL or ""
 * picks the default (the environment variable CLKR_DEVICE, else the first GPU, else the first CPU). */
clkr_status clkr_context_create(const char* device, clkr_context* out);
/* The device's name and summary, NUL-terminated and truncated to size bytes. */
clkr_status clkr_context_device_name(clkr_context ctx, char* name, int size);
/* Destroying NULL does nothing; matrices and solvers made on the context stay usable. */
clkr_status clkr_context_destroy(clkr_context ctx);

/* ---- Matrix: a sparse matrix uploaded to the context's device ------------------------------------- */
typedef struct clkr_matrix_s* clkr_matrix;
/* From CSR arrays: row_offsets[rows + 1], col_indices[nnz], values[nnz], with indices counted from
 * index_base (0 for C, 1 for Fortran) and the columns of each row strictly increasing. Refused with a
 * message naming the first bad row: offsets not starting at the base or decreasing, row_offsets[rows] -
 * base != nnz, a column out of range, unsorted or duplicate columns, NaN or Inf. 0-based 32-bit arrays
 * are uploaded from the caller's arrays directly; other layouts are converted through one host copy.
 * The matrix is stored in CSR on the device (clkr_matrix_convert changes that). */
clkr_status clkr_matrix_create_csr32(clkr_context ctx, int64_t rows, int64_t cols, int64_t nnz,
                                     const int32_t* row_offsets, const int32_t* col_indices, const double* values,
                                     int index_base, clkr_matrix* out);
clkr_status clkr_matrix_create_csr64(clkr_context ctx, int64_t rows, int64_t cols, int64_t nnz,
                                     const int64_t* row_offsets, const int64_t* col_indices, const double* values,
                                     int index_base, clkr_matrix* out);
/* From COO triplets (row_indices[k], col_indices[k], values[k]), k < nnz, in any order, counted from
 * index_base; entries at the same position are summed (what element-by-element assembly produces).
 * Refused, naming the triplet: an index out of range, NaN or Inf. clkr_matrix_update_values on such a
 * matrix takes nnz new values of the same triplets, in the same order, and sums them the same way. */
clkr_status clkr_matrix_create_coo32(clkr_context ctx, int64_t rows, int64_t cols, int64_t nnz,
                                     const int32_t* row_indices, const int32_t* col_indices, const double* values,
                                     int index_base, clkr_matrix* out);
clkr_status clkr_matrix_create_coo64(clkr_context ctx, int64_t rows, int64_t cols, int64_t nnz,
                                     const int64_t* row_indices, const int64_t* col_indices, const double* values,
                                     int index_base, clkr_matrix* out);
/* New values on the same pattern (the next time step): nnz values in the order of the arrays the matrix
 * was made from (CSR entries, or COO triplets). A wrong count or a NaN/Inf value is refused and leaves the matrix unchanged.
 * Solvers made on the matrix see the new values; their preconditioner follows after clkr_solver_update. */
clkr_status clkr_matrix_update_values(clkr_matrix m, const double* values, int64_t nnz);
/* rows, cols and the stored entries (after a COO matrix's duplicates were summed); NULL outputs are skipped. */
clkr_status clkr_matrix_size(clkr_matrix m, int64_t* rows, int64_t* cols, int64_t* nnz);
/* The device storage format: "csr", "csr4", "ell", "hyb", "sell", "dia" (and whatever formats clkr
 * adds), or "auto": the format clkr picks for the matrix on its device (DIA for entries on a few
 * diagonals where the device gains from it; else CSR on CPUs, ELL or CSR on GPUs, from the row
 * lengths). Converting reads the matrix back and uploads the new layout; solvers made on the matrix
 * keep working (their next solve multiplies in the new format). */
clkr_status clkr_matrix_convert(clkr_matrix m, const char* format);
/* The current format's name, NUL-terminated and truncated to size bytes. */
clkr_status clkr_matrix_format(clkr_matrix m, char* name, int size);
/* Destroying NULL does nothing; solvers made on the matrix keep it alive until they are destroyed. */
clkr_status clkr_matrix_destroy(clkr_matrix m);

/* ---- Solve ------------------------------------------------------------------------------------------ */
typedef struct clkr_solve_options {
  const char* solver;         /* "cg" (default), "pcg" (CG with Jacobi), "gmres", "fgmres", "bicgstab" */
  const char* preconditioner; /* "none" (default), "jacobi", "chebyshev", "amg" */
  /* "auto" (default; NULL the same: double, or qdouble on a device without fp64), "double", "single",
   * "qdouble" (float pairs, for devices without fp64), or "mixed": iterative refinement, double outside
   * (qdouble without fp64) and the solver above in single inside, the preconditioner applied inside in
   * single (reliable-update PCG with "cg"; "pcg": CG with its own Jacobi inside). */
  const char* precision;
  double relative_tolerance; /* stop when ||b - A x|| <= relative_tolerance * ||b||; default 1e-8 */
  int max_iterations;        /* default 10000 (mixed: outer steps) */
  int restart;               /* GMRES and FGMRES basis size; default 30 */
  int use_initial_guess;     /* non-zero: start from the x passed in; default 0: start from zero */
  /* The preconditioners' and the refinement's own options as "key=value" pairs separated by commas,
   * semicolons or spaces; NULL or "" for none. Keys: amg.strength_threshold, amg.coarse_size,
   * amg.max_levels, amg.prolongator_relaxation (0: plain aggregation), amg.block_size (0: from the pattern),
   * amg.aggressive_levels, amg.smoother (chebyshev|chebyshev4|jacobi|gauss-seidel: the host backend only),
   * amg.sweeps, amg.pre_sweeps, amg.post_sweeps,
   * amg.cycle (v|w), amg.chebyshev_degree, amg.chebyshev_lower_ratio, amg.jacobi_weight, amg.eigen_iterations,
   * amg.update_eigen_iterations, amg.update_prolongator (true|false); chebyshev.degree,
   * chebyshev.eigen_iterations, chebyshev.upper_safety, chebyshev.lower_ratio; precond.precision;
   * refinement.scheme (auto|restarted|reliable), refinement.inner_tolerance,
   * refinement.inner_max_iterations, refinement.reliable_update_delta; cg.path. A key for another
   * preconditioner, or a refinement key without "mixed", is refused. Example: "amg.smoother=jacobi,
   * amg.sweeps=2". docs/preconditioners.md explains each option. */
  const char* settings;
  /* AMG's near-null space: near_null_space_vectors vectors of rows(A) doubles, one after another
   * (column-major, as Fortran holds B(rows, m)), e.g. the six rigid-body modes of 3D elasticity;
   * NULL/0 (default): the constant vector. */
  const double* near_null_space;
  int near_null_space_vectors;
  /* AMG's nodes of different sizes (a mesh whose nodes lost their constrained unknowns): node k owns
   * rows node_offsets[k] .. node_offsets[k+1]-1, 0-based, nodes + 1 offsets from 0 to rows(A);
   * aggregates keep whole nodes. NULL/0 (default): amg.block_size's nodes (0: read from the pattern). */
  const int* node_offsets;
  int nodes;
  /* "device" (default): the context's OpenCL device. "host": the host backend, OpenMP on this machine's
   * cores with the matrix in CSR on the host (read back from the device once, at the solver's creation;
   * clkr_matrix_update_values keeps that copy current), the faster AMG on CPUs and the only one with
   * amg.smoother=gauss-seidel. The settings' cg.path does not apply to it. */
  const char* backend;
} clkr_solve_options;
clkr_solve_options clkr_solve_options_default(void);

typedef struct clkr_result {
  int status;           /* CLKR_SOLVE_... */
  char status_name[32]; /* "converged", "max-iterations", "not-spd", ... */
  int iterations;
  double recursive_relative_residual; /* ||r|| / ||b|| as the iteration tracked it */
  double true_relative_residual;      /* ||b - A x|| / ||b|| recomputed in double on the host */
  double setup_seconds;               /* making the solver: the preconditioner's setup */
  double solve_seconds;
  char message[256]; /* why the solve stopped, in words (truncated) */
  int inner_iterations; /* mixed: the inner solver's iterations over all outer steps; else 0 */
  /* CG on a device: the path that ran ("persistent", "fused", "unfused", "host", with the reason when
   * clkr chose it for one a user would not guess); "" for the other solvers and the host backend. */
  char path[128];
  /* CG whose AMG strengthened itself during the solve (the settings' cg.strengthen_check): when it was
   * asked, why and into what; "" otherwise. */
  char strengthened[256];
} clkr_result;

/* Solves A x = b once: b and x hold rows(A) doubles each (x is read only with use_initial_guess). Returns
 * CLKR_OK when the solver ran, converged or not: result->status says which. options NULL: the defaults;
 * result may be NULL. ctx must be the context the matrix was made on. */
clkr_status clkr_solve(clkr_context ctx, clkr_matrix A, const double* b, double* x, const clkr_solve_options* options,
                       clkr_result* result);

/* ---- Solver: the setup (preconditioner) kept across solves ------------------------------------------ */
typedef struct clkr_solver_s* clkr_solver;
clkr_status clkr_solver_create(clkr_matrix A, const clkr_solve_options* options, clkr_solver* out);
/* After clkr_matrix_update_values: refreshes the preconditioner for the new values (the AMG keeps its
 * hierarchy and recomputes only the numbers). */
clkr_status clkr_solver_update(clkr_solver solver);
clkr_status clkr_solver_solve(clkr_solver solver, const double* b, double* x, clkr_result* result);
/* k right-hand sides on the solver's one setup: column j of B is B[j * ldb .. j * ldb + rows), of X
 * likewise (column-major, as Fortran holds B(rows, k); ldb, ldx >= rows). results: k entries, or NULL.
 * Each column is a solve of its own, with its own result. k = 0 does nothing. */
clkr_status clkr_solver_solve_many(clkr_solver solver, int k, const double* B, int64_t ldb, double* X, int64_t ldx,
                                   clkr_result* results);
clkr_status clkr_solver_destroy(clkr_solver solver);

/* ---- The rigid-body modes of a mesh: AMG's near-null space for elasticity ---------------------------- */
/* coordinates: `dimension` (2 or 3) doubles a node, node after node, `nodes` nodes; unknowns_per_node: 0
 * or `dimension` (displacements), or 3 in 2D / 6 in 3D (displacements then rotations: beams, plates,
 * shells). Writes the modes one after another into `modes`, each unknowns_per_node * nodes doubles (room
 * for 6 of them in 3D, 3 in 2D: column-major, as Fortran holds B(rows, 6)), and their count into *count:
 * the translations, then the rotations about the nodes' centroid. For clkr_solve_options.near_null_space
 * (with amg.block_size = unknowns per node in the settings); docs/preconditioners.md. */
clkr_status clkr_rigid_body_modes(const double* coordinates, int64_t nodes, int dimension, int unknowns_per_node,
                                  double* modes, int* count);

#ifdef __cplusplus
}
#endif

#endif /* CLKR_H */
