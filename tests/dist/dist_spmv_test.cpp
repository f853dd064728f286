// The distributed SpMV against the single-device one and a host reference in long double: every bundled
// matrix, several partitions (ranks without rows among them), every precision, the local block in each
// storage format; and the halo pattern of a Poisson problem checked by hand.
#include <cmath>
#include <string>
#include <vector>

#include "clkr/dist/dist_blas.hpp"
#include "dist_test_support.hpp"

namespace clkr::dist_test {
namespace {

const char* const kBundled[] = {"nos3.mtx",     "gr_30_30.mtx",       "494_bus.mtx", "3-fs_541_1.mtx",
                                "sherman5.mtx", "lap2D_5pt_n100.mtx", "bcsstk14.mtx"};
const Format kFormats[] = {Format::Csr, Format::Ell, Format::Hyb, Format::Csr4};

// y = alpha A x + beta y in long double, and the scale its rounding is relative to.
void host_spmv(const HostCsrMatrix& A, double alpha, const std::vector<double>& x, double beta,
               const std::vector<double>& y0, std::vector<double>& y, std::vector<double>& scale) {
  y.assign(static_cast<std::size_t>(A.rows), 0.0);
  scale.assign(y.size(), 0.0);
  for (std::int32_t i = 0; i < A.rows; ++i) {
    long double sum = 0, magnitude = 0;
    for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) {
      sum += static_cast<long double>(A.values[k]) * x[A.col_indices[k]];
      magnitude += std::abs(static_cast<long double>(A.values[k]) * x[A.col_indices[k]]);
    }
    y[i] = static_cast<double>(alpha * sum + beta * static_cast<long double>(y0[i]));
    scale[i] = static_cast<double>(std::abs(alpha) * magnitude + std::abs(beta * y0[i])) + 1e-300;
  }
}

TEST(DistSpmv, EqualsTheSingleDeviceSpmvForEveryPartitionPrecisionAndFormat) {
  const double alpha = 0.5, beta = -2.0;
  MatrixOptions options;
  options.max_ell_fill_ratio = 1e3;  // ELL on every block, however uneven its rows
  int cases = 0;
  for (const char* name : kBundled) {
    const HostCsrMatrix A = load_matrix(bundled(name));
    const std::size_t n = static_cast<std::size_t>(A.rows);
    const std::vector<double> x = random_values(n, 7), y0 = random_values(n, 8);
    std::vector<double> reference, scale;
    host_spmv(A, alpha, x, beta, y0, reference, scale);
    for (Precision p : kPrecisions) {
      if (!test::device_supports(*context(), p)) continue;
      // The single-device SpMV on this rank's device, on the whole matrix.
      Matrix whole(context(), A);
      Blas blas(context(), Location::Device, p);
      Vector xv(context(), x), yv(context(), y0);
      blas.spmv(alpha, whole, xv, beta, yv);
      const std::vector<double> single = yv.to_host();
      for (const NamedPartition& part : partitions_of(A)) {
        const Format format = kFormats[cases++ % 4];
        SCOPED_TRACE(std::string(name) + ", partition " + part.name + ", " + to_string(p) + ", local block in " +
                     to_string(format));
        DistMatrix dA(context(), world(), local_rows_of(A, part.partition, rank()), format, options);
        EXPECT_EQ(dA.global_rows(), A.rows);
        EXPECT_EQ(dA.global_nnz(), A.nnz());
        DistBlas dblas(context(), world(), p);
        DistVector dx(context(), world(), part.partition, slice(x, part.partition), "x");
        DistVector dy(context(), world(), part.partition, slice(y0, part.partition), "y");
        dblas.spmv(alpha, dA, dx, beta, dy);
        const std::vector<double> y = dy.gather();
        int wrong = 0;
        for (std::size_t i = 0; i < n && wrong < 5; ++i) {
          const double tolerance = 4 * rounding(p) * scale[i];
          if (std::abs(y[i] - single[i]) <= tolerance && std::abs(y[i] - reference[i]) <= tolerance) continue;
          ++wrong;
          ADD_FAILURE() << "row " << i << ": distributed " << y[i] << ", single device " << single[i] << ", reference "
                        << reference[i] << " (tolerance " << tolerance << ")";
        }
      }
    }
  }
}

// poisson3d:n with n = 4 ranks: each rank owns 4 whole z-planes, so it receives one plane (n^2 values)
// from each neighbour rank and sends one to each.
TEST(DistSpmv, HaloOfPoissonIsOnePlanePerNeighbour) {
  const int n = 4 * ranks();
  const HostCsrMatrix A = poisson3d(n);
  const RowPartition partition = RowPartition::uniform(A.rows, ranks());
  DistMatrix dA(context(), world(), local_rows_of(A, partition, rank()));
  const HaloPattern& halo = dA.halo_pattern();
  std::vector<int> neighbours;
  if (rank() > 0) neighbours.push_back(rank() - 1);
  if (rank() + 1 < ranks()) neighbours.push_back(rank() + 1);
  EXPECT_EQ(halo.recv_ranks, neighbours);
  EXPECT_EQ(halo.send_ranks, neighbours);
  EXPECT_EQ(halo.halo_size(), static_cast<std::int32_t>(neighbours.size()) * n * n);
  EXPECT_EQ(halo.send_size(), static_cast<std::int32_t>(neighbours.size()) * n * n);
  EXPECT_EQ(dA.local_rows(), 4 * n * n);
  // The halo columns are the planes just below and above this rank's block, in global order.
  const std::int64_t first = partition.first(rank()), end = partition.end(rank());
  std::vector<std::int64_t> expected;
  if (rank() > 0)
    for (std::int64_t c = first - n * n; c < first; ++c) expected.push_back(c);
  if (rank() + 1 < ranks())
    for (std::int64_t c = end; c < end + n * n; ++c) expected.push_back(c);
  EXPECT_EQ(halo.halo_columns, expected);
  // Each halo column couples to one row of this rank (its neighbour across the plane): as many halo
  // block rows, each with one entry, the rows just inside this rank's first and last planes.
  EXPECT_EQ(dA.halo_block().nnz(), static_cast<std::int64_t>(expected.size()));
  EXPECT_EQ(dA.halo_block().rows(), static_cast<std::int32_t>(expected.size()));
  std::vector<std::int32_t> rows;
  if (rank() > 0)
    for (std::int32_t i = 0; i < n * n; ++i) rows.push_back(i);
  if (rank() + 1 < ranks())
    for (std::int32_t i = 3 * n * n; i < 4 * n * n; ++i) rows.push_back(i);
  EXPECT_EQ(dA.halo_rows(), rows);
}

}  // namespace
}  // namespace clkr::dist_test
