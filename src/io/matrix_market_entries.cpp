// The Matrix Market entries: the data lines of a coordinate file (row, column, value) or of an array
// file (one value a line, column-major), with their indices and values checked as they are read.
#include <charconv>
#include <cmath>
#include <string>
#include <system_error>

#include "matrix_market_parser.hpp"

namespace clkr::detail::matrix_market {

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

}  // namespace clkr::detail::matrix_market
