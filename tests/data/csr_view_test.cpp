// A Matrix made from a CsrView of arrays the caller owns (uploaded without a HostCsrMatrix copy) holds
// what the same arrays give as a HostCsrMatrix, in every format, with their statistics and diagonal; bad
// arrays are refused with csr_from_arrays's messages; COO entry slots say where each triplet was summed.
#include "clkr/data/csr_view.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../precision_support.hpp"
#include "clkr/data/csr_arrays.hpp"
#include "clkr/data/matrix.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/runtime/error.hpp"
#include "data_test_support.hpp"

namespace clkr {
namespace {

using test::context;

// A matrix with empty rows, a long row and a row past HYB's ELL width: the formats' awkward cases.
HostCsrMatrix awkward() {
  HostCsrMatrix A = poisson2d(7);
  HostCsrMatrix B;
  B.rows = A.rows + 2;
  B.cols = A.cols;
  B.row_offsets = {0};
  for (std::int32_t i = 0; i < B.rows; ++i) {
    if (i < A.rows && i != 5) {
      for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) {
        B.col_indices.push_back(A.col_indices[k]);
        B.values.push_back(A.values[k]);
      }
    } else if (i == A.rows) {  // a long row: every column
      for (std::int32_t j = 0; j < B.cols; ++j) {
        B.col_indices.push_back(j);
        B.values.push_back(0.5 + j);
      }
    }  // row 5 and the last row stay empty
    B.row_offsets.push_back(static_cast<std::int64_t>(B.col_indices.size()));
  }
  return B;
}

TEST(CsrView, AMatrixFromAViewHoldsWhatTheHostMatrixGives) {
  const HostCsrMatrix host = awkward();
  // The caller's arrays, apart from the HostCsrMatrix, so that nothing can alias it: 32-bit row
  // offsets, as SciPy's and most simulators' (the HostCsrMatrix's are 64-bit).
  const std::vector<std::int32_t> offsets(host.row_offsets.begin(), host.row_offsets.end()), cols = host.col_indices;
  const std::vector<double> values = host.values;
  // Given as {pointer, size}, as docs/c_fortran.md shows.
  const auto n = static_cast<std::size_t>(host.nnz());
  const CsrView view(host.rows, host.cols, {offsets.data(), offsets.size()}, {cols.data(), n}, {values.data(), n});
  for (Format format : {Format::Csr, Format::Csr4, Format::Hyb}) {
    const Matrix from_view(context(), view, format);
    const Matrix from_host(context(), host, format);
    const HostCsrMatrix back = from_view.to_host();
    EXPECT_EQ(back.row_offsets, host.row_offsets) << to_string(format);
    EXPECT_EQ(back.col_indices, host.col_indices) << to_string(format);
    for (std::size_t k = 0; k < values.size(); ++k)
      EXPECT_TRUE(test::readback_equal(*context(), back.values[k], values[k])) << to_string(format) << " entry " << k;
    EXPECT_EQ(from_view.stats().bytes_per_format, from_host.stats().bytes_per_format);
    EXPECT_EQ(from_view.stats().empty_rows, 2);
    EXPECT_EQ(from_view.diagonal(), from_host.diagonal());
  }
  // ELL is refused for this matrix (its long row), as from a HostCsrMatrix.
  EXPECT_THROW(Matrix(context(), view, Format::Ell), Error);
}

TEST(CsrView, BadArraysAreRefusedWithTheMessagesOfCsrFromArrays) {
  const HostCsrMatrix host = poisson2d(4);
  auto refusal = [&](const CsrView& view) {
    try {
      Matrix(context(), view);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  std::vector<std::int32_t> cols = host.col_indices;
  std::swap(cols[host.row_offsets[3]], cols[host.row_offsets[3] + 1]);
  EXPECT_NE(refusal(CsrView(host.rows, host.cols, host.row_offsets, cols, host.values))
                .find("CSR arrays (index base 0): column indices of row 3 not strictly increasing"),
            std::string::npos);
  std::vector<double> values = host.values;
  values[2] = std::numeric_limits<double>::infinity();
  EXPECT_NE(refusal(CsrView(host.rows, host.cols, host.row_offsets, host.col_indices, values)).find("non-finite value"),
            std::string::npos);
  EXPECT_NE(refusal(CsrView(host.rows + 1, host.cols, host.row_offsets, host.col_indices, host.values))
                .find("row_offsets has 17 entries, expected rows + 1 = 18"),
            std::string::npos);
  EXPECT_NE(refusal(CsrView(host.rows, host.cols, host.row_offsets, host.col_indices, {host.values.data(), 3}))
                .find("values has 3 entries but col_indices has"),
            std::string::npos);
  const std::vector<std::int32_t> narrow(host.row_offsets.begin(), host.row_offsets.end());
  EXPECT_THROW(csr_view_of_arrays(-1, 4, 0, narrow.data(), nullptr, nullptr), Error);
  EXPECT_THROW(csr_view_of_arrays(4, 4, 3, narrow.data(), nullptr, host.values.data()), Error);
}

TEST(CsrView, CooEntrySlotsSayWhereEachTripletWasSummed) {
  // (1,1) twice, (0,2), (0,0), (1,1) again, listed out of order.
  const std::vector<std::int32_t> rows = {1, 0, 0, 1, 1}, cols = {1, 2, 0, 1, 1};
  const std::vector<double> values = {1, 2, 3, 4, 5};
  std::vector<std::int64_t> slots;
  const HostCsrMatrix A = coo_to_csr(2, 3, 5, rows.data(), cols.data(), values.data(), 0, &slots);
  EXPECT_EQ(A.col_indices, std::vector<std::int32_t>({0, 2, 1}));
  EXPECT_EQ(A.values, std::vector<double>({3, 2, 10}));
  EXPECT_EQ(slots, std::vector<std::int64_t>({2, 1, 0, 2, 2}));
}

}  // namespace
}  // namespace clkr
