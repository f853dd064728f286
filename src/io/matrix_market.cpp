// Matrix Market reader and writer. The reader takes the whole (inflated) file into memory, walks it
// line by line with std::from_chars, and builds CSR by a counting sort over rows.
#include "clkr/io/matrix_market.hpp"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <system_error>
#include <utility>

#include "clkr/runtime/error.hpp"
#include "clkr/runtime/memory_limits.hpp"

namespace clkr {
namespace {

constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();

enum class Format { coordinate, array };
enum class Field { real, integer, pattern };
enum class Symmetry { general, symmetric, skew_symmetric };

struct Header {
  Format format = Format::coordinate;
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

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// A token for an error message, cut short so that a binary blob cannot make a megabyte message.
std::string quote(std::string_view token) {
  constexpr std::size_t kMax = 40;
  if (token.size() <= kMax) return "'" + std::string(token) + "'";
  return "'" + std::string(token.substr(0, kMax)) + "...'";
}

// Splits one line into whitespace-separated tokens; an empty view means the line is exhausted.
class Tokens {
 public:
  explicit Tokens(std::string_view line) : p_(line.data()), end_(line.data() + line.size()) {}

  std::string_view next() {
    while (p_ < end_ && is_space(*p_)) ++p_;
    const char* begin = p_;
    while (p_ < end_ && !is_space(*p_)) ++p_;
    return {begin, static_cast<std::size_t>(p_ - begin)};
  }

 private:
  const char* p_;
  const char* end_;
};

enum class NumberStatus { ok, invalid, out_of_range };

// from_chars rejects a leading '+', which scanf-based readers (the reference mmio.c among them)
// accept, so files in the wild may carry one.
std::string_view without_plus(std::string_view token) {
  if (token.size() > 1 && token[0] == '+' && token[1] != '-') token.remove_prefix(1);
  return token;
}

// Parses the whole token as an integer.
NumberStatus parse_int(std::string_view token, std::int64_t& value) {
  token = without_plus(token);
  const char* end = token.data() + token.size();
  const auto [ptr, ec] = std::from_chars(token.data(), end, value);
  if (ec == std::errc::result_out_of_range) return NumberStatus::out_of_range;
  return ec == std::errc() && ptr == end && !token.empty() ? NumberStatus::ok : NumberStatus::invalid;
}

// from_chars reports result_out_of_range both for overflow and for values too small even for a
// subnormal; the decimal order of magnitude of the token tells which.
bool is_underflow(std::string_view token) {
  std::size_t i = 0;
  if (i < token.size() && (token[i] == '+' || token[i] == '-')) ++i;
  std::int64_t magnitude = 0;  // decimal exponent of the leading nonzero digit, roughly
  bool after_point = false;
  bool seen_nonzero = false;
  for (; i < token.size(); ++i) {
    const char c = token[i];
    if (c == '.') {
      after_point = true;
    } else if (c >= '0' && c <= '9') {
      seen_nonzero = seen_nonzero || c != '0';
      if (!after_point && seen_nonzero) ++magnitude;
      if (after_point && !seen_nonzero) --magnitude;
    } else {
      break;
    }
  }
  std::int64_t exponent = 0;
  if (i < token.size() && (token[i] == 'e' || token[i] == 'E')) {
    std::string_view digits = token.substr(i + 1);
    const bool negative = !digits.empty() && digits[0] == '-';
    if (parse_int(digits, exponent) == NumberStatus::out_of_range)
      exponent = negative ? std::numeric_limits<std::int64_t>::min() / 2 : std::numeric_limits<std::int64_t>::max() / 2;
  }
  return magnitude + exponent < 0;
}

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

Header Parser::read_header(bool per_row_arrays) {
  Header h;
  std::string_view line;
  if (text_.empty()) fail_at(1, "empty file");
  next_line(line);
  constexpr const char* kExpected =
      "expected '%%MatrixMarket matrix <coordinate|array> <real|integer|pattern> "
      "<general|symmetric|skew-symmetric>'";
  Tokens banner(line);
  const std::string_view magic = banner.next();
  if (!iequals(magic, "%%MatrixMarket"))
    fail("missing Matrix Market banner: the first line is not '%%MatrixMarket ...' (" + std::string(kExpected) + ")");
  const std::string_view object = banner.next();
  const std::string_view format = banner.next();
  const std::string_view field = banner.next();
  const std::string_view symmetry = banner.next();
  if (symmetry.empty()) fail("malformed banner: too few words, " + std::string(kExpected));
  const std::string_view extra = banner.next();
  if (!extra.empty()) fail("malformed banner: extra word " + quote(extra) + ", " + kExpected);

  if (!iequals(object, "matrix")) fail("unsupported object " + quote(object) + ": only 'matrix' is supported");
  if (iequals(format, "coordinate"))
    h.format = Format::coordinate;
  else if (iequals(format, "array"))
    h.format = Format::array;
  else
    fail("unsupported format " + quote(format) + ": expected 'coordinate' or 'array'");
  if (iequals(field, "real"))
    h.field = Field::real;
  else if (iequals(field, "integer"))
    h.field = Field::integer;
  else if (iequals(field, "pattern"))
    h.field = Field::pattern;
  else if (iequals(field, "complex"))
    fail("unsupported field 'complex': complex matrices are not supported");
  else
    fail("unsupported field " + quote(field) + ": expected 'real', 'integer' or 'pattern'");
  if (iequals(symmetry, "general"))
    h.symmetry = Symmetry::general;
  else if (iequals(symmetry, "symmetric"))
    h.symmetry = Symmetry::symmetric;
  else if (iequals(symmetry, "skew-symmetric"))
    h.symmetry = Symmetry::skew_symmetric;
  else if (iequals(symmetry, "hermitian"))
    fail("unsupported symmetry 'hermitian': only real matrices are supported");
  else
    fail("unsupported symmetry " + quote(symmetry) + ": expected 'general', 'symmetric' or 'skew-symmetric'");
  if (h.format == Format::array && h.field == Field::pattern)
    fail("a pattern matrix cannot be in array format (an array lists values)");
  if (h.format == Format::array && h.symmetry != Symmetry::general)
    fail("unsupported: array format is supported only with 'general' symmetry");

  const bool coordinate = h.format == Format::coordinate;
  const char* size_shape = coordinate ? "'rows cols entries'" : "'rows cols'";
  if (!next_data_line(line))
    fail_at(line_after_end(), std::string("size line missing: expected ") + size_shape + " after the banner");
  h.size_line = line_;
  Tokens size_tokens(line);
  std::int64_t sizes[3] = {0, 0, 0};
  const int wanted = coordinate ? 3 : 2;
  const char* names[3] = {"rows", "cols", "entries"};
  for (int i = 0; i < wanted; ++i) {
    const std::string_view token = size_tokens.next();
    if (token.empty())
      fail("malformed size line: expected " + std::string(size_shape) + ", found " + std::to_string(i) + " number(s)");
    const NumberStatus status = parse_int(token, sizes[i]);
    if (status == NumberStatus::invalid)
      fail("malformed size line: " + std::string(names[i]) + " " + quote(token) + " is not an integer");
    if (status == NumberStatus::out_of_range)
      fail("malformed size line: " + std::string(names[i]) + " " + quote(token) + " is out of range");
    if (sizes[i] < 0)
      fail("negative size on the size line: " + std::string(names[i]) + " = " + std::to_string(sizes[i]));
  }
  const std::string_view extra_size = size_tokens.next();
  if (!extra_size.empty()) fail("malformed size line: extra token " + quote(extra_size) + ", expected " + size_shape);
  h.rows = sizes[0];
  h.cols = sizes[1];
  const std::string int32_limit = " more than the int32 limit " + std::to_string(kInt32Max);
  if (h.rows > kInt32Max) fail(std::to_string(h.rows) + " rows is" + int32_limit);
  if (h.rows > options_.max_rows)
    fail(std::to_string(h.rows) +
         " rows is more than MatrixMarketOptions::max_rows = " + std::to_string(options_.max_rows));
  if (h.cols > kInt32Max) fail(std::to_string(h.cols) + " columns is" + int32_limit);
  if (h.symmetry != Symmetry::general && h.rows != h.cols)
    fail(std::string(h.symmetry == Symmetry::symmetric ? "symmetric" : "skew-symmetric") +
         " matrix must be square, the size line says " + std::to_string(h.rows) + " x " + std::to_string(h.cols));
  h.entries = coordinate ? sizes[2] : h.rows * h.cols;
  if (h.entries > kInt32Max)
    fail(std::to_string(h.entries) + (coordinate ? " entries is" : " array values is") + int32_limit);
  // The expansion mirrors every off-diagonal entry, and at most `rows` entries lie on the diagonal: a
  // file bound to overflow is rejected here rather than after reading gigabytes.
  if (h.symmetry != Symmetry::general) {
    const std::int64_t least_nnz = 2 * h.entries - std::min(h.entries, h.rows);
    if (least_nnz > kInt32Max)
      fail(std::to_string(h.entries) + " entries give at least " + std::to_string(least_nnz) +
           " nonzeros after symmetric expansion," + int32_limit);
  }
  if (header_only_) return h;
  // What the rest of the reading will allocate, checked before any of it is: the row offsets and the
  // counting sort's cursors (8 bytes a row, whatever the file lists: 2e9 declared rows are 16 GB),
  // and for each entry the text can hold, its triple (16 bytes) and its CSR entry (12, twice when
  // mirrored). Listing only the rows with entries costs per entry instead: a row id and its offsets (12).
  const std::int64_t stored = std::min(h.entries, bytes_left() / (coordinate ? 4 : 2) + 1);
  const std::int64_t per_entry = 16 + (h.symmetry == Symmetry::general ? 12 : 24);
  const std::int64_t need = per_row_arrays ? 8 * h.rows + 4 + stored * per_entry : stored * (per_entry + 24);
  const std::string shortfall =
      host_memory_shortfall(need, "reading " + std::to_string(h.rows) + " x " + std::to_string(h.cols) + " with " +
                                      std::to_string(h.entries) + " entries");
  if (!shortfall.empty()) fail(shortfall);
  return h;
}

std::int32_t Parser::parse_index(std::string_view token, const char* what, std::int64_t bound) const {
  std::int64_t index = 0;
  const NumberStatus status = parse_int(token, index);
  if (status == NumberStatus::ok && index >= 1 && index <= bound) return static_cast<std::int32_t>(index - 1);
  if (status == NumberStatus::invalid) fail(std::string("non-numeric ") + what + " index " + quote(token));
  const std::string range = " out of range [1, " + std::to_string(bound) + "]";
  if (status == NumberStatus::out_of_range) fail(std::string(what) + " index " + quote(token) + range);
  fail(std::string(what) + " index " + std::to_string(index) + range +
       (index == 0 ? " (Matrix Market indices are 1-based)" : ""));
}

double Parser::parse_value(std::string_view token, Field field) const {
  if (field == Field::integer) {
    std::int64_t value = 0;
    const NumberStatus status = parse_int(token, value);
    if (status == NumberStatus::invalid) fail("non-numeric value " + quote(token) + ": expected an integer");
    if (status == NumberStatus::out_of_range) fail("integer value " + quote(token) + " is out of range");
    return static_cast<double>(value);
  }
  const std::string_view digits = without_plus(token);
  const char* end = digits.data() + digits.size();
  double value = 0;
  const auto [ptr, ec] = std::from_chars(digits.data(), end, value);
  if (ec == std::errc::result_out_of_range && ptr == end) {
    const bool negative = digits[0] == '-';
    if (is_underflow(digits)) return negative ? -0.0 : 0.0;
    if (!options_.allow_non_finite)
      fail("value " + quote(token) + " overflows double (MatrixMarketOptions::allow_non_finite reads it as infinity)");
    return negative ? -HUGE_VAL : HUGE_VAL;
  }
  if (ec != std::errc() || ptr != end) fail("non-numeric value " + quote(token));
  if (!options_.allow_non_finite && !std::isfinite(value))
    fail(std::string(std::isnan(value) ? "NaN" : "infinite") + " value " + quote(token) +
         " (MatrixMarketOptions::allow_non_finite accepts it)");
  return value;
}

Triples Parser::read_coordinate(const Header& h) {
  Triples t;
  // A data line takes at least 4 bytes ("1 1\n"): a size line that promises more entries than the
  // text can hold must not make us reserve memory for them.
  t.reserve(std::min(h.entries, bytes_left() / 4 + 1));
  const bool has_value = h.field != Field::pattern;
  const char* shape = has_value ? "'row col value'" : "'row col'";
  std::string_view line;
  std::int64_t found = 0;
  while (next_data_line(line)) {
    if (found == h.entries) fail("too many entries: the size line declares " + std::to_string(h.entries));
    Tokens tokens(line);
    const std::int32_t r = parse_index(tokens.next(), "row", h.rows);
    const std::string_view col_token = tokens.next();
    if (col_token.empty()) fail(std::string("missing column index: expected ") + shape);
    const std::int32_t c = parse_index(col_token, "column", h.cols);
    double value = 1.0;
    if (has_value) {
      const std::string_view value_token = tokens.next();
      if (value_token.empty()) fail(std::string("missing value: expected ") + shape);
      value = parse_value(value_token, h.field);
    }
    const std::string_view extra = tokens.next();
    if (!extra.empty()) fail("extra token " + quote(extra) + " after the entry, expected " + shape);
    if (h.symmetry != Symmetry::general && (c > r || (c == r && h.symmetry == Symmetry::skew_symmetric))) {
      const std::string at = "(" + std::to_string(r + 1) + ", " + std::to_string(c + 1) + ")";
      if (c > r)
        fail("entry " + at +
             " is above the diagonal: a symmetric or skew-symmetric file stores only the lower triangle");
      fail("diagonal entry " + at + " in a skew-symmetric file (its diagonal is zero and not stored)");
    }
    t.push(r, c, value);
    ++found;
  }
  if (found < h.entries)
    fail_at(line_after_end(),
            "truncated: expected " + std::to_string(h.entries) + " entries, found " + std::to_string(found));
  return t;
}

Triples Parser::read_array(const Header& h) {
  Triples t;
  t.reserve(std::min(h.entries, bytes_left() / 2 + 1));  // a value line takes at least 2 bytes
  std::string_view line;
  std::int64_t found = 0;
  while (next_data_line(line)) {
    if (found == h.entries)
      fail("too many values: the size line declares " + std::to_string(h.rows) + " x " + std::to_string(h.cols));
    Tokens tokens(line);
    const double value = parse_value(tokens.next(), h.field);
    const std::string_view extra = tokens.next();
    if (!extra.empty()) fail("extra token " + quote(extra) + ": an array file has one value per line");
    // Column-major order: the row changes fastest.
    t.push(static_cast<std::int32_t>(found % h.rows), static_cast<std::int32_t>(found / h.rows), value);
    ++found;
  }
  if (found < h.entries)
    fail_at(line_after_end(),
            "truncated: expected " + std::to_string(h.entries) + " entries, found " + std::to_string(found));
  return t;
}

// Counting sort of the triples (and their mirror images) into rows, then a sort within the rows that
// need it and the summing of duplicates.
HostCsrMatrix build_csr(const Header& h, const Triples& t, const Parser& parser) {
  const bool mirror = h.symmetry != Symmetry::general;
  const bool negate_mirror = h.symmetry == Symmetry::skew_symmetric;
  const std::size_t n = t.row.size();
  std::int64_t total = static_cast<std::int64_t>(n);
  if (mirror)
    for (std::size_t k = 0; k < n; ++k) total += t.row[k] != t.col[k];
  if (total > kInt32Max)
    parser.fail_at(h.size_line, "the matrix has " + std::to_string(total) +
                                    " nonzeros after symmetric expansion, more than the int32 limit " +
                                    std::to_string(kInt32Max));

  HostCsrMatrix A;
  A.rows = static_cast<std::int32_t>(h.rows);
  A.cols = static_cast<std::int32_t>(h.cols);
  A.symmetric = h.symmetry == Symmetry::symmetric;
  std::vector<std::int32_t>& offsets = A.row_offsets;
  offsets.assign(static_cast<std::size_t>(A.rows) + 1, 0);
  for (std::size_t k = 0; k < n; ++k) {
    ++offsets[t.row[k] + 1];
    if (mirror && t.row[k] != t.col[k]) ++offsets[t.col[k] + 1];
  }
  for (std::int32_t r = 0; r < A.rows; ++r) offsets[r + 1] += offsets[r];

  std::vector<std::int32_t>& cols = A.col_indices;
  std::vector<double>& vals = A.values;
  cols.resize(static_cast<std::size_t>(total));
  vals.resize(static_cast<std::size_t>(total));
  std::vector<std::int32_t> next(offsets.begin(), offsets.end() - 1);
  for (std::size_t k = 0; k < n; ++k) {
    const std::int32_t r = t.row[k], c = t.col[k];
    std::int32_t slot = next[r]++;
    cols[slot] = c;
    vals[slot] = t.val[k];
    if (mirror && r != c) {
      slot = next[c]++;
      cols[slot] = r;
      vals[slot] = negate_mirror ? -t.val[k] : t.val[k];
    }
  }

  // Rows are compacted in place (duplicates summed), so the write position never passes the read one.
  // The counting sort is stable, so files listed in column-major order (as SuiteSparse writes them)
  // arrive with sorted rows and take the fast path.
  std::vector<std::pair<std::int32_t, double>> scratch;
  std::int32_t write = 0;
  for (std::int32_t r = 0; r < A.rows; ++r) {
    const std::int32_t begin = offsets[r], end = offsets[r + 1];
    offsets[r] = write;
    bool strictly_sorted = true;
    for (std::int32_t k = begin + 1; k < end && strictly_sorted; ++k) strictly_sorted = cols[k - 1] < cols[k];
    if (strictly_sorted) {
      if (write != begin) {
        std::copy(cols.begin() + begin, cols.begin() + end, cols.begin() + write);
        std::copy(vals.begin() + begin, vals.begin() + end, vals.begin() + write);
      }
      write += end - begin;
      continue;
    }
    scratch.clear();
    for (std::int32_t k = begin; k < end; ++k) scratch.emplace_back(cols[k], vals[k]);
    // Stable, so that duplicates are summed in file order.
    std::stable_sort(scratch.begin(), scratch.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::size_t k = 0; k < scratch.size(); ++k) {
      if (k > 0 && scratch[k].first == scratch[k - 1].first) {
        vals[write - 1] += scratch[k].second;
      } else {
        cols[write] = scratch[k].first;
        vals[write] = scratch[k].second;
        ++write;
      }
    }
  }
  offsets[A.rows] = write;
  if (write < total) {
    cols.resize(write);
    cols.shrink_to_fit();
    vals.resize(write);
    vals.shrink_to_fit();
  }
  return A;
}

HostCsrMatrix parse_text(std::string_view text, const std::string& name, const MatrixMarketOptions& options,
                         bool expect_vector) {
  Parser parser(text, name, options);
  const Header h = parser.read_header();
  if (expect_vector && h.cols != 1)
    parser.fail_at(h.size_line,
                   "expected a vector (one column), the size line says " + std::to_string(h.cols) + " columns");
  const Triples t = h.format == Format::coordinate ? parser.read_coordinate(h) : parser.read_array(h);
  return build_csr(h, t, parser);
}

std::vector<double> to_dense_column(const HostCsrMatrix& A) {
  std::vector<double> v(static_cast<std::size_t>(A.rows), 0.0);
  for (std::int32_t r = 0; r < A.rows; ++r)
    for (std::int32_t k = A.row_offsets[r]; k < A.row_offsets[r + 1]; ++k) v[r] += A.values[k];
  return v;
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

std::string read_file(const std::string& path) {
  FilePtr file(std::fopen(path.c_str(), "rb"));
  if (!file) throw Error("cannot open matrix file '" + path + "': " + std::strerror(errno));
  std::string data;
  std::error_code size_error;
  const auto size = std::filesystem::file_size(path, size_error);
  if (!size_error) {
    data.resize(size);
    data.resize(std::fread(data.data(), 1, data.size(), file.get()));
  }
  // Whatever the size said (a pipe, a file still growing), read on to the end.
  char chunk[1 << 16];
  std::size_t got = 0;
  while ((got = std::fread(chunk, 1, sizeof chunk, file.get())) > 0) data.append(chunk, got);
  if (std::ferror(file.get())) throw Error("cannot read matrix file '" + path + "': " + std::strerror(errno));
  return data;
}

bool is_gzip(std::string_view data) {
  return data.size() >= 2 && static_cast<unsigned char>(data[0]) == 0x1f && static_cast<unsigned char>(data[1]) == 0x8b;
}

// Inflates a whole gzip file (several concatenated members too, as `cat a.gz b.gz` makes). The text is
// held whole, so it may grow only within the host's memory limit: a small file that inflates to more
// (a compression bomb, or a matrix too large for this machine) is refused when its text outgrows the
// limit, with both named, instead of running the machine out of memory.
std::string gunzip(std::string_view compressed, const std::string& path) {
  struct Stream {
    z_stream z{};
    ~Stream() { inflateEnd(&z); }
  } stream;
  z_stream& z = stream.z;
  if (inflateInit2(&z, 15 + 16) != Z_OK) throw Error("cannot initialise zlib to read '" + path + "'");
  std::string out;
  std::size_t in_pos = 0, out_pos = 0;
  auto grow = [&](std::size_t size) {
    const std::string shortfall = host_memory_shortfall(
        static_cast<std::int64_t>(size),
        "inflating '" + path + "' (" + bytes_for_message(static_cast<std::int64_t>(out_pos)) + " of text so far)");
    if (!shortfall.empty()) throw Error(shortfall);
    out.resize(size);
  };
  grow(std::max<std::size_t>(compressed.size() * 4, 1 << 16));
  constexpr std::size_t kChunk = 1u << 30;  // zlib counts in uInt
  auto fail = [&](const std::string& what) {
    const auto lines = std::count(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(out_pos), '\n');
    throw ParseError(path, static_cast<std::size_t>(lines) + 1, what);
  };
  for (;;) {
    if (out_pos == out.size()) grow(out.size() * 2);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data() + in_pos));
    z.avail_in = static_cast<uInt>(std::min(compressed.size() - in_pos, kChunk));
    z.next_out = reinterpret_cast<Bytef*>(out.data() + out_pos);
    z.avail_out = static_cast<uInt>(std::min(out.size() - out_pos, kChunk));
    const uInt in_before = z.avail_in, out_before = z.avail_out;
    const int status = inflate(&z, Z_NO_FLUSH);
    in_pos += in_before - z.avail_in;
    out_pos += out_before - z.avail_out;
    if (status == Z_STREAM_END) {
      // Another member follows, or the rest is trailing bytes that gzip(1) also ignores.
      if (!is_gzip(compressed.substr(in_pos))) break;
      inflateReset(&z);
    } else if (status == Z_BUF_ERROR && in_pos == compressed.size()) {
      fail("truncated gzip data");
    } else if (status != Z_OK && status != Z_BUF_ERROR) {
      fail(std::string("corrupt gzip data: ") + (z.msg ? z.msg : "zlib error " + std::to_string(status)));
    }
  }
  out.resize(out_pos);
  return out;
}

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
    for (std::int32_t k = A.row_offsets[r]; k < A.row_offsets[r + 1]; ++k) {
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

HostCsrMatrix parse_matrix_market(std::string_view text, const std::string& name_for_errors,
                                  const MatrixMarketOptions& options) {
  return parse_text(text, name_for_errors, options, false);
}

HostCsrMatrix read_matrix_market(const std::string& path, const MatrixMarketOptions& options) {
  std::string data = read_file(path);
  if (is_gzip(data)) data = gunzip(data, path);
  return parse_text(data, path, options, false);
}

MatrixMarketRows read_matrix_market_rows(const std::string& path, const MatrixMarketOptions& options) {
  std::string data = read_file(path);
  if (is_gzip(data)) data = gunzip(data, path);
  Parser parser(data, path, options);
  const Header h = parser.read_header(false);
  MatrixMarketRows out;
  out.rows = h.rows;
  out.symmetric = h.symmetry == Symmetry::symmetric;
  Triples t = h.format == Format::coordinate ? parser.read_coordinate(h) : parser.read_array(h);
  // Mirror images as entries of their own, in the order build_csr would place them (each right after
  // its entry, so that duplicates are summed in the same order), since the rows they land in must be
  // listed too.
  if (h.symmetry != Symmetry::general) {
    Triples expanded;
    expanded.reserve(2 * static_cast<std::int64_t>(t.row.size()));
    for (std::size_t k = 0; k < t.row.size(); ++k) {
      expanded.push(t.row[k], t.col[k], t.val[k]);
      if (t.row[k] != t.col[k])
        expanded.push(t.col[k], t.row[k], h.symmetry == Symmetry::skew_symmetric ? -t.val[k] : t.val[k]);
    }
    t = std::move(expanded);
  }
  out.row_ids = t.row;
  std::sort(out.row_ids.begin(), out.row_ids.end());
  out.row_ids.erase(std::unique(out.row_ids.begin(), out.row_ids.end()), out.row_ids.end());
  for (std::int32_t& r : t.row)
    r = static_cast<std::int32_t>(std::lower_bound(out.row_ids.begin(), out.row_ids.end(), r) - out.row_ids.begin());
  Header listed = h;
  listed.rows = static_cast<std::int64_t>(out.row_ids.size());
  listed.symmetry = Symmetry::general;
  out.listed = build_csr(listed, t, parser);
  return out;
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

void write_matrix_market(const std::string& path, const HostCsrMatrix& A, bool as_symmetric) {
  A.validate();
  if (as_symmetric) check_symmetric(A);
  std::int64_t stored = A.nnz();
  if (as_symmetric) {
    stored = 0;
    for (std::int32_t r = 0; r < A.rows; ++r)
      for (std::int32_t k = A.row_offsets[r]; k < A.row_offsets[r + 1] && A.col_indices[k] <= r; ++k) ++stored;
  }
  Writer out(path);
  out.text(as_symmetric ? "%%MatrixMarket matrix coordinate real symmetric\n"
                        : "%%MatrixMarket matrix coordinate real general\n");
  out.number(A.rows, ' ');
  out.number(A.cols, ' ');
  out.number(stored, '\n');
  for (std::int32_t r = 0; r < A.rows; ++r) {
    for (std::int32_t k = A.row_offsets[r]; k < A.row_offsets[r + 1]; ++k) {
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
