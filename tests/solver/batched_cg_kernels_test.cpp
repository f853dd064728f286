// The batched CG's kernels (kernels/spmv/csr_multi.cl, kernels/solver/batched_cg.cl through
// BatchedCgSteps) against long double host references, in every precision, for k = 1, 2, 3, 8
// interleaved columns, on random matrices of awkward sizes (0, 1, 3, around work-group and power-of-two
// multiples) with empty rows and a long row.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "../../src/solver/batched_cg_steps.hpp"
#include "solver_test_support.hpp"

namespace clkr {
namespace {

bool can_run(Precision p) { return p != Precision::Double || test::context()->info().fp64; }

// The two launch shapes of DeviceParams: the device's own (on PoCL: one contiguous chunk of rows per
// work-item, work-groups of 1), and a GPU's grid-stride walk with work-groups of 64 and two groups per
// compute unit, so the work-group reductions of the partial sums run on a CPU too.
enum class Launch { Default, GridStride };
const Launch kLaunches[] = {Launch::Default, Launch::GridStride};

Blas make_blas(Precision p, Launch launch) {
  BlasOptions options;
  if (launch == Launch::GridStride) {
    DeviceParams params = device_params(test::context()->info());
    params.source = "test:grid_stride";
    params.blas1.variant = Blas1Variant::GridStride;
    params.reduction = {64, 2};
    options.params = params;
  }
  return Blas(test::context(), Location::Device, p, options);
}

std::string launch_name(Launch launch) { return launch == Launch::GridStride ? " grid-stride" : ""; }

// Values of both signs over a few binades, never zero.
double random_value(std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0.5, 1.0);
  std::uniform_int_distribution<int> e(-3, 3), sign(0, 1);
  return std::ldexp(u(rng), e(rng)) * (sign(rng) ? 1 : -1);
}

std::vector<double> random_values(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<double> v(n);
  for (double& e : v) e = random_value(rng);
  return v;
}

struct Shape {
  std::int32_t n;
  std::int32_t long_row;  // > 0: row n/2 gets this many entries
};
// 255/257 and 1023/1025: around the GPU work-group size and the CPU chunking's powers of two.
const Shape kShapes[] = {{0, 0}, {1, 0}, {3, 0}, {255, 0}, {257, 0}, {1023, 0}, {1025, 0}, {600, 590}};
const int kColumns[] = {1, 2, 3, 8};
using test::kPrecisions;

// Square, about 15% of the rows empty, the others 1..12 entries at random columns.
HostCsrMatrix random_matrix(const Shape& s, unsigned seed) {
  std::mt19937 rng(seed);
  HostCsrMatrix A;
  A.rows = A.cols = s.n;
  A.row_offsets.assign(1, 0);
  std::vector<std::int32_t> all(static_cast<std::size_t>(s.n));
  std::iota(all.begin(), all.end(), 0);
  std::uniform_real_distribution<double> coin(0, 1);
  std::uniform_int_distribution<std::int32_t> length(1, std::max(1, std::min(12, s.n)));
  for (std::int32_t i = 0; i < s.n; ++i) {
    std::int32_t count = 0;
    if (s.long_row > 0 && i == s.n / 2) {
      count = std::min(s.long_row, s.n);
    } else if (coin(rng) >= 0.15) {
      count = length(rng);
    }
    std::vector<std::int32_t> picked;
    std::sample(all.begin(), all.end(), std::back_inserter(picked), count, rng);
    for (std::int32_t c : picked) {
      A.col_indices.push_back(c);
      A.values.push_back(random_value(rng));
    }
    A.row_offsets.push_back(static_cast<std::int64_t>(A.col_indices.size()));
  }
  A.validate();
  return A;
}

// A value as the device stores it in precision p.
long double stored(double v, Precision p) {
  if (p == Precision::Single) return static_cast<float>(v);
  if (p == Precision::QuasiDouble) {
    const float head = static_cast<float>(v);
    return static_cast<long double>(head) + static_cast<float>(v - head);
  }
  return v;
}

// The precision's relative bound for a sum of `terms` rounded terms, growing like sqrt(terms) past 10
// (rounding errors of a random sum add up like a random walk), as tests/blas/spmv_test.cpp's.
double tolerance(Precision p, std::size_t terms) {
  const double base = p == Precision::Single ? 1e-6 : p == Precision::QuasiDouble ? 1e-13 : 1e-14;
  return base * std::max(1.0, std::sqrt(static_cast<double>(terms) / 10.0));
}

// |got - want| <= allowed, reporting the first few offenders of `what`.
void expect_near_each(const std::vector<double>& got, const std::vector<long double>& want,
                      const std::vector<long double>& allowed, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int reported = 0;
  for (std::size_t e = 0; e < got.size() && reported < 5; ++e) {
    const long double error = std::fabs(static_cast<long double>(got[e]) - want[e]);
    if (!std::isfinite(got[e]) || error > allowed[e]) {
      ++reported;
      ADD_FAILURE() << what << "[" << e << "] = " << got[e] << ", expected " << static_cast<double>(want[e])
                    << " (error " << static_cast<double>(error) << ", allowed " << static_cast<double>(allowed[e])
                    << ")";
    }
  }
}

// Y = A X for k interleaved columns, each element within the row's rounding bound.
TEST(BatchedCgKernels, SpmmMatchesLongDoubleReference) {
  for (Precision p : kPrecisions) {
    if (!can_run(p)) continue;
    for (Launch launch : kLaunches) {
      Blas blas = make_blas(p, launch);
      for (const Shape& shape : kShapes) {
        const HostCsrMatrix H = random_matrix(shape, 17 + shape.n);
        Matrix A(test::context(), H, Format::Csr);
        for (int k : kColumns) {
          const std::string what =
              to_string(p) + launch_name(launch) + " n=" + std::to_string(shape.n) + " k=" + std::to_string(k) + " Y";
          const auto n = static_cast<std::size_t>(shape.n);
          const std::vector<double> xv = random_values(n * k, 5 + k);
          Vector X(test::context(), xv, "X"), Y(test::context(), n * k, "Y");
          // NaN in Y: every element must be written, and Y never read.
          Y.fill(std::numeric_limits<double>::quiet_NaN(), p);
          detail::BatchedCgSteps steps(blas, A, k, nullptr);
          steps.spmm(X, Y);
          std::vector<long double> want(n * k), allowed(n * k);
          for (std::size_t i = 0; i < n; ++i) {
            const std::int32_t begin = H.row_offsets[i], end = H.row_offsets[i + 1];
            for (int j = 0; j < k; ++j) {
              long double sum = 0, scale = 0;
              for (std::int32_t e = begin; e < end; ++e) {
                const long double term = stored(H.values[e], p) * stored(xv[H.col_indices[e] * k + j], p);
                sum += term;
                scale += std::fabs(term);
              }
              want[i * k + j] = sum;
              allowed[i * k + j] = tolerance(p, static_cast<std::size_t>(end - begin)) * scale;
            }
          }
          expect_near_each(Y.to_host(), want, allowed, what);
          EXPECT_EQ(X.to_host().size(), n * k) << what;
        }
      }
    }
  }
}

// A symmetric, strictly diagonally dominant (SPD) version of a random shape: H + H' off the diagonal,
// a_ii = 1 + the row's absolute sum; rows of H that were empty keep only their diagonal entry.
HostCsrMatrix make_spd_matrix(const Shape& s, unsigned seed) {
  const HostCsrMatrix H = random_matrix(s, seed);
  std::vector<std::map<std::int32_t, double>> rows(static_cast<std::size_t>(s.n));
  for (std::int32_t i = 0; i < s.n; ++i)
    for (std::int32_t e = H.row_offsets[i]; e < H.row_offsets[i + 1]; ++e) {
      const std::int32_t c = H.col_indices[e];
      if (c == i) continue;
      rows[i][c] += H.values[e];
      rows[c][i] += H.values[e];
    }
  HostCsrMatrix A;
  A.rows = A.cols = s.n;
  A.row_offsets.assign(1, 0);
  for (std::int32_t i = 0; i < s.n; ++i) {
    double sum = 1;
    for (const auto& entry : rows[i]) sum += std::fabs(entry.second);
    rows[i][i] = sum;
    for (const auto& [c, v] : rows[i]) {
      A.col_indices.push_back(c);
      A.values.push_back(v);
    }
    A.row_offsets.push_back(static_cast<std::int64_t>(A.col_indices.size()));
  }
  A.validate();
  return A;
}

// make_spd_matrix(s, seed), made once per process: StepsMatchHostReference asks for each shape's
// matrix once per precision, launch, column count and Jacobi flag (384 times for 8 matrices).
const HostCsrMatrix& spd_matrix(const Shape& s, unsigned seed) {
  return test::once_per_process(std::make_tuple(s.n, s.long_row, seed), [&] { return make_spd_matrix(s, seed); });
}

// One batched iteration's three steps against the host: Q = A P and p'q; alpha_j = rho_j / p'q (the
// device's p'q, so the elementwise arithmetic is measured on its own); X += alpha P, R -= alpha Q
// (Jacobi: Z = D^-1 R); r'r (r'z) and beta; P = R (Z) + beta P. Column 1 is frozen (everything must
// stay bit for bit, rho carried over); column 2 has P = 0, so p'q = 0 and it must not step.
void check_steps(Precision p, Launch launch, const Shape& shape, int k, bool jacobi) {
  const std::string what = to_string(p) + launch_name(launch) + " n=" + std::to_string(shape.n) +
                           " k=" + std::to_string(k) + (jacobi ? " jacobi" : "");
  SCOPED_TRACE(what);
  const HostCsrMatrix H = spd_matrix(shape, 31 + shape.n);
  const auto n = static_cast<std::size_t>(shape.n);
  Matrix A(test::context(), H, Format::Csr);
  Blas blas = make_blas(p, launch);
  std::vector<double> inv(n);
  const std::vector<double> diagonal = A.diagonal();
  for (std::size_t i = 0; i < n; ++i) inv[i] = 1.0 / diagonal[i];
  Vector inv_diag(test::context(), inv, "inv_diag");
  detail::BatchedCgSteps steps(blas, A, k, jacobi ? &inv_diag : nullptr);

  std::vector<double> pv = random_values(n * k, 1), xv = random_values(n * k, 2), rv = random_values(n * k, 3);
  if (k > 2)
    for (std::size_t i = 0; i < n; ++i) pv[i * k + 2] = 0;
  std::vector<double> rho(k);
  for (int j = 0; j < k; ++j) rho[j] = 0.5 + 0.25 * j;
  std::vector<int> active(k, 1);
  if (k > 1) active[1] = 0;
  Vector P(test::context(), pv, "P"), X(test::context(), xv, "X"), R(test::context(), rv, "R");
  Vector Q(test::context(), n * k, "Q"), Z(test::context(), n * k, "Z");
  steps.set_rho(rho);
  steps.set_active(active);

  steps.spmm_dot(P, Q);
  const std::vector<double> q = Q.to_host();
  steps.update_xr(X, R, P, Q, jacobi ? &Z : nullptr);
  const std::vector<double> x1 = X.to_host(), r1 = R.to_host(), z1 = jacobi ? Z.to_host() : r1;
  steps.update_p(jacobi ? Z : R, P);
  const std::vector<double> p1 = P.to_host();
  steps.read_scalars(1);
  const std::vector<detail::FusedCgSteps::Scalars> s = steps.wait_scalars(1);
  ASSERT_EQ(s.size(), static_cast<std::size_t>(k));

  const double u = tolerance(p, 1);
  for (int j = 0; j < k; ++j) {
    SCOPED_TRACE("column " + std::to_string(j));
    // p'q from the device's Q (Q itself is the SpMM, tested above).
    long double pq = 0, pq_scale = 0;
    for (std::size_t i = 0; i < n; ++i) {
      pq += stored(pv[i * k + j], p) * static_cast<long double>(q[i * k + j]);
      pq_scale += std::fabs(stored(pv[i * k + j], p) * static_cast<long double>(q[i * k + j]));
    }
    EXPECT_LE(std::fabs(s[j].pq - pq), tolerance(p, n) * pq_scale + std::numeric_limits<double>::min());
    const bool steps_here = active[j] && s[j].pq > 0;
    if (j == 2) EXPECT_FALSE(steps_here) << "p = 0 gives p'q = 0: no step";
    const long double alpha = steps_here ? stored(rho[j], p) / static_cast<long double>(s[j].pq) : 0;
    long double rr = 0, rz = 0, rr_scale = 0, rz_scale = 0;
    std::vector<long double> want(n), allowed(n);
    std::vector<double> got(n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t e = i * k + j;
      const long double pe = stored(pv[e], p), xe = stored(xv[e], p), re = stored(rv[e], p);
      if (!steps_here) {
        EXPECT_EQ(static_cast<long double>(x1[e]), xe) << "x[" << i << "] of a column that does not step";
        EXPECT_EQ(static_cast<long double>(r1[e]), re) << "r[" << i << "] of a column that does not step";
      }
      const long double xw = xe + alpha * pe, rw = re - alpha * q[e];
      if (std::fabs(x1[e] - xw) > 4 * u * (std::fabs(xe) + std::fabs(alpha * pe)))
        ADD_FAILURE() << "x[" << i << "] = " << x1[e] << ", expected " << static_cast<double>(xw);
      if (std::fabs(r1[e] - rw) > 4 * u * (std::fabs(re) + std::fabs(alpha * q[e])))
        ADD_FAILURE() << "r[" << i << "] = " << r1[e] << ", expected " << static_cast<double>(rw);
      if (jacobi) {
        const long double zw = stored(inv[i], p) * static_cast<long double>(r1[e]);
        if (std::fabs(z1[e] - zw) > 2 * u * std::fabs(zw))
          ADD_FAILURE() << "z[" << i << "] = " << z1[e] << ", expected " << static_cast<double>(zw);
      }
      rr += static_cast<long double>(r1[e]) * r1[e];
      rz += static_cast<long double>(r1[e]) * z1[e];
      rz_scale += std::fabs(static_cast<long double>(r1[e]) * z1[e]);
      rr_scale += static_cast<long double>(r1[e]) * r1[e];
    }
    EXPECT_LE(std::fabs(s[j].rr - rr), tolerance(p, n) * rr_scale + std::numeric_limits<double>::min());
    const long double rho_new = jacobi ? rz : rr;
    if (!active[j]) {
      EXPECT_EQ(static_cast<long double>(s[j].rho), stored(rho[j], p)) << "rho of a frozen column";
    } else {
      EXPECT_LE(std::fabs(s[j].rho - rho_new),
                tolerance(p, n) * (jacobi ? rz_scale : rr_scale) + std::numeric_limits<double>::min());
    }
    const long double beta = static_cast<long double>(s[j].rho) / stored(rho[j], p);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t e = i * k + j;
      const long double pe = stored(pv[e], p);
      if (!active[j]) {
        EXPECT_EQ(static_cast<long double>(p1[e]), pe) << "p[" << i << "] of a frozen column";
        continue;
      }
      const long double pw = z1[e] + beta * pe;
      if (std::fabs(p1[e] - pw) > 4 * u * (std::fabs(z1[e]) + std::fabs(beta * pe)))
        ADD_FAILURE() << "p[" << i << "] = " << p1[e] << ", expected " << static_cast<double>(pw);
    }
  }
}

TEST(BatchedCgKernels, StepsMatchHostReference) {
  for (Precision p : kPrecisions) {
    if (!can_run(p)) continue;
    for (Launch launch : kLaunches)
      for (const Shape& shape : kShapes)
        for (int k : kColumns) {
          check_steps(p, launch, shape, k, false);
          check_steps(p, launch, shape, k, true);
        }
  }
}

// Packing: a vector into column j of a block and back, exactly, leaving the other columns alone.
TEST(BatchedCgKernels, ColumnsPackAndUnpackExactly) {
  for (Precision p : kPrecisions) {
    if (!can_run(p)) continue;
    Blas blas(test::context(), Location::Device, p);
    for (const Shape& shape : kShapes) {
      Matrix A(test::context(), random_matrix(shape, 3), Format::Csr);
      const auto n = static_cast<std::size_t>(shape.n);
      for (int k : kColumns) {
        detail::BatchedCgSteps steps(blas, A, k, nullptr);
        const std::vector<double> blockv = random_values(n * k, 9), vv = random_values(n, 10);
        Vector block(test::context(), blockv, "block"), v(test::context(), vv, "v"), back(test::context(), n, "back");
        const int j = k - 1;
        steps.set_column(v, j, block);
        steps.get_column(block, j, back);
        const std::vector<double> b = block.to_host(), got = back.to_host();
        for (std::size_t i = 0; i < n; ++i) {
          EXPECT_EQ(static_cast<long double>(got[i]), stored(vv[i], p)) << "row " << i;
          for (int c = 0; c < k; ++c) {
            const long double want = c == j ? stored(vv[i], p) : stored(blockv[i * k + c], p);
            EXPECT_EQ(static_cast<long double>(b[i * k + c]), want) << "row " << i << " column " << c;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace clkr
