// SpMV in single precision on binary16 matrix values (ValueStorage::Half: BlasOptions::matrix_values,
// spmv_device's storage): every format and kernel against the long double reference computed from the
// values as rounded to binary16 at the part's scale (as_computed), on the awkward shapes of
// spmv_test_support.hpp with alpha/beta variants and poisoned outputs; the row load groups and Kahan
// sums with them; values whose range does not fit, which must give the single result bit for bit; the
// byte counts; and the precisions that cannot read them. The fused epilogues on binary16 values are in
// spmv_epilogue_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "../../src/blas/spmv.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/runtime/error.hpp"
#include "spmv_test_support.hpp"

namespace clkr {
namespace {

using namespace test;  // spmv_test_support.hpp

constexpr Precision kSingle = Precision::Single;
constexpr ValueStorage kHalf = ValueStorage::Half;

BlasOptions half_values() {
  BlasOptions options;
  options.matrix_values = kHalf;
  return options;
}

class SpmvHalf : public testing::TestWithParam<Format> {};

TEST_P(SpmvHalf, MatchesTheReferenceOnRoundedValues) {
  const Format format = GetParam();
  Blas blas(test_context(), Location::Device, kSingle, half_values());
  const auto run = [&](double alpha, Matrix& A, Vector& x, double beta, Vector& y) { blas.spmv(alpha, A, x, beta, y); };
  for (std::size_t s = 0; s < shapes().size(); ++s) {
    const Shape& shape = shapes()[s];
    // Values over several binades, times a scale away from 1, so that the unscale factor matters.
    HostCsrMatrix H = random_matrix(shape, 500 + static_cast<std::uint32_t>(s));
    for (double& v : H.values) v *= 3.0e5;
    Matrix A(test_context(), H, format, test_matrix_options());
    const HostCsrMatrix R = as_computed(A, H, kHalf);
    for (const AlphaBeta& c : kAllCases)
      check_spmv(A, H, kSingle, c, to_string(format) + " " + shape.name + " half values", run, Location::Device, &R);
  }
}

INSTANTIATE_TEST_SUITE_P(AllFormats, SpmvHalf,
                         testing::Values(Format::Csr, Format::Csr4, Format::Ell, Format::Hyb, Format::Sell,
                                         Format::Dia),
                         [](const testing::TestParamInfo<Format>& info) { return to_string(info.param); });

// The CSR kernels the parameters choose between (scalar with one or four sums, vector, load-balanced by
// work-groups and by work-items) and the row kernels' load groups, each on binary16 values.
TEST(SpmvHalfKernels, EveryCsrKernelAndRowGroup) {
  const double never = std::numeric_limits<double>::infinity();
  struct Kernel {
    std::string name;
    Format format;
    SpmvParams params;
  };
  std::vector<Kernel> kernels;
  for (std::size_t group : {1, 3, 8}) {
    SpmvParams one, four, vector;
    one.csr_vector_min_mean_row_length = four.csr_vector_min_mean_row_length = never;
    one.row_sum_chains = one.row_sum_chains_single = 1;
    four.row_sum_chains = four.row_sum_chains_single = 4;
    vector.csr_vector_min_mean_row_length = 0;
    vector.vector_lanes = 4;
    vector.work_group_size = 64;
    for (SpmvParams* p : {&one, &four, &vector}) p->row_load_group = group;
    const std::string g = " row_load_group=" + std::to_string(group);
    kernels.push_back({"csr one sum" + g, Format::Csr, one});
    kernels.push_back({"csr four sums" + g, Format::Csr, four});
    kernels.push_back({"csr vector" + g, Format::Csr, vector});
    SpmvParams rows = one;
    rows.dia_tile_rows = 0;
    kernels.push_back({"ell" + g, Format::Ell, rows});
    kernels.push_back({"sell" + g, Format::Sell, rows});
    kernels.push_back({"dia" + g, Format::Dia, rows});
  }
  SpmvParams groups, items, tiles;
  groups.csr_balanced_min_row_ratio = items.csr_balanced_min_row_ratio = 0;
  groups.work_group_size = 64;
  items.csr_balanced_blocks = RowBlocking::WorkItem;
  tiles.rows_per_work_item = 7;
  tiles.dia_tile_rows = 4;  // a CPU's tiles of rows
  kernels.push_back({"csr balanced groups", Format::Csr, groups});
  kernels.push_back({"csr balanced items", Format::Csr, items});
  kernels.push_back({"dia tiles", Format::Dia, tiles});
  for (const Kernel& kernel : kernels) {
    for (const char* name : {"1x1", "257x257", "1025x1025", "1025x300", "long_row_600x3100"}) {
      const auto shape = std::find_if(shapes().begin(), shapes().end(), [&](const Shape& s) { return s.name == name; });
      const HostCsrMatrix H = random_matrix(*shape, 29);
      Matrix A(test_context(), H, kernel.format, test_matrix_options());
      const HostCsrMatrix R = as_computed(A, H, kHalf);
      const auto run = [&](double alpha, Matrix& M, Vector& x, double beta, Vector& y) {
        detail::spmv_device(*test_context(), kernel.params, kSingle, false, alpha, M, x, beta, y, nullptr, nullptr,
                            kHalf);
      };
      for (const AlphaBeta& c : kTwoCases)
        check_spmv(A, H, kSingle, c, kernel.name + " " + name, run, Location::Device, &R);
    }
  }
}

// Kahan-compensated row sums of binary16 values: as accurate as the compensation makes single ones.
TEST(SpmvHalfKernels, KahanSums) {
  BlasOptions options = half_values();
  options.kahan_spmv = true;
  Blas blas(test_context(), Location::Device, kSingle, options);
  const auto run = [&](double alpha, Matrix& A, Vector& x, double beta, Vector& y) { blas.spmv(alpha, A, x, beta, y); };
  for (Format format : {Format::Csr, Format::Ell, Format::Sell, Format::Dia}) {
    const HostCsrMatrix H = random_matrix({"long_row_600x3100", 600, 3100, 12, 0.3, 3000}, 31);
    Matrix A(test_context(), H, format, test_matrix_options());
    const HostCsrMatrix R = as_computed(A, H, kHalf);
    check_spmv(A, H, kSingle, {2.5, -0.5}, to_string(format) + " kahan half values", run, Location::Device, &R);
  }
}

// A diagonal entry 2^-32 of the largest value: the binary16 copy is refused, and the SpMV reads the
// single values, so its result is the single one bit for bit.
TEST(SpmvHalfKernels, ValuesOutsideTheRangeGiveTheSingleResult) {
  HostCsrMatrix H = random_matrix({"300x300", 300, 300}, 33);
  // A full diagonal (the rule looks at it), one entry of it far below the others.
  HostCsrMatrix D;
  D.rows = D.cols = H.rows;
  for (std::int32_t i = 0; i < H.rows; ++i) {
    bool diagonal = false;
    for (std::int64_t k = H.row_offsets[i]; k < H.row_offsets[i + 1]; ++k) {
      const std::int32_t j = H.col_indices[k];
      if (!diagonal && j >= i) {
        D.col_indices.push_back(i);
        D.values.push_back(i == 150 ? std::ldexp(1.0, -32) : 4.0);
        diagonal = true;
        if (j == i) continue;
      }
      D.col_indices.push_back(j);
      D.values.push_back(H.values[k]);
    }
    if (!diagonal) {
      D.col_indices.push_back(i);
      D.values.push_back(i == 150 ? std::ldexp(1.0, -32) : 4.0);
    }
    D.row_offsets.push_back(static_cast<std::int64_t>(D.col_indices.size()));
  }
  D.validate();
  for (Format format : {Format::Csr, Format::Dia}) {
    Matrix A(test_context(), D, format, test_matrix_options());
    EXPECT_EQ(A.value_storage(kHalf), ValueStorage::Working) << to_string(format);
    Blas half(test_context(), Location::Device, kSingle, half_values()),
        single(test_context(), Location::Device, kSingle);
    Vector x(test_context(), random_vector(300, 5), "x"), y_half(test_context(), 300, "y"), y(test_context(), 300, "y");
    half.spmv(1.0, A, x, 0.0, y_half);
    single.spmv(1.0, A, x, 0.0, y);
    EXPECT_EQ(read_device(y_half, kSingle), read_device(y, kSingle)) << to_string(format);
  }
}

// The counters count 2 bytes a stored value where the SpMV read binary16 ones.
TEST(SpmvHalfKernels, CountsTwoBytesAValue) {
  const HostCsrMatrix H = random_matrix({"1025x1025", 1025, 1025}, 35);
  for (Format format : {Format::Csr, Format::Ell, Format::Dia}) {
    Matrix A(test_context(), H, format, test_matrix_options());
    Blas half(test_context(), Location::Device, kSingle, half_values()),
        single(test_context(), Location::Device, kSingle);
    Vector x(test_context(), random_vector(1025, 6), "x"), y(test_context(), 1025, "y");
    half.spmv(1.0, A, x, 0.0, y);
    single.spmv(1.0, A, x, 0.0, y);
    const double stored = format == Format::Csr   ? static_cast<double>(A.csr_part().stored)
                          : format == Format::Dia ? static_cast<double>(A.dia_part().inside)
                                                  : static_cast<double>(A.ell_part().width) * H.rows;
    EXPECT_DOUBLE_EQ(single.counters().at("spmv").bytes - half.counters().at("spmv").bytes, 2.0 * stored)
        << to_string(format);
  }
}

// The binary16 copy is made once: a second SpMV is one launch, with no transfer or wait and nothing
// allocated; new values make it again on the next SpMV (a range read and a conversion), then once more
// a launch alone.
TEST(SpmvHalfKernels, TheCopyIsMadeOncePerValues) {
  HostCsrMatrix H = random_matrix({"1025x1025", 1025, 1025}, 39);
  for (Format format : {Format::Csr, Format::Dia}) {
    Matrix A(test_context(), H, format, test_matrix_options());
    Blas half(test_context(), Location::Device, kSingle, half_values());
    Vector x(test_context(), random_vector(1025, 8), "x"), y(test_context(), 1025, "y");
    half.spmv(1.0, A, x, 0.0, y);  // makes the copy (and x's single copy)
    const auto counts_of_one = [&] {
      const CommandCounts before = test_context()->command_counts();
      half.spmv(1.0, A, x, 0.0, y);
      return test_context()->command_counts() - before;
    };
    CommandCounts again = counts_of_one();
    EXPECT_EQ(again.launches, 1u) << to_string(format);
    EXPECT_EQ(again.reads + again.writes + again.waits + again.allocations, 0u) << to_string(format);
    std::vector<double> doubled = H.values;
    for (double& v : doubled) v *= 2;
    A.update_values(doubled);
    const CommandCounts remade = counts_of_one();
    EXPECT_EQ(remade.reads, 1u) << to_string(format);     // the range's partial results
    EXPECT_EQ(remade.launches, 3u) << to_string(format);  // range, conversion, SpMV
    again = counts_of_one();
    EXPECT_EQ(again.launches, 1u) << to_string(format);
    EXPECT_EQ(again.reads + again.waits, 0u) << to_string(format);
  }
}

TEST(SpmvHalfKernels, OnlySinglePrecisionReadsThem) {
  EXPECT_THROW(Blas(test_context(), Location::Device, Precision::QuasiDouble, half_values()), Error);
  if (test_context()->info().fp64)
    EXPECT_THROW(Blas(test_context(), Location::Device, Precision::Double, half_values()), Error);
  const HostCsrMatrix H = random_matrix({"5x5", 5, 5}, 37);
  Matrix A(test_context(), H, Format::Csr);
  Vector x(test_context(), random_vector(5, 7), "x"), y(test_context(), 5, "y");
  EXPECT_THROW(detail::spmv_device(*test_context(), SpmvParams{}, Precision::QuasiDouble, false, 1.0, A, x, 0.0, y,
                                   nullptr, nullptr, kHalf),
               Error);
}

}  // namespace
}  // namespace clkr
