// Matrix values in half precision (ValueStorage::Half, src/data/half_values.cpp): the scale rule at its
// boundaries, the binary16 copy of every format's parts bit for bit against the host's rounding of the
// single values, the values whose range does not fit (single ones given instead), the copy remade with a
// new scale after new values, the floor of a diagonal written on the device found there (no diagonal
// read back), and the refusals.
#include "../../src/data/half_values.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "../precision_support.hpp"
#include "clkr/data/matrix.hpp"
#include "clkr/runtime/error.hpp"
#include "data_test_support.hpp"

namespace clkr {
namespace {

using detail::half_scale;
using detail::HalfScale;
using test::context;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

TEST(HalfScale, PutsTheLargestValueInTheBinadeBelow2To15) {
  for (const float largest : {1.0f, 0.75f, 3.0f, 65504.0f, 1e-30f, 1e30f, 6.0e4f, 32767.0f}) {
    const HalfScale s = half_scale(largest, largest);
    ASSERT_TRUE(s.fits) << largest;
    const double scaled = std::ldexp(static_cast<double>(largest), s.exponent);
    EXPECT_GE(scaled, 16384.0) << largest;
    EXPECT_LT(scaled, 32768.0) << largest;
  }
}

TEST(HalfScale, FitsWhileTheFloorStaysNormal) {
  // largest 1: exponent 14, so the floor must be at least 2^-14 / 2^14 = 2^-28.
  EXPECT_EQ(half_scale(1.0f, 1.0f).exponent, 14);
  EXPECT_TRUE(half_scale(1.0f, std::ldexp(1.0f, -28)).fits);
  EXPECT_FALSE(half_scale(1.0f, std::nextafter(std::ldexp(1.0f, -28), 0.0f)).fits);
  EXPECT_FALSE(half_scale(1.0f, std::ldexp(1.0f, -40)).fits);
  EXPECT_TRUE(half_scale(1.0f, kInf).fits);  // no nonzero value below the largest
}

TEST(HalfScale, DegenerateRanges) {
  const HalfScale zero = half_scale(0.0f, kInf);
  EXPECT_TRUE(zero.fits);
  EXPECT_EQ(zero.exponent, 0);
  EXPECT_FALSE(half_scale(kInf, 1.0f).fits);
  EXPECT_FALSE(half_scale(1.0f, kNaN).fits);
  // Float's largest values scale down to 2^14 by a normal 2^-113; a largest value below 2^-110 would
  // need a scale 2^exponent (exponent > 125) whose inverse is no normal float.
  EXPECT_TRUE(half_scale(std::numeric_limits<float>::max(), std::numeric_limits<float>::max()).fits);
  EXPECT_TRUE(half_scale(std::ldexp(1.0f, -110), std::ldexp(1.0f, -110)).fits);
  EXPECT_FALSE(half_scale(std::ldexp(1.0f, -120), std::ldexp(1.0f, -120)).fits);
}

// A square matrix with a full diagonal (diagonal `diagonal`, off-diagonal entries of both signs over a
// few binades times `scale`), an empty-ish row and a long row, so that CSR4, ELL, HYB, SELL and DIA pad.
HostCsrMatrix random_square(std::int32_t n, double scale, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.5, 1.0);
  std::uniform_int_distribution<int> e(-6, 6), coin(0, 5);
  HostCsrMatrix A;
  A.rows = A.cols = n;
  for (std::int32_t i = 0; i < n; ++i) {
    for (std::int32_t j = 0; j < n; ++j) {
      const bool entry = j == i || (i == n / 2 && j % 2 == 0) || (i % 5 != 3 && std::abs(i - j) < 4 && coin(rng) == 0);
      if (!entry) continue;
      A.col_indices.push_back(j);
      const double v = j == i ? 8.0 : std::ldexp(u(rng), e(rng)) * (coin(rng) % 2 ? 1 : -1);
      A.values.push_back(v * scale);
    }
    A.row_offsets.push_back(static_cast<std::int64_t>(A.col_indices.size()));
  }
  A.validate();
  return A;
}

// The position of row i's diagonal entry among A's values.
std::size_t diagonal_entry(const HostCsrMatrix& A, std::int32_t i) {
  for (std::int64_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k)
    if (A.col_indices[k] == i) return static_cast<std::size_t>(k);
  throw Error("row " + std::to_string(i) + " has no diagonal entry");
}

// The value parts of A's format: its CSR part (CSR, CSR4, HYB's overflow) and its column-major one
// (ELL, HYB's regular part, SELL, DIA).
std::vector<bool> csr_parts(const Matrix& A) {
  switch (A.format()) {
    case Format::Csr:
    case Format::Csr4:
      return {true};
    case Format::Hyb:
      return {false, true};
    default:
      return {false};
  }
}

// A part's values in single precision and storage s.
Matrix::Values part_values(Matrix& A, bool csr_part, ValueStorage s) {
  if (csr_part) return A.csr_values(Precision::Single, s);
  if (A.format() == Format::Sell) return A.sell_values(Precision::Single, s);
  if (A.format() == Format::Dia) return A.dia_values(Precision::Single, s);
  return A.ell_values(Precision::Single, s);
}

// The stored slots of a part, as the kernels index them.
std::size_t stored_slots(const Matrix& A, bool csr_part) {
  if (csr_part) return static_cast<std::size_t>(A.csr_part().stored);
  switch (A.format()) {
    case Format::Sell:
      return static_cast<std::size_t>(A.sell_part().stored);
    case Format::Dia:
      return static_cast<std::size_t>(A.dia_part().diagonals) * static_cast<std::size_t>(A.dia_part().pitch);
    default:
      return static_cast<std::size_t>(A.ell_part().width) * static_cast<std::size_t>(A.ell_part().pitch);
  }
}

// The largest |value| of a part's single copy (0 for a part holding no entry, as HYB's regular part
// may).
float largest_value(Matrix& A, bool csr_part) {
  float largest = 0;
  for (float v : test::read<float>(part_values(A, csr_part, ValueStorage::Working).primary, stored_slots(A, csr_part)))
    largest = std::max(largest, std::fabs(v));
  return largest;
}

// Every slot of the binary16 copy is the host's rounding of the single copy's slot scaled by 1/unscale;
// the scale follows half_scale's rule for the part's largest value.
void expect_half_copy(Matrix& A, bool csr_part, const std::string& what) {
  const Matrix::Values half = part_values(A, csr_part, ValueStorage::Half);
  ASSERT_EQ(half.storage, ValueStorage::Half) << what;
  const std::size_t n = stored_slots(A, csr_part);
  const std::vector<float> single = test::read<float>(part_values(A, csr_part, ValueStorage::Working).primary, n);
  const std::vector<std::uint16_t> bits = test::read<std::uint16_t>(half.primary, n);
  const float largest = largest_value(A, csr_part);
  EXPECT_EQ(half.unscale, std::ldexp(1.0f, -half_scale(largest, largest).exponent)) << what;
  for (std::size_t k = 0; k < n; ++k)
    ASSERT_EQ(test::half_value(bits[k]), test::round_to_half(single[k] / half.unscale)) << what << ", slot " << k;
}

class MatrixHalfValues : public testing::TestWithParam<Format> {};

TEST_P(MatrixHalfValues, EveryPartRoundedBitForBit) {
  const Format format = GetParam();
  MatrixOptions options;
  options.max_ell_fill_ratio = 100;
  for (const double scale : {1.0, 1e-7, 3e5}) {
    const HostCsrMatrix host = random_square(97, scale, 3);
    Matrix A(context(), host, format, options);
    const std::string what = to_string(format) + " scale " + std::to_string(scale);
    for (const bool csr_part : csr_parts(A)) expect_half_copy(A, csr_part, what + (csr_part ? " (CSR part)" : ""));
    EXPECT_EQ(A.value_storage(ValueStorage::Half), ValueStorage::Half) << what;
  }
}

// New values with another range: the next ask remakes each part's copy with the new scale; then a
// diagonal entry 2^-40 of the largest (2^-43 of the largest value) puts the range out of binary16's,
// and the single values serve (in every part holding entries).
TEST_P(MatrixHalfValues, NewValuesRemakeTheCopyWithTheirScale) {
  const Format format = GetParam();
  MatrixOptions options;
  options.max_ell_fill_ratio = 100;
  HostCsrMatrix host = random_square(61, 1.0, 4);
  Matrix A(context(), host, format, options);
  std::vector<float> before;
  for (const bool csr_part : csr_parts(A)) before.push_back(part_values(A, csr_part, ValueStorage::Half).unscale);
  for (double& v : host.values) v *= 0x1p20;
  A.update_values(host.values);
  for (std::size_t i = 0; i < csr_parts(A).size(); ++i) {
    const bool csr_part = csr_parts(A)[i];
    const std::string what = to_string(format) + (csr_part ? " (CSR part)" : "") + " after the update";
    if (largest_value(A, csr_part) == 0) continue;  // no entry there: scale 1 whatever the values
    EXPECT_EQ(part_values(A, csr_part, ValueStorage::Half).unscale, before[i] * 0x1p20f) << what;
    expect_half_copy(A, csr_part, what);
  }
  // New values once more: the copies are remade in the buffers they had.
  A.update_values(host.values);
  const CommandCounts before_remake = context()->command_counts();
  for (const bool csr_part : csr_parts(A)) part_values(A, csr_part, ValueStorage::Half);
  const CommandCounts remade = context()->command_counts() - before_remake;
  EXPECT_EQ(remade.allocations, 0u) << to_string(format);
  EXPECT_GT(remade.launches, 0u) << to_string(format);  // it was remade
  host.values[diagonal_entry(host, 5)] = 8.0 * 0x1p-20;
  A.update_values(host.values);
  for (const bool csr_part : csr_parts(A))
    if (largest_value(A, csr_part) > 0)
      EXPECT_EQ(part_values(A, csr_part, ValueStorage::Half).storage, ValueStorage::Working)
          << to_string(format) << (csr_part ? " (CSR part)" : "");
}

INSTANTIATE_TEST_SUITE_P(AllFormats, MatrixHalfValues,
                         testing::Values(Format::Csr, Format::Csr4, Format::Ell, Format::Hyb, Format::Sell,
                                         Format::Dia),
                         [](const testing::TestParamInfo<Format>& info) { return to_string(info.param); });

TEST(MatrixHalfValuesRange, ADiagonalBelowTheRangeKeepsSingleValues) {
  HostCsrMatrix host = random_square(40, 1.0, 5);
  host.values[diagonal_entry(host, 7)] = 8.0 * std::ldexp(1.0, -32);
  Matrix A(context(), host, Format::Csr);
  const Matrix::Values v = A.csr_values(Precision::Single, ValueStorage::Half);
  EXPECT_EQ(v.storage, ValueStorage::Working);
  EXPECT_EQ(v.primary(), A.csr_values(Precision::Single).primary());  // the single copy itself
}

// A matrix whose values are on the device only (made there, or written there since): the floor of the
// binary16 range is its smallest diagonal entry, reduced on the device; reading the diagonal back would
// move 8 bytes a row, which the reads here stay far below. A tiny diagonal entry written on the device
// keeps the single values; so does a missing one beside tiny off-diagonal entries (the floor is then the
// smallest nonzero value), which a full diagonal lets into the copy.
TEST(MatrixHalfValuesRange, ADiagonalOnTheDeviceIsReducedThere) {
  CLKR_SKIP_UNLESS_AVAILABLE(context(), Precision::Double);
  HostCsrMatrix host = random_square(3000, 1.0, 8);
  for (std::int32_t i = 0; i < host.rows; ++i)
    for (std::int64_t k = host.row_offsets[i]; k < host.row_offsets[i + 1]; ++k)
      if (host.col_indices[k] != i) host.values[static_cast<std::size_t>(k)] *= 0x1p-40;
  auto upload = [](const auto& v) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    cl::Buffer b = context()->allocate(v.size() * sizeof(T), "test");
    context()->queue().enqueueWriteBuffer(b, CL_TRUE, 0, v.size() * sizeof(T), v.data());
    return b;
  };
  const std::vector<std::int32_t> offsets(host.row_offsets.begin(), host.row_offsets.end());
  const cl::Buffer values = upload(host.values);
  Matrix A = Matrix::from_device_csr(context(), host.rows, host.cols, host.nnz(), upload(offsets),
                                     upload(host.col_indices), values);
  const CommandCounts before = context()->command_counts();
  EXPECT_EQ(A.csr_values(Precision::Single, ValueStorage::Half).storage, ValueStorage::Half);
  const CommandCounts made = context()->command_counts() - before;
  EXPECT_LT(made.read_bytes, host.rows * sizeof(double) / 4);
  expect_half_copy(A, true, "made on the device");

  const std::size_t d = diagonal_entry(host, 2999);
  const double tiny = 8.0 * 0x1p-40;
  context()->queue().enqueueWriteBuffer(values, CL_TRUE, d * sizeof(double), sizeof(double), &tiny);
  A.values_written_on_device();
  EXPECT_EQ(A.csr_values(Precision::Single, ValueStorage::Half).storage, ValueStorage::Working);

  const double restored = 8.0;
  context()->queue().enqueueWriteBuffer(values, CL_TRUE, d * sizeof(double), sizeof(double), &restored);
  A.values_written_on_device();
  EXPECT_EQ(A.csr_values(Precision::Single, ValueStorage::Half).storage, ValueStorage::Half);
  // Remade after new values in the buffers of the last time (an AMG update remakes every level's).
  A.values_written_on_device();
  const CommandCounts before_remake = context()->command_counts();
  EXPECT_EQ(A.csr_values(Precision::Single, ValueStorage::Half).storage, ValueStorage::Half);
  const CommandCounts remade = context()->command_counts() - before_remake;
  EXPECT_EQ(remade.allocations, 0u);
  EXPECT_GT(remade.launches, 0u);  // it was remade

  // Row 1500 without its diagonal entry: the floor falls to the 2^-40-scaled off-diagonal entries.
  HostCsrMatrix gap = host;
  const std::size_t g = diagonal_entry(host, 1500);
  gap.values.erase(gap.values.begin() + static_cast<std::ptrdiff_t>(g));
  gap.col_indices.erase(gap.col_indices.begin() + static_cast<std::ptrdiff_t>(g));
  for (std::size_t i = 1501; i < gap.row_offsets.size(); ++i) --gap.row_offsets[i];
  gap.validate();
  const std::vector<std::int32_t> gap_offsets(gap.row_offsets.begin(), gap.row_offsets.end());
  Matrix B = Matrix::from_device_csr(context(), gap.rows, gap.cols, gap.nnz(), upload(gap_offsets),
                                     upload(gap.col_indices), upload(gap.values));
  EXPECT_EQ(B.csr_values(Precision::Single, ValueStorage::Half).storage, ValueStorage::Working);
  EXPECT_EQ(Matrix(context(), gap, Format::Csr).csr_values(Precision::Single, ValueStorage::Half).storage,
            ValueStorage::Working);  // the host's floor agrees
}

TEST(MatrixHalfValuesRange, TinyOffDiagonalEntriesBecomeSubnormalOrZero) {
  // The diagonal bounds the error of an entry below the normal range (half_values.hpp), so such entries
  // do not stop the copy: they are rounded to binary16's subnormal numbers (or to zero).
  HostCsrMatrix host = random_square(40, 1.0, 6);
  for (std::int32_t i = 0; i < host.rows; ++i)
    for (std::int64_t k = host.row_offsets[i]; k < host.row_offsets[i + 1]; ++k)
      if (host.col_indices[k] != i) host.values[static_cast<std::size_t>(k)] *= 0x1p-40;
  Matrix A(context(), host, Format::Csr);
  expect_half_copy(A, true, "tiny off-diagonal entries");
}

TEST(MatrixHalfValuesRange, RectangularMatricesTakeTheSmallestValue) {
  HostCsrMatrix host;
  host.rows = 2;
  host.cols = 3;
  host.row_offsets = {0, 2, 3};
  host.col_indices = {0, 2, 1};
  host.values = {1.0, -0.25, 0.5};
  Matrix fits(context(), host, Format::Csr);
  EXPECT_EQ(fits.csr_values(Precision::Single, ValueStorage::Half).storage, ValueStorage::Half);
  host.values[1] = std::ldexp(1.0, -31);  // 2^-31 of the largest: below the normal range once scaled
  Matrix does_not(context(), host, Format::Csr);
  EXPECT_EQ(does_not.csr_values(Precision::Single, ValueStorage::Half).storage, ValueStorage::Working);
}

TEST(MatrixHalfValuesRange, EmptyMatricesFit) {
  HostCsrMatrix empty;
  empty.rows = 7;
  empty.cols = 9;
  empty.row_offsets.assign(8, 0);
  Matrix A(context(), empty, Format::Csr);
  const Matrix::Values v = A.csr_values(Precision::Single, ValueStorage::Half);
  EXPECT_EQ(v.storage, ValueStorage::Half);
  EXPECT_EQ(v.unscale, 1.0f);
}

TEST(MatrixHalfValuesRange, OnlySinglePrecisionReadsThem) {
  Matrix A(context(), random_square(10, 1.0, 7), Format::Csr);
  EXPECT_THROW(A.csr_values(Precision::QuasiDouble, ValueStorage::Half), Error);
  if (test::fp64()) EXPECT_THROW(A.csr_values(Precision::Double, ValueStorage::Half), Error);
}

}  // namespace
}  // namespace clkr
