// AMG as the preconditioner of Krylov solvers: mesh-independent iteration counts on Poisson, far fewer
// iterations than Jacobi on an elasticity matrix, the update step, a single-precision hierarchy inside
// a double solve, nonsymmetric systems with GMRES/BiCGStab, and every input it must refuse.
#include <gtest/gtest.h>

#include <cmath>

#include "../precision_support.hpp"
#include "../test_matrices.hpp"
#include "amg_test_support.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/io/matrix_market.hpp"
#include "clkr/precond/make_preconditioner.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/solver/solve.hpp"

namespace clkr {
namespace {

struct Outcome {
  SolveResult result;
  double true_residual = 0;  // recomputed here in long double
};

// Double where the device has fp64, else quasi-double: what these tests check (iteration counts,
// convergence to 1e-8..1e-10, refusals) does not need double's 53 bits, so they run on the no-fp64 path too.
Precision widest() { return test::widest_device_precision(*test::amg_context()); }

// Solves A x = b (b = A x_true, x_true random) with `kind` and the preconditioner `options` describes.
Outcome solve_with(const HostCsrMatrix& host, SolverKind kind, const PrecondOptions& precond, double tolerance,
                   Precision precision = widest(), Location location = Location::Device) {
  auto context = test::amg_context();
  Matrix A(context, host, Format::Csr);
  const std::vector<double> x_true = test::random_values(host.rows, 3);
  const std::vector<long double> b_long = test::multiply(host, std::vector<long double>(x_true.begin(), x_true.end()));
  const std::vector<double> b_values(b_long.begin(), b_long.end());
  Vector b(context, b_values, "b"), x(context, host.rows, "x");
  Blas blas(context, location, precision);
  auto M = make_preconditioner(blas, A, precond);
  SolveOptions options;
  options.relative_tolerance = tolerance;
  options.max_iterations = 5000;
  Outcome out;
  out.result = solve(kind, blas, A, *M, b, x, options);
  const std::vector<double> xv = x.to_host();
  const std::vector<long double> ax = test::multiply(host, std::vector<long double>(xv.begin(), xv.end()));
  long double r = 0, bn = 0;
  for (std::int32_t i = 0; i < host.rows; ++i) {
    r += (b_long[i] - ax[i]) * (b_long[i] - ax[i]);
    bn += b_long[i] * b_long[i];
  }
  out.true_residual = static_cast<double>(std::sqrt(r / bn));
  return out;
}

PrecondOptions amg_options() {
  PrecondOptions o;
  o.kind = PrecondKind::Amg;
  return o;
}

TEST(AmgSolve, PoissonIterationsDoNotGrowWithTheMesh) {
  std::vector<int> iterations;
  for (int n : {16, 32, 64}) {
    const Outcome o = solve_with(poisson3d(n), SolverKind::Cg, amg_options(), 1e-8);
    ASSERT_TRUE(o.result.converged()) << "poisson3d:" << n << ": " << o.result.message;
    EXPECT_LE(o.true_residual, 1e-8 * 1.01) << n;
    iterations.push_back(o.result.iterations);
  }
  const auto [lo, hi] = std::minmax_element(iterations.begin(), iterations.end());
  EXPECT_LE(*hi, 1.5 * *lo) << iterations[0] << ", " << iterations[1] << ", " << iterations[2];
  EXPECT_LE(*hi, 25);
  // Unpreconditioned CG on poisson3d:64 needs about ten times as many (160).
  PrecondOptions none;
  const Outcome plain = solve_with(poisson3d(64), SolverKind::Cg, none, 1e-8);
  EXPECT_GE(plain.result.iterations, 5 * iterations[2]);
}

TEST(AmgSolve, ElasticityInFarFewerIterationsThanJacobi) {
  // bcsstk14 (bundled): a roof structure, 1806 unknowns, 3 per node; bcsstk16 (../shared, when there):
  // a dam, 4884 unknowns.
  struct Case {
    const char* file;
    int block_size;
  };
  for (const Case c : {Case{"bcsstk14.mtx", 3}, Case{"bcsstk16.mtx", 3}}) {
    const std::string path = test::matrix_path(c.file);
    if (path.empty()) {
      ASSERT_NE(std::string(c.file), "bcsstk14.mtx") << "the bundled matrix is missing";
      continue;
    }
    const HostCsrMatrix A = read_matrix_market(path);
    PrecondOptions jacobi;
    jacobi.kind = PrecondKind::Jacobi;
    const Outcome j = solve_with(A, SolverKind::Cg, jacobi, 1e-8);
    PrecondOptions amg = amg_options();
    amg.amg.block_size = c.block_size;
    const Outcome a = solve_with(A, SolverKind::Cg, amg, 1e-8);
    ASSERT_TRUE(j.result.converged()) << c.file << ": " << j.result.message;
    ASSERT_TRUE(a.result.converged()) << c.file << ": " << a.result.message;
    EXPECT_LE(a.true_residual, 1.5e-8) << c.file;
    EXPECT_LE(3 * a.result.iterations, j.result.iterations)
        << c.file << ": amg " << a.result.iterations << ", jacobi " << j.result.iterations;
  }
}

SolveOptions tolerance(double relative = 1e-10) {
  SolveOptions options;
  options.relative_tolerance = relative;
  return options;
}

// CG to `relative` on b = ones with M (updated) on A and with `fresh` (set up on the same values) on
// fresh_A: the same iterations.
void expect_same_iterations(Blas& blas, Matrix& A, Amg& M, Matrix& fresh_A, Amg& fresh, double relative = 1e-10) {
  const auto& context = A.context();
  const auto rows = static_cast<std::size_t>(A.rows());
  Vector b(context, std::vector<double>(rows, 1.0), "b"), x1(context, rows, "x1"), x2(context, rows, "x2");
  const SolveResult updated = cg(blas, A, M, b, x1, tolerance(relative));
  const SolveResult rebuilt = cg(blas, fresh_A, fresh, b, x2, tolerance(relative));
  ASSERT_TRUE(updated.converged()) << updated.message;
  EXPECT_EQ(updated.iterations, rebuilt.iterations);
}

// Plain aggregation (prolongator_relaxation = 0) on the bundled bcsstk14: its constants per unknown
// miss the structure's rotations, so smoothing P buys few iterations there, and the plain hierarchy
// is sparser. It must still be a real multigrid: far fewer iterations than Jacobi, at most 1.5x
// smoothed aggregation's, and an update after scaling by 2 solves as a fresh setup does.
TEST(AmgSolve, PlainAggregationOnAStructuralMatrix) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::amg_context(), Precision::Double);
  const std::string path = test::matrix_path("bcsstk14.mtx");
  ASSERT_FALSE(path.empty()) << "the bundled matrix is missing";
  const HostCsrMatrix host = read_matrix_market(path);
  PrecondOptions jacobi;
  jacobi.kind = PrecondKind::Jacobi;
  PrecondOptions smoothed = amg_options(), plain = amg_options();
  smoothed.amg.block_size = plain.amg.block_size = 3;
  plain.amg.prolongator_relaxation = 0;
  const Outcome j = solve_with(host, SolverKind::Cg, jacobi, 1e-8);
  const Outcome s = solve_with(host, SolverKind::Cg, smoothed, 1e-8);
  const Outcome p = solve_with(host, SolverKind::Cg, plain, 1e-8);
  ASSERT_TRUE(p.result.converged()) << p.result.message;
  EXPECT_LE(p.true_residual, 1.5e-8);
  EXPECT_LE(3 * p.result.iterations, j.result.iterations) << p.result.iterations << " against " << j.result.iterations;
  EXPECT_LE(p.result.iterations, 1.5 * s.result.iterations)
      << p.result.iterations << " against " << s.result.iterations;

  auto context = test::amg_context();
  Matrix A(context, host, Format::Csr);
  Blas blas(context, Location::Device, Precision::Double);
  Amg M(blas, A, plain.amg), S(blas, A, smoothed.amg);
  EXPECT_NE(M.description().find("plain aggregation"), std::string::npos) << M.description();
  EXPECT_LT(M.operator_complexity(), S.operator_complexity());
  HostCsrMatrix doubled = host;
  for (double& v : doubled.values) v *= 2;
  A.update_values(doubled.values);
  M.update(A);
  Matrix fresh_A(context, doubled, Format::Csr);
  Amg fresh(blas, fresh_A, plain.amg);
  expect_same_iterations(blas, A, M, fresh_A, fresh);
}

TEST(AmgSolve, UpdateAfterScalingByTwoGivesTheIterationsOfAFreshSetup) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::amg_context(), Precision::Double);
  auto context = test::amg_context();
  const HostCsrMatrix host = test::jumping_coefficient3d(20, 1e4);
  Matrix A(context, host, Format::Csr);
  Blas blas(context, Location::Device, Precision::Double);
  Amg M(blas, A, AmgOptions{});
  HostCsrMatrix doubled = host;
  for (double& v : doubled.values) v *= 2;
  A.update_values(doubled.values);
  M.update(A);
  EXPECT_GT(M.update_seconds(), 0);
  EXPECT_FALSE(M.update_phases().empty());
  Matrix fresh_A(context, doubled, Format::Csr);
  Amg fresh(blas, fresh_A, AmgOptions{});
  ASSERT_EQ(M.levels().size(), fresh.levels().size());
  for (std::size_t l = 0; l < M.levels().size(); ++l) {
    EXPECT_EQ(M.levels()[l].nnz, fresh.levels()[l].nnz);
    EXPECT_NEAR(M.levels()[l].lambda_max, fresh.levels()[l].lambda_max, 1e-12 * fresh.levels()[l].lambda_max);
  }
  const SolveOptions options = tolerance();
  Vector b(context, std::vector<double>(host.rows, 1.0), "b"), x1(context, host.rows, "x1"),
      x2(context, host.rows, "x2");
  expect_same_iterations(blas, A, M, fresh_A, fresh);
  // A second update, to other values on the same pattern (symmetric, still diagonally dominant), solves
  // as well as a fresh setup on them (the aggregates kept from the first setup may differ from a fresh
  // one's: a few iterations of difference are allowed).
  HostCsrMatrix other = host;
  const std::vector<double> u = test::random_values(host.rows, 5);
  for (std::int32_t i = 0; i < host.rows; ++i)
    for (std::int32_t k = host.row_offsets[i]; k < host.row_offsets[i + 1]; ++k)
      other.values[k] *= 1.0 + 0.2 * u[i] * u[host.col_indices[k]] + (host.col_indices[k] == i ? 0.5 : 0.0);
  A.update_values(other);
  M.update(A);
  const SolveResult again = cg(blas, A, M, b, x1, options);
  ASSERT_TRUE(again.converged()) << again.message;
  Matrix other_A(context, other, Format::Csr);
  Amg other_fresh(blas, other_A, AmgOptions{});
  const SolveResult other_rebuilt = cg(blas, other_A, other_fresh, b, x2, options);
  EXPECT_LE(again.iterations, other_rebuilt.iterations + 3);
  // A matrix with another pattern is refused.
  Matrix smaller(context, poisson3d(5), Format::Csr);
  EXPECT_THROW(M.update(smaller), Error);
}

TEST(AmgSolve, SinglePrecisionHierarchyInsideADoubleSolve) {
  PrecondOptions single = amg_options();
  single.precision = Precision::Single;
  const Outcome mixed = solve_with(poisson3d(32), SolverKind::Cg, single, 1e-10);
  ASSERT_TRUE(mixed.result.converged()) << mixed.result.message;
  EXPECT_LE(mixed.true_residual, 1.01e-10);
  const Outcome full = solve_with(poisson3d(32), SolverKind::Cg, amg_options(), 1e-10);
  EXPECT_LE(mixed.result.iterations, full.result.iterations + 2);
}

// The hierarchy's values in binary16 (ValueStorage::Half) inside a double solve: the iterations of the
// single-precision hierarchy within two on Poisson and a jumping-coefficient problem, the true residual
// at the tolerance, every level read in binary16 (the one-launch coarse levels aside), and the smoother
// steps moving fewer bytes than on single values.
TEST(AmgSolve, HalfValuesHierarchyInsideADoubleSolve) {
  for (const bool jumping : {false, true}) {
    const HostCsrMatrix host = jumping ? test::jumping_coefficient3d(24, 1e4) : poisson3d(32);
    const std::string what = jumping ? "jumping3d:24" : "poisson3d:32";
    PrecondOptions single = amg_options(), half = amg_options();
    single.precision = half.precision = Precision::Single;
    half.matrix_values = ValueStorage::Half;
    const Outcome with_half = solve_with(host, SolverKind::Cg, half, 1e-10);
    ASSERT_TRUE(with_half.result.converged()) << what << ": " << with_half.result.message;
    EXPECT_LE(with_half.true_residual, 1.01e-10) << what;
    const Outcome with_single = solve_with(host, SolverKind::Cg, single, 1e-10);
    EXPECT_LE(with_half.result.iterations, with_single.result.iterations + 2) << what;
  }
  auto context = test::amg_context();
  Matrix A(context, poisson3d(24), Format::Csr);
  // Level 0 by launches of its own, whatever the device's defaults: the whole cycle in one launch
  // (amg_cycle.fine_max_rows) reads working-precision copies of every level (amg_coarse_cycle_test).
  BlasOptions own_launches;
  own_launches.params = device_params(context->info(), "off");
  own_launches.params->amg_cycle.fine_max_rows = 0;
  Blas blas(context, Location::Device, widest(), own_launches);
  Amg half(blas, A, AmgOptions{}, Precision::Single, ValueStorage::Half);
  Amg single(blas, A, AmgOptions{}, Precision::Single);
  EXPECT_EQ(half.matrix_values(), ValueStorage::Half);
  EXPECT_NE(half.description().find("single, half values"), std::string::npos) << half.description();
  for (std::size_t l = 0; l < half.levels().size(); ++l) {
    EXPECT_EQ(single.levels()[l].values, "single") << "level " << l;
    if (l == 0 || half.description().find("in one launch") == std::string::npos)
      EXPECT_EQ(half.levels()[l].values, "half") << "level " << l << ": " << half.description();
  }
  Vector r(context, test::random_values(A.rows(), 9), "r"), z(context, A.rows(), "z");
  half.blas().reset_counters();
  single.blas().reset_counters();
  half.apply(r, z);
  single.apply(r, z);
  const auto bytes = [](Preconditioner& M, const char* op) { return M.blas().counters().at(op).bytes; };
  EXPECT_LT(bytes(half, "spmv_residual"), bytes(single, "spmv_residual"));
  EXPECT_LT(bytes(half, "chebyshev_step"), bytes(single, "chebyshev_step"));
}

// Scaling A by two scales every level's operator by two, which moves each binary16 copy's scale by
// exactly one binade: the update must give the iterations of a fresh setup on the doubled values.
TEST(AmgSolve, HalfValuesUpdateAfterScalingByTwo) {
  auto context = test::amg_context();
  const HostCsrMatrix host = test::jumping_coefficient3d(20, 1e4);
  Matrix A(context, host, Format::Csr);
  Blas blas(context, Location::Device, widest());
  Amg M(blas, A, AmgOptions{}, Precision::Single, ValueStorage::Half);
  HostCsrMatrix doubled = host;
  for (double& v : doubled.values) v *= 2;
  A.update_values(doubled.values);
  M.update(A);
  Matrix fresh_A(context, doubled, Format::Csr);
  Amg fresh(blas, fresh_A, AmgOptions{}, Precision::Single, ValueStorage::Half);
  // 1e-8: quasi-double (the solver without fp64) stops near 1e-9 on this jumping coefficient.
  expect_same_iterations(blas, A, M, fresh_A, fresh, 1e-8);
}

TEST(AmgSolve, HostBackendMatchesTheDevice) {
  const Outcome device = solve_with(poisson3d(20), SolverKind::Cg, amg_options(), 1e-10);
  const Outcome host =
      solve_with(poisson3d(20), SolverKind::Cg, amg_options(), 1e-10, Precision::Double, Location::Host);
  ASSERT_TRUE(host.result.converged()) << host.result.message;
  EXPECT_NEAR(host.result.iterations, device.result.iterations, 1);
}

TEST(AmgSolve, NonsymmetricSystemsWithRightPreconditionedSolvers) {
  HostCsrMatrix A;
  {
    // 2-D convection-diffusion, mesh Peclet 0.5: nonsymmetric, positive diagonal.
    const int n = 40;
    std::vector<std::tuple<std::int32_t, std::int32_t, double>> entries;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        const int id = i * n + j;
        entries.emplace_back(id, id, 4.0);
        if (i > 0) entries.emplace_back(id, id - n, -1.25);
        if (i < n - 1) entries.emplace_back(id, id + n, -0.75);
        if (j > 0) entries.emplace_back(id, id - 1, -1.0);
        if (j < n - 1) entries.emplace_back(id, id + 1, -1.0);
      }
    std::sort(entries.begin(), entries.end());
    A.rows = A.cols = n * n;
    for (const auto& [i, j, v] : entries) {
      A.col_indices.push_back(j);
      A.values.push_back(v);
      while (static_cast<std::int32_t>(A.row_offsets.size()) <= i + 1) A.row_offsets.push_back(0);
    }
    A.row_offsets.assign(static_cast<std::size_t>(A.rows) + 1, 0);
    for (const auto& e : entries) ++A.row_offsets[std::get<0>(e) + 1];
    for (std::int32_t i = 0; i < A.rows; ++i) A.row_offsets[i + 1] += A.row_offsets[i];
    A.validate();
  }
  for (SolverKind kind : {SolverKind::Gmres, SolverKind::Fgmres, SolverKind::BiCgStab}) {
    const Outcome o = solve_with(A, kind, amg_options(), 1e-9);
    ASSERT_TRUE(o.result.converged()) << to_string(kind) << ": " << o.result.message;
    // Right preconditioning: the residual the solver reports is b - A x itself.
    EXPECT_NEAR(o.result.true_relative_residual, o.true_residual, 1e-6 * o.true_residual) << to_string(kind);
    EXPECT_LE(o.true_residual, 1.01e-9) << to_string(kind);
    EXPECT_LE(o.result.iterations, 40) << to_string(kind);
  }
}

// poisson2d(30) - s I: eigenvalues in (0.02 - s, 7.98 - s), a positive diagonal. Far from definite
// (s = 3), a coarse operator's diagonal turns negative and the setup refuses, naming the level; barely
// indefinite (s = 0.05), the hierarchy builds, and CG must not report a false convergence: either it
// detects p'Ap <= 0 or r'z <= 0 (NotSpd), or whatever it reports is true of x.
HostCsrMatrix shifted_poisson(double shift) {
  HostCsrMatrix A = poisson2d(30);
  for (std::int32_t i = 0; i < A.rows; ++i)
    for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k)
      if (A.col_indices[k] == i) A.values[k] -= shift;
  return A;
}

TEST(AmgSolve, AnIndefiniteOperatorIsRefusedOrEndsNotSpd) {
  try {
    solve_with(shifted_poisson(3.0), SolverKind::Cg, amg_options(), 1e-8);
    FAIL() << "a clearly indefinite operator was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not positive definite"), std::string::npos) << e.what();
  }
  const Outcome o = solve_with(shifted_poisson(0.05), SolverKind::Cg, amg_options(), 1e-8);
  if (o.result.converged()) {
    EXPECT_LE(o.true_residual, 1.01e-8) << "a false convergence: " << o.result.message;
  } else {
    EXPECT_EQ(o.result.status, SolveStatus::NotSpd) << to_string(o.result.status) << ": " << o.result.message;
  }
}

TEST(AmgSolve, RefusesBadInput) {
  auto context = test::amg_context();
  Blas blas(context, Location::Device, widest());
  auto expect_error = [&](const HostCsrMatrix& host, AmgOptions options, const std::string& words) {
    Matrix A(context, host, Format::Csr);
    try {
      Amg M(blas, A, options);
      FAIL() << "built: expected an error mentioning '" << words << "'";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  HostCsrMatrix rectangular;
  rectangular.rows = 2;
  rectangular.cols = 3;
  rectangular.row_offsets = {0, 1, 2};
  rectangular.col_indices = {0, 1};
  rectangular.values = {1, 1};
  expect_error(rectangular, {}, "not square");
  HostCsrMatrix zero = poisson2d(10);
  for (std::int32_t k = zero.row_offsets[3]; k < zero.row_offsets[4]; ++k)
    if (zero.col_indices[k] == 3) zero.values[k] = 0;
  expect_error(zero, {}, "A(3,3) = 0");
  AmgOptions o;
  o.block_size = 3;
  expect_error(poisson2d(10), o, "block_size = 3");
  o = {};
  o.near_null_space = {std::vector<double>(7, 1.0)};
  expect_error(poisson2d(10), o, "near-null-space vector 0 has 7 elements");
  for (auto [field, words] : std::initializer_list<std::pair<int, const char*>>{{0, "strength_threshold"},
                                                                                {1, "coarse_size"},
                                                                                {2, "max_levels"},
                                                                                {3, "chebyshev_degree"},
                                                                                {4, "eigen_iterations"},
                                                                                {5, "pre_sweeps"},
                                                                                {6, "cycle_index = 0"},
                                                                                {7, "cycle_index = 3"}}) {
    o = {};
    if (field == 0) o.strength_threshold = 1.5;
    if (field == 1) o.coarse_size = 0;
    if (field == 2) o.max_levels = 0;
    if (field == 3) o.chebyshev_degree = 0;
    if (field == 4) o.eigen_iterations = 1;
    if (field == 5) o.pre_sweeps = -1;
    if (field == 6) o.cycle_index = 0;
    if (field == 7) o.cycle_index = 3;
    expect_error(poisson2d(10), o, words);
  }
}

}  // namespace
}  // namespace clkr
