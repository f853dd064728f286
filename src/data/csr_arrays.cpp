// csr_from_arrays and coo_to_csr: validation and conversion of the user's arrays, written once as
// templates over the index type. Messages count rows, columns and entries as the caller does (from the
// index base), which the prefix states, so the numbers match the caller's own arrays.
#include "clkr/data/csr_arrays.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "clkr/runtime/error.hpp"
#include "first_rejected_row.hpp"

namespace clkr {
namespace {

constexpr std::int64_t kMaxSize = std::numeric_limits<std::int32_t>::max();

class Checker {
 public:
  Checker(const char* what, int index_base)
      : prefix_(std::string(what) + " (index base " + std::to_string(index_base) + "): ") {
    if (index_base != 0 && index_base != 1)
      throw Error(std::string(what) + ": index base " + std::to_string(index_base) + " is neither 0 nor 1");
  }
  [[noreturn]] void fail(const std::string& what) const { throw Error(prefix_ + what); }

  void sizes(std::int64_t rows, std::int64_t cols, std::int64_t nnz) const {
    if (rows < 0 || cols < 0 || nnz < 0)
      fail("negative size (" + std::to_string(rows) + " x " + std::to_string(cols) + ", " + std::to_string(nnz) +
           " entries)");
    // Entries are counted in 64 bits (the row offsets are), rows and columns in 32.
    if (rows > kMaxSize || cols > kMaxSize)
      fail(std::to_string(rows) + " x " + std::to_string(cols) + " with " + std::to_string(nnz) +
           " entries passes clkr's int32 limit of " + std::to_string(kMaxSize) + " rows or columns");
  }
  void not_null(const void* array, const char* name, bool needed) const {
    if (needed && array == nullptr) fail(std::string(name) + " is NULL");
  }

 private:
  std::string prefix_;
};

// Every check of csr_from_arrays, without copying anything (a CsrView is uploaded from the arrays
// themselves).
template <class O, class I>
void check_csr(const Checker& check, std::int64_t rows, std::int64_t cols, std::int64_t nnz, const O* row_offsets,
               const I* col_indices, const double* values, int base) {
  check.sizes(rows, cols, nnz);
  check.not_null(row_offsets, "row_offsets", true);
  check.not_null(col_indices, "col_indices", nnz > 0);
  check.not_null(values, "values", nnz > 0);
  if (row_offsets[0] != base)
    check.fail("row_offsets[0] is " + std::to_string(row_offsets[0]) + ", expected the index base " +
               std::to_string(base));
  // Offsets first, in a pass of their own, so that the entry pass never reads past the arrays.
  const std::int64_t decreasing =
      detail::first_rejected_row(rows, [&](std::int64_t r) { return row_offsets[r + 1] < row_offsets[r]; });
  if (decreasing < rows)
    check.fail("row_offsets decreases at row " + std::to_string(decreasing + base) + " (" +
               std::to_string(row_offsets[decreasing]) + " then " + std::to_string(row_offsets[decreasing + 1]) + ")");
  if (static_cast<std::int64_t>(row_offsets[rows]) - base != nnz)
    check.fail("row_offsets[rows] - index base is " +
               std::to_string(static_cast<std::int64_t>(row_offsets[rows]) - base) + " but nnz is " +
               std::to_string(nnz));
  // Row r's first defect, if any (rows are checked in parallel, the first defective one reported).
  const auto defect = [&](std::int64_t r) -> std::optional<std::string> {
    const std::int64_t begin = static_cast<std::int64_t>(row_offsets[r]) - base;
    const std::int64_t end = static_cast<std::int64_t>(row_offsets[r + 1]) - base;
    for (std::int64_t k = begin; k < end; ++k) {
      const I c = col_indices[k];
      if (c < base || static_cast<std::int64_t>(c) - base >= cols)
        return "column index " + std::to_string(c) + " in row " + std::to_string(r + base) + " out of range [" +
               std::to_string(base) + ", " + std::to_string(cols + base) + ")";
      if (k > begin && c <= col_indices[k - 1])
        return "column indices of row " + std::to_string(r + base) + " not strictly increasing (" +
               std::to_string(col_indices[k - 1]) + " then " + std::to_string(c) +
               (c == col_indices[k - 1] ? ": a duplicate)" : ": unsorted)");
      if (!std::isfinite(values[k]))
        return "non-finite value " + std::to_string(values[k]) + " at (" + std::to_string(r + base) + ", " +
               std::to_string(c) + ")";
    }
    return std::nullopt;
  };
  const std::int64_t bad = detail::first_rejected_row(rows, [&](std::int64_t r) { return defect(r).has_value(); });
  if (bad < rows) check.fail(*defect(bad));
}

template <class I>
HostCsrMatrix csr_from(std::int64_t rows, std::int64_t cols, std::int64_t nnz, const I* row_offsets,
                       const I* col_indices, const double* values, int base) {
  check_csr(Checker("CSR arrays", base), rows, cols, nnz, row_offsets, col_indices, values, base);
  HostCsrMatrix A;
  A.rows = static_cast<std::int32_t>(rows);
  A.cols = static_cast<std::int32_t>(cols);
  A.row_offsets.resize(static_cast<std::size_t>(rows) + 1);
  A.col_indices.resize(static_cast<std::size_t>(nnz));
  A.values.assign(values, values + nnz);
  for (std::int64_t r = 0; r <= rows; ++r) A.row_offsets[r] = static_cast<std::int64_t>(row_offsets[r]) - base;
  for (std::int64_t k = 0; k < nnz; ++k) A.col_indices[k] = static_cast<std::int32_t>(col_indices[k] - base);
  return A;
}

template <class I>
HostCsrMatrix coo_from(std::int64_t rows, std::int64_t cols, std::int64_t nnz, const I* row_indices,
                       const I* col_indices, const double* values, int base, std::vector<std::int64_t>* slots) {
  const Checker check("COO arrays", base);
  check.sizes(rows, cols, nnz);
  check.not_null(row_indices, "row_indices", nnz > 0);
  check.not_null(col_indices, "col_indices", nnz > 0);
  check.not_null(values, "values", nnz > 0);
  for (std::int64_t k = 0; k < nnz; ++k) {
    const I r = row_indices[k], c = col_indices[k];
    const std::string entry =
        "entry " + std::to_string(k + base) + " (" + std::to_string(r) + ", " + std::to_string(c) + ")";
    if (r < base || static_cast<std::int64_t>(r) - base >= rows)
      check.fail(entry + ": row index out of range [" + std::to_string(base) + ", " + std::to_string(rows + base) +
                 ")");
    if (c < base || static_cast<std::int64_t>(c) - base >= cols)
      check.fail(entry + ": column index out of range [" + std::to_string(base) + ", " + std::to_string(cols + base) +
                 ")");
    if (!std::isfinite(values[k])) check.fail(entry + ": non-finite value " + std::to_string(values[k]));
  }
  // Entries ordered by (row, column), stably, then runs at the same position summed into one.
  std::vector<std::int64_t> order(static_cast<std::size_t>(nnz));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    return row_indices[a] != row_indices[b] ? row_indices[a] < row_indices[b] : col_indices[a] < col_indices[b];
  });
  HostCsrMatrix A;
  A.rows = static_cast<std::int32_t>(rows);
  A.cols = static_cast<std::int32_t>(cols);
  A.row_offsets.assign(static_cast<std::size_t>(rows) + 1, 0);
  if (slots) slots->assign(static_cast<std::size_t>(nnz), 0);
  for (std::size_t i = 0; i < order.size(); ++i) {
    const std::int64_t k = order[i];
    const bool same =
        i > 0 && row_indices[order[i - 1]] == row_indices[k] && col_indices[order[i - 1]] == col_indices[k];
    if (same) {
      A.values.back() += values[k];
    } else {
      A.col_indices.push_back(static_cast<std::int32_t>(col_indices[k] - base));
      A.values.push_back(values[k]);
      ++A.row_offsets[static_cast<std::size_t>(row_indices[k] - base) + 1];
    }
    if (slots) (*slots)[static_cast<std::size_t>(k)] = static_cast<std::int64_t>(A.values.size()) - 1;
  }
  std::partial_sum(A.row_offsets.begin(), A.row_offsets.end(), A.row_offsets.begin());
  return A;
}

}  // namespace

HostCsrMatrix csr_from_arrays(std::int64_t rows, std::int64_t cols, std::int64_t nnz, const std::int32_t* row_offsets,
                              const std::int32_t* col_indices, const double* values, int index_base) {
  return csr_from(rows, cols, nnz, row_offsets, col_indices, values, index_base);
}
HostCsrMatrix csr_from_arrays(std::int64_t rows, std::int64_t cols, std::int64_t nnz, const std::int64_t* row_offsets,
                              const std::int64_t* col_indices, const double* values, int index_base) {
  return csr_from(rows, cols, nnz, row_offsets, col_indices, values, index_base);
}
HostCsrMatrix coo_to_csr(std::int64_t rows, std::int64_t cols, std::int64_t nnz, const std::int32_t* row_indices,
                         const std::int32_t* col_indices, const double* values, int index_base,
                         std::vector<std::int64_t>* entry_slots) {
  return coo_from(rows, cols, nnz, row_indices, col_indices, values, index_base, entry_slots);
}
HostCsrMatrix coo_to_csr(std::int64_t rows, std::int64_t cols, std::int64_t nnz, const std::int64_t* row_indices,
                         const std::int64_t* col_indices, const double* values, int index_base,
                         std::vector<std::int64_t>* entry_slots) {
  return coo_from(rows, cols, nnz, row_indices, col_indices, values, index_base, entry_slots);
}

CsrView csr_view_of_arrays(std::int64_t rows, std::int64_t cols, std::int64_t nnz, const std::int32_t* row_offsets,
                           const std::int32_t* col_indices, const double* values) {
  const Checker check("CSR arrays", 0);
  check.sizes(rows, cols, nnz);
  check.not_null(row_offsets, "row_offsets", true);
  check.not_null(col_indices, "col_indices", nnz > 0);
  check.not_null(values, "values", nnz > 0);
  const auto n = static_cast<std::size_t>(nnz);
  return CsrView(static_cast<std::int32_t>(rows), static_cast<std::int32_t>(cols),
                 {row_offsets, static_cast<std::size_t>(rows) + 1}, {col_indices, n}, {values, n});
}

void CsrView::validate() const {
  const Checker check("CSR arrays", 0);
  if (row_offsets.size() != static_cast<std::size_t>(std::max(rows, 0)) + 1)
    check.fail("row_offsets has " + std::to_string(row_offsets.size()) +
               " entries, expected rows + 1 = " + std::to_string(static_cast<std::int64_t>(rows) + 1));
  if (values.size() != col_indices.size())
    check.fail("values has " + std::to_string(values.size()) + " entries but col_indices has " +
               std::to_string(col_indices.size()));
  if (symmetric && rows != cols)
    check.fail("declared symmetric but not square (" + std::to_string(rows) + " x " + std::to_string(cols) + ")");
  if (row_offsets.wide())
    check_csr(check, rows, cols, nnz(), row_offsets.wide_data(), col_indices.data(), values.data(), 0);
  else
    check_csr(check, rows, cols, nnz(), row_offsets.narrow_data(), col_indices.data(), values.data(), 0);
}

HostCsrMatrix CsrView::to_host() const {
  HostCsrMatrix A;
  A.rows = rows;
  A.cols = cols;
  A.symmetric = symmetric;
  A.row_offsets.resize(row_offsets.size());
  for (std::size_t i = 0; i < row_offsets.size(); ++i) A.row_offsets[i] = row_offsets[i];
  A.col_indices.assign(col_indices.begin(), col_indices.end());
  A.values.assign(values.begin(), values.end());
  return A;
}

}  // namespace clkr
