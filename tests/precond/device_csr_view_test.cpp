// The CSR copy the device setup makes of a finest operator stored as CSR4, ELL, HYB, SELL or DIA
// (csr_view.cl): the matrix itself, padding dropped, SELL's rows back in their order and DIA's pattern
// from its presence bits, with empty rows, rows longer than a work-group and 0 or 1 rows; and its refresh
// after new values.
#include "precond/amg/device_csr_view.hpp"

#include <gtest/gtest.h>

#include <tuple>

#include "../precision_support.hpp"
#include "device_setup_test_support.hpp"

namespace clkr {
namespace {

TEST(DeviceCsrView, IsTheMatrixInEveryFormat) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::amg_context(), Precision::Double);
  const auto kernels = test::setup_kernels(test::setup_shapes()[0]);
  MatrixOptions options;
  options.max_ell_fill_ratio = 1e9;     // ELL of a matrix with a long row, on purpose
  options.max_dia_diagonals = 1 << 20;  // DIA of a random matrix (thousands of diagonals), on purpose
  for (auto [rows, long_row] : {std::pair{0, 0}, {1, 1}, {3, 2}, {1023, 300}, {1025, 700}}) {
    const HostCsrMatrix host = test::random_sparse(rows, rows, 9, 17, long_row);
    HostCsrMatrix changed = host;
    for (double& v : changed.values) v = 2 * v - 1;
    // SELL twice: slices of 32 in windows of 4096 rows (a GPU's), and of 3 in windows of 8 (slices
    // across window ends, the last slice short).
    for (auto [format, slice, window] : {std::tuple{Format::Csr4, 32, 4096},
                                         {Format::Ell, 32, 4096},
                                         {Format::Hyb, 32, 4096},
                                         {Format::Sell, 32, 4096},
                                         {Format::Sell, 3, 8},
                                         {Format::Dia, 32, 4096}}) {
      options.sell_slice_height = slice;
      options.sell_sort_window = window;
      Matrix A(test::amg_context(), host, format, options);
      const auto copy = detail::amg::csr_copy(kernels, A);
      const std::string what = std::to_string(rows) + " rows, " + to_string(format) + " " + std::to_string(slice) +
                               "/" + std::to_string(window);
      const HostCsrMatrix got = copy->to_host();
      EXPECT_EQ(got.row_offsets, host.row_offsets) << what;
      EXPECT_EQ(got.col_indices, host.col_indices) << what;
      EXPECT_EQ(got.values, host.values) << what;
      A.update_values(changed.values);
      detail::amg::refresh_csr_copy(kernels, A, *copy);
      EXPECT_EQ(copy->to_host().values, changed.values) << what << " refreshed";
    }
  }
}

}  // namespace
}  // namespace clkr
