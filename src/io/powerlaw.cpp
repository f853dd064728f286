// The `powerlaw:N` generator: a symmetric, strictly diagonally dominant (so SPD) matrix whose row
// lengths follow a power law, the shape of circuit, power-network and social-network matrices on which
// one long row serialises a row-per-work-item SpMV.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "clkr/io/generators.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/runtime/memory_limits.hpp"

namespace clkr {
namespace {

// A uniform integer in [0, bound) from a 64-bit engine (bound < 2^32): the multiply-shift mapping
// is written out so the matrix is the same with every standard library (std::shuffle and the
// distributions are implementation-defined).
std::uint64_t below(std::mt19937_64& engine, std::uint64_t bound) { return ((engine() >> 32) * bound) >> 32; }

// Row lengths (diagonal included): the quantiles u = i / (n - 1) of the density proportional to
// L^-exponent on [min, max + 1). Quantiles rather than draws: the histogram is the same for every seed,
// and the lengths run from exactly min to exactly max for every n.
std::int32_t quantile_length(double u, const PowerLawOptions& o) {
  const double a = o.min_row_length, b = static_cast<double>(o.max_row_length) + 1, g = 1 - o.exponent;
  // The inverse of the distribution function, and exponent 1 (g = 0) as its limit.
  const double x =
      g == 0 ? a * std::pow(b / a, u) : std::pow(std::pow(a, g) + u * (std::pow(b, g) - std::pow(a, g)), 1 / g);
  return static_cast<std::int32_t>(std::clamp(std::floor(x), a, b - 1));
}

double quantile(std::int64_t i, std::int64_t n) {
  return n > 1 ? static_cast<double>(i) / static_cast<double>(n - 1) : 0.0;
}

// The lengths dealt to the rows in a random order, so the long rows are spread over the matrix instead
// of sorted to one end.
std::vector<std::int32_t> row_lengths(std::int32_t n, const PowerLawOptions& o, std::mt19937_64& engine) {
  std::vector<std::int32_t> lengths(static_cast<std::size_t>(n));
  for (std::int32_t i = 0; i < n; ++i) lengths[static_cast<std::size_t>(i)] = quantile_length(quantile(i, n), o);
  for (std::int32_t i = n - 1; i > 0; --i)
    std::swap(lengths[static_cast<std::size_t>(i)], lengths[below(engine, static_cast<std::uint64_t>(i) + 1)]);
  return lengths;
}

// About how many entries n rows will ask for, from at most 2^16 of the quantiles: what the memory and
// size checks need before the n lengths are made.
double estimated_entries(std::int32_t n, const PowerLawOptions& o) {
  const std::int64_t samples = std::min<std::int64_t>(n, 1 << 16);
  double sum = 0;
  for (std::int64_t k = 0; k < samples; ++k) sum += quantile_length(quantile(k, samples), o);
  return sum / static_cast<double>(samples) * n;
}

// A number in [0, 1) from a 64-bit key (MurmurHash3's finaliser).
double hashed(std::uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

// The coupling of rows i and j, in [0.5, 1): a hash of the unordered pair, so A(i, j) = A(j, i) and a
// pair drawn twice gets the same value.
double coupling(std::int32_t i, std::int32_t j) {
  return 0.5 +
         0.5 * hashed((static_cast<std::uint64_t>(std::min(i, j)) << 32) | static_cast<std::uint32_t>(std::max(i, j)));
}

}  // namespace

HostCsrMatrix powerlaw(int n, const PowerLawOptions& o) {
  const std::string what = "powerlaw: n = " + std::to_string(n);
  if (n < 1) throw Error(what + ", expected n >= 1");
  if (o.min_row_length < 1 || o.max_row_length < o.min_row_length)
    throw Error(what + ": row lengths from " + std::to_string(o.min_row_length) + " to " +
                std::to_string(o.max_row_length) + ", expected 1 <= min <= max");
  if (!(o.exponent > 0 && o.exponent < 100))
    throw Error(what + ": exponent " + std::to_string(o.exponent) + ", expected 0 < exponent < 100");
  // A row cannot hold more entries than there are columns.
  PowerLawOptions options = o;
  options.max_row_length = std::min(o.max_row_length, n);
  options.min_row_length = std::min(o.min_row_length, options.max_row_length);
  // Refused before anything of n's size is allocated: the estimate is within a few entries a row.
  const double estimate = estimated_entries(n, options);
  check_host_memory(static_cast<std::int64_t>(32 * static_cast<double>(n) + 28 * estimate),
                    what + " (" + std::to_string(n) + " rows, about " +
                        std::to_string(static_cast<std::int64_t>(estimate)) + " nonzeros)");
  std::mt19937_64 engine(o.seed);
  const std::vector<std::int32_t> lengths = row_lengths(n, options, engine);

  // The configuration model: row i gets lengths[i] - 1 "stubs" (off-diagonal entries to be), the stubs
  // are shuffled and paired off, and each pair (i, j) becomes the entries (i, j) and (j, i). Pairs of a
  // row with itself and repeated pairs are dropped, so the longest rows come out a little shorter.
  std::int64_t stub_count = 0;
  for (std::int32_t length : lengths) stub_count += length - 1;
  std::vector<std::int32_t> stubs;
  stubs.reserve(static_cast<std::size_t>(stub_count));
  for (std::int32_t i = 0; i < n; ++i) stubs.insert(stubs.end(), static_cast<std::size_t>(lengths[i] - 1), i);
  for (std::size_t k = stubs.size(); k > 1; --k) std::swap(stubs[k - 1], stubs[below(engine, k)]);

  // Entries per row (an odd stub count leaves the last stub unpaired), then the rows filled.
  std::vector<std::int32_t> count(static_cast<std::size_t>(n), 1);  // the diagonal
  for (std::size_t k = 0; k + 1 < stubs.size(); k += 2) {
    if (stubs[k] == stubs[k + 1]) continue;
    ++count[static_cast<std::size_t>(stubs[k])];
    ++count[static_cast<std::size_t>(stubs[k + 1])];
  }
  std::vector<std::int64_t> offsets(static_cast<std::size_t>(n) + 1, 0);
  for (std::int32_t i = 0; i < n; ++i) offsets[i + 1] = offsets[i] + count[i];
  std::vector<std::int32_t> cols(static_cast<std::size_t>(offsets[n]));
  std::vector<std::int64_t> fill(offsets.begin(), offsets.end() - 1);
  for (std::int32_t i = 0; i < n; ++i) cols[fill[i]++] = i;
  for (std::size_t k = 0; k + 1 < stubs.size(); k += 2) {
    const std::int32_t i = stubs[k], j = stubs[k + 1];
    if (i == j) continue;
    cols[fill[i]++] = j;
    cols[fill[j]++] = i;
  }
  stubs = {};

  // Each row sorted, repeats dropped; off-diagonal entries -coupling, the diagonal its row's off-diagonal
  // sum plus a margin in [1, 2): strictly diagonally dominant with a positive diagonal, hence SPD (its
  // eigenvalues lie in [1, 2 max diagonal] by Gershgorin's theorem, so CG converges). The margin varies
  // from row to row: with a constant one, A * ones would be that constant times ones, an eigenvector,
  // and CG on b = A * ones (the benchmarks' right-hand side) or b = ones would finish in one step.
  HostCsrMatrix A;
  A.rows = A.cols = n;
  A.symmetric = true;
  A.row_offsets.assign(static_cast<std::size_t>(n) + 1, 0);
  A.col_indices.reserve(cols.size());
  A.values.reserve(cols.size());
  for (std::int32_t i = 0; i < n; ++i) {
    const auto begin = cols.begin() + offsets[i], end = cols.begin() + offsets[i + 1];
    std::sort(begin, end);
    const auto last = std::unique(begin, end);
    double off_diagonal = 0;
    std::size_t diagonal = 0;
    for (auto it = begin; it != last; ++it) {
      if (*it == i) {
        diagonal = A.values.size();
        A.values.push_back(0);
      } else {
        A.values.push_back(-coupling(i, *it));
        off_diagonal += -A.values.back();
      }
      A.col_indices.push_back(*it);
    }
    A.values[diagonal] = off_diagonal + 1 + hashed(~static_cast<std::uint64_t>(i));
    A.row_offsets[i + 1] = static_cast<std::int64_t>(A.col_indices.size());
  }
  return A;
}

}  // namespace clkr
