// End-to-end tests of `clkr solve` / `clkr cg`: exit codes, every usage and input error's one-line
// message, the --json object (checked against the library solving the same problem in-process), and
// the files --out-x and --history write, --x0, --rhs, --verify and mixed precision.
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "app_test_support.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/io/matrix_market.hpp"
#include "clkr/solver/solve.hpp"

using namespace app_test;

namespace {

// Exactly one line of text, ending in a newline.
bool one_line(const std::string& text) {
  return !text.empty() && text.back() == '\n' && text.find('\n') == text.size() - 1;
}

TEST(SolveCommand, ConvergesWithExitCodeZero) {
  const Result r = run_clkr({"solve", "poisson2d:16"});
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_NE(r.out.find("status      converged:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("iterations  "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("per iteration"), std::string::npos) << r.out;
  // The per-kernel table of Blas::report.
  EXPECT_NE(r.out.find("GFLOP/s"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("spmv"), std::string::npos) << r.out;
  // Not a terminal: no progress line on stderr.
  EXPECT_EQ(r.err, "");
}

TEST(SolveCommand, CgIsSolveWithCg) {
  const Result r = run_clkr({"cg", "poisson2d:16", "--json"});
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_EQ(parse_json(r.out)["solver"].text, "cg");
  // `clkr cg` has no --solver: the solver is its name.
  const Result bad = run_clkr({"cg", "poisson2d:16", "--solver", "gmres"});
  EXPECT_EQ(bad.code, 2) << describe(bad);
  EXPECT_NE(bad.err.find("unknown option '--solver'"), std::string::npos) << bad.err;
}

TEST(SolveCommand, NotConvergedExitsOne) {
  const Result r = run_clkr({"solve", "poisson2d:16", "--maxit", "2"});
  ASSERT_EQ(r.code, 1) << describe(r);
  EXPECT_NE(r.out.find("NOT converged (max-iterations)"), std::string::npos) << r.out;
  const Result quiet = run_clkr({"solve", "poisson2d:16", "--maxit", "2", "--quiet"});
  ASSERT_EQ(quiet.code, 1) << describe(quiet);
  EXPECT_TRUE(one_line(quiet.out)) << quiet.out;
  EXPECT_EQ(quiet.out.rfind("NOT converged (max-iterations) after 2 iterations", 0), 0u) << quiet.out;
}

struct UsageCase {
  std::vector<std::string> args;
  std::string message;  // a substring of the one-line error
};

TEST(SolveCommand, UsageAndInputErrorsExitTwoWithOneLine) {
  const fs::path bad = scratch_dir() / "bad.mtx";
  write_text(bad, "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n2 x 3.0\n");
  const fs::path rectangular = scratch_dir() / "rectangular.mtx";
  write_text(rectangular, "%%MatrixMarket matrix coordinate real general\n3 2 2\n1 1 1.0\n2 2 3.0\n");
  const fs::path short_rhs = scratch_dir() / "short_rhs.mtx";
  write_text(short_rhs, "%%MatrixMarket matrix array real general\n3 1\n1\n2\n3\n");
  const std::vector<UsageCase> cases = {
      {{"solve", "poisson2d:8", "--bogus"}, "unknown option '--bogus'"},
      {{"solve", "poisson2d:8", "--tol"}, "option '--tol' needs a value"},
      {{"solve", "poisson2d:8", "--tol", "--json"}, "option '--tol' needs a value"},
      {{"solve", "poisson2d:8", "--tol", "abc"}, "option '--tol': 'abc' is not a finite number"},
      {{"solve", "poisson2d:8", "--tol", "nan"}, "'nan' is not a finite number"},
      {{"solve", "poisson2d:8", "--tol=-1"}, "option '--tol': -1 must be >= 0"},
      {{"solve", "poisson2d:8", "--maxit", "12x"}, "option '--maxit': '12x' is not an integer"},
      {{"solve", "poisson2d:8", "--maxit", "-3"}, "option '--maxit': -3 is outside"},
      {{"solve", "poisson2d:8", "--json=yes"}, "option '--json' takes no value"},
      {{"solve", "poisson2d:8", "--solver", "lsqr"}, "--solver: unknown solver 'lsqr'"},
      {{"solve", "poisson2d:8", "--format", "coo"}, "--format: unknown format 'coo'"},
      {{"solve", "poisson2d:8", "--precision", "half"}, "--precision: unknown precision 'half'"},
      {{"solve", "poisson2d:8", "--cg-path", "warp"}, "--cg-path: unknown CG path 'warp'"},
      {{"solve"}, "missing MATRIX"},
      {{"solve", "poisson2d:8", "poisson2d:9"}, "expected one MATRIX, got 2"},
      {{"solve", (scratch_dir() / "no_such_file.mtx").string()}, "no_such_file.mtx"},
      {{"solve", bad.string()}, "bad.mtx:4:"},
      {{"solve", rectangular.string()}, "is 3 x 2: the solvers need a square matrix"},
      {{"solve", "poisson2d:8", "--rhs", short_rhs.string()}, "has 3 entries but the matrix has 64 rows"},
      {{"solve", "poisson2d:8", "--x0", (scratch_dir() / "no_x0.mtx").string()}, "--x0: "},
      {{"solve", "poisson2d:8", "--device", "no-such-device-xyz"}, "no OpenCL device matches 'no-such-device-xyz'"},
      {{"solve", "poisson2d:0"}, "poisson2d"},
      {{"frobnicate"}, "unknown command 'frobnicate'"},
  };
  for (const auto& c : cases) {
    std::string joined;
    for (const auto& a : c.args) joined += a + " ";
    const Result r = run_clkr(c.args);
    EXPECT_EQ(r.code, 2) << joined << "\n" << describe(r);
    EXPECT_TRUE(one_line(r.err)) << joined << ": not one line:\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << joined << ": expected '" << c.message << "' in\n" << r.err;
    EXPECT_EQ(r.err.find("terminate called"), std::string::npos) << r.err;
  }
}

TEST(SolveCommand, HelpListsEveryOption) {
  const Result r = run_clkr({"solve", "--help"});
  ASSERT_EQ(r.code, 0) << describe(r);
  for (const char* option : {"--solver", "--format", "--precision", "--device", "--tol", "--maxit", "--restart",
                             "--cg-path", "--rhs", "--x0", "--out-x", "--history", "--json", "--verify", "--quiet"}) {
    EXPECT_NE(r.out.find(option), std::string::npos) << option;
  }
  const Result help = run_clkr({"help"});
  ASSERT_EQ(help.code, 0) << describe(help);
  for (const char* command : {"solve", "cg", "info", "convert", "bench", "devices"}) {
    EXPECT_NE(help.out.find(std::string("  ") + command + " "), std::string::npos) << command;
  }
}

TEST(SolveCommand, CgPathPersistentRunsThePersistentKernel) {
  const Result r = run_clkr({"cg", "poisson2d:16", "--format", "csr", "--cg-path", "persistent", "--json"});
  ASSERT_EQ(r.code, 0) << describe(r);
  Json j;
  ASSERT_NO_THROW(j = parse_json(r.out)) << r.out;
  EXPECT_TRUE(j["converged"].boolean) << r.out;
  EXPECT_NE(r.out.find("\"cg_persistent\""), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\"cg_update_xr\""), std::string::npos) << r.out;  // no fallback on PoCL
}

TEST(SolveCommand, JsonHasEveryKeyAndAgreesWithTheLibrary) {
  const Result r = run_clkr({"solve", "poisson2d:16", "--json", "--tol", "1e-10"});
  ASSERT_EQ(r.code, 0) << describe(r);
  Json j;
  ASSERT_NO_THROW(j = parse_json(r.out)) << r.out;
  ASSERT_EQ(j.type, Json::Type::Object);
  for (const char* key :
       {"solver", "format", "precision", "device", "n", "nnz", "converged", "status", "scaling", "iterations",
        "true_relative_residual", "solve_seconds", "seconds_per_iteration", "kernels"}) {
    EXPECT_TRUE(j.has(key)) << key << " missing in " << r.out;
  }
  EXPECT_EQ(j["solver"].text, "cg");
  EXPECT_EQ(j["n"].number, 256);
  EXPECT_EQ(j["nnz"].number, 5 * 256 - 4 * 16);
  EXPECT_EQ(j["converged"].type, Json::Type::Bool);
  EXPECT_TRUE(j["converged"].boolean);
  EXPECT_EQ(j["status"].text, "converged");
  EXPECT_GT(j["solve_seconds"].number, 0);
  EXPECT_NEAR(j["seconds_per_iteration"].number, j["solve_seconds"].number / j["iterations"].number,
              1e-12 + 1e-9 * j["solve_seconds"].number);
  ASSERT_EQ(j["kernels"].type, Json::Type::Array);
  // Every iteration multiplies by A once: in an SpMV kernel of its own, fused with a dot product
  // ("cg_spmv_dot"), or inside the persistent CG kernel ("cg_persistent", where the device parameters
  // choose it: one launch runs many iterations, and its flops count at least an SpMV's 2 nnz for each).
  double spmv_calls = 0;
  for (const Json& k : j["kernels"].items) {
    for (const char* key : {"name", "calls", "seconds", "gflops", "gbytes_per_second"}) {
      EXPECT_TRUE(k.has(key)) << key;
    }
    EXPECT_GE(k["seconds"].number, 0);
    EXPECT_GE(k["calls"].number, 1);
    if (k["name"].text.find("spmv") != std::string::npos) spmv_calls += k["calls"].number;
    if (k["name"].text == "cg_persistent") {
      const double gflop = k["gflops"].number * k["seconds"].number;
      spmv_calls += std::floor(gflop * 1e9 / (2.0 * j["nnz"].number) + 1e-9);
    }
  }
  EXPECT_GE(spmv_calls, j["iterations"].number) << r.out;

  // The same problem through the library in this process: same device, format and precision.
  auto context = clkr::Context::create(j["device_selector"].text);
  clkr::Matrix A(context, clkr::poisson2d(16), clkr::parse_format(j["format"].text));
  clkr::Blas blas(context, clkr::Location::Device, clkr::parse_precision(j["precision"].text));
  clkr::Vector b(context, std::vector<double>(256, 1.0), "b"), x(context, 256, "x");
  clkr::SolveOptions options;
  options.relative_tolerance = 1e-10;
  const clkr::SolveResult expected = clkr::solve(clkr::SolverKind::Cg, blas, A, b, x, options);
  EXPECT_EQ(j["iterations"].number, expected.iterations);
  EXPECT_NEAR(j["true_relative_residual"].number, expected.true_relative_residual,
              1e-3 * expected.true_relative_residual);
  EXPECT_LE(j["true_relative_residual"].number, 1e-10);
}

TEST(SolveCommand, JsonEscapesStrings) {
  // A matrix path with a quote, a backslash and a tab must come back intact through the JSON string.
  const fs::path weird = scratch_dir() / "we\"ird\\na\tme.mtx";
  const Result written = run_clkr({"convert", "poisson2d:4", weird.string()});
  ASSERT_EQ(written.code, 0) << describe(written);
  const Result r = run_clkr({"solve", weird.string(), "--json"});
  ASSERT_EQ(r.code, 0) << describe(r);
  Json j;
  ASSERT_NO_THROW(j = parse_json(r.out)) << r.out;
  EXPECT_EQ(j["matrix"].text, weird.string());
}

TEST(SolveCommand, WritesSolutionAndHistory) {
  const fs::path x_file = scratch_dir() / "x.mtx", history = scratch_dir() / "history.csv";
  const Result r = run_clkr(
      {"solve", "poisson2d:16", "--tol", "1e-10", "--out-x", x_file.string(), "--history", history.string(), "--json"});
  ASSERT_EQ(r.code, 0) << describe(r);
  const Json j = parse_json(r.out);
  const int iterations = static_cast<int>(j["iterations"].number);

  // x solves A x = ones to the tolerance, recomputed here from the file.
  const std::vector<double> x = clkr::read_matrix_market_array(x_file.string());
  const clkr::HostCsrMatrix A = clkr::poisson2d(16);
  ASSERT_EQ(x.size(), 256u);
  long double r2 = 0;
  for (int i = 0; i < A.rows; ++i) {
    long double ax = 0;
    for (int k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) ax += A.values[k] * x[A.col_indices[k]];
    r2 += (1 - ax) * (1 - ax);
  }
  EXPECT_LE(static_cast<double>(std::sqrt(r2 / 256)), 1e-10);

  // iteration,residual,seconds: one row per iteration from 0, residual 1 at the start (x0 = 0),
  // time never decreasing, the last residual at the tolerance.
  std::istringstream lines(read_text(history));
  std::string line;
  std::getline(lines, line);
  EXPECT_EQ(line, "iteration,residual,seconds");
  int expected_iteration = 0;
  double last_seconds = -1, residual = 0;
  while (std::getline(lines, line)) {
    int iteration = -1;
    double seconds = -1;
    ASSERT_EQ(std::sscanf(line.c_str(), "%d,%lf,%lf", &iteration, &residual, &seconds), 3) << line;
    EXPECT_EQ(iteration, expected_iteration++);
    EXPECT_GE(seconds, last_seconds);
    EXPECT_TRUE(std::isfinite(residual) && residual >= 0) << line;
    if (iteration == 0) {
      EXPECT_DOUBLE_EQ(residual, 1.0);
    }
    last_seconds = seconds;
  }
  EXPECT_EQ(expected_iteration, iterations + 1);
  EXPECT_LE(residual, 1e-10);
}

TEST(SolveCommand, InitialGuessAndRightHandSideFiles) {
  // b from a file; the solution written by one run is the --x0 of the next, which then has nothing to do.
  std::string rhs = "%%MatrixMarket matrix array real general\n64 1\n";
  for (int i = 0; i < 64; ++i) rhs += std::to_string(0.25 * (i % 7) - 0.5) + "\n";
  const fs::path b_file = scratch_dir() / "b.mtx", x_file = scratch_dir() / "x_first.mtx";
  write_text(b_file, rhs);
  const Result first = run_clkr(
      {"solve", "poisson2d:8", "--rhs", b_file.string(), "--out-x", x_file.string(), "--tol", "1e-9", "--json"});
  ASSERT_EQ(first.code, 0) << describe(first);
  EXPECT_GT(parse_json(first.out)["iterations"].number, 3);
  const Result second =
      run_clkr({"solve", "poisson2d:8", "--rhs", b_file.string(), "--x0", x_file.string(), "--tol", "1e-9", "--json"});
  ASSERT_EQ(second.code, 0) << describe(second);
  EXPECT_EQ(parse_json(second.out)["iterations"].number, 0);
}

TEST(SolveCommand, AxRightHandSideReportsTheError) {
  const Result r = run_clkr({"solve", "poisson2d:16", "--rhs", "Ax", "--tol", "1e-12", "--json"});
  ASSERT_EQ(r.code, 0) << describe(r);
  const Json j = parse_json(r.out);
  ASSERT_TRUE(j.has("relative_error"));
  // cond(A) of the 16 x 16 Laplacian is ~100: the error follows the residual.
  EXPECT_LE(j["relative_error"].number, 1e-9);
  EXPECT_GT(j["relative_error"].number, 0);
}

TEST(SolveCommand, VerifyComparesWithTheHostReference) {
  const Result r = run_clkr({"solve", "poisson2d:16", "--verify", "--json", "--tol", "1e-10"});
  ASSERT_EQ(r.code, 0) << describe(r);
  const Json j = parse_json(r.out);
  ASSERT_TRUE(j.has("verify")) << r.out;
  const Json& v = j["verify"];
  EXPECT_EQ(v["status"].text, "converged");
  EXPECT_EQ(v["backend"].text, "host");
  // Both solutions are within ~cond(A) * tol of the true one.
  EXPECT_LE(v["max_relative_difference"].number, 1e-7);
  const Result text = run_clkr({"solve", "poisson2d:16", "--verify"});
  ASSERT_EQ(text.code, 0) << describe(text);
  EXPECT_NE(text.out.find("verify      host reference cg in double"), std::string::npos) << text.out;
}

TEST(SolveCommand, MixedPrecisionIsIterativeRefinement) {
  const Result r = run_clkr({"solve", "poisson2d:16", "--precision", "mixed", "--tol", "1e-10", "--json"});
  ASSERT_EQ(r.code, 0) << describe(r);
  const Json j = parse_json(r.out);
  EXPECT_EQ(j["solver"].text, "ir");
  EXPECT_EQ(j["inner_solver"].text, "cg");
  EXPECT_EQ(j["precision"].text, "mixed");
  EXPECT_EQ(j["inner_precision"].text, "single");
  EXPECT_LE(j["true_relative_residual"].number, 1e-10);
  bool inner_kernels = false;
  for (const Json& k : j["kernels"].items) inner_kernels |= k["blas"].text == "inner";
  EXPECT_TRUE(inner_kernels);
}

// --precision mixed with --precond: reliable-update PCG, the preconditioner in single inside; it keeps
// AMG-PCG's few iterations. A preconditioner precision other than single, or --solver pcg (CG with
// its own Jacobi) with --precond, is refused.
TEST(SolveCommand, MixedPrecisionTakesAPreconditionerInside) {
  const Result plain = run_clkr({"solve", "poisson3d:12", "--precision", "mixed", "--tol", "1e-10", "--json"});
  ASSERT_EQ(plain.code, 0) << describe(plain);
  const Result r =
      run_clkr({"solve", "poisson3d:12", "--precision", "mixed", "--precond", "amg", "--tol", "1e-10", "--json"});
  ASSERT_EQ(r.code, 0) << describe(r);
  const Json j = parse_json(r.out);
  EXPECT_EQ(j["solver"].text, "ir");
  EXPECT_EQ(j["precision"].text, "mixed");
  EXPECT_LE(j["true_relative_residual"].number, 1e-10);
  EXPECT_EQ(j["preconditioner"]["kind"].text, "amg");
  EXPECT_EQ(j["preconditioner"]["precision"].text, "single");
  EXPECT_GE(j["preconditioner"]["applications"].number, j["inner_iterations"].number);
  EXPECT_LT(j["inner_iterations"].number, parse_json(plain.out)["inner_iterations"].number / 2);
  const Result half = run_clkr(
      {"solve", "poisson3d:12", "--precision", "mixed", "--precond", "amg", "--precond-precision", "half", "--quiet"});
  EXPECT_EQ(half.code, 0) << describe(half);
  // On a device without fp64 (where it pays) the outer loop is quasi-double.
  setenv("CLKR_HIDE_FP64", "1", 1);
  const Result no_fp64 =
      run_clkr({"solve", "poisson3d:12", "--precision", "mixed", "--precond", "amg", "--tol", "1e-10", "--json"});
  unsetenv("CLKR_HIDE_FP64");
  ASSERT_EQ(no_fp64.code, 0) << describe(no_fp64);
  const Json q = parse_json(no_fp64.out);
  EXPECT_EQ(q["outer_precision"].text, "qdouble");
  EXPECT_LE(q["true_relative_residual"].number, 1e-10);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"solve", "poisson3d:8", "--precision", "mixed", "--precond", "amg",
                                 "--precond-precision", "double"},
        std::vector<std::string>{"solve", "poisson3d:8", "--precision", "mixed", "--solver", "pcg", "--precond",
                                 "amg"}}) {
    const Result refused = run_clkr(args);
    EXPECT_EQ(refused.code, 2) << describe(refused);
  }
}

TEST(SolveCommand, EveryFormatAndSolverConverges) {
  for (const char* format : {"csr", "csr4", "ell", "hyb"}) {
    const Result r = run_clkr({"solve", "poisson2d:12", "--format", format, "--json"});
    ASSERT_EQ(r.code, 0) << format << "\n" << describe(r);
    EXPECT_EQ(parse_json(r.out)["format"].text, format);
  }
  for (const char* solver : {"pcg", "gmres", "bicgstab"}) {
    const Result r = run_clkr({"solve", "poisson2d:12", "--solver", solver, "--restart", "40", "--quiet"});
    EXPECT_EQ(r.code, 0) << solver << "\n" << describe(r);
  }
}

}  // namespace
