// The device sparse product (spgemm.cl's patterns, galerkin.cl's values) against the host's Gustavson
// product: rows with no products, short rows, rows hashed in local memory and rows too long for it
// (global hash tables), rectangular shapes from 0 x 0 up, in every launch shape (with one, a few or
// up to 32 work-items sharing a row of the values). Patterns must be equal (structural, columns
// ascending), values equal to 1e-14 of the row's sum of |terms| and the same bits whatever the lanes
// per row, and again after new values of A on the kept pattern.
#include "precond/amg/device_spgemm.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "../precision_support.hpp"
#include "device_setup_test_support.hpp"
#include "precond/amg/device_galerkin.hpp"
#include "precond/amg/sparse_products.hpp"

namespace clkr {
namespace {

TEST(DeviceSpgemm, EqualsTheHostProduct) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::amg_context(), Precision::Double);
  struct Case {
    std::int32_t rows, inner, cols;
    int a_per_row, a_long, b_per_row, b_long;
  };
  const Case cases[] = {{0, 0, 0, 0, 0, 0, 0},
                        {1, 1, 1, 1, 1, 1, 1},
                        {3, 4, 2, 3, 4, 2, 2},
                        {300, 200, 150, 5, 150, 4, 100},
                        {1025, 1023, 900, 8, 600, 6, 500},
                        {64, 2000, 3000, 3, 1500, 2, 2500}};
  for (const test::SetupShape& shape : test::setup_shapes()) {
    const auto kernels = test::setup_kernels(shape);
    for (const Case& c : cases) {
      const HostCsrMatrix a = test::random_sparse(c.rows, c.inner, c.a_per_row, 5, c.a_long);
      const HostCsrMatrix b = test::random_sparse(c.inner, c.cols, c.b_per_row, 6, c.b_long);
      Matrix A(test::amg_context(), a, Format::Csr), B(test::amg_context(), b, Format::Csr);
      const std::shared_ptr<Matrix> product = detail::amg::multiply(kernels, A, B);
      const HostCsrMatrix got = product->to_host();
      const HostCsrMatrix expected = detail::amg::multiply(a, b);
      const std::string what =
          shape.name + ", " + std::to_string(c.rows) + " x " + std::to_string(c.inner) + " x " + std::to_string(c.cols);
      ASSERT_EQ(got.row_offsets, expected.row_offsets) << what;
      ASSERT_EQ(got.col_indices, expected.col_indices) << what;
      // The scale of each entry: the sum of |a_ik b_kj| over its terms.
      HostCsrMatrix abs_a = a, abs_b = b;
      for (double& v : abs_a.values) v = std::abs(v);
      for (double& v : abs_b.values) v = std::abs(v);
      const HostCsrMatrix scale = detail::amg::multiply(abs_a, abs_b);
      for (std::size_t k = 0; k < got.values.size(); ++k)
        ASSERT_LE(std::abs(got.values[k] - expected.values[k]), 1e-14 * scale.values[k]) << what << ", entry " << k;
      // The same bits with one work-item per row (CPUs) and with rows shared by up to 32 (GPUs).
      for (const GalerkinParams& lanes : {GalerkinParams{128, 1}, GalerkinParams{128, 32}}) {
        Matrix by_update_kernel(test::amg_context(), got);
        detail::amg::multiply_on_device(A, B, by_update_kernel, lanes);
        by_update_kernel.values_written_on_device();
        EXPECT_EQ(got.values, by_update_kernel.to_host().values) << what << ", up to " << lanes.max_lanes << " lanes";
      }
      // The update step's path: new values of A, C's values recomputed on its pattern.
      HostCsrMatrix changed = a;
      for (double& v : changed.values) v = 0.5 - v;
      A.update_values(changed.values);
      detail::amg::multiply_values(kernels, A, B, *product);
      EXPECT_EQ(product->to_host().values, detail::amg::multiply(kernels, A, B)->to_host().values) << what;
    }
  }
}

}  // namespace
}  // namespace clkr
