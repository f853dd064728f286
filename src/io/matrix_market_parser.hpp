// Internal to src/io: what the Matrix Market reader makes of a file (its header, its entries as
// listed) and the Parser that walks the text (matrix_market_header.cpp: the banner and the size line;
// matrix_market_entries.cpp: the entries), and the CSR build from the entries (matrix_market_csr.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "clkr/io/matrix_market.hpp"
#include "clkr/runtime/error.hpp"
#include "matrix_market_tokens.hpp"

namespace clkr::detail::matrix_market {

constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();

// The banner's format word: "coordinate" (triples) or "array" (dense, column-major); not clkr::Format.
enum class Layout { coordinate, array };
enum class Field { real, integer, pattern };
enum class Symmetry { general, symmetric, skew_symmetric };

struct Header {
  Layout format = Layout::coordinate;
  Field field = Field::real;
  Symmetry symmetry = Symmetry::general;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t entries = 0;  // lines of data the file must hold
  std::size_t size_line = 0;
};

// Entries as listed in the file (0-based), before expansion and the CSR build.
struct Triples {
  std::vector<std::int32_t> row;
  std::vector<std::int32_t> col;
  std::vector<double> val;

  void reserve(std::int64_t n) {
    row.reserve(static_cast<std::size_t>(n));
    col.reserve(static_cast<std::size_t>(n));
    val.reserve(static_cast<std::size_t>(n));
  }
  void push(std::int32_t r, std::int32_t c, double v) {
    row.push_back(r);
    col.push_back(c);
    val.push_back(v);
  }
};

// Walks the text line by line and turns it into triples, throwing ParseError at the first defect.
class Parser {
 public:
  Parser(std::string_view text, const std::string& name, const MatrixMarketOptions& options)
      : text_(text), name_(name), options_(options) {}

  // per_row_arrays: the reading will build arrays of one entry per declared row (the CSR row offsets),
  // which the memory check counts; false for read_matrix_market_rows, which allocates per entry only.
  Header read_header(bool per_row_arrays = true);
  // Reads only the banner and the size line (of a prefix of the file): no memory check, no body.
  Header read_declared_size() {
    header_only_ = true;
    return read_header();
  }
  Triples read_coordinate(const Header& h);
  Triples read_array(const Header& h);

  [[noreturn]] void fail(const std::string& what) const { throw ParseError(name_, line_, what); }
  [[noreturn]] void fail_at(std::size_t line, const std::string& what) const { throw ParseError(name_, line, what); }

 private:
  // Advances to the next line (without its '\n'); false at the end of the text.
  bool next_line(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    const char* begin = text_.data() + pos_;
    const std::size_t left = text_.size() - pos_;
    const void* newline = std::memchr(begin, '\n', left);
    const std::size_t length = newline ? static_cast<std::size_t>(static_cast<const char*>(newline) - begin) : left;
    line = std::string_view(begin, length);
    pos_ += length + 1;
    ++line_;
    return true;
  }

  // Advances past blank and comment lines to the next line that holds data.
  bool next_data_line(std::string_view& line) {
    while (next_line(line)) {
      std::size_t i = 0;
      while (i < line.size() && is_space(line[i])) ++i;
      if (i < line.size() && line[i] != '%') return true;
    }
    return false;
  }

  // Where content that is missing was expected: the line after the last one.
  std::size_t line_after_end() const { return line_ + 1; }
  std::int64_t bytes_left() const { return static_cast<std::int64_t>(text_.size() - std::min(pos_, text_.size())); }

  std::int32_t parse_index(std::string_view token, const char* what, std::int64_t bound) const;
  double parse_value(std::string_view token, Field field) const;

  std::string_view text_;
  const std::string& name_;
  const MatrixMarketOptions& options_;
  std::size_t pos_ = 0;   // offset of the next line
  std::size_t line_ = 0;  // 1-based number of the line last read
  bool header_only_ = false;
};

// Counting sort of the triples (and their mirror images) into rows, then a sort within the rows that
// need it and the summing of duplicates.
HostCsrMatrix build_csr(const Header& h, const Triples& t);

}  // namespace clkr::detail::matrix_market
