// true_relative_residual on the device (kernels/solver/residual_norms.cl: each row's residual summed
// error-free in double) against the long double host loop: random x (a residual of order one) and x
// solving the system to the last bits (a residual of 1e-17 under |A| |x| of cond(A) times |b|), x in every
// precision the device holds it in, b as given or only on the device, awkward shapes and 64-bit offsets,
// every format it reads (CSR, CSR4, ELL, HYB; DIA on banded matrices with diagonals at the matrix's
// edges); and that it reads back the partial sums only, never the matrix.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "../precision_support.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/io/matrix_market.hpp"
#include "clkr/solver/solve.hpp"
#include "solver_test_support.hpp"

namespace clkr {
namespace {

// Square n x n matrices with empty rows (every 7th), one long row (row n / 2, every 3rd column) and
// random values, at awkward sizes.
HostCsrMatrix awkward(std::int32_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  HostCsrMatrix A;
  A.rows = A.cols = n;
  for (std::int32_t i = 0; i < n; ++i) {
    if (i % 7 != 6) {
      for (std::int32_t j = 0; j < n; ++j) {
        const bool on = i == n / 2 ? j % 3 == 0 : (j == i || rng() % 97 == 0);
        if (!on) continue;
        A.col_indices.push_back(j);
        A.values.push_back(value(rng));
      }
    }
    A.row_offsets.push_back(static_cast<std::int64_t>(A.col_indices.size()));
  }
  A.validate();
  return A;
}

// ||(|A| |x|)|| / ||b||: what a sum's rounding errors scale with.
double magnitude(const HostCsrMatrix& A, const std::vector<double>& b, const std::vector<double>& x) {
  long double m = 0, bb = 0;
  for (std::int32_t i = 0; i < A.rows; ++i) {
    long double s = std::abs(static_cast<long double>(b[i]));
    for (std::int64_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k)
      s += std::abs(static_cast<long double>(A.values[k]) * x[A.col_indices[k]]);
    m += s * s;
    bb += static_cast<long double>(b[i]) * b[i];
  }
  return static_cast<double>(bb > 0 ? std::sqrt(m / bb) : std::sqrt(m));
}

// The residual the device reports for x held in precision p, against the reference of what it holds:
// within `tolerance` relative, plus the reference's own rounding (long double: 2^-64 per operation, on
// sums of size magnitude()). A plain double sum's errors, 2^11 times larger, would not fit there.
void check(const HostCsrMatrix& H, const std::vector<double>& bv, const std::vector<double>& xv, Precision p, bool wide,
           double tolerance, const std::string& what, Format format = Format::Csr) {
  const auto& context = test::context();
  MatrixOptions options;
  options.wide_offsets = wide;
  options.max_ell_fill_ratio = 1e9;  // the long row's width for every row: ELL's padding tested too
  Matrix A(context, H, format, options);
  Vector b(context, bv, "b"), x(context, xv, "x");
  x.device(p, Access::ReadWrite);                // only the device copy in p is current now
  const std::vector<double> held = x.to_host();  // x as precision p holds it
  const CommandCounts before = context->command_counts();
  const double got = true_relative_residual(A, b, x);
  const CommandCounts after = context->command_counts();
  const double expected = test::relative_residual(H, bv, held);  // long double sums
  const double reference_error = 16 * std::ldexp(magnitude(H, bv, held), -64);
  const std::string label = what + " " + to_string(format) + " " + to_string(p) + (wide ? " wide" : "");
  EXPECT_LE(std::abs(got - expected), tolerance * expected + reference_error)
      << label << ": got " << got << ", reference " << expected;
  // The partial sums come back, not the matrix (12 bytes a nonzero) nor x.
  EXPECT_LT(after.read_bytes - before.read_bytes, 64 * 1024u) << label;
}

// A banded n x n matrix on the diagonals `offsets` (column - row), random values: DIA's layout, with
// slots past the matrix's edges on every diagonal but the main one.
HostCsrMatrix banded(std::int32_t n, std::vector<std::int32_t> offsets, unsigned seed) {
  std::sort(offsets.begin(), offsets.end());
  offsets.erase(std::unique(offsets.begin(), offsets.end()), offsets.end());  // n = 1: all of them 0
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  HostCsrMatrix A;
  A.rows = A.cols = n;
  for (std::int32_t i = 0; i < n; ++i) {
    for (std::int32_t offset : offsets) {  // ascending, so are the columns
      const std::int64_t j = static_cast<std::int64_t>(i) + offset;
      if (j < 0 || j >= n) continue;
      A.col_indices.push_back(static_cast<std::int32_t>(j));
      A.values.push_back(value(rng));
    }
    A.row_offsets.push_back(static_cast<std::int64_t>(A.col_indices.size()));
  }
  A.validate();
  return A;
}

class TrueResidual : public ::testing::TestWithParam<Precision> {};

TEST_P(TrueResidual, MatchesTheLongDoubleLoopOnAwkwardShapes) {
  const Precision p = GetParam();
  if (!test::context()->info().fp64) GTEST_SKIP() << "the device path needs fp64";
  for (std::int32_t n : {1, 3, 255, 257, 1023, 1025}) {
    const HostCsrMatrix H = awkward(n, static_cast<unsigned>(n));
    const std::vector<double> x = test::random_vector(static_cast<std::size_t>(H.cols), 5);
    const std::vector<double> b = test::random_vector(static_cast<std::size_t>(H.rows), 6);
    for (bool wide : {false, true}) check(H, b, x, p, wide, 1e-15, std::to_string(n) + " rows");
    for (Format format : {Format::Csr4, Format::Ell, Format::Hyb})
      check(H, b, x, p, false, 1e-15, std::to_string(n) + " rows", format);
  }
}

TEST_P(TrueResidual, MatchesTheLongDoubleLoopInDia) {
  const Precision p = GetParam();
  if (!test::context()->info().fp64) GTEST_SKIP() << "the device path needs fp64";
  for (std::int32_t n : {1, 3, 255, 257, 1025}) {
    // The outermost diagonals reach the matrix's corners: their slots are all but one past the edges.
    const HostCsrMatrix H = banded(n, {-(n - 1), -1, 0, 2, n - 1}, static_cast<unsigned>(n));
    const std::vector<double> x = test::random_vector(static_cast<std::size_t>(H.cols), 7);
    const std::vector<double> b = test::random_vector(static_cast<std::size_t>(H.rows), 8);
    check(H, b, x, p, false, 1e-15, std::to_string(n) + " rows", Format::Dia);
  }
}

TEST_P(TrueResidual, KeepsAConvergedResidualOfIllConditionedMatrices) {
  const Precision p = GetParam();
  if (!test::context()->info().fp64) GTEST_SKIP() << "the device path needs fp64";
  const std::string path = test::matrix_path("nos3.mtx");
  ASSERT_FALSE(path.empty());
  for (const HostCsrMatrix& H : {read_matrix_market(path), poisson3d(12)}) {
    std::vector<double> x = test::random_vector(static_cast<std::size_t>(H.cols), 9);
    // x as p holds it, so that b = A x is exact for what the device reads: residual about 1e-17 |b|.
    Vector rounded(test::context(), x, "x");
    rounded.device(p, Access::Read);
    if (p != Precision::Double) {
      rounded.device(p, Access::ReadWrite);
      x = rounded.to_host();
    }
    const std::vector<double> b = test::multiply(H, x);  // A x summed in long double, rounded once
    // The residual is b's rounding, about 1e-17 of |b|, under sums of |A| |x| some hundred times |b|: a
    // plain double sum would be off by more than the residual itself.
    check(H, b, x, p, false, 1e-6, "converged x, " + std::to_string(H.rows) + " rows");
    check(H, b, x, p, false, 1e-6, "converged x, " + std::to_string(H.rows) + " rows", Format::Ell);
    if (H.rows == 12 * 12 * 12) check(H, b, x, p, false, 1e-6, "converged x, poisson3d:12", Format::Dia);
  }
}

INSTANTIATE_TEST_SUITE_P(Precisions, TrueResidual,
                         ::testing::Values(Precision::Single, Precision::QuasiDouble, Precision::Double),
                         test::param_name<Precision>);

}  // namespace
}  // namespace clkr
