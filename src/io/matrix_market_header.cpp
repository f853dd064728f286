// The Matrix Market header: the banner (object, format, field, symmetry), the size line, and the
// checks of what it declares (the int32 limits, and the memory the reading will take) before any of
// the body is read.
#include <string>

#include "clkr/runtime/memory_limits.hpp"
#include "matrix_market_parser.hpp"

namespace clkr::detail::matrix_market {

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
    h.format = Layout::coordinate;
  else if (iequals(format, "array"))
    h.format = Layout::array;
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
  if (h.format == Layout::array && h.field == Field::pattern)
    fail("a pattern matrix cannot be in array format (an array lists values)");
  if (h.format == Layout::array && h.symmetry != Symmetry::general)
    fail("unsupported: array format is supported only with 'general' symmetry");

  const bool coordinate = h.format == Layout::coordinate;
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
  // A sparse matrix's entries are counted in 64 bits (its row offsets are); a dense array's values are
  // one std::vector indexed in 32.
  if (!coordinate && h.entries > kInt32Max) fail(std::to_string(h.entries) + " array values is" + int32_limit);
  if (header_only_) return h;
  // What the rest of the reading will allocate, checked before any of it is: the row offsets and the
  // counting sort's cursors (16 bytes a row, whatever the file lists: 2e9 declared rows are 32 GB),
  // and for each entry the text can hold, its triple (16 bytes) and its CSR entry (12, twice when
  // mirrored). Listing only the rows with entries costs per entry instead: a row id and its offsets (12).
  const std::int64_t stored = std::min(h.entries, bytes_left() / (coordinate ? 4 : 2) + 1);
  const std::int64_t per_entry = 16 + (h.symmetry == Symmetry::general ? 12 : 24);
  const std::int64_t need = per_row_arrays ? 16 * h.rows + 8 + stored * per_entry : stored * (per_entry + 24);
  const std::string shortfall =
      host_memory_shortfall(need, "reading " + std::to_string(h.rows) + " x " + std::to_string(h.cols) + " with " +
                                      std::to_string(h.entries) + " entries");
  if (!shortfall.empty()) fail(shortfall);
  return h;
}

}  // namespace clkr::detail::matrix_market
