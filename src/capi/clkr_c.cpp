// The C API (include/clkr/clkr.h) over the C++ one: every entry point runs its body through guarded(),
// which turns each exception into a status code and this thread's last error message, so nothing
// thrown crosses into C or Fortran.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "clkr/clkr.h"
#include "clkr/data/csr_arrays.hpp"
#include "clkr/precond/rigid_body_modes.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/solver/format_choice.hpp"
#include "clkr/solver/solver_setup.hpp"
#include "handles.hpp"

namespace clkr::capi {
namespace {

std::string& last_error() {
  thread_local std::string message;
  return message;
}

clkr_status fail(clkr_status status, const char* function, const std::string& what) {
  last_error() = std::string(function) + ": " + what;
  return status;
}

template <class Body>
clkr_status guarded(const char* function, Body&& body) noexcept {
  try {
    body();
    return CLKR_OK;
  } catch (const HandleError& e) {
    return fail(CLKR_ERROR_INVALID_HANDLE, function, e.what());
  } catch (const Error& e) {
    return fail(e.code() == CL_SUCCESS ? CLKR_ERROR_INVALID_ARGUMENT : CLKR_ERROR_DEVICE, function, e.what());
  } catch (const cl::Error& e) {
    return fail(CLKR_ERROR_DEVICE, function, std::string(e.what()) + " failed with " + cl_error_name(e.err()));
  } catch (const std::bad_alloc&) {
    return fail(CLKR_ERROR_OUT_OF_MEMORY, function, "out of host memory");
  } catch (const std::exception& e) {
    return fail(CLKR_ERROR_INTERNAL, function, e.what());
  } catch (...) {
    return fail(CLKR_ERROR_INTERNAL, function, "unknown exception");
  }
}

template <class T>
void require(const T* pointer, const char* argument) {
  if (pointer == nullptr) throw Error(std::string(argument) + " is NULL");
}

// ---- Options --------------------------------------------------------------------------------------------

std::string text_or(const char* text, const char* fallback) {
  return text == nullptr || *text == '\0' ? fallback : text;
}

SolverPlan plan_from(const clkr_solve_options& o, const Matrix& A) {
  SolverChoice choice;
  choice.solver = text_or(o.solver, "cg");
  choice.preconditioner = text_or(o.preconditioner, "none");
  choice.precision = text_or(o.precision, "auto");
  choice.backend = text_or(o.backend, "device");
  choice.relative_tolerance = o.relative_tolerance;
  choice.max_iterations = o.max_iterations;
  choice.restart = o.restart;
  try {
    choice.settings = parse_settings(text_or(o.settings, ""));
  } catch (const Error& e) {
    throw Error(std::string("options.settings: ") + e.what());
  }
  if (o.near_null_space_vectors < 0)
    throw Error("options.near_null_space_vectors " + std::to_string(o.near_null_space_vectors) + " is negative");
  if (o.near_null_space_vectors > 0) {
    require(o.near_null_space, "options.near_null_space");
    const auto n = static_cast<std::size_t>(A.rows());
    for (int j = 0; j < o.near_null_space_vectors; ++j)
      choice.near_null_space.emplace_back(o.near_null_space + j * n, o.near_null_space + (j + 1) * n);
  }
  if (o.nodes < 0) throw Error("options.nodes " + std::to_string(o.nodes) + " is negative");
  if (o.nodes > 0) {
    require(o.node_offsets, "options.node_offsets");
    choice.node_offsets.assign(o.node_offsets, o.node_offsets + o.nodes + 1);
  }
  return plan_solver(choice, A.context()->info(), "options.");
}

// ---- Handles' work ----------------------------------------------------------------------------------------

// 0-based 32-bit CSR is uploaded from the caller's arrays (a CsrView); everything else through one
// converted host copy.
template <class I>
std::shared_ptr<Matrix> csr_matrix(const std::shared_ptr<Context>& context, int64_t rows, int64_t cols, int64_t nnz,
                                   const I* row_offsets, const I* col_indices, const double* values, int index_base) {
  if constexpr (std::is_same_v<I, std::int32_t>) {
    if (index_base == 0)
      return std::make_shared<Matrix>(context, csr_view_of_arrays(rows, cols, nnz, row_offsets, col_indices, values));
  }
  return std::make_shared<Matrix>(context,
                                  csr_from_arrays(rows, cols, nnz, row_offsets, col_indices, values, index_base));
}

template <class I>
clkr_matrix create_matrix(clkr_context ctx, int64_t rows, int64_t cols, int64_t nnz, const I* row_offsets,
                          const I* col_indices, const double* values, int index_base) {
  const auto& context = Registry<clkr_context_s>::get(ctx, "ctx").context;
  auto handle = std::make_unique<clkr_matrix_s>();
  handle->matrix = csr_matrix(context, rows, cols, nnz, row_offsets, col_indices, values, index_base);
  return Registry<clkr_matrix_s>::add(std::move(handle));
}

template <class I>
clkr_matrix create_coo_matrix(clkr_context ctx, int64_t rows, int64_t cols, int64_t nnz, const I* row_indices,
                              const I* col_indices, const double* values, int index_base) {
  const auto& context = Registry<clkr_context_s>::get(ctx, "ctx").context;
  auto handle = std::make_unique<clkr_matrix_s>();
  handle->from_coo = true;
  handle->index_base = index_base;
  const HostCsrMatrix host =
      coo_to_csr(rows, cols, nnz, row_indices, col_indices, values, index_base, &handle->coo_slots);
  handle->matrix = std::make_shared<Matrix>(context, host);
  return Registry<clkr_matrix_s>::add(std::move(handle));
}

// The CSR values of new COO values: summed into the entries the triplets were summed into at creation.
std::vector<double> summed_coo_values(const clkr_matrix_s& m, const double* values, int64_t count) {
  if (count != static_cast<int64_t>(m.coo_slots.size()))
    throw Error("nnz is " + std::to_string(count) + " but the matrix was made from " +
                std::to_string(m.coo_slots.size()) + " triplets (the same triplets, in the same order, are expected)");
  std::vector<double> csr(static_cast<std::size_t>(m.matrix->nnz()), 0.0);
  for (int64_t k = 0; k < count; ++k) {
    if (!std::isfinite(values[k]))
      throw Error("the value of triplet " + std::to_string(k + m.index_base) + " (index base " +
                  std::to_string(m.index_base) + ") is " + std::to_string(values[k]) + ", not a finite number");
    csr[static_cast<std::size_t>(m.coo_slots[static_cast<std::size_t>(k)])] += values[k];
  }
  return csr;
}

clkr_solver create_solver(clkr_matrix A, const clkr_solve_options* options) {
  const std::shared_ptr<Matrix>& matrix = Registry<clkr_matrix_s>::get(A, "A").matrix;
  const clkr_solve_options o = options ? *options : clkr_solve_options_default();
  auto solver = std::make_unique<clkr_solver_s>();
  solver->setup = std::make_unique<SolverSetup>(matrix, plan_from(o, *matrix));
  solver->use_initial_guess = o.use_initial_guess != 0;
  return Registry<clkr_solver_s>::add(std::move(solver));
}

void copy_text(char* out, std::size_t size, const std::string& text) {
  const std::size_t n = std::min(size - 1, text.size());
  std::memcpy(out, text.data(), n);
  out[n] = '\0';
}

int status_code(SolveStatus status) {
  switch (status) {
    case SolveStatus::Converged:
      return CLKR_SOLVE_CONVERGED;
    case SolveStatus::MaxIterations:
      return CLKR_SOLVE_MAX_ITERATIONS;
    case SolveStatus::NotSpd:
      return CLKR_SOLVE_NOT_SPD;
    case SolveStatus::Breakdown:
      return CLKR_SOLVE_BREAKDOWN;
    case SolveStatus::NonFinite:
      return CLKR_SOLVE_NON_FINITE;
    case SolveStatus::Stagnated:
      return CLKR_SOLVE_STAGNATED;
  }
  throw std::logic_error("unknown SolveStatus " + std::to_string(static_cast<int>(status)));
}

void fill_result(const clkr_solver_s& s, const SolveResult& r, clkr_result* result) {
  if (result == nullptr) return;
  *result = clkr_result{};
  result->status = status_code(r.status);
  copy_text(result->status_name, sizeof result->status_name, to_string(r.status));
  result->iterations = r.iterations;
  result->recursive_relative_residual = r.recursive_relative_residual;
  result->true_relative_residual = r.true_relative_residual;
  result->setup_seconds = s.setup->setup_seconds();
  result->solve_seconds = r.seconds;
  copy_text(result->message, sizeof result->message, r.message);
  result->inner_iterations = r.inner_iterations;
  copy_text(result->path, sizeof result->path, r.path);
  copy_text(result->strengthened, sizeof result->strengthened, r.strengthened);
}

// Solves for k columns: column j of B starts at B + j * ldb, of X at X + j * ldx (ld >= rows).
void run_solver(clkr_solver_s& s, int k, const double* B, int64_t ldb, double* X, int64_t ldx, clkr_result* results) {
  Matrix& A = *s.setup->matrix();
  const auto n = static_cast<std::size_t>(A.rows());
  if (k < 0) throw Error("k " + std::to_string(k) + " is negative");
  if (k == 0) return;
  require(B, "B");
  require(X, "X");
  if (ldb < A.rows() || ldx < A.rows())
    throw Error("ldb " + std::to_string(ldb) + " and ldx " + std::to_string(ldx) + " must be at least the rows of A, " +
                std::to_string(A.rows()));
  const auto& context = A.context();
  std::vector<Vector> b_columns, x_columns;
  for (int j = 0; j < k; ++j) {
    const double* b = B + j * ldb;
    b_columns.emplace_back(context, std::vector<double>(b, b + n), "b");
    x_columns.emplace_back(context, n, "x");
    if (s.use_initial_guess) x_columns.back().assign(std::vector<double>(X + j * ldx, X + j * ldx + n));
  }
  const std::vector<SolveResult> r = s.setup->solve(b_columns, x_columns, s.use_initial_guess);
  for (int j = 0; j < k; ++j) {
    const std::vector<double> solution = x_columns[j].to_host();
    std::copy(solution.begin(), solution.end(), X + j * ldx);
    fill_result(s, r[j], results == nullptr ? nullptr : results + j);
  }
}

}  // namespace
}  // namespace clkr::capi

using namespace clkr::capi;  // the C entry points below are outside any namespace by necessity

extern "C" {

const char* clkr_last_error(void) { return last_error().c_str(); }

clkr_status clkr_context_create(const char* device, clkr_context* out) {
  return guarded(__func__, [&] {
    require(out, "out");
    *out = nullptr;
    auto handle = std::make_unique<clkr_context_s>();
    handle->context = clkr::Context::create(device ? device : "");
    *out = Registry<clkr_context_s>::add(std::move(handle));
  });
}

clkr_status clkr_context_device_name(clkr_context ctx, char* name, int size) {
  return guarded(__func__, [&] {
    const auto& context = Registry<clkr_context_s>::get(ctx, "ctx").context;
    require(name, "name");
    if (size < 1) throw clkr::Error("size " + std::to_string(size) + " leaves no room for the name");
    copy_text(name, static_cast<std::size_t>(size), context->info().summary());
  });
}

clkr_status clkr_context_destroy(clkr_context ctx) {
  return guarded(__func__, [&] { Registry<clkr_context_s>::destroy(ctx, "ctx"); });
}

clkr_status clkr_matrix_create_csr32(clkr_context ctx, int64_t rows, int64_t cols, int64_t nnz,
                                     const int32_t* row_offsets, const int32_t* col_indices, const double* values,
                                     int index_base, clkr_matrix* out) {
  return guarded(__func__, [&] {
    require(out, "out");
    *out = nullptr;
    *out = create_matrix(ctx, rows, cols, nnz, row_offsets, col_indices, values, index_base);
  });
}

clkr_status clkr_matrix_create_csr64(clkr_context ctx, int64_t rows, int64_t cols, int64_t nnz,
                                     const int64_t* row_offsets, const int64_t* col_indices, const double* values,
                                     int index_base, clkr_matrix* out) {
  return guarded(__func__, [&] {
    require(out, "out");
    *out = nullptr;
    *out = create_matrix(ctx, rows, cols, nnz, row_offsets, col_indices, values, index_base);
  });
}

clkr_status clkr_matrix_create_coo32(clkr_context ctx, int64_t rows, int64_t cols, int64_t nnz,
                                     const int32_t* row_indices, const int32_t* col_indices, const double* values,
                                     int index_base, clkr_matrix* out) {
  return guarded(__func__, [&] {
    require(out, "out");
    *out = nullptr;
    *out = create_coo_matrix(ctx, rows, cols, nnz, row_indices, col_indices, values, index_base);
  });
}

clkr_status clkr_matrix_create_coo64(clkr_context ctx, int64_t rows, int64_t cols, int64_t nnz,
                                     const int64_t* row_indices, const int64_t* col_indices, const double* values,
                                     int index_base, clkr_matrix* out) {
  return guarded(__func__, [&] {
    require(out, "out");
    *out = nullptr;
    *out = create_coo_matrix(ctx, rows, cols, nnz, row_indices, col_indices, values, index_base);
  });
}

clkr_status clkr_matrix_update_values(clkr_matrix m, const double* values, int64_t nnz) {
  return guarded(__func__, [&] {
    const clkr_matrix_s& handle = Registry<clkr_matrix_s>::get(m, "m");
    clkr::Matrix& matrix = *handle.matrix;
    require(values, "values");
    if (handle.from_coo) {
      matrix.update_values(summed_coo_values(handle, values, nnz));
      return;
    }
    if (nnz != matrix.nnz())
      throw clkr::Error("nnz is " + std::to_string(nnz) + " but the matrix has " + std::to_string(matrix.nnz()) +
                        " entries (a new pattern needs a new matrix)");
    matrix.update_values(std::vector<double>(values, values + nnz));
  });
}

clkr_status clkr_matrix_convert(clkr_matrix m, const char* format) {
  return guarded(__func__, [&] {
    clkr::Matrix& matrix = *Registry<clkr_matrix_s>::get(m, "m").matrix;
    require(format, "format");
    clkr::Format chosen;
    try {
      chosen = clkr::format_named(format, matrix.stats(), matrix.context()->info());
    } catch (const clkr::Error& e) {
      throw clkr::Error(std::string("format: ") + e.what() + " (or auto)");
    }
    matrix.convert(chosen);
  });
}

clkr_status clkr_matrix_format(clkr_matrix m, char* name, int size) {
  return guarded(__func__, [&] {
    const clkr::Matrix& matrix = *Registry<clkr_matrix_s>::get(m, "m").matrix;
    require(name, "name");
    if (size < 1) throw clkr::Error("size " + std::to_string(size) + " leaves no room for the name");
    copy_text(name, static_cast<std::size_t>(size), clkr::to_string(matrix.format()));
  });
}

clkr_status clkr_matrix_size(clkr_matrix m, int64_t* rows, int64_t* cols, int64_t* nnz) {
  return guarded(__func__, [&] {
    const clkr::Matrix& matrix = *Registry<clkr_matrix_s>::get(m, "m").matrix;
    if (rows) *rows = matrix.rows();
    if (cols) *cols = matrix.cols();
    if (nnz) *nnz = matrix.nnz();
  });
}

clkr_status clkr_rigid_body_modes(const double* coordinates, int64_t nodes, int dimension, int unknowns_per_node,
                                  double* modes, int* count) {
  return guarded(__func__, [&] {
    require(coordinates, "coordinates");
    require(modes, "modes");
    require(count, "count");
    if (nodes < 1) throw clkr::Error("nodes = " + std::to_string(nodes) + ", expected at least 1");
    if (dimension != 2 && dimension != 3)
      throw clkr::Error("dimension " + std::to_string(dimension) + ", expected 2 or 3");
    const std::vector<double> xyz(coordinates, coordinates + nodes * dimension);
    const std::vector<std::vector<double>> B = clkr::rigid_body_modes(xyz, dimension, unknowns_per_node);
    for (std::size_t j = 0; j < B.size(); ++j) std::copy(B[j].begin(), B[j].end(), modes + j * B[j].size());
    *count = static_cast<int>(B.size());
  });
}

clkr_status clkr_matrix_destroy(clkr_matrix m) {
  return guarded(__func__, [&] { Registry<clkr_matrix_s>::destroy(m, "m"); });
}

clkr_solve_options clkr_solve_options_default(void) {
  clkr_solve_options o;
  o.solver = "cg";
  o.preconditioner = "none";
  o.precision = "auto";
  o.relative_tolerance = 1e-8;
  o.max_iterations = 10000;
  o.restart = 30;
  o.use_initial_guess = 0;
  o.settings = "";
  o.near_null_space = NULL;
  o.near_null_space_vectors = 0;
  o.node_offsets = NULL;
  o.nodes = 0;
  o.backend = "device";
  return o;
}

clkr_status clkr_solve(clkr_context ctx, clkr_matrix A, const double* b, double* x, const clkr_solve_options* options,
                       clkr_result* result) {
  return guarded(__func__, [&] {
    const auto& context = Registry<clkr_context_s>::get(ctx, "ctx").context;
    if (Registry<clkr_matrix_s>::get(A, "A").matrix->context() != context)
      throw clkr::Error("A was made on another context than ctx");
    require(b, "b");
    require(x, "x");
    clkr_solver solver = create_solver(A, options);
    // The solver is destroyed however the solve ends.
    std::unique_ptr<clkr_solver_s, void (*)(clkr_solver_s*)> owner(
        solver, [](clkr_solver_s* s) { Registry<clkr_solver_s>::destroy(s, "solver"); });
    const int64_t rows = solver->setup->matrix()->rows();
    run_solver(*solver, 1, b, rows, x, rows, result);
  });
}

clkr_status clkr_solver_create(clkr_matrix A, const clkr_solve_options* options, clkr_solver* out) {
  return guarded(__func__, [&] {
    require(out, "out");
    *out = nullptr;
    *out = create_solver(A, options);
  });
}

clkr_status clkr_solver_update(clkr_solver solver) {
  return guarded(__func__, [&] { Registry<clkr_solver_s>::get(solver, "solver").setup->update(); });
}

clkr_status clkr_solver_solve(clkr_solver solver, const double* b, double* x, clkr_result* result) {
  return guarded(__func__, [&] {
    clkr_solver_s& s = Registry<clkr_solver_s>::get(solver, "solver");
    require(b, "b");
    require(x, "x");
    const int64_t rows = s.setup->matrix()->rows();
    run_solver(s, 1, b, rows, x, rows, result);
  });
}

clkr_status clkr_solver_solve_many(clkr_solver solver, int k, const double* B, int64_t ldb, double* X, int64_t ldx,
                                   clkr_result* results) {
  return guarded(__func__,
                 [&] { run_solver(Registry<clkr_solver_s>::get(solver, "solver"), k, B, ldb, X, ldx, results); });
}

clkr_status clkr_solver_destroy(clkr_solver solver) {
  return guarded(__func__, [&] { Registry<clkr_solver_s>::destroy(solver, "solver"); });
}

}  // extern "C"
