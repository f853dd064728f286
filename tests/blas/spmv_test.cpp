// SpMV y = alpha*A*x + beta*y in every format and precision, on the device and in the host reference,
// against a long double reference on random matrices of awkward shapes (spmv_test_support.hpp).
#include "../../src/blas/spmv.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "clkr/blas/blas.hpp"
#include "clkr/runtime/error.hpp"
#include "spmv_test_support.hpp"

namespace clkr {
namespace {

using namespace test;  // spmv_test_support.hpp

// ---- every format x precision through Blas ----------------------------------------------------------

using FormatPrecision = std::tuple<Format, Precision>;

std::string name_of(const testing::TestParamInfo<FormatPrecision>& info) {
  return to_string(std::get<0>(info.param)) + "_" + to_string(std::get<1>(info.param));
}

class SpmvDevice : public testing::TestWithParam<FormatPrecision> {};

TEST_P(SpmvDevice, MatchesLongDoubleReference) {
  const auto [format, p] = GetParam();
  if (!can_run(p)) GTEST_SKIP() << "device has no fp64";
  Blas blas(test_context(), Location::Device, p);
  const auto run = [&](double alpha, Matrix& A, Vector& x, double beta, Vector& y) { blas.spmv(alpha, A, x, beta, y); };
  for (std::size_t s = 0; s < shapes().size(); ++s) {
    const Shape& shape = shapes()[s];
    const HostCsrMatrix H = random_matrix(shape, 100 + static_cast<std::uint32_t>(s));
    Matrix A(test_context(), H, format, test_matrix_options());
    if (format == Format::Csr) {
      for (const AlphaBeta& c : kAllCases) check_spmv(A, H, p, c, to_string(format) + " " + shape.name, run);
    } else {
      for (const AlphaBeta& c : kTwoCases) check_spmv(A, H, p, c, to_string(format) + " " + shape.name, run);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllFormats, SpmvDevice,
    testing::Combine(testing::Values(Format::Csr, Format::Csr4, Format::Ell, Format::Hyb, Format::Sell, Format::Dia),
                     testing::Values(Precision::Single, Precision::QuasiDouble, Precision::Double)),
    name_of);

// ---- launch variants through the detail interface (parameters Blas would take from the device) -------

class SpmvPrecision : public testing::TestWithParam<Precision> {};

// The CSR-vector kernel, forced by a zero mean-row-length threshold, with a degenerate (1), a small and
// a warp-sized lane count; work groups of 64 hold 64, 16 and 2 rows.
TEST_P(SpmvPrecision, CsrVectorKernel) {
  const Precision p = GetParam();
  if (!can_run(p)) GTEST_SKIP() << "device has no fp64";
  for (std::size_t lanes : {1, 4, 32}) {
    SpmvParams params;
    params.work_group_size = 64;
    params.csr_vector_min_mean_row_length = 0;
    params.vector_lanes = lanes;
    const auto run = [&](double alpha, Matrix& A, Vector& x, double beta, Vector& y) {
      detail::spmv_device(*test_context(), params, p, false, alpha, A, x, beta, y);
    };
    for (const char* name : {"5x5", "1025x1025", "1025x300", "long_row_600x3100"}) {
      const auto shape = std::find_if(shapes().begin(), shapes().end(), [&](const Shape& s) { return s.name == name; });
      const HostCsrMatrix H = random_matrix(*shape, 7);
      Matrix A(test_context(), H, Format::Csr);
      for (const AlphaBeta& c : kTwoCases)
        check_spmv(A, H, p, c, "csr-vector lanes=" + std::to_string(lanes) + " " + name, run);
    }
  }
}

// Lanes grown with the row length (SpmvParams::vector_entries_per_lane) from a start of 2: rows of 1 to
// 400 entries (mean ~190) get 16 lanes at 20 entries a lane and 32 (the cap) at 1; the short shapes stay
// at 2 or grow to 4; work-groups of 64 and of an awkward 96 (rows per group = group / lanes).
TEST_P(SpmvPrecision, CsrVectorLanesFromTheRowLength) {
  const Precision p = GetParam();
  if (!can_run(p)) GTEST_SKIP() << "device has no fp64";
  std::vector<Shape> cases = {{"rows_of_1_to_400_300x2000", 300, 2000, 400, 0.05}};
  for (const char* name : {"1x1", "5x5", "long_row_600x3100"})
    cases.push_back(*std::find_if(shapes().begin(), shapes().end(), [&](const Shape& s) { return s.name == name; }));
  std::set<std::size_t> lanes_seen;
  for (std::size_t group : {64, 96})
    for (double per_lane : {20.0, 1.0}) {
      SpmvParams params;
      params.work_group_size = group;
      params.csr_vector_min_mean_row_length = 0;
      params.vector_lanes = 2;
      params.vector_entries_per_lane = per_lane;
      const auto run = [&](double alpha, Matrix& A, Vector& x, double beta, Vector& y) {
        detail::spmv_device(*test_context(), params, p, false, alpha, A, x, beta, y);
      };
      for (const Shape& shape : cases) {
        const HostCsrMatrix H = random_matrix(shape, 9);
        Matrix A(test_context(), H, Format::Csr);
        const std::size_t lanes = csr_vector_lanes(params, A.stats().mean_row_length, group);
        lanes_seen.insert(lanes);
        const std::string label = "csr-vector group " + std::to_string(group) + " entries/lane " +
                                  std::to_string(per_lane) + " lanes " + std::to_string(lanes) + " " + shape.name;
        for (const AlphaBeta& c : kTwoCases) check_spmv(A, H, p, c, label, run);
      }
    }
  EXPECT_EQ(lanes_seen, (std::set<std::size_t>{2, 4, 16, 32}));
}

// Row blocks of 1 and of an awkward 7 rows per work-item (the CPU path's parameter) in the
// one-row-per-work-item kernels: CSR scalar, CSR4, ELL, both HYB passes and SELL.
TEST_P(SpmvPrecision, RowsPerWorkItem) {
  const Precision p = GetParam();
  if (!can_run(p)) GTEST_SKIP() << "device has no fp64";
  const Shape shape{"1023x1025", 1023, 1025};
  const HostCsrMatrix H = random_matrix(shape, 8);
  for (std::size_t per_item : {1, 7}) {
    SpmvParams params;
    params.work_group_size = 32;
    params.csr_vector_min_mean_row_length = std::numeric_limits<double>::infinity();
    params.rows_per_work_item = per_item;
    const auto run = [&](double alpha, Matrix& A, Vector& x, double beta, Vector& y) {
      detail::spmv_device(*test_context(), params, p, false, alpha, A, x, beta, y);
    };
    for (Format f : {Format::Csr, Format::Csr4, Format::Ell, Format::Hyb, Format::Sell}) {
      Matrix A(test_context(), H, f);
      check_spmv(A, H, p, {2.5, -0.5}, to_string(f) + " rows_per_work_item=" + std::to_string(per_item), run);
    }
  }
}

// The CSR row kernel with one running sum and with four (SpmvParams::row_sum_chains), on every shape
// (empty rows, a 3000-entry row, rows shorter than four).
TEST_P(SpmvPrecision, RowSumChains) {
  const Precision p = GetParam();
  if (!can_run(p)) GTEST_SKIP() << "device has no fp64";
  for (std::size_t chains : {1, 4}) {
    SpmvParams params;
    params.csr_vector_min_mean_row_length = std::numeric_limits<double>::infinity();
    params.row_sum_chains = params.row_sum_chains_single = chains;
    const auto run = [&](double alpha, Matrix& A, Vector& x, double beta, Vector& y) {
      detail::spmv_device(*test_context(), params, p, false, alpha, A, x, beta, y);
    };
    for (const Shape& shape : shapes()) {
      const HostCsrMatrix H = random_matrix(shape, 21);
      Matrix A(test_context(), H, Format::Csr);
      check_spmv(A, H, p, {1.5, 0}, shape.name + " row_sum_chains=" + std::to_string(chains), run);
    }
  }
}

// A's SpMV under each of `variants` (parameters that must not change a single bit: the order of the
// loads, cache hints): each checked against the reference, and each after the first for the same
// values as the first, row by row.
void expect_variants_agree(Matrix& A, const HostCsrMatrix& H, Precision p, const std::vector<double>& xv,
                           const std::vector<std::pair<std::string, SpmvParams>>& variants) {
  std::vector<double> first;
  for (const auto& [what, params] : variants) {
    const auto run = [&, &params = params](double alpha, Matrix& M, Vector& x, double beta, Vector& y) {
      detail::spmv_device(*test_context(), params, p, false, alpha, M, x, beta, y);
    };
    check_spmv(A, H, p, {1.5, 0}, what, run);
    Vector x(test_context(), std::vector<double>(xv.begin(), xv.begin() + H.cols), "x");
    Vector y(test_context(), static_cast<std::size_t>(H.rows), "y");
    run(1, A, x, 0, y);
    const std::vector<double> got = read_device(y, p);
    if (first.empty()) {
      first = got;
      continue;
    }
    for (std::size_t i = 0; i < got.size(); ++i)
      ASSERT_EQ(got[i], first[i]) << what << ": row " << i << " differs from " << variants.front().first;
  }
}

// The row kernels with their loads in groups (SpmvParams::row_load_group) of 1 (entry by entry, the
// CPU default), an awkward 3 and 8 (the GPU default): CSR scalar with one and four sums per row, CSR
// vector, ELL, SELL and DIA a row at a time, on every shape (empty rows, a 3000-entry row, ELL's and
// SELL's padding, rows shorter than a group). Each group size must match the reference and give the
// same bits as entry by entry: the terms are added in the same order.
TEST_P(SpmvPrecision, RowLoadGroups) {
  const Precision p = GetParam();
  if (!can_run(p)) GTEST_SKIP() << "device has no fp64";
  struct Kernel {
    std::string name;
    Format format;
    std::size_t chains;
    double vector_from;  // csr_vector_min_mean_row_length: 0 forces the vector kernel
  };
  const double never = std::numeric_limits<double>::infinity();
  const Kernel kernels[] = {{"csr one sum", Format::Csr, 1, never}, {"csr four sums", Format::Csr, 4, never},
                            {"csr vector", Format::Csr, 1, 0},      {"ell", Format::Ell, 1, never},
                            {"sell", Format::Sell, 1, never},       {"dia", Format::Dia, 1, never}};
  const std::vector<double> xv = random_vector(3100, 13);
  for (const Kernel& kernel : kernels) {
    for (const Shape& shape : shapes()) {
      const HostCsrMatrix H = random_matrix(shape, 23);
      Matrix A(test_context(), H, kernel.format, test_matrix_options());
      std::vector<std::pair<std::string, SpmvParams>> variants;
      for (std::size_t group : {1, 3, 8}) {  // entry by entry first: the others must match it
        SpmvParams params;
        params.work_group_size = 32;
        params.vector_lanes = 4;
        params.csr_vector_min_mean_row_length = kernel.vector_from;
        params.row_sum_chains = params.row_sum_chains_single = kernel.chains;
        params.dia_tile_rows = 0;
        params.row_load_group = group;
        variants.emplace_back(kernel.name + " " + shape.name + " row_load_group=" + std::to_string(group), params);
      }
      expect_variants_agree(A, H, p, xv, variants);
    }
  }
}

// SpmvParams::stream_loads: a cache hint on the matrix's loads (NVIDIA's ld.global.cs; other devices
// leave the option out), so every kernel must give the reference's result and the same bits as with
// plain loads: CSR scalar and vector, the load-balanced CSR, ELL, SELL, HYB and DIA, on every shape.
TEST_P(SpmvPrecision, StreamLoads) {
  const Precision p = GetParam();
  if (!can_run(p)) GTEST_SKIP() << "device has no fp64";
  struct Kernel {
    std::string name;
    Format format;
    double vector_from;    // csr_vector_min_mean_row_length: 0 forces the vector kernel
    double balanced_from;  // csr_balanced_min_row_ratio: 0 forces the load-balanced kernels
  };
  const double never = std::numeric_limits<double>::infinity();
  const Kernel kernels[] = {{"csr scalar", Format::Csr, never, never}, {"csr vector", Format::Csr, 0, never},
                            {"csr balanced", Format::Csr, never, 0},   {"ell", Format::Ell, never, never},
                            {"sell", Format::Sell, never, never},      {"hyb", Format::Hyb, never, never},
                            {"dia", Format::Dia, never, never}};
  const std::vector<double> xv = random_vector(3100, 17);
  for (const Kernel& kernel : kernels) {
    for (const Shape& shape : shapes()) {
      const HostCsrMatrix H = random_matrix(shape, 29);
      Matrix A(test_context(), H, kernel.format, test_matrix_options());
      std::vector<std::pair<std::string, SpmvParams>> variants;
      for (std::size_t stream : {0, 1}) {  // plain loads first
        SpmvParams params = device_params(test_context()->info()).spmv;
        params.csr_vector_min_mean_row_length = kernel.vector_from;
        params.csr_balanced_min_row_ratio = kernel.balanced_from;
        params.stream_loads = stream;
        variants.emplace_back(kernel.name + " " + shape.name + " stream_loads=" + std::to_string(stream), params);
      }
      expect_variants_agree(A, H, p, xv, variants);
    }
  }
}

// The option reaches NVIDIA's compiler only (elsewhere the inline PTX would not compile), and only for
// the load-balanced CSR kernels.
TEST(SpmvStreamLoads, OptionOnlyForNvidia) {
  SpmvParams params;
  DeviceInfo nvidia, pocl;
  nvidia.vendor = "NVIDIA Corporation";
  pocl.vendor = "AuthenticAMD";
  pocl.platform_vendor = "The pocl project";
  EXPECT_EQ(detail::stream_loads_option(params, nvidia, true), "");  // 0: plain loads
  params.stream_loads = 1;
  EXPECT_EQ(detail::stream_loads_option(params, nvidia, true), " -DSTREAM_LOADS");
  EXPECT_EQ(detail::stream_loads_option(params, nvidia, false), "");  // only the load-balanced kernels
  EXPECT_EQ(detail::stream_loads_option(params, pocl, true), "");
}

// HYB with every row in the overflow (ELL width 0), a split, and no overflow at all.
TEST_P(SpmvPrecision, HybSplits) {
  const Precision p = GetParam();
  if (!can_run(p)) GTEST_SKIP() << "device has no fp64";
  const Shape shape{"long_row_257x3100", 257, 3100, 12, 0.2, 3000};
  const HostCsrMatrix H = random_matrix(shape, 9);
  Blas blas(test_context(), Location::Device, p);
  const auto run = [&](double alpha, Matrix& A, Vector& x, double beta, Vector& y) { blas.spmv(alpha, A, x, beta, y); };
  for (std::int32_t width : {0, 3, 3000}) {
    MatrixOptions options;
    options.hyb_ell_width = width;
    Matrix A(test_context(), H, Format::Hyb, options);
    ASSERT_EQ(A.ell_part().width, width);
    for (const AlphaBeta& c : kTwoCases) check_spmv(A, H, p, c, "hyb ell width " + std::to_string(width), run);
  }
}

// The host reference backend (Blas on Location::Host) in each precision's arithmetic.
TEST_P(SpmvPrecision, HostReference) {
  const Precision p = GetParam();
  Blas blas(test_context(), Location::Host, p);
  const auto run = [&](double alpha, Matrix& A, Vector& x, double beta, Vector& y) { blas.spmv(alpha, A, x, beta, y); };
  for (const char* name :
       {"0x5", "5x0", "7x9_no_entries", "1x1", "1025x1025", "1025x300", "long_row_600x3100", "node_runs_1023x1023"}) {
    const auto shape = std::find_if(shapes().begin(), shapes().end(), [&](const Shape& s) { return s.name == name; });
    const HostCsrMatrix H = random_matrix(*shape, 10);
    Matrix A(test_context(), H, Format::Csr);
    for (const AlphaBeta& c : kAllCases) check_spmv(A, H, p, c, std::string("host ") + name, run, Location::Host);
  }
}

INSTANTIATE_TEST_SUITE_P(AllPrecisions, SpmvPrecision,
                         testing::Values(Precision::Single, Precision::QuasiDouble, Precision::Double), precision_name);

// ---- Kahan-compensated single precision ----------------------------------------------------------------

// One row of 4000 float products in cancelling pairs (a_m x_m = -a_k x_k (1 + d), |d| <= 1e-4, over
// 2^-8 .. 2^8) in random column order, plus an empty row and a short one: the row's condition number
// sum |a x| / |sum a x| is about 1e6, so plain float summation keeps no correct digit, while a sum
// as accurate as twice the working precision keeps about u + u^2 * 1e6 ~ 1e-7.
HostCsrMatrix ill_conditioned(std::vector<double>& x) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(0.5f, 1.0f);
  std::uniform_int_distribution<int> e(-8, 8);
  std::uniform_real_distribution<double> d(-1e-4, 1e-4);
  const std::int32_t n = 4000;
  x.resize(n);
  for (auto& v : x) v = u(rng);
  std::vector<std::int32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<double> row(n);
  for (std::int32_t k = 0; k < n; k += 2) {
    const std::int32_t i = order[k], j = order[k + 1];
    row[i] = std::ldexp(u(rng), e(rng));
    row[j] = -static_cast<float>(row[i] * x[i] / x[j] * (1 + d(rng)));
  }
  HostCsrMatrix A;
  A.rows = 3;
  A.cols = n;
  A.row_offsets = {0, n, n, n + 3};
  for (std::int32_t k = 0; k < n; ++k) A.col_indices.push_back(k);
  A.values = row;
  for (std::int32_t k : {1, 17, 3999}) A.col_indices.push_back(k);
  for (double v : {0.75, -1.5, 0.625}) A.values.push_back(v);
  A.validate();
  return A;
}

TEST(SpmvKahan, MoreAccurateThanPlainSingle) {
  std::vector<double> xv;
  const HostCsrMatrix H = ill_conditioned(xv);
  const Reference ref = reference(H, Precision::Single, 1, xv, 0, std::vector<double>(3, 0.0));
  ASSERT_LT(std::fabs(ref.y[0]), 1e-5L * ref.scale[0]) << "the test row should be ill-conditioned";

  BlasOptions kahan;
  kahan.kahan_spmv = true;
  Blas plain_blas(test_context(), Location::Device, Precision::Single);
  Blas kahan_blas(test_context(), Location::Device, Precision::Single, kahan);
  Blas host_kahan_blas(test_context(), Location::Host, Precision::Single, kahan);
  SpmvParams vector_params;
  vector_params.csr_vector_min_mean_row_length = 0;
  vector_params.work_group_size = 64;
  vector_params.vector_lanes = 32;

  const auto relative_error = [&](const std::vector<double>& y) {
    return static_cast<double>(std::fabs(y[0] - ref.y[0]) / std::fabs(ref.y[0]));
  };
  for (Format f : {Format::Csr, Format::Csr4, Format::Ell, Format::Sell, Format::Dia}) {
    Matrix A(test_context(), H, f, test_matrix_options());
    Vector x(test_context(), xv, "x");
    Vector y_plain(test_context(), 3, "y_plain"), y_kahan(test_context(), 3, "y_kahan");
    plain_blas.spmv(1, A, x, 0, y_plain);
    kahan_blas.spmv(1, A, x, 0, y_kahan);
    const double plain_error = relative_error(y_plain.to_host());
    const double kahan_error = relative_error(y_kahan.to_host());
    EXPECT_LT(kahan_error, 1e-6) << to_string(f);
    EXPECT_LT(kahan_error * 100, plain_error) << to_string(f) << ": plain " << plain_error << ", Kahan " << kahan_error;
    expect_close(ref, y_kahan.to_host(), Precision::Single, to_string(f) + " Kahan");
  }
  Matrix A(test_context(), H, Format::Csr);
  Vector x(test_context(), xv, "x");
  Vector y_vector(test_context(), 3, "y_vector"), y_host(test_context(), 3, "y_host");
  detail::spmv_device(*test_context(), vector_params, Precision::Single, true, 1, A, x, 0, y_vector);
  host_kahan_blas.spmv(1, A, x, 0, y_host);
  EXPECT_LT(relative_error(y_vector.to_host()), 1e-6) << "csr-vector Kahan";
  EXPECT_LT(relative_error(y_host.to_host()), 1e-6) << "host Kahan";
  for (RowBlocking blocks : {RowBlocking::WorkGroup, RowBlocking::WorkItem}) {
    SpmvParams balanced;  // the load-balanced kernels: the long row alone in a block, or one work-item's
    balanced.work_group_size = 64;
    balanced.csr_balanced_min_row_ratio = 0;
    balanced.csr_balanced_blocks = blocks;
    Vector y_balanced(test_context(), 3, "y_balanced");
    detail::spmv_device(*test_context(), balanced, Precision::Single, true, 1, A, x, 0, y_balanced);
    EXPECT_LT(relative_error(y_balanced.to_host()), 1e-6) << "balanced Kahan, " << to_string(blocks);
  }
}

// Every (alpha, beta) variant of the Kahan kernel on ordinary matrices.
TEST(SpmvKahan, AllVariantsMatchReference) {
  BlasOptions kahan;
  kahan.kahan_spmv = true;
  Blas blas(test_context(), Location::Device, Precision::Single, kahan);
  const auto run = [&](double alpha, Matrix& A, Vector& x, double beta, Vector& y) { blas.spmv(alpha, A, x, beta, y); };
  for (const char* name : {"5x0", "1025x300", "long_row_600x3100"}) {
    const auto shape = std::find_if(shapes().begin(), shapes().end(), [&](const Shape& s) { return s.name == name; });
    const HostCsrMatrix H = random_matrix(*shape, 13);
    Matrix A(test_context(), H, Format::Csr);
    for (const AlphaBeta& c : kAllCases) check_spmv(A, H, Precision::Single, c, std::string("kahan csr ") + name, run);
  }
}

// ---- counted work, events, bad input ------------------------------------------------------------------

// Rows of lengths 2, 0, 3 in a 3 x 4 matrix: nnz 5, CSR4 stores 4 + 0 + 4, ELL 3 x 3 (pitch unused).
HostCsrMatrix small_matrix() {
  HostCsrMatrix A;
  A.rows = 3;
  A.cols = 4;
  A.row_offsets = {0, 2, 2, 5};
  A.col_indices = {0, 3, 0, 1, 2};
  A.values = {1.5, -2, 3, 0.25, -1};
  return A;
}

TEST(SpmvCost, CountsStoredEntriesOffsetsAndVectors) {
  const HostCsrMatrix H = small_matrix();
  Matrix csr(test_context(), H, Format::Csr);
  // 5 * (8 + 4) values and indices, 4 * 4 offsets, 4 * 8 x, 3 * 8 y written.
  auto cost = detail::spmv_cost(csr, Precision::Double, 0);
  EXPECT_EQ(cost.flops, 10);
  EXPECT_EQ(cost.bytes, 60 + 16 + 32 + 24);
  Matrix csr4(test_context(), H, Format::Csr4);
  // beta != 0: 2 more flops per row and y read as well: 8 * (4 + 4) + 16 + 4 * 4 + 2 * 3 * 4.
  cost = detail::spmv_cost(csr4, Precision::Single, 1);
  EXPECT_EQ(cost.flops, 16);
  EXPECT_EQ(cost.bytes, 64 + 16 + 16 + 24);
  Matrix ell(test_context(), H, Format::Ell, test_matrix_options());
  // Quasi-double: 8 value bytes (head + tail); 3 x 3 entries, no offsets.
  cost = detail::spmv_cost(ell, Precision::QuasiDouble, 0);
  EXPECT_EQ(cost.flops, 10);
  EXPECT_EQ(cost.bytes, 9 * 12 + 4 * 8 + 3 * 8);
}

// Callers time the returned events: the empty matrix's too, and HYB's two kernels (the first reported
// separately; single-kernel formats leave `first` alone so that no kernel is timed twice).
TEST(SpmvEvents, AreProfilable) {
  for (std::int32_t rows : {0, 5}) {
    const HostCsrMatrix H = random_matrix({"events", rows, 5}, 14);
    for (Format f : {Format::Csr, Format::Csr4, Format::Ell, Format::Hyb}) {
      MatrixOptions options = test_matrix_options();
      options.hyb_ell_width = 1;  // rows of 2 or more entries overflow
      Matrix A(test_context(), H, f, options);
      Vector x(test_context(), random_vector(5, 1), "x"), y(test_context(), static_cast<std::size_t>(rows), "y");
      cl::Event first;
      cl::Event last =
          detail::spmv_device(*test_context(), SpmvParams{}, Precision::Single, false, 1, A, x, 0, y, &first);
      last.wait();
      EXPECT_GE(last.getProfilingInfo<CL_PROFILING_COMMAND_END>(), last.getProfilingInfo<CL_PROFILING_COMMAND_START>());
      if (f == Format::Hyb && rows > 0) {
        ASSERT_NE(first(), nullptr);
        EXPECT_LE(first.getProfilingInfo<CL_PROFILING_COMMAND_END>(),
                  last.getProfilingInfo<CL_PROFILING_COMMAND_START>());
      } else {
        EXPECT_EQ(first(), nullptr) << to_string(f) << " rows " << rows;
      }
    }
  }
}

TEST(SpmvErrors, BadOperandsThrow) {
  const auto& context = test_context();
  const HostCsrMatrix H = small_matrix();
  Matrix A(context, H, Format::Csr);
  Vector x(context, random_vector(4, 1), "x"), y(context, 3, "y");
  Vector short_x(context, 3, "short_x"), long_y(context, 4, "long_y");
  Blas blas(context, Location::Device, Precision::Single);
  EXPECT_THROW(blas.spmv(1, A, short_x, 0, y), Error);
  EXPECT_THROW(blas.spmv(1, A, x, 0, long_y), Error);
  const SpmvParams params;
  EXPECT_THROW(detail::spmv_device(*context, params, Precision::Single, false, 1, A, short_x, 0, y), Error);
  EXPECT_THROW(detail::spmv_device(*context, params, Precision::Single, false, 1, A, x, 0, long_y), Error);
  EXPECT_THROW(detail::spmv_host(Precision::Single, false, 1, A, short_x, 0, y), Error);

  // y aliasing x (a square matrix so that the sizes agree).
  Matrix square(context, random_matrix({"square", 6, 6}, 15), Format::Csr);
  Vector v(context, random_vector(6, 2), "v");
  EXPECT_THROW(detail::spmv_device(*context, params, Precision::Single, false, 1, square, v, 0, v), Error);
  EXPECT_THROW(detail::spmv_host(Precision::Single, false, 1, square, v, 0, v), Error);

  // Operands of another context (a second context on the same device).
  const std::shared_ptr<Context> other = Context::create(context->info().index_selector());
  EXPECT_THROW(detail::spmv_device(*other, params, Precision::Single, false, 1, A, x, 0, y), Error);

  SpmvParams bad_lanes;
  bad_lanes.csr_vector_min_mean_row_length = 0;
  bad_lanes.vector_lanes = 3;
  EXPECT_THROW(detail::spmv_device(*context, bad_lanes, Precision::Single, false, 1, A, x, 0, y), Error);

  Matrix hyb(context, H, Format::Hyb);
  try {
    detail::spmv_device(*context, params, Precision::Single, true, 1, hyb, x, 0, y);
    ADD_FAILURE() << "Kahan HYB should throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("HYB"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace clkr
