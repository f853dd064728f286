// The row-listing reader (read_matrix_market_rows): a file's rows that hold entries and only those, so
// that nothing is allocated per declared row.
#include <algorithm>
#include <string>
#include <utility>

#include "clkr/io/matrix_market.hpp"
#include "matrix_market_input.hpp"
#include "matrix_market_parser.hpp"

namespace clkr {
using namespace detail::matrix_market;  // the reader's Parser, Header, Triples and file input

MatrixMarketRows read_matrix_market_rows(const std::string& path, const MatrixMarketOptions& options) {
  std::string data = read_file(path);
  if (is_gzip(data)) data = gunzip(data, path);
  Parser parser(data, path, options);
  const Header h = parser.read_header(false);
  MatrixMarketRows out;
  out.rows = h.rows;
  out.symmetric = h.symmetry == Symmetry::symmetric;
  Triples t = h.format == Layout::coordinate ? parser.read_coordinate(h) : parser.read_array(h);
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
  out.listed = build_csr(listed, t);
  return out;
}

}  // namespace clkr
