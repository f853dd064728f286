// The SELL-C-sigma SpMV (kernels/spmv/sell.cl) against the long double reference in every precision and
// (alpha, beta) variant, on a poisoned y, for slice heights and sort windows from 1 to a warp and beyond
// the matrix: the awkward shapes of spmv_test_support.hpp, power-law rows of 1 to thousands of entries,
// one dense row and one dense column, and Kahan-compensated single. (spmv_test.cpp runs SELL with the
// default layout through Blas and in the rows-per-work-item launch; sell_format_test.cpp its layout.)
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "../../src/blas/spmv.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/io/generators.hpp"
#include "spmv_test_support.hpp"

namespace clkr {
namespace {

using namespace test;  // spmv_test_support.hpp

struct Layout {
  std::int32_t height, window;
  std::string name() const { return "C=" + std::to_string(height) + " sigma=" + std::to_string(window); }
};
const Layout kLayouts[] = {{1, 1}, {4, 1}, {8, 64}, {32, 4096}, {5, 7}};

MatrixOptions sell_options(const Layout& l) {
  MatrixOptions options = test_matrix_options();  // padding is allowed: it is what is tested
  options.sell_slice_height = l.height;
  options.sell_sort_window = l.window;
  return options;
}

// The GPU launch (work-groups of 32, a row per work-item) and the CPU one (blocks of 7 rows).
SpmvParams launch(std::size_t rows_per_item) {
  SpmvParams params;
  params.work_group_size = 32;
  params.rows_per_work_item = rows_per_item;
  return params;
}

class SpmvSell : public testing::TestWithParam<Precision> {};

TEST_P(SpmvSell, AwkwardShapesInEveryLayout) {
  const Precision p = GetParam();
  if (!can_run(p)) GTEST_SKIP() << "device has no fp64";
  for (std::size_t rows_per_item : {1, 7}) {
    const SpmvParams params = launch(rows_per_item);
    const auto run = [&](double alpha, Matrix& A, Vector& x, double beta, Vector& y) {
      detail::spmv_device(*test_context(), params, p, false, alpha, A, x, beta, y);
    };
    for (const Layout& l : kLayouts) {
      for (std::size_t s = 0; s < shapes().size(); ++s) {
        const HostCsrMatrix H = random_matrix(shapes()[s], 500 + static_cast<std::uint32_t>(s));
        Matrix A(test_context(), H, Format::Sell, sell_options(l));
        const std::string what =
            "sell " + l.name() + " rows/item " + std::to_string(rows_per_item) + " " + shapes()[s].name;
        for (const AlphaBeta& c : kAllCases) check_spmv(A, H, p, c, what, run);
      }
    }
  }
}

TEST_P(SpmvSell, PowerLawRowsAndADenseRowAndColumn) {
  const Precision p = GetParam();
  if (!can_run(p)) GTEST_SKIP() << "device has no fp64";
  PowerLawOptions wide;
  wide.min_row_length = 1;
  wide.max_row_length = 10000;
  wide.exponent = 1.9;
  const HostCsrMatrix powerlaw_rows = powerlaw(20000, wide);
  const HostCsrMatrix arrow = dense_row_and_column(3000, 1500, 2);  // rows of 2, 3 and 3000 entries
  const SpmvParams params = launch(1);
  const auto run = [&](double alpha, Matrix& A, Vector& x, double beta, Vector& y) {
    detail::spmv_device(*test_context(), params, p, false, alpha, A, x, beta, y);
  };
  for (const Layout& l : {Layout{32, 4096}, Layout{8, 1}}) {
    for (const auto& [name, H] : {std::pair<std::string, const HostCsrMatrix&>{"powerlaw 1..10^4", powerlaw_rows},
                                  std::pair<std::string, const HostCsrMatrix&>{"dense row and column", arrow}}) {
      Matrix A(test_context(), H, Format::Sell, sell_options(l));
      for (const AlphaBeta& c : kTwoCases) check_spmv(A, H, p, c, "sell " + l.name() + " " + name, run);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllPrecisions, SpmvSell,
                         testing::Values(Precision::Single, Precision::QuasiDouble, Precision::Double),
                         [](const testing::TestParamInfo<Precision>& info) { return to_string(info.param); });

TEST(SpmvSellKahan, AllVariantsMatchReference) {
  BlasOptions kahan;
  kahan.kahan_spmv = true;
  Blas blas(test_context(), Location::Device, Precision::Single, kahan);
  const auto run = [&](double alpha, Matrix& A, Vector& x, double beta, Vector& y) { blas.spmv(alpha, A, x, beta, y); };
  for (const char* name : {"5x0", "1x1", "1025x300", "long_row_600x3100"}) {
    const auto shape = std::find_if(shapes().begin(), shapes().end(), [&](const Shape& s) { return s.name == name; });
    const HostCsrMatrix H = random_matrix(*shape, 19);
    Matrix A(test_context(), H, Format::Sell, sell_options({4, 16}));
    for (const AlphaBeta& c : kAllCases) check_spmv(A, H, Precision::Single, c, std::string("kahan sell ") + name, run);
  }
}

}  // namespace
}  // namespace clkr
