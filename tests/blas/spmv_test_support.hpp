// Shared by the BLAS tests: the test context (every file), and for the SpMV tests (spmv_*_test.cpp)
// random matrices of awkward shapes (empty rows, a long row, 0-row and 0-nnz matrices, sizes around
// powers of two, rectangular), the long double reference with its per-row error bound, and check_spmv,
// which runs y = alpha*A*x + beta*y on a poisoned y and checks the result, x and A.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "../once_per_process.hpp"
#include "../precision_support.hpp"
#include "clkr/blas/blas.hpp"

namespace clkr::test {

inline const std::shared_ptr<Context>& test_context() {
  static const std::shared_ptr<Context> context = Context::create();
  return context;
}

inline bool can_run(Precision p) { return p != Precision::Double || test_context()->info().fp64; }

// The name of a test parameterised by precision: "single", "qdouble" or "double".
inline std::string precision_name(const testing::TestParamInfo<Precision>& info) { return to_string(info.param); }

// ---- random matrices ------------------------------------------------------------------------------

struct Shape {
  std::string name;
  std::int32_t rows = 0, cols = 0;
  std::int32_t max_row_length = 12;  // lengths uniform in [1, this], capped at cols
  double empty_fraction = 0.15;      // rows left empty
  std::int32_t long_row = 0;         // when > 0, row rows/2 gets this many entries (capped at cols)
  // When > 1, rows come in runs of 1 to this many that share the columns of the run's first row (the
  // unknowns of a mesh node): the host backend reads such runs together (Matrix::host_row_runs).
  std::int32_t shared_pattern_rows = 1;
};

// Values of both signs over a few binades, never zero.
inline double random_value(std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0.5, 1.0);
  std::uniform_int_distribution<int> e(-3, 3), sign(0, 1);
  return std::ldexp(u(rng), e(rng)) * (sign(rng) ? 1 : -1);
}

// n x n: the diagonal, row `dense_row` full and column `dense_col` full (random values): rows of 1 to 3
// entries beside one of n, the extreme of row lengths for the SpMV kernels.
inline HostCsrMatrix dense_row_and_column(std::int32_t n, std::int32_t dense_row, std::int32_t dense_col) {
  std::mt19937 rng(31);
  HostCsrMatrix A;
  A.rows = A.cols = n;
  for (std::int32_t i = 0; i < n; ++i) {
    if (i == dense_row) {
      for (std::int32_t j = 0; j < n; ++j) A.col_indices.push_back(j);
    } else {
      A.col_indices.push_back(std::min(i, dense_col));
      if (i != dense_col) A.col_indices.push_back(std::max(i, dense_col));
    }
    A.row_offsets.push_back(static_cast<std::int64_t>(A.col_indices.size()));
  }
  for (std::size_t k = 0; k < A.col_indices.size(); ++k) A.values.push_back(random_value(rng));
  A.validate();
  return A;
}

inline HostCsrMatrix make_random_matrix(const Shape& s, std::uint32_t seed) {
  std::mt19937 rng(seed);
  HostCsrMatrix A;
  A.rows = s.rows;
  A.cols = s.cols;
  A.row_offsets.assign(1, 0);
  std::vector<std::int32_t> all_cols(static_cast<std::size_t>(s.cols));
  std::iota(all_cols.begin(), all_cols.end(), 0);
  std::uniform_real_distribution<double> coin(0, 1);
  std::uniform_int_distribution<std::int32_t> length(1, std::max(1, std::min(s.max_row_length, s.cols)));
  std::uniform_int_distribution<std::int32_t> run_length(1, std::max(1, s.shared_pattern_rows));
  std::int32_t run_left = 0;
  std::vector<std::int32_t> run_columns;
  for (std::int32_t i = 0; i < s.rows; ++i) {
    if (run_left > 0) {
      --run_left;
      for (std::int32_t c : run_columns) {
        A.col_indices.push_back(c);
        A.values.push_back(random_value(rng));
      }
      A.row_offsets.push_back(static_cast<std::int64_t>(A.col_indices.size()));
      continue;
    }
    std::int32_t n = 0;
    if (s.long_row > 0 && i == s.rows / 2) {
      n = std::min(s.long_row, s.cols);
    } else if (s.cols > 0 && s.max_row_length > 0 && coin(rng) >= s.empty_fraction) {
      n = length(rng);
    }
    std::vector<std::int32_t> picked;
    std::sample(all_cols.begin(), all_cols.end(), std::back_inserter(picked), n, rng);  // sorted
    if (s.shared_pattern_rows > 1) {
      run_left = run_length(rng) - 1;
      run_columns = picked;
    }
    for (std::int32_t c : picked) {
      A.col_indices.push_back(c);
      A.values.push_back(random_value(rng));
    }
    A.row_offsets.push_back(static_cast<std::int64_t>(A.col_indices.size()));
  }
  A.validate();
  return A;
}

// make_random_matrix(s, seed), made once per process (std::sample visits every column for every row). A
// copy is returned, so a caller may change it.
inline HostCsrMatrix random_matrix(const Shape& s, std::uint32_t seed) {
  const auto key =
      std::make_tuple(s.rows, s.cols, s.max_row_length, s.empty_fraction, s.long_row, s.shared_pattern_rows, seed);
  return once_per_process(key, [&] { return make_random_matrix(s, seed); });
}

inline std::vector<double> random_vector(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<double> v(n);
  for (auto& e : v) e = random_value(rng);
  return v;
}

inline const std::vector<Shape>& shapes() {
  static const std::vector<Shape> list = {
      {"0x0", 0, 0},
      {"0x5", 0, 5},
      {"5x0", 5, 0},
      {"7x9_no_entries", 7, 9, 0},
      {"1x1", 1, 1},
      {"3x3", 3, 3},
      {"4x4", 4, 4},
      {"5x5", 5, 5},
      {"255x255", 255, 255},
      {"257x257", 257, 257},
      {"1023x1023", 1023, 1023},
      {"1025x1025", 1025, 1025},
      {"300x1025", 300, 1025},
      {"1025x300", 1025, 300},
      {"long_row_600x3100", 600, 3100, 12, 0.3, 3000},
      {"node_runs_1023x1023", 1023, 1023, 45, 0.05, 0, 5},
  };
  return list;
}

// ---- the long double reference --------------------------------------------------------------------

// A value as the device stores it in precision p.
inline long double stored(double v, Precision p) {
  switch (p) {
    case Precision::Single:
      return static_cast<float>(v);
    case Precision::QuasiDouble: {
      const float head = static_cast<float>(v);
      return static_cast<long double>(head) + static_cast<float>(v - head);
    }
    case Precision::Double:
      break;
  }
  return v;
}

struct Reference {
  std::vector<long double> y;
  std::vector<long double> scale;  // sum_j |alpha a_ij x_j| + |beta y_i|: what rounding errors scale with
  std::vector<std::int32_t> row_length;
};

// alpha*A*x + beta*y0 from the inputs as stored in precision p (so only the arithmetic is measured).
inline Reference reference(const HostCsrMatrix& A, Precision p, double alpha, const std::vector<double>& x, double beta,
                           const std::vector<double>& y0) {
  Reference r;
  const long double a = stored(alpha, p), b = stored(beta, p);
  for (std::int32_t i = 0; i < A.rows; ++i) {
    long double sum = 0, scale = 0;
    for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) {
      const long double term = stored(A.values[k], p) * stored(x[A.col_indices[k]], p);
      sum += term;
      scale += std::fabs(a * term);
    }
    long double y = a * sum;
    if (beta != 0) {
      y += b * stored(y0[i], p);
      scale += std::fabs(b * stored(y0[i], p));
    }
    r.y.push_back(y);
    r.scale.push_back(scale);
    r.row_length.push_back(A.row_offsets[i + 1] - A.row_offsets[i]);
  }
  return r;
}

// Relative to the row's scale: the precision's bound, growing like sqrt(row length) past 10 entries
// (rounding errors of a random sum add up like a random walk).
inline double tolerance(Precision p, std::int32_t row_length) {
  const double base = p == Precision::Single ? 1e-6 : p == Precision::QuasiDouble ? 1e-13 : 1e-14;
  return base * std::max(1.0, std::sqrt(row_length / 10.0));
}

// Every element finite and within tolerance; reports the first few offenders only.
inline void expect_close(const Reference& ref, const std::vector<double>& got, Precision p, const std::string& what) {
  ASSERT_EQ(got.size(), ref.y.size()) << what;
  int reported = 0;
  for (std::size_t i = 0; i < got.size() && reported < 5; ++i) {
    const long double error = std::fabs(static_cast<long double>(got[i]) - ref.y[i]);
    const long double allowed = tolerance(p, ref.row_length[i]) * ref.scale[i];
    if (!std::isfinite(got[i]) || error > allowed) {
      ++reported;
      ADD_FAILURE() << what << ": y[" << i << "] = " << got[i] << ", expected " << static_cast<double>(ref.y[i])
                    << " (error " << static_cast<double>(error) << ", allowed " << static_cast<double>(allowed)
                    << ", row length " << ref.row_length[i] << ")";
    }
  }
}

// The device copy of v in precision p, as doubles (head + tail in quasi-double).
inline std::vector<double> read_device(Vector& v, Precision p) {
  const Vector::DeviceBuffers b = v.device(p, Access::Read);
  auto& queue = v.context()->queue();
  std::vector<double> out(v.size());
  if (v.size() == 0) return out;
  if (p == Precision::Double) {
    queue.enqueueReadBuffer(b.primary, CL_TRUE, 0, v.size() * sizeof(double), out.data());
    return out;
  }
  std::vector<float> head(v.size()), tail(v.size(), 0.0f);
  queue.enqueueReadBuffer(b.primary, CL_TRUE, 0, v.size() * sizeof(float), head.data());
  if (p == Precision::QuasiDouble) queue.enqueueReadBuffer(b.tail, CL_TRUE, 0, v.size() * sizeof(float), tail.data());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(head[i]) + tail[i];
  return out;
}

// `a` read back from the device against what was written, `b`: the pattern exactly, the values bit for
// bit with fp64 and to the quasi-double read-back tolerance without (the device holds 48 bits there).

struct AlphaBeta {
  double alpha, beta;
};
// (1, 0) and (1, 1) build the ALPHA_ONE (and BETA_ZERO) variants, (2.5, -0.5) the general one.
inline const AlphaBeta kAllCases[] = {{1, 0}, {1, 1}, {2.5, -0.5}};
inline const AlphaBeta kTwoCases[] = {{1, 0}, {2.5, -0.5}};

inline MatrixOptions test_matrix_options() {
  MatrixOptions options;
  options.max_ell_fill_ratio = 1e9;     // ELL even for the long-row matrix: padding is what is tested
  options.max_dia_diagonals = 1 << 20;  // DIA of random matrices too (thousands of diagonals)
  return options;
}

// H's values as kernels reading A's values in `storage` (single precision) compute with: H itself for
// Working, or Half values that did not fit binary16's range; else each rounded to binary16 at the scale
// of the part that holds it (HYB: a row's first ell_part().width entries in the ELL part, the rest in
// the CSR overflow part).
inline HostCsrMatrix as_computed(Matrix& A, const HostCsrMatrix& H, ValueStorage storage) {
  if (storage == ValueStorage::Working) return H;
  const bool csr = A.format() == Format::Csr || A.format() == Format::Csr4;
  const Matrix::Values main = csr                          ? A.csr_values(Precision::Single, storage)
                              : A.format() == Format::Sell ? A.sell_values(Precision::Single, storage)
                              : A.format() == Format::Dia  ? A.dia_values(Precision::Single, storage)
                                                           : A.ell_values(Precision::Single, storage);
  const Matrix::Values overflow = A.format() == Format::Hyb ? A.csr_values(Precision::Single, storage) : main;
  const std::int64_t width = A.format() == Format::Hyb ? A.ell_part().width : H.nnz();
  HostCsrMatrix R = H;
  for (std::int32_t i = 0; i < R.rows; ++i)
    for (std::int64_t k = R.row_offsets[i]; k < R.row_offsets[i + 1]; ++k) {
      const Matrix::Values& part = k - R.row_offsets[i] < width ? main : overflow;
      if (part.storage == ValueStorage::Half)
        R.values[k] = round_to_half(static_cast<float>(R.values[k]) / part.unscale) * part.unscale;
    }
  return R;
}

// y = alpha*A*x + beta*y through `run` (a Blas, or the detail functions directly) on a fresh y (NaN
// when beta == 0: every element must be written, and y must not be read), checked against the
// reference (from `computed_with`'s values where given: as_computed's); x's device copy and A must come
// out unchanged.
template <class Run>
void check_spmv(Matrix& A, const HostCsrMatrix& H, Precision p, const AlphaBeta& c, const std::string& what,
                const Run& run, Location location = Location::Device, const HostCsrMatrix* computed_with = nullptr) {
  const auto& context = test_context();
  const std::vector<double> xv = random_vector(static_cast<std::size_t>(H.cols), 11);
  const std::vector<double> y0 = random_vector(static_cast<std::size_t>(H.rows), 12);
  Vector x(context, xv, "x");
  Vector y(context, y0, "y");
  if (c.beta == 0) {
    if (location == Location::Device) {
      y.fill(std::numeric_limits<double>::quiet_NaN(), p);
    } else {
      y.assign(std::vector<double>(y0.size(), std::numeric_limits<double>::quiet_NaN()));
    }
  }
  const std::string label =
      what + " " + to_string(p) + " alpha=" + std::to_string(c.alpha) + " beta=" + std::to_string(c.beta);
  run(c.alpha, A, x, c.beta, y);
  expect_close(reference(computed_with ? *computed_with : H, p, c.alpha, xv, c.beta, y0), y.to_host(), p, label);
  if (location == Location::Device) {
    const std::vector<double> x_after = read_device(x, p);
    for (std::size_t i = 0; i < xv.size(); ++i)
      ASSERT_EQ(static_cast<long double>(x_after[i]), stored(xv[i], p)) << label << ": x[" << i << "] changed";
  } else {
    EXPECT_EQ(x.to_host(), xv) << label << ": x changed";
  }
  test::expect_same_csr(A.to_host(), H, label + ": A changed", test_context().get());
}

}  // namespace clkr::test
