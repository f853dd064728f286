// Matrix::from_device_csr: a CSR matrix made from arrays already on the device (as the AMG setup makes
// its products) is the matrix those arrays hold: read back, statistics, diagonal (missing entries,
// rectangular shapes, 0 and 1 rows, a row longer than a work-group), SpMV, new values written on the
// device, conversion to another format; and it reads nothing back until its stats or diagonal are asked for.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "../precision_support.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/data/matrix.hpp"
#include "data_test_support.hpp"

namespace clkr {
namespace {

using test::context;

// rows x cols, up to 6 entries a row, every 5th row empty, row 2 (when there is one) dense, diagonal
// entries in most rows but not all.
HostCsrMatrix sample(std::int32_t rows, std::int32_t cols, unsigned seed) {
  std::mt19937 rng(seed);
  HostCsrMatrix A;
  A.rows = rows;
  A.cols = cols;
  for (std::int32_t i = 0; i < rows; ++i) {
    std::vector<bool> used(static_cast<std::size_t>(cols), false);
    if (i % 5 != 4 && cols > 0) {
      const int count = i == 2 ? cols : static_cast<int>(rng() % 7);
      for (int k = 0; k < count; ++k) used[i == 2 ? k : rng() % cols] = true;
      if (i < cols && i % 3 != 1) used[i] = true;
    }
    for (std::int32_t j = 0; j < cols; ++j)
      if (used[j]) {
        A.col_indices.push_back(j);
        A.values.push_back(static_cast<double>(rng() % 1000) / 64.0 - 7.0);
      }
    A.row_offsets.push_back(static_cast<std::int64_t>(A.col_indices.size()));
  }
  A.validate();
  return A;
}

template <class T>
cl::Buffer upload(const std::vector<T>& v) {
  cl::Buffer b = context()->allocate(std::max<std::size_t>(v.size(), 1) * sizeof(T), "test");
  if (!v.empty()) context()->queue().enqueueWriteBuffer(b, CL_TRUE, 0, v.size() * sizeof(T), v.data());
  return b;
}

// A device computation's row offsets are 32-bit (the host matrix's 64).
std::vector<std::int32_t> narrow_offsets(const HostCsrMatrix& A) {
  return {A.row_offsets.begin(), A.row_offsets.end()};
}

Matrix from_device(const HostCsrMatrix& A, MatrixOptions options = {}) {
  return Matrix::from_device_csr(context(), A.rows, A.cols, A.nnz(), upload(narrow_offsets(A)), upload(A.col_indices),
                                 upload(A.values), options);
}

TEST(MatrixFromDevice, IsTheMatrixItsArraysHold) {
  CLKR_SKIP_UNLESS_AVAILABLE(context(), Precision::Double);
  for (auto [rows, cols] : {std::pair{0, 0}, {1, 1}, {3, 5}, {5, 3}, {1023, 1023}, {1025, 700}}) {
    const HostCsrMatrix host = sample(rows, cols, static_cast<unsigned>(rows + cols));
    Matrix A = from_device(host);
    const std::string what = std::to_string(rows) + " x " + std::to_string(cols);
    const HostCsrMatrix back = A.to_host();
    EXPECT_EQ(back.row_offsets, host.row_offsets) << what;
    EXPECT_EQ(back.col_indices, host.col_indices) << what;
    EXPECT_EQ(back.values, host.values) << what;
    const Matrix uploaded(context(), host);
    EXPECT_EQ(A.diagonal(), uploaded.diagonal()) << what;
    const MatrixStats& s = A.stats();
    const MatrixStats& t = uploaded.stats();
    EXPECT_EQ(s.rows, t.rows);
    EXPECT_EQ(s.cols, t.cols);
    EXPECT_EQ(s.nnz, t.nnz) << what;
    EXPECT_EQ(s.min_row_length, t.min_row_length) << what;
    EXPECT_EQ(s.max_row_length, t.max_row_length) << what;
    EXPECT_EQ(s.empty_rows, t.empty_rows) << what;
    EXPECT_EQ(s.bandwidth, t.bandwidth) << what;
    EXPECT_EQ(s.hyb_ell_width, t.hyb_ell_width) << what;
    EXPECT_EQ(s.mean_row_length, t.mean_row_length) << what;
    EXPECT_TRUE(s.bytes_per_format.empty());
  }
}

// Made from device arrays, a matrix reads nothing back until asked: its stats cost one wait (the
// facts and the row-length histogram in one buffer), its diagonal one more, each once, and new values
// written on the device only mark the diagonal to be gathered again when next asked for.
TEST(MatrixFromDevice, ReadsNothingBackUntilAsked) {
  CLKR_SKIP_UNLESS_AVAILABLE(context(), Precision::Double);
  const HostCsrMatrix host = sample(2000, 2000, 9);
  const Matrix uploaded(context(), host);
  const cl::Buffer offsets = upload(narrow_offsets(host)), cols = upload(host.col_indices);
  const cl::Buffer values = upload(host.values);
  auto since = [start = context()->command_counts()]() mutable {
    const CommandCounts now = context()->command_counts(), delta = now - start;
    start = now;
    return delta;
  };
  Matrix A = Matrix::from_device_csr(context(), host.rows, host.cols, host.nnz(), offsets, cols, values);
  const CommandCounts made = since();
  EXPECT_EQ(made.launches, 0u);
  EXPECT_EQ(made.waits, 0u);
  EXPECT_EQ(made.reads, 0u);
  EXPECT_EQ(made.allocations, 0u);
  EXPECT_EQ(A.nnz(), host.nnz());
  EXPECT_EQ(A.stats().max_row_length, uploaded.stats().max_row_length);
  EXPECT_EQ(A.stats().hyb_ell_width, uploaded.stats().hyb_ell_width);
  EXPECT_EQ(since().waits, 1u);
  EXPECT_EQ(A.diagonal(), uploaded.diagonal());
  const CommandCounts diagonal = since();
  EXPECT_EQ(diagonal.waits, 1u);
  EXPECT_EQ(diagonal.read_bytes, 2000u * sizeof(double));
  EXPECT_EQ(A.diagonal(), uploaded.diagonal());
  A.values_written_on_device();
  EXPECT_EQ(since().reads, 0u);
  EXPECT_EQ(A.diagonal(), uploaded.diagonal());
  EXPECT_EQ(since().waits, 1u);
}

TEST(MatrixFromDevice, MultipliesTakesNewValuesAndConverts) {
  CLKR_SKIP_UNLESS_AVAILABLE(context(), Precision::Double);
  const HostCsrMatrix host = sample(300, 300, 4);
  Matrix A = from_device(host);
  Matrix uploaded(context(), host);
  Blas blas(context(), Location::Device, Precision::Double);
  std::vector<double> xv(300);
  for (std::size_t i = 0; i < xv.size(); ++i) xv[i] = 0.25 * static_cast<double>(i % 17) - 1;
  Vector x(context(), xv), y(context(), 300), z(context(), 300);
  blas.spmv(1.0, A, x, 0.0, y);
  blas.spmv(1.0, uploaded, x, 0.0, z);
  EXPECT_EQ(y.to_host(), z.to_host());
  // Values written on the device (here: the doubles overwritten by a copy of other values).
  HostCsrMatrix doubled = host;
  for (double& v : doubled.values) v *= 2;
  const cl::Buffer values = upload(doubled.values);
  context()->queue().enqueueCopyBuffer(values, A.csr_values(Precision::Double).primary, 0, 0,
                                       doubled.values.size() * sizeof(double));
  A.values_written_on_device();
  EXPECT_EQ(A.diagonal(), Matrix(context(), doubled).diagonal());
  EXPECT_EQ(A.to_host().values, doubled.values);
  A.update_values(host.values);
  A.convert(Format::Hyb);
  EXPECT_EQ(A.to_host().values, host.values);
  // A kept host copy is made at once.
  MatrixOptions keep;
  keep.keep_host_copy = true;
  EXPECT_EQ(from_device(host, keep).host_csr().col_indices, host.col_indices);
}

}  // namespace
}  // namespace clkr
