// Matrix Market reading: the entry points that parse text or read a file (matrix_market_input.cpp:
// the bytes, inflated), its declared size alone, or a vector. The reader takes the whole (inflated)
// file into memory, walks it line by line with std::from_chars (matrix_market_header.cpp,
// matrix_market_entries.cpp), and builds CSR by a counting sort over rows (matrix_market_csr.cpp).
// Writing: matrix_market_writer.cpp; the rows that hold entries alone: matrix_market_rows.cpp.
#include "clkr/io/matrix_market.hpp"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

#include "clkr/runtime/error.hpp"
#include "matrix_market_input.hpp"
#include "matrix_market_parser.hpp"

namespace clkr {
using namespace detail::matrix_market;  // the reader's Parser, Header, Triples and file input
namespace {

HostCsrMatrix parse_text(std::string_view text, const std::string& name, const MatrixMarketOptions& options,
                         bool expect_vector) {
  Parser parser(text, name, options);
  const Header h = parser.read_header();
  if (expect_vector && h.cols != 1)
    parser.fail_at(h.size_line,
                   "expected a vector (one column), the size line says " + std::to_string(h.cols) + " columns");
  const Triples t = h.format == Layout::coordinate ? parser.read_coordinate(h) : parser.read_array(h);
  return build_csr(h, t);
}

std::vector<double> to_dense_column(const HostCsrMatrix& A) {
  std::vector<double> v(static_cast<std::size_t>(A.rows), 0.0);
  for (std::int32_t r = 0; r < A.rows; ++r)
    for (std::int64_t k = A.row_offsets[r]; k < A.row_offsets[r + 1]; ++k) v[r] += A.values[k];
  return v;
}

}  // namespace

HostCsrMatrix parse_matrix_market(std::string_view text, const std::string& name_for_errors,
                                  const MatrixMarketOptions& options) {
  return parse_text(text, name_for_errors, options, false);
}

HostCsrMatrix read_matrix_market(const std::string& path, const MatrixMarketOptions& options) {
  std::string data = read_file(path);
  if (is_gzip(data)) data = gunzip(data, path);
  return parse_text(data, path, options, false);
}

MatrixMarketSize read_matrix_market_size(const std::string& path) {
  // zlib's gzread passes an uncompressed file through as it is, and inflates only what is asked for:
  // the first megabyte holds the banner and the size line of any file but one with a megabyte of comments.
  struct GzCloser {
    void operator()(gzFile_s* f) const { gzclose(f); }
  };
  std::unique_ptr<gzFile_s, GzCloser> file(gzopen(path.c_str(), "rb"));
  if (!file) throw Error("cannot open matrix file '" + path + "': " + std::strerror(errno));
  std::string prefix(1 << 20, '\0');
  const int got = gzread(file.get(), prefix.data(), static_cast<unsigned>(prefix.size()));
  if (got < 0) throw Error("cannot read matrix file '" + path + "'");
  prefix.resize(static_cast<std::size_t>(got));
  // Whole lines only (a prefix without any newline is left whole: the parser then names what is missing).
  if (const std::size_t last = prefix.rfind('\n'); got == (1 << 20) && last != std::string::npos)
    prefix.resize(last + 1);
  const MatrixMarketOptions options;
  Parser parser(prefix, path, options);
  const Header h = parser.read_declared_size();
  MatrixMarketSize size;
  size.rows = h.rows;
  size.cols = h.cols;
  size.entries = h.entries;
  size.mirrored = h.symmetry != Symmetry::general;
  return size;
}

std::vector<double> parse_matrix_market_array(std::string_view text, const std::string& name_for_errors,
                                              const MatrixMarketOptions& options) {
  return to_dense_column(parse_text(text, name_for_errors, options, true));
}

std::vector<double> read_matrix_market_array(const std::string& path, const MatrixMarketOptions& options) {
  std::string data = read_file(path);
  if (is_gzip(data)) data = gunzip(data, path);
  return to_dense_column(parse_text(data, path, options, true));
}

}  // namespace clkr
