// The device row sort (segment_sort.cl) and transpose (transpose.cl) against std::sort and the host's
// transpose: segments and columns of every length class (empty, one, short, local sort, heapsort),
// matrices from 0 x 0 to thousands of rows with empty rows and long columns, in every launch shape;
// the transpose's values exactly, and its refresh after new values.
#include "precond/amg/device_transpose.hpp"

#include <gtest/gtest.h>

#include <random>

#include "../precision_support.hpp"
#include "device_setup_test_support.hpp"
#include "precond/amg/sparse_products.hpp"

namespace clkr {
namespace {

TEST(DeviceSegmentSort, SortsEverySegmentLikeStdSort) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::amg_context(), Precision::Double);
  std::mt19937 rng(3);
  for (const test::SetupShape& shape : test::setup_shapes()) {
    const auto kernels = test::setup_kernels(shape);
    const int small = static_cast<int>(kernels.params().short_row);
    const int capacity = static_cast<int>(kernels.params().sort_capacity);
    std::vector<int> lengths = {0, 1, 2, small, small + 1, 3, capacity - 1, capacity, capacity + 1, 0, 5000};
    for (int i = 0; i < 300; ++i) lengths.push_back(static_cast<int>(rng() % 40));
    std::vector<cl_int> offsets{0}, keys;
    for (int length : lengths) {
      for (int k = 0; k < length; ++k) keys.push_back(static_cast<cl_int>(rng() % 100000) - 500);
      offsets.push_back(static_cast<cl_int>(keys.size()));
    }
    const cl::Buffer device_keys = test::device_array(keys);
    detail::amg::sort_segments(kernels, static_cast<std::int32_t>(lengths.size()), test::device_array(offsets),
                               device_keys);
    const std::vector<cl_int> sorted = test::read_array<cl_int>(device_keys, keys.size());
    for (std::size_t s = 0; s + 1 < offsets.size(); ++s)
      std::sort(keys.begin() + offsets[s], keys.begin() + offsets[s + 1]);
    EXPECT_EQ(sorted, keys) << shape.name;
  }
}

void expect_same_matrix(const HostCsrMatrix& got, const HostCsrMatrix& expected, const std::string& what) {
  EXPECT_EQ(got.rows, expected.rows) << what;
  EXPECT_EQ(got.cols, expected.cols) << what;
  EXPECT_EQ(got.row_offsets, expected.row_offsets) << what;
  EXPECT_EQ(got.col_indices, expected.col_indices) << what;
  EXPECT_EQ(got.values, expected.values) << what;
}

TEST(DeviceTranspose, EqualsTheHostTranspose) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::amg_context(), Precision::Double);
  struct Case {
    std::int32_t rows, cols;
    int per_row, long_row;
  };
  const Case cases[] = {{0, 0, 0, 0},     {1, 1, 1, 1},         {3, 5, 3, 4},
                        {200, 70, 6, 60}, {1025, 1023, 9, 700}, {3000, 40, 4, 40}};
  for (const test::SetupShape& shape : test::setup_shapes()) {
    const auto kernels = test::setup_kernels(shape);
    for (const Case& c : cases) {
      const HostCsrMatrix host = test::random_sparse(c.rows, c.cols, c.per_row, 11, c.long_row);
      Matrix A(test::amg_context(), host, Format::Csr);
      Matrix At = detail::amg::transpose(kernels, A);
      const std::string what = shape.name + ", " + std::to_string(c.rows) + " x " + std::to_string(c.cols);
      expect_same_matrix(At.to_host(), detail::amg::transpose(host).matrix, what);
      // New values on the same pattern: the refresh equals a fresh transpose.
      HostCsrMatrix changed = host;
      for (double& v : changed.values) v = 3 * v + 1;
      A.update_values(changed.values);
      detail::amg::transpose_values(kernels, A, At);
      expect_same_matrix(At.to_host(), detail::amg::transpose(changed).matrix, what + " refreshed");
      EXPECT_EQ(At.diagonal(), Matrix(test::amg_context(), detail::amg::transpose(changed).matrix).diagonal()) << what;
    }
  }
}

}  // namespace
}  // namespace clkr
