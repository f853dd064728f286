// Tests of csr_from_arrays and coo_to_csr: the user's CSR and COO arrays in both index bases and both
// index widths become the same 0-based HostCsrMatrix, COO duplicates are summed, and every bad input is
// refused with a message naming the row or entry in the caller's numbering.
#include "clkr/data/csr_arrays.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "clkr/runtime/error.hpp"

namespace clkr {
namespace {

// [ 4 -1  0 ]
// [-1  4 -1 ]
// [ 0 -1  4 ]  in 0-based CSR.
const std::vector<std::int64_t> kOffsets = {0, 2, 5, 7};
const std::vector<std::int64_t> kCols = {0, 1, 0, 1, 2, 1, 2};
const std::vector<double> kValues = {4, -1, -1, 4, -1, -1, 4};

template <class I>
std::vector<I> shifted(const std::vector<std::int64_t>& v, int base) {
  std::vector<I> out;
  for (std::int64_t x : v) out.push_back(static_cast<I>(x + base));
  return out;
}

void expect_reference(const HostCsrMatrix& A) {
  EXPECT_EQ(A.rows, 3);
  EXPECT_EQ(A.cols, 3);
  EXPECT_EQ(A.row_offsets, std::vector<std::int64_t>({0, 2, 5, 7}));
  EXPECT_EQ(A.col_indices, std::vector<std::int32_t>({0, 1, 0, 1, 2, 1, 2}));
  EXPECT_EQ(A.values, kValues);
  EXPECT_NO_THROW(A.validate());
}

template <class I>
HostCsrMatrix from_csr(const std::vector<std::int64_t>& offsets, const std::vector<std::int64_t>& cols,
                       const std::vector<double>& values, int base, std::int64_t rows = 3) {
  const auto o = shifted<I>(offsets, base), c = shifted<I>(cols, base);
  return csr_from_arrays(rows, 3, static_cast<std::int64_t>(values.size()), o.data(), c.data(), values.data(), base);
}

// The message of the clkr::Error that `body` throws (a failure if it throws none).
template <class Body>
std::string error_of(Body&& body) {
  try {
    body();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no clkr::Error thrown";
  return {};
}

TEST(CsrArrays, BothBasesAndIndexWidthsGiveTheSameMatrix) {
  for (int base : {0, 1}) {
    SCOPED_TRACE("base " + std::to_string(base));
    expect_reference(from_csr<std::int32_t>(kOffsets, kCols, kValues, base));
    expect_reference(from_csr<std::int64_t>(kOffsets, kCols, kValues, base));
  }
}

TEST(CsrArrays, EmptyMatrixAndEmptyRows) {
  const std::int32_t offsets[] = {1};
  const HostCsrMatrix empty = csr_from_arrays(0, 0, 0, offsets, nullptr, nullptr, 1);
  EXPECT_EQ(empty.rows, 0);
  EXPECT_EQ(empty.row_offsets, std::vector<std::int64_t>({0}));
  EXPECT_EQ(empty.nnz(), 0);
  const std::int64_t zero_rows[] = {0, 0, 0};
  const HostCsrMatrix no_entries = csr_from_arrays(2, 5, 0, zero_rows, nullptr, nullptr, 0);
  EXPECT_EQ(no_entries.row_offsets, std::vector<std::int64_t>({0, 0, 0}));
  EXPECT_NO_THROW(no_entries.validate());
}

TEST(CsrArrays, UnsortedAndDuplicateColumnsNameTheRowInTheCallersNumbering) {
  const std::vector<double> values(8, 1.0);
  const std::vector<std::int64_t> offsets = {0, 2, 5, 8};
  const std::string m0 = error_of([&] { from_csr<std::int32_t>(offsets, {0, 1, 1, 0, 2, 0, 1, 2}, values, 0); });
  EXPECT_NE(m0.find("row 1 not strictly increasing (1 then 0: unsorted)"), std::string::npos) << m0;
  const std::string m1 = error_of([&] { from_csr<std::int64_t>(offsets, {0, 1, 0, 1, 2, 1, 2, 2}, values, 1); });
  EXPECT_NE(m1.find("row 3 not strictly increasing (3 then 3: a duplicate)"), std::string::npos) << m1;
  EXPECT_NE(m1.find("index base 1"), std::string::npos) << m1;
}

TEST(CsrArrays, BadSizesOffsetsAndIndicesAreRefused) {
  auto refused = [](const std::string& message, const std::string& expected) {
    EXPECT_NE(message.find(expected), std::string::npos) << "message: " << message << "\nexpected: " << expected;
  };
  refused(error_of([] {
            from_csr<std::int32_t>({1, 2, 5, 7}, kCols, kValues, 0);
          }),
          "row_offsets[0] is 1, expected the index base 0");
  refused(error_of([] {
            from_csr<std::int32_t>({0, 3, 2, 7}, kCols, kValues, 1);
          }),
          "row_offsets decreases at row 2 (4 then 3)");
  refused(error_of([] {
            from_csr<std::int64_t>(kOffsets, kCols, {4, -1, -1, 4, -1, -1}, 0);
          }),
          "row_offsets[rows] - index base is 7 but nnz is 6");
  refused(error_of([] {
            from_csr<std::int32_t>(kOffsets, {0, 1, 0, 1, 3, 1, 2}, kValues, 0);
          }),
          "column index 3 in row 1 out of range [0, 3)");
  refused(error_of([] {
            from_csr<std::int64_t>(kOffsets, {-1, 1, 0, 1, 2, 1, 2}, kValues, 1);
          }),
          "column index 0 in row 1 out of range [1, 4)");
  std::vector<double> nan = kValues;
  nan[4] = std::numeric_limits<double>::quiet_NaN();
  refused(error_of([&] { from_csr<std::int32_t>(kOffsets, kCols, nan, 1); }), "non-finite value nan at (2, 3)");
  refused(error_of([] { from_csr<std::int32_t>(kOffsets, kCols, kValues, 2); }), "index base 2 is neither 0 nor 1");
  refused(error_of([] { from_csr<std::int32_t>(kOffsets, kCols, kValues, 0, -3); }), "negative size");
  const std::int32_t offsets[] = {0, 1};
  refused(error_of([&] { csr_from_arrays(1, 1, 1, offsets, nullptr, kValues.data(), 0); }), "col_indices is NULL");
  refused(error_of([&] { csr_from_arrays(std::int64_t{1} << 32, 1, 0, offsets, nullptr, nullptr, 0); }),
          "passes clkr's int32 limit");
}

// The rows are checked in parallel (src/data/first_rejected_row.hpp): with defects in several rows, far
// apart (each thread's share of rows holding some), the message still names the first one, as a
// sequential pass would; in csr_from_arrays, CsrView and HostCsrMatrix alike.
TEST(CsrArrays, TheFirstOfManyDefectiveRowsIsNamed) {
  const std::int64_t n = 100000;  // a tridiagonal matrix
  std::vector<std::int64_t> offsets{0};
  std::vector<std::int32_t> cols;
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j = i - 1; j <= i + 1; ++j)
      if (j >= 0 && j < n) cols.push_back(static_cast<std::int32_t>(j));
    offsets.push_back(static_cast<std::int64_t>(cols.size()));
  }
  std::vector<double> values(cols.size(), 1.0);
  const auto entry = [&](std::int64_t row) { return static_cast<std::size_t>(offsets[row] + 1); };
  cols[entry(90000)] = static_cast<std::int32_t>(n + 5);            // out of range, last
  cols[entry(70000)] = cols[entry(70000) - 1];                      // a duplicate
  values[entry(30000)] = std::numeric_limits<double>::quiet_NaN();  // the first defect
  cols[entry(60000)] = -1;
  // csr_from_arrays takes offsets and columns of one width.
  const auto from_arrays = [&] {
    const std::vector<std::int64_t> wide_cols(cols.begin(), cols.end());
    csr_from_arrays(n, n, static_cast<std::int64_t>(cols.size()), offsets.data(), wide_cols.data(), values.data(), 0);
  };
  const auto check = [&](const std::string& message) {
    EXPECT_NE(message.find("non-finite value"), std::string::npos) << message;
    EXPECT_NE(message.find("(30000, 30000)"), std::string::npos) << message;
  };
  check(error_of(from_arrays));
  HostCsrMatrix A;
  A.rows = A.cols = static_cast<std::int32_t>(n);
  A.row_offsets = offsets;
  A.col_indices = cols;
  A.values = values;
  check(error_of([&] { A.validate(); }));
  const CsrView view(A);
  check(error_of([&] { view.validate(); }));
  // Offsets decreasing at two rows: the first named.
  offsets[80001] = offsets[80000] - 1;
  offsets[40001] = offsets[40000] - 1;
  const std::string decreasing = error_of(from_arrays);
  EXPECT_NE(decreasing.find("row_offsets decreases at row 40000"), std::string::npos) << decreasing;
}

TEST(CooArrays, DuplicatesAreSummedInAnyOrder) {
  // The reference matrix assembled from two "elements" per diagonal entry, shuffled.
  for (int base : {0, 1}) {
    SCOPED_TRACE("base " + std::to_string(base));
    const std::vector<std::int64_t> r = {2, 0, 1, 1, 0, 2, 1, 1, 0, 2, 1};
    const std::vector<std::int64_t> c = {2, 1, 2, 0, 0, 1, 1, 1, 0, 2, 1};
    const std::vector<double> v = {1, -1, -1, -1, 3, -1, 1, 2, 1, 3, 1};
    const auto r32 = shifted<std::int32_t>(r, base), c32 = shifted<std::int32_t>(c, base);
    expect_reference(coo_to_csr(3, 3, 11, r32.data(), c32.data(), v.data(), base));
    const auto r64 = shifted<std::int64_t>(r, base), c64 = shifted<std::int64_t>(c, base);
    expect_reference(coo_to_csr(3, 3, 11, r64.data(), c64.data(), v.data(), base));
  }
  const HostCsrMatrix empty = coo_to_csr(4, 4, 0, static_cast<const std::int32_t*>(nullptr), nullptr, nullptr, 0);
  EXPECT_EQ(empty.row_offsets, std::vector<std::int64_t>(5, 0));
}

TEST(CooArrays, BadEntriesAreNamed) {
  const std::int64_t rows[] = {1, 4, 2}, cols[] = {1, 1, 0};
  const double values[] = {1, 2, 3};
  const std::string row_message = error_of([&] { coo_to_csr(3, 3, 3, rows, cols, values, 1); });
  EXPECT_NE(row_message.find("entry 2 (4, 1): row index out of range [1, 4)"), std::string::npos) << row_message;
  const std::int32_t rows0[] = {0, 1, 2}, cols0[] = {1, 1, 3};
  const std::string col_message = error_of([&] { coo_to_csr(3, 3, 3, rows0, cols0, values, 0); });
  EXPECT_NE(col_message.find("entry 2 (2, 3): column index out of range [0, 3)"), std::string::npos) << col_message;
  const double inf[] = {1, std::numeric_limits<double>::infinity(), 3};
  const std::string inf_message = error_of([&] { coo_to_csr(3, 3, 3, rows0, cols0, inf, 0); });
  EXPECT_NE(inf_message.find("entry 1 (1, 1): non-finite value inf"), std::string::npos) << inf_message;
}

}  // namespace
}  // namespace clkr
