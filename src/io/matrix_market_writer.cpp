// Matrix Market writing: a CSR matrix as `coordinate real general` (or `symmetric`, its lower
// triangle, once checked symmetric) and a vector as `array real general`, through a buffered writer.
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "clkr/io/matrix_market.hpp"
#include "clkr/runtime/error.hpp"
#include "matrix_market_input.hpp"
#include "matrix_market_parser.hpp"

namespace clkr {
using namespace detail::matrix_market;  // FilePtr, kInt32Max
namespace {

// Buffers output and writes it in large blocks; every failure names the file.
class Writer {
 public:
  explicit Writer(const std::string& path) : path_(path), file_(std::fopen(path.c_str(), "wb")) {
    if (!file_) throw Error("cannot write matrix file '" + path + "': " + std::strerror(errno));
    buffer_.reserve(kBlock + 128);
  }

  void text(std::string_view s) {
    buffer_.append(s);
    if (buffer_.size() >= kBlock) flush();
  }
  template <typename T>
  void number(T value, char separator) {
    char digits[64];
    char* end = std::to_chars(digits, digits + sizeof digits, value).ptr;
    *end++ = separator;
    text(std::string_view(digits, static_cast<std::size_t>(end - digits)));
  }
  void close() {
    flush();
    if (std::fclose(file_.release()) != 0)
      throw Error("cannot write matrix file '" + path_ + "': " + std::strerror(errno));
  }

 private:
  static constexpr std::size_t kBlock = 1 << 20;
  void flush() {
    if (std::fwrite(buffer_.data(), 1, buffer_.size(), file_.get()) != buffer_.size())
      throw Error("cannot write matrix file '" + path_ + "': " + std::strerror(errno));
    buffer_.clear();
  }

  std::string path_;
  FilePtr file_;
  std::string buffer_;
};

// Throws unless A(j, i) == A(i, j) for every stored entry: writing the lower triangle of a matrix
// that is not symmetric would lose the upper one without a word.
void check_symmetric(const HostCsrMatrix& A) {
  if (A.rows != A.cols)
    throw Error("write_matrix_market: cannot write a " + std::to_string(A.rows) + " x " + std::to_string(A.cols) +
                " matrix as symmetric");
  for (std::int32_t r = 0; r < A.rows; ++r) {
    for (std::int64_t k = A.row_offsets[r]; k < A.row_offsets[r + 1]; ++k) {
      const std::int32_t c = A.col_indices[k];
      const auto row_begin = A.col_indices.begin() + A.row_offsets[c];
      const auto row_end = A.col_indices.begin() + A.row_offsets[c + 1];
      const auto it = std::lower_bound(row_begin, row_end, r);
      if (it == row_end || *it != r || A.values[static_cast<std::size_t>(it - A.col_indices.begin())] != A.values[k])
        throw Error("write_matrix_market: matrix is not symmetric at (" + std::to_string(r) + ", " + std::to_string(c) +
                    ") (0-based)");
    }
  }
}

}  // namespace

void write_matrix_market(const std::string& path, const HostCsrMatrix& A, bool as_symmetric) {
  A.validate();
  if (as_symmetric) check_symmetric(A);
  std::int64_t stored = A.nnz();
  if (as_symmetric) {
    stored = 0;
    for (std::int32_t r = 0; r < A.rows; ++r)
      for (std::int64_t k = A.row_offsets[r]; k < A.row_offsets[r + 1] && A.col_indices[k] <= r; ++k) ++stored;
  }
  Writer out(path);
  out.text(as_symmetric ? "%%MatrixMarket matrix coordinate real symmetric\n"
                        : "%%MatrixMarket matrix coordinate real general\n");
  out.number(A.rows, ' ');
  out.number(A.cols, ' ');
  out.number(stored, '\n');
  for (std::int32_t r = 0; r < A.rows; ++r) {
    for (std::int64_t k = A.row_offsets[r]; k < A.row_offsets[r + 1]; ++k) {
      if (as_symmetric && A.col_indices[k] > r) break;  // columns are sorted: the rest is upper
      out.number(r + 1, ' ');
      out.number(A.col_indices[k] + 1, ' ');
      out.number(A.values[k], '\n');  // shortest form that reads back to the same double
    }
  }
  out.close();
}

void write_matrix_market_array(const std::string& path, const std::vector<double>& v) {
  if (v.size() > static_cast<std::size_t>(kInt32Max))
    throw Error("write_matrix_market_array: " + std::to_string(v.size()) + " values is more than the int32 limit");
  Writer out(path);
  out.text("%%MatrixMarket matrix array real general\n");
  out.number(v.size(), ' ');
  out.text("1\n");
  for (const double x : v) out.number(x, '\n');
  out.close();
}

}  // namespace clkr
