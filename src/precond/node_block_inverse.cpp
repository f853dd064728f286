// Node blocks gathered from A's rows, inverted by Cholesky (nodes are small: 1-6 unknowns of a mesh
// point, as many coarse unknowns as near-null-space vectors), and Gershgorin's bound on B^-1 A.
#include "node_block_inverse.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "../runtime/format_number.hpp"
#include "clkr/runtime/error.hpp"

namespace clkr::detail {
namespace {

// From 2^20 multiply-adds (~0.5 ms on one core) the nodes are shared out over the cores: a team's
// start costs about 0.4 ms on the 16-core H200 host (host_threads.hpp), more than a coarse level's
// blocks take on one core.
constexpr std::int64_t kParallelWork = std::int64_t{1} << 20;

// Cholesky of the m x m block `a` (row-major, lower triangle read) and its inverse into `inv`
// (row-major, full); `x` is scratch. False where a pivot is not positive and finite.
bool invert_spd(std::vector<double>& a, int m, double* inv, std::vector<double>& x) {
  if (m == 1) {  // a single unknown: exactly the point smoother's 1 / a_ii
    inv[0] = 1.0 / a[0];
    return a[0] > 0 && std::isfinite(inv[0]);
  }
  for (int j = 0; j < m; ++j) {
    double d = a[j * m + j];
    for (int k = 0; k < j; ++k) d -= a[j * m + k] * a[j * m + k];
    if (!(d > 0) || !std::isfinite(d)) return false;
    a[j * m + j] = std::sqrt(d);
    for (int i = j + 1; i < m; ++i) {
      double s = a[i * m + j];
      for (int k = 0; k < j; ++k) s -= a[i * m + k] * a[j * m + k];
      a[i * m + j] = s / a[j * m + j];
    }
  }
  // Column c of the inverse: L y = e_c, then L^T x = y.
  x.resize(static_cast<std::size_t>(m));
  for (int c = 0; c < m; ++c) {
    for (int i = 0; i < m; ++i) {
      double s = i == c ? 1.0 : 0.0;
      for (int k = 0; k < i; ++k) s -= a[i * m + k] * x[k];
      x[i] = s / a[i * m + i];
    }
    for (int i = m - 1; i >= 0; --i) {
      double s = x[i];
      for (int k = i + 1; k < m; ++k) s -= a[k * m + i] * x[k];
      x[i] = s / a[i * m + i];
    }
    for (int i = 0; i < m; ++i) inv[i * m + c] = x[i];
  }
  return true;
}

// Where the node's own columns s .. e - 1 start within its rows' columns, when rows s .. e - 1 all have
// the same columns and those hold the own ones as a run; -1 otherwise. (Most mesh nodes: their rows
// reach the same unknowns. The general path gathers the rows into a dense copy through a column map,
// which took half of refresh's time.)
std::int64_t shared_pattern_own_columns(const HostCsrMatrix& A, std::int32_t s, std::int32_t e) {
  const std::int64_t first = A.row_offsets[s], length = A.row_offsets[s + 1] - first;
  const std::int32_t* cols = A.col_indices.data();
  for (std::int32_t i = s + 1; i < e; ++i)
    if (!A.same_columns(i, s)) return -1;
  const std::int64_t own = std::lower_bound(cols + first, cols + first + length, s) - (cols + first);
  // Columns ascend without repeats, so s at `own` and e - 1 at own + m - 1 put every own column between.
  const std::int64_t m = e - s;
  if (own + m > length || cols[first + own] != s || cols[first + own + m - 1] != e - 1) return -1;
  return own;
}

}  // namespace

NodeBlockInverse::NodeBlockInverse(const HostCsrMatrix& A, std::vector<std::int32_t> offsets, int level,
                                   NodeBlockExtras extras)
    : offsets_(std::move(offsets)), level_(level), extras_(std::move(extras)) {
  const std::string where = " (level " + std::to_string(level) + ")";
  if (offsets_.empty() || offsets_.front() != 0 || offsets_.back() != A.rows)
    throw Error("node blocks" + where + ": the node offsets must run from 0 to the " + std::to_string(A.rows) +
                " rows");
  if (!extras_.added_diagonal.empty() && extras_.added_diagonal.size() != static_cast<std::size_t>(A.rows))
    throw Error("node blocks" + where + ": " + std::to_string(extras_.added_diagonal.size()) +
                " values to add to the diagonal of " + std::to_string(A.rows) + " rows");
  inverse_.rows = inverse_.cols = A.rows;
  inverse_.row_offsets.assign(1, 0);
  inverse_.row_offsets.reserve(static_cast<std::size_t>(A.rows) + 1);
  for (std::size_t k = 0; k + 1 < offsets_.size(); ++k) {
    const std::int32_t s = offsets_[k], e = offsets_[k + 1];
    if (e <= s)
      throw Error("node blocks" + where + ": node " + std::to_string(k) + " is empty (offsets must increase)");
    for (std::int32_t i = s; i < e; ++i) {
      inverse_.row_offsets.push_back(inverse_.row_offsets.back() + (e - s));
      for (std::int32_t j = s; j < e; ++j) inverse_.col_indices.push_back(j);
    }
  }
  inverse_.values.assign(inverse_.col_indices.size(), 0.0);
  refresh(A);
}

bool NodeBlockInverse::has_blocks(const std::vector<std::int32_t>& offsets) {
  for (std::size_t k = 0; k + 1 < offsets.size(); ++k)
    if (offsets[k + 1] - offsets[k] > 1) return true;
  return false;
}

// Per node (in parallel): the node's rows of A as a dense m x u matrix on the union of their u columns
// (A's own rows where they share their columns, as a mesh node's usually do), the square block on the
// node's own columns inverted into the node's rows of `inverse_`, and |B^-1 A|'s row sums from the
// dense product of the two. Every inner loop runs along a dense row; a sparse product with a column
// search per entry took 0.6 us a row on the shells (5,489 rows, 48 entries each: 3.3 ms on one core).
void NodeBlockInverse::refresh(const HostCsrMatrix& A, std::vector<double> added_diagonal) {
  extras_.added_diagonal = std::move(added_diagonal);
  refresh(A);
}

void NodeBlockInverse::refresh(const HostCsrMatrix& A) {
  const auto nodes = static_cast<std::int64_t>(offsets_.size()) - 1;
  const double* added = extras_.added_diagonal.empty() ? nullptr : extras_.added_diagonal.data();
  const bool gershgorin = extras_.gershgorin;
  std::int64_t work = 0;  // multiply-adds of the products: a node's entries times its unknowns
  for (std::int64_t k = 0; k < nodes; ++k)
    work += (A.row_offsets[offsets_[k + 1]] - A.row_offsets[offsets_[k]]) * (offsets_[k + 1] - offsets_[k]);
  std::int64_t bad_node = std::numeric_limits<std::int64_t>::max();
  double bound = 0;
#pragma omp parallel reduction(min : bad_node) reduction(max : bound) if (work > kParallelWork)
  {
    std::vector<std::int32_t> slot, columns;  // column -> dense column (made on a first node that needs it)
    std::vector<double> rows, block, product, scratch;
    std::vector<const double*> row;  // the node's rows on its u columns: in `rows`, or A's own values
#pragma omp for schedule(static)
    for (std::int64_t k = 0; k < nodes; ++k) {
      const std::int32_t s = offsets_[k], e = offsets_[k + 1], m = e - s;
      row.resize(static_cast<std::size_t>(m));
      block.assign(static_cast<std::size_t>(m) * m, 0.0);
      std::size_t u = 0;
      const std::int64_t own = shared_pattern_own_columns(A, s, e);
      if (own >= 0) {
        // The rows share their columns, the node's own among them in a run: A's values are the dense
        // rows already (the same numbers, in the same order, as the gathered copy below).
        u = static_cast<std::size_t>(A.row_offsets[s + 1] - A.row_offsets[s]);
        for (std::int32_t i = 0; i < m; ++i) {
          row[i] = A.values.data() + A.row_offsets[s + i];
          for (std::int32_t j = 0; j < m; ++j) block[i * m + j] = row[i][own + j];
        }
      } else {
        if (slot.empty()) slot.assign(static_cast<std::size_t>(A.cols), -1);
        columns.clear();
        for (std::int64_t p = A.row_offsets[s]; p < A.row_offsets[e]; ++p) {
          const std::int32_t c = A.col_indices[p];
          if (slot[c] < 0) {
            slot[c] = static_cast<std::int32_t>(columns.size());
            columns.push_back(c);
          }
        }
        u = columns.size();
        rows.assign(static_cast<std::size_t>(m) * u, 0.0);
        for (std::int32_t i = s; i < e; ++i)
          for (std::int64_t p = A.row_offsets[i]; p < A.row_offsets[i + 1]; ++p)
            rows[static_cast<std::size_t>(i - s) * u + slot[A.col_indices[p]]] = A.values[p];
        for (std::int32_t j = 0; j < m; ++j)
          if (slot[s + j] >= 0)
            for (std::int32_t i = 0; i < m; ++i) block[i * m + j] = rows[static_cast<std::size_t>(i) * u + slot[s + j]];
        for (std::int32_t c : columns) slot[c] = -1;
        for (std::int32_t i = 0; i < m; ++i) row[i] = rows.data() + static_cast<std::size_t>(i) * u;
      }
      if (added)
        for (std::int32_t i = 0; i < m; ++i) block[i * m + i] += added[s + i];
      double* inv = inverse_.values.data() + inverse_.row_offsets[s];
      if (!invert_spd(block, m, inv, scratch)) {
        bad_node = std::min(bad_node, k);
        continue;
      }
      if (!gershgorin) continue;
      for (std::int32_t i = 0; i < m; ++i) {
        product.assign(u, 0.0);
        for (std::int32_t l = 0; l < m; ++l) {
          const double w = inv[i * m + l];
          const double* r = row[l];
          for (std::size_t q = 0; q < u; ++q) product[q] += w * r[q];
        }
        double sum = 0;
        for (double v : product) sum += std::abs(v);
        bound = std::max(bound, sum);
      }
    }
  }
  if (bad_node != std::numeric_limits<std::int64_t>::max()) {
    const std::int32_t s = offsets_[bad_node], e = offsets_[bad_node + 1];
    throw Error("node blocks (level " + std::to_string(level_) + "): the diagonal block of node " +
                std::to_string(bad_node) + " (rows " + std::to_string(s) + ".." + std::to_string(e - 1) +
                ") is not symmetric positive definite");
  }
  if (!std::isfinite(bound))
    throw Error("node blocks (level " + std::to_string(level_) + "): B^-1 A has an entry that is not finite (" +
                format_number(bound) + ")");
  gershgorin_ = bound;
}

}  // namespace clkr::detail
