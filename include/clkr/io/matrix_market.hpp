// Matrix Market (.mtx, .mtx.gz) reading and writing of sparse matrices and dense vectors.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "clkr/data/host_csr_matrix.hpp"

namespace clkr {

struct MatrixMarketOptions {
  // NaN and infinite values are an error by default: a solver fed one would only fail later, far
  // from the cause.
  bool allow_non_finite = false;
  // Files declaring more rows are refused (ParseError on the size line). The row offsets cost 8 bytes
  // a row while reading even when the file lists no entry, so a 60-byte file could otherwise ask for
  // 16 GB; lower this where input is untrusted (the fuzzer does).
  std::int64_t max_rows = std::numeric_limits<std::int32_t>::max();
};

// Reads a `matrix coordinate` (real, integer or pattern; general, symmetric or skew-symmetric) or
// `matrix array` (real or integer, general) file, gzip-compressed or not (told by the magic bytes).
// Symmetric and skew-symmetric input is expanded to full storage; duplicates are summed; explicit
// zeros are kept. Throws clkr::Error when the file cannot be read and clkr::ParseError (file and
// 1-based line) when it is malformed.
HostCsrMatrix read_matrix_market(const std::string& path, const MatrixMarketOptions& options = {});

// A file's rows that hold entries, and only those: row k of `listed` (sorted, duplicates summed, mirror
// images expanded, columns as in the file) is the file's row row_ids[k]; every other row is empty. What
// `clkr info` reads for a file declaring far more rows than entries, since nothing here is allocated per
// declared row (a 60-byte file may declare 2e9 rows). Errors as read_matrix_market's.
struct MatrixMarketRows {
  HostCsrMatrix listed;               // listed.rows = row_ids.size(), listed.cols the declared columns
  std::vector<std::int32_t> row_ids;  // increasing
  std::int64_t rows = 0;              // declared
  bool symmetric = false;             // declared symmetric (listed itself is stored as general)
};
MatrixMarketRows read_matrix_market_rows(const std::string& path, const MatrixMarketOptions& options = {});

// What a Matrix Market file declares on its size line, read without reading its body (the first
// megabyte at most, inflated): for checking the memory a solve will need before reading gigabytes.
struct MatrixMarketSize {
  std::int64_t rows = 0, cols = 0;
  std::int64_t entries = 0;  // entries listed (array: rows x cols)
  bool mirrored = false;     // symmetric or skew-symmetric: up to 2 x entries nonzeros once expanded
};
// Throws clkr::Error when the file cannot be read, clkr::ParseError for a malformed banner or size line.
MatrixMarketSize read_matrix_market_size(const std::string& path);

// The same from text in memory; `name_for_errors` stands in for the file name in error messages.
HostCsrMatrix parse_matrix_market(std::string_view text, const std::string& name_for_errors,
                                  const MatrixMarketOptions& options = {});

// Reads a vector (a right-hand side): an `array` file with one column, or a `coordinate` file with
// one column (missing entries are zero).
std::vector<double> read_matrix_market_array(const std::string& path, const MatrixMarketOptions& options = {});
std::vector<double> parse_matrix_market_array(std::string_view text, const std::string& name_for_errors,
                                              const MatrixMarketOptions& options = {});

// Writes `coordinate real general`, or with `as_symmetric` `coordinate real symmetric` holding the
// lower triangle (throws clkr::Error if A is not square and symmetric). Values are written in the
// shortest form that reads back to the same double.
void write_matrix_market(const std::string& path, const HostCsrMatrix& A, bool as_symmetric = false);

// Writes `array real general` with one column.
void write_matrix_market_array(const std::string& path, const std::vector<double>& v);

}  // namespace clkr
