// What the distributed tests share: the world communicator and this rank's device (made once per
// process), a full matrix cut into a rank's LocalRows, partitions to try, and per-precision tolerances.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "clkr/dist/communicator.hpp"
#include "clkr/dist/dist_blas.hpp"
#include "clkr/dist/local_rows.hpp"
#include "clkr/dist/rank_device.hpp"
#include "clkr/dist/row_partition.hpp"
#include "clkr/io/generators.hpp"
#include "precision_support.hpp"

namespace clkr::dist_test {

inline const std::shared_ptr<Communicator>& world() {
  static const std::shared_ptr<Communicator> comm = Communicator::create(MPI_COMM_WORLD);
  return comm;
}

inline const std::shared_ptr<Context>& context() {
  static const std::shared_ptr<Context> context = open_rank_context(*world());
  return context;
}

inline int rank() { return world()->rank(); }
inline int ranks() { return world()->size(); }

inline std::string bundled(const std::string& name) { return std::string(CLKR_SOURCE_DIR) + "/matrices/" + name; }

// Rank `r`'s rows of A under `partition`, with global column indices.
inline LocalRows local_rows_of(const HostCsrMatrix& A, const RowPartition& partition, int r) {
  LocalRows rows;
  rows.global_rows = A.rows;
  rows.first_row = partition.first(r);
  const std::int64_t begin = A.row_offsets[rows.first_row], end = A.row_offsets[partition.end(r)];
  for (std::int64_t i = rows.first_row; i < partition.end(r); ++i)
    rows.row_offsets.push_back(A.row_offsets[i + 1] - begin);
  rows.col_indices.assign(A.col_indices.begin() + begin, A.col_indices.begin() + end);
  rows.values.assign(A.values.begin() + begin, A.values.begin() + end);
  return rows;
}

// This rank's slice of a global vector.
inline std::vector<double> slice(const std::vector<double>& v, const RowPartition& partition) {
  return std::vector<double>(v.begin() + partition.first(rank()), v.begin() + partition.end(rank()));
}

// The same uniform values in [-1, 1) on every rank.
inline std::vector<double> random_values(std::size_t n, unsigned seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> v(n);
  for (double& x : v) x = uniform(engine);
  return v;
}

// Partitions of `rows` over the world's ranks to try: uniform, balanced by nnz, every row on the last
// rank (the others empty), the first rank empty, and uneven cuts.
struct NamedPartition {
  std::string name;
  RowPartition partition;
};
inline std::vector<NamedPartition> partitions_of(const HostCsrMatrix& A) {
  const int p = ranks();
  const std::int64_t n = A.rows;
  std::vector<NamedPartition> all{{"uniform", RowPartition::uniform(n, p)},
                                  {"balanced", RowPartition::balanced_by_nnz(A.row_offsets, p)}};
  std::vector<std::int64_t> last(static_cast<std::size_t>(p) + 1, 0), first_empty(last), uneven(last);
  last.back() = n;
  for (int r = 1; r <= p; ++r) {
    first_empty[r] = r == 1 ? 0 : n * (r - 1) / (p - 1);
    uneven[r] = r == p ? n : n * r * r / (p * p);
  }
  if (p > 1) {
    all.push_back({"all-on-last", RowPartition(last)});
    all.push_back({"first-empty", RowPartition(first_empty)});
    all.push_back({"uneven", RowPartition(uneven)});
  }
  return all;
}

inline const Precision kPrecisions[] = {Precision::Single, Precision::QuasiDouble, Precision::Double};

// The precision's unit roundoff (quasi-double: its ~48 bits), for values it stores or adds.
inline double unit(Precision p) {
  return p == Precision::Single ? 0x1p-24 : p == Precision::QuasiDouble ? 0x1p-47 : 0x1p-53;
}

// The device's parameters with each of the two BLAS1 splits (chunked, grid-stride), for kernel tests.
inline std::vector<DeviceParams> both_splits() {
  const DeviceParams defaults = device_params(context()->info());
  DeviceParams chunked = defaults, strided = defaults;
  chunked.blas1.variant = Blas1Variant::Chunked;
  strided.blas1.variant = Blas1Variant::GridStride;
  return {chunked, strided};
}

// Vector lengths around the work-group size and the usual edges (0, 1, 3, 1023, 1025).
inline std::vector<std::size_t> awkward_sizes() {
  const std::size_t wg = device_params(context()->info()).blas1.work_group_size;
  return {0, 1, 3, wg - 1, wg, wg + 1, 1023, 1025, 4099};
}

// max_i |a_i - b_i| / max_i |b_i|: how far a distributed solution is from one device's.
inline double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0, scale = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    d = std::max(d, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  return d / scale;
}

// The rounding a precision's SpMV or dot may carry, relative to the sum of |terms|.
inline double rounding(Precision p) {
  switch (p) {
    case Precision::Single:
      return 2e-6;
    case Precision::QuasiDouble:
      return 1e-12;
    case Precision::Double:
      break;
  }
  return 1e-14;
}

}  // namespace clkr::dist_test
