// The tentative prolongator: per aggregate, Gram-Schmidt with reorthogonalisation (twice is enough,
// Giraud et al. 2005) on B's rows of the aggregate, dropping columns that fall below 1e-10 of their norm.
#include "tentative_prolongator.hpp"

#include <algorithm>
#include <cmath>

#include "../../runtime/host_threads.hpp"
#include "../../runtime/large_vectors.hpp"
#include "clkr/runtime/error.hpp"

namespace clkr::detail::amg {

TentativeProlongator tentative_prolongator(const NodeLayout& nodes, const Aggregates& aggregates, const NullSpace& B) {
  const std::int32_t m = B.vectors;
  // The rows of each aggregate, grouped: members[member_offsets[a] ..] are its nodes' rows.
  std::vector<std::int32_t> member_offsets(static_cast<std::size_t>(aggregates.count) + 1, 0);
  for (std::int32_t I = 0; I < nodes.count(); ++I) {
    const std::int32_t a = aggregates.of_node[I];
    if (a >= 0) member_offsets[a + 1] += nodes.offsets[I + 1] - nodes.offsets[I];
  }
  for (std::int32_t a = 0; a < aggregates.count; ++a) member_offsets[a + 1] += member_offsets[a];
  std::vector<std::int32_t> members(static_cast<std::size_t>(member_offsets.back()));
  {
    std::vector<std::int32_t> next(member_offsets.begin(), member_offsets.end() - 1);
    for (std::int32_t I = 0; I < nodes.count(); ++I) {
      const std::int32_t a = aggregates.of_node[I];
      if (a < 0) continue;
      for (std::int32_t r = nodes.offsets[I]; r < nodes.offsets[I + 1]; ++r) members[next[a]++] = r;
    }
  }

  // Per aggregate: Q (rows x k, column-major) and R (k x m), computed independently.
  struct Factor {
    std::int32_t rank = 0;
    std::vector<double> q, r;
  };
  std::vector<Factor> factors(static_cast<std::size_t>(aggregates.count));
  // About eight chunks a thread, of at most 256 aggregates: in fixed chunks of 256 the shells' 121-290
  // aggregates of six-unknown nodes (thousands of flops each) all went to one thread, and this phase
  // took 0.6-1.4 ms on 1 thread and on 16 alike (H200 host, 2026-12-02; now 0.3-0.5 ms on 16).
  const int chunk = std::clamp(aggregates.count / (8 * host_thread_count()), 1, 256);
#pragma omp parallel for schedule(dynamic, chunk)
  for (std::int32_t a = 0; a < aggregates.count; ++a) {
    const std::int32_t begin = member_offsets[a], size = member_offsets[a + 1] - begin;
    Factor& f = factors[a];
    f.r.assign(static_cast<std::size_t>(m) * static_cast<std::size_t>(m), 0.0);  // at most m x m
    std::vector<double> v(static_cast<std::size_t>(size));
    for (std::int32_t c = 0; c < m; ++c) {
      double original = 0;
      for (std::int32_t i = 0; i < size; ++i) {
        v[i] = B.at(members[begin + i], c);
        original += v[i] * v[i];
      }
      original = std::sqrt(original);
      for (int pass = 0; pass < 2; ++pass) {
        for (std::int32_t k = 0; k < f.rank; ++k) {
          const double* q = f.q.data() + static_cast<std::size_t>(k) * size;
          double dot = 0;
          for (std::int32_t i = 0; i < size; ++i) dot += q[i] * v[i];
          for (std::int32_t i = 0; i < size; ++i) v[i] -= dot * q[i];
          f.r[static_cast<std::size_t>(k) * m + c] += dot;
        }
      }
      double norm = 0;
      for (std::int32_t i = 0; i < size; ++i) norm += v[i] * v[i];
      norm = std::sqrt(norm);
      if (!(norm > 1e-10 * original) || norm == 0) continue;  // dependent on the columns before it
      f.r[static_cast<std::size_t>(f.rank) * m + c] = norm;
      for (std::int32_t i = 0; i < size; ++i) f.q.push_back(v[i] / norm);
      ++f.rank;
    }
  }

  TentativeProlongator t;
  // Coarse unknowns: aggregate a owns columns first[a] .. first[a] + rank - 1.
  std::vector<std::int32_t> first(static_cast<std::size_t>(aggregates.count) + 1, 0);
  for (std::int32_t a = 0; a < aggregates.count; ++a) first[a + 1] = first[a] + factors[a].rank;
  const std::int32_t coarse = first.back();
  t.coarse_nodes.offsets = first;
  t.coarse_space.rows = coarse;
  t.coarse_space.vectors = m;
  t.coarse_space.values.assign(static_cast<std::size_t>(coarse) * static_cast<std::size_t>(m), 0.0);
  for (std::int32_t a = 0; a < aggregates.count; ++a)
    for (std::int32_t k = 0; k < factors[a].rank; ++k)
      for (std::int32_t c = 0; c < m; ++c)
        t.coarse_space.values[static_cast<std::size_t>(c) * coarse + first[a] + k] =
            factors[a].r[static_cast<std::size_t>(k) * m + c];

  // P_tent row by row: a row of aggregate a has that aggregate's Q row as its entries.
  HostCsrMatrix& P = t.P;
  P.rows = nodes.rows();
  P.cols = coarse;
  assign_large(P.row_offsets, static_cast<std::size_t>(P.rows) + 1, std::int64_t{0});
  std::vector<std::int32_t> aggregate_of_row(static_cast<std::size_t>(P.rows), -1), index_in(P.rows, 0);
  for (std::int32_t a = 0; a < aggregates.count; ++a)
    for (std::int32_t i = member_offsets[a]; i < member_offsets[a + 1]; ++i) {
      aggregate_of_row[members[i]] = a;
      index_in[members[i]] = i - member_offsets[a];
    }
  // Exact zeros are left out: with the default near-null space (a constant per unknown of a node) the
  // columns of Q have disjoint supports, so a row of a b-unknown node holds one nonzero of its b, and
  // storing the other b - 1 would multiply the work of every product with P (and of the cycle's
  // prolongation and restriction) by b for nothing.
  auto q_at = [&](std::int32_t r, std::int32_t k) {
    const std::int32_t a = aggregate_of_row[r];
    const std::int32_t size = member_offsets[a + 1] - member_offsets[a];
    return factors[a].q[static_cast<std::size_t>(k) * size + index_in[r]];
  };
#pragma omp parallel for schedule(static)
  for (std::int32_t r = 0; r < P.rows; ++r) {
    const std::int32_t a = aggregate_of_row[r];
    std::int64_t stored = 0;
    for (std::int32_t k = 0; a >= 0 && k < factors[a].rank; ++k) stored += q_at(r, k) != 0 ? 1 : 0;
    P.row_offsets[r + 1] = stored;
  }
  for (std::int32_t r = 0; r < P.rows; ++r) P.row_offsets[r + 1] += P.row_offsets[r];
  resize_large(P.col_indices, static_cast<std::size_t>(P.row_offsets.back()));
  resize_large(P.values, P.col_indices.size());
#pragma omp parallel for schedule(static)
  for (std::int32_t r = 0; r < P.rows; ++r) {
    const std::int32_t a = aggregate_of_row[r];
    if (a < 0) continue;
    std::int64_t slot = P.row_offsets[r];
    for (std::int32_t k = 0; k < factors[a].rank; ++k) {
      const double q = q_at(r, k);
      if (q == 0) continue;
      P.col_indices[slot] = first[a] + k;
      P.values[slot++] = q;
    }
  }
  return t;
}

}  // namespace clkr::detail::amg
