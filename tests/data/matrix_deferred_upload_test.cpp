// Tests of MatrixOptions::defer_upload: a matrix kept on the host until its first use on the device.
// Until then the host backend computes with it, its updates change the host copy only, and nothing is
// sent to the device. The first device use builds the format from the host copy as it is then. After
// that, the matrix behaves as one uploaded at construction. A format refused for the matrix is refused
// at that first use, as a clkr::Error.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "clkr/blas/blas.hpp"
#include "clkr/data/matrix.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/runtime/error.hpp"
#include "data_test_support.hpp"

namespace clkr {
namespace {

using test::context;

MatrixOptions deferred() {
  MatrixOptions options;
  options.keep_host_copy = true;
  options.defer_upload = true;
  return options;
}

// y = A x on the host in long double.
std::vector<double> deferred_reference_product(const HostCsrMatrix& A, const std::vector<double>& x) {
  std::vector<double> y(A.rows, 0.0);
  for (std::int32_t i = 0; i < A.rows; ++i) {
    long double s = 0;
    for (std::int64_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k)
      s += static_cast<long double>(A.values[k]) * x[A.col_indices[k]];
    y[i] = static_cast<double>(s);
  }
  return y;
}

std::vector<double> deferred_test_x(std::size_t n) {
  std::vector<double> x(n);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.37 * static_cast<double>(i) + 0.1);
  return x;
}

// Values that differ per entry, so that a stale or misplaced value shows in the product.
HostCsrMatrix with_distinct_values(HostCsrMatrix A, double scale) {
  for (std::size_t k = 0; k < A.values.size(); ++k) A.values[k] = scale * (1.0 + 0.001 * static_cast<double>(k % 997));
  return A;
}

// The values as to_host() reads them back from the device: exact with fp64; without it the device
// holds each value as its quasi-double split (float head + float tail), which is what comes back.
std::vector<double> as_held_on_device(std::vector<double> values) {
  if (context()->info().fp64) return values;
  for (double& v : values) {
    const float head = static_cast<float>(v);
    const float tail = static_cast<float>(v - static_cast<double>(head));
    v = static_cast<double>(head) + static_cast<double>(tail);
  }
  return values;
}

void expect_product(Matrix& A, const HostCsrMatrix& reference, Location location, Precision p) {
  Blas blas(context(), location, p);
  const std::vector<double> x = deferred_test_x(static_cast<std::size_t>(reference.cols));
  Vector vx(context(), x, "x"), vy(context(), static_cast<std::size_t>(reference.rows), "y");
  blas.spmv(1.0, A, vx, 0.0, vy);
  const std::vector<double> y = vy.to_host(), expected = deferred_reference_product(reference, x);
  const double tol = p == Precision::Single ? 1e-5 : (p == Precision::QuasiDouble ? 1e-12 : 1e-14);
  ASSERT_EQ(y.size(), expected.size());
  for (std::size_t i = 0; i < y.size(); ++i)
    ASSERT_NEAR(y[i], expected[i], tol * (1 + std::abs(expected[i]))) << to_string(p) << " row " << i;
}

std::vector<Precision> device_precisions() {
  std::vector<Precision> p = {Precision::Single, Precision::QuasiDouble};
  if (context()->info().fp64) p.push_back(Precision::Double);
  return p;
}

// The host backend computes with the host copy; updates reach it; nothing goes to the device until a
// device SpMV, which then sees the latest values in every precision; a later update goes to the device.
TEST(MatrixDeferredUpload, HostUseAndUpdatesStayOnTheHostUntilTheFirstDeviceUse) {
  // Sizes around a work-group (256) and the empty and single-row cases.
  for (const int n : {1, 3, 15, 17, 33}) {
    SCOPED_TRACE("poisson2d:" + std::to_string(n));
    const HostCsrMatrix host = with_distinct_values(poisson2d(n), 1.0);
    Matrix A(context(), host, Format::Csr, deferred());
    EXPECT_FALSE(A.uploaded());
    EXPECT_EQ(A.nnz(), host.nnz());
    EXPECT_EQ(A.to_host().values, host.values);
    EXPECT_EQ(A.host_csr().col_indices, host.col_indices);
    const std::vector<double> diagonal = A.diagonal();
    for (std::int32_t i = 0; i < host.rows; ++i)
      for (std::int64_t k = host.row_offsets[i]; k < host.row_offsets[i + 1]; ++k)
        if (host.col_indices[k] == i) ASSERT_EQ(diagonal[i], host.values[k]) << i;
    expect_product(A, host, Location::Host, Precision::Double);
    EXPECT_FALSE(A.uploaded()) << "the host backend's SpMV built the device format";

    const HostCsrMatrix updated = with_distinct_values(host, -2.5);
    A.update_values(updated.values);
    EXPECT_FALSE(A.uploaded()) << "an update of a deferred matrix uploaded it";
    EXPECT_EQ(A.to_host().values, updated.values);
    expect_product(A, updated, Location::Host, Precision::Double);

    for (Precision p : device_precisions()) expect_product(A, updated, Location::Device, p);
    EXPECT_TRUE(A.uploaded());
    EXPECT_EQ(A.to_host().values, as_held_on_device(updated.values));  // read back from the device now

    const HostCsrMatrix again = with_distinct_values(host, 0.75);
    A.update_values(again.values);
    for (Precision p : device_precisions()) expect_product(A, again, Location::Device, p);
    EXPECT_EQ(A.host_csr().values, again.values);
  }
}

// Another format than CSR: the deferred build and convert() make the layouts (padding included) from
// the host copy as it is at that moment.
TEST(MatrixDeferredUpload, OtherFormatsAndConvertBuildFromTheCurrentHostCopy) {
  const HostCsrMatrix host = with_distinct_values(poisson2d(9), 1.0);
  const Precision p = context()->info().fp64 ? Precision::Double : Precision::QuasiDouble;
  for (Format f : {Format::Csr4, Format::Ell, Format::Hyb, Format::Sell, Format::Dia}) {
    SCOPED_TRACE(to_string(f));
    MatrixOptions options = deferred();
    options.max_ell_fill_ratio = 100;
    Matrix A(context(), host, f, options);
    EXPECT_FALSE(A.uploaded());
    const HostCsrMatrix updated = with_distinct_values(host, 3.0);
    A.update_values(updated.values);
    expect_product(A, updated, Location::Device, p);
    EXPECT_TRUE(A.uploaded());

    Matrix B(context(), host, Format::Csr, options);
    B.update_values(updated.values);
    B.convert(f);
    EXPECT_TRUE(B.uploaded());
    EXPECT_EQ(B.format(), f);
    EXPECT_EQ(B.to_host().values, as_held_on_device(updated.values));
    expect_product(B, updated, Location::Device, p);
  }
}

TEST(MatrixDeferredUpload, WithoutAHostCopyTheOptionIsIgnored) {
  MatrixOptions options;
  options.defer_upload = true;  // keep_host_copy left false: nothing to upload from later
  Matrix A(context(), poisson2d(5), Format::Csr, options);
  EXPECT_TRUE(A.uploaded());
}

// ELL of a matrix with one long row pads past the fill limit: refused when the device format is built.
TEST(MatrixDeferredUpload, ARefusedFormatIsAnErrorAtTheFirstDeviceUse) {
  HostCsrMatrix A;
  A.rows = A.cols = 40;
  for (std::int32_t i = 0; i < A.rows; ++i) {
    for (std::int32_t j = 0; j < A.cols; ++j)
      if (j == i || i == 7) {
        A.col_indices.push_back(j);
        A.values.push_back(j == i ? 2.0 : -0.01);
      }
    A.row_offsets.push_back(static_cast<std::int64_t>(A.col_indices.size()));
  }
  Matrix M(context(), A, Format::Ell, deferred());
  expect_product(M, A, Location::Host, Precision::Double);  // the host backend needs no ELL
  try {
    M.ell_part();
    FAIL() << "ELL was built although its 40 x 40 slots are 20 x the 79 entries";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("ELL"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(M.uploaded());
}

}  // namespace
}  // namespace clkr
