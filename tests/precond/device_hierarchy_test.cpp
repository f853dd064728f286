// The hierarchy the device setup builds, level by level, against the host's reference of each step
// from the same input: strength of connection and the filtered matrix (equal), the aggregates'
// invariants (every node with a strong neighbour in exactly one aggregate, others left out, aggregates
// connected, the same on every run and launch shape), the tentative prolongator (the host's Gram-Schmidt
// on the device's aggregates), the smoothed prolongator, R = P^T and R A P (the host's products of the
// device's own P and A, to 1e-14).
#include "precond/amg/device_hierarchy.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "../precision_support.hpp"
#include "clkr/blas/blas.hpp"
#include "device_setup_test_support.hpp"
#include "precond/amg/aggressive_aggregation.hpp"
#include "precond/amg/cycle.hpp"
#include "precond/amg/device_aggregation.hpp"
#include "precond/amg/hierarchy.hpp"
#include "precond/amg/smoothed_prolongator.hpp"
#include "precond/amg/sparse_products.hpp"
#include "precond/amg/strength.hpp"
#include "precond/amg/tentative_prolongator.hpp"

namespace clkr {
namespace {

namespace amg = detail::amg;

// max |got - expected| / max |expected| over equal patterns (asserted).
double relative_difference(const HostCsrMatrix& got, const HostCsrMatrix& expected, const std::string& what) {
  EXPECT_EQ(got.row_offsets, expected.row_offsets) << what;
  EXPECT_EQ(got.col_indices, expected.col_indices) << what;
  if (got.values.size() != expected.values.size()) return INFINITY;
  double diff = 0, scale = 0;
  for (std::size_t k = 0; k < got.values.size(); ++k) {
    diff = std::max(diff, std::abs(got.values[k] - expected.values[k]));
    scale = std::max(scale, std::abs(expected.values[k]));
  }
  return scale > 0 ? diff / scale : diff;
}

// The 2-D convection-diffusion operator of amg_solve_test (nonsymmetric: a directed strength graph
// where |a_ij| and |a_ji| fall on either side of the threshold), n x n.
HostCsrMatrix convection_diffusion(int n) {
  HostCsrMatrix A;
  A.rows = A.cols = n * n;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const int id = i * n + j;
      const std::pair<int, double> row[] = {{id - n, i > 0 ? -1.25 : 0},
                                            {id - 1, j > 0 ? -1.0 : 0},
                                            {id, 4.0},
                                            {id + 1, j < n - 1 ? -1.0 : 0},
                                            {id + n, i < n - 1 ? -0.1 : 0}};
      for (const auto& [col, value] : row)
        if (value != 0) {
          A.col_indices.push_back(col);
          A.values.push_back(value);
        }
      A.row_offsets.push_back(static_cast<std::int64_t>(A.col_indices.size()));
    }
  A.validate();
  return A;
}

// poisson2d(n) with every connection of the rows in [first, last) weakened below any threshold: those
// nodes have no strong neighbour (left out of the aggregates).
HostCsrMatrix poisson_with_isolated_rows(int n, std::int32_t first, std::int32_t last) {
  HostCsrMatrix A = poisson2d(n);
  for (std::int32_t i = 0; i < A.rows; ++i)
    for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) {
      const std::int32_t j = A.col_indices[k];
      const bool weak = (i >= first && i < last) || (j >= first && j < last);
      if (j != i && weak) A.values[k] = -1e-9;
    }
  return A;
}

// A random nonsymmetric matrix with a row longer than a work-group and empty rows, its diagonal entries
// 1 where a row has one (a directed strength graph with a hub; rows without one have no strong
// connection).
HostCsrMatrix random_graph(std::int32_t n, int long_row) {
  HostCsrMatrix A = test::random_sparse(n, n, 8, 23, long_row);
  for (std::int32_t i = 0; i < n; ++i)
    for (std::int32_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k)
      if (A.col_indices[k] == i) A.values[k] = 1.0;
  return A;
}

std::vector<HostCsrMatrix> aggregation_cases() {
  HostCsrMatrix one;
  one.rows = one.cols = 1;
  one.row_offsets = {0, 1};
  one.col_indices = {0};
  one.values = {2.0};
  return {HostCsrMatrix{},
          one,
          random_graph(1025, 600),
          poisson2d(17),
          poisson3d(9),
          test::jumping_coefficient3d(8, 1e3),
          anisotropic3d(7, 0.01),
          convection_diffusion(13),
          poisson_with_isolated_rows(15, 30, 60)};
}

// The device strength graph and aggregates of A, read back.
struct DeviceAggregation {
  amg::StrengthGraph S;
  amg::Aggregates aggregates;
  int rounds = 0;
};

DeviceAggregation aggregate_on_device(const amg::SetupKernels& kernels, Matrix& A, double eps, int distance = 2) {
  const amg::DeviceStrength s = amg::device_strength(kernels, A, eps);
  const amg::DeviceAggregates a = amg::device_aggregate(kernels, s, distance);
  DeviceAggregation out;
  const auto nodes = static_cast<std::size_t>(A.rows());
  out.S.offsets = test::read_array<std::int32_t>(s.graph.offsets, nodes + 1);
  out.S.neighbours = test::read_array<std::int32_t>(s.graph.columns, static_cast<std::size_t>(s.graph.nnz));
  out.S.weights = test::read_array<double>(s.weights, static_cast<std::size_t>(s.graph.nnz));
  out.S.keep = test::read_array<char>(s.keep, static_cast<std::size_t>(A.nnz()));
  out.aggregates.of_node = test::read_array<std::int32_t>(a.of_node, nodes);
  out.aggregates.count = a.count;
  out.rounds = a.rounds;
  return out;
}

TEST(DeviceStrength, EqualsTheHostStrengthAndFilteredMatrix) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::amg_context(), Precision::Double);
  const auto kernels = test::setup_kernels(test::setup_shapes()[0]);
  for (const HostCsrMatrix& host : aggregation_cases()) {
    for (double eps : {0.0, 0.08, 0.3}) {
      Matrix A(test::amg_context(), host);
      const amg::DeviceStrength s = amg::device_strength(kernels, A, eps);
      const amg::StrengthGraph expected =
          amg::strength_of_connection(host, amg::NodeLayout::uniform(host.rows, 1), eps);
      const std::string what = std::to_string(host.rows) + " rows, eps " + std::to_string(eps);
      const auto nodes = static_cast<std::size_t>(host.rows);
      EXPECT_EQ(test::read_array<std::int32_t>(s.graph.offsets, nodes + 1), expected.offsets) << what;
      EXPECT_EQ(test::read_array<std::int32_t>(s.graph.columns, expected.neighbours.size()), expected.neighbours);
      EXPECT_EQ(test::read_array<double>(s.weights, expected.weights.size()), expected.weights) << what;
      EXPECT_EQ(test::read_array<char>(s.keep, expected.keep.size()), expected.keep) << what;
      const HostCsrMatrix P_none = [&] {  // any P_tent: smooth_prolongator also makes A_F
        HostCsrMatrix p;
        p.rows = host.rows;
        p.cols = 1;
        p.row_offsets.assign(nodes + 1, 0);
        return p;
      }();
      const amg::SmoothedProlongator reference = amg::smooth_prolongator(host, expected.keep, P_none, 1.0);
      EXPECT_EQ(relative_difference(s.filtered->to_host(), reference.filtered, what), 0.0) << what;
    }
  }
}

// Every node with a strong neighbour in exactly one aggregate and the others in none; every aggregate
// nonempty and connected through strong connections taken both ways (S may be directed).
void expect_aggregate_invariants(const DeviceAggregation& d, const std::string& what) {
  const std::int32_t n = d.S.nodes();
  std::vector<std::int32_t> parent(static_cast<std::size_t>(n));
  std::iota(parent.begin(), parent.end(), 0);
  const auto root = [&](std::int32_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  std::vector<std::int32_t> size(static_cast<std::size_t>(d.aggregates.count), 0);
  for (std::int32_t i = 0; i < n; ++i) {
    const std::int32_t a = d.aggregates.of_node[i];
    if (d.S.offsets[i] == d.S.offsets[i + 1]) {
      ASSERT_EQ(a, -1) << what << ": node " << i << " has no strong neighbour";
      continue;
    }
    ASSERT_GE(a, 0) << what << ": node " << i;
    ASSERT_LT(a, d.aggregates.count) << what;
    ++size[a];
    for (std::int32_t k = d.S.offsets[i]; k < d.S.offsets[i + 1]; ++k) {
      const std::int32_t j = d.S.neighbours[k];
      if (d.aggregates.of_node[j] == a) parent[root(i)] = root(j);
    }
  }
  std::vector<std::int32_t> component(static_cast<std::size_t>(d.aggregates.count), -1);
  for (std::int32_t i = 0; i < n; ++i) {
    const std::int32_t a = d.aggregates.of_node[i];
    if (a < 0) continue;
    if (component[a] < 0) component[a] = root(i);
    EXPECT_EQ(root(i), component[a]) << what << ": aggregate " << a << " is not connected (node " << i << ")";
  }
  for (std::int32_t a = 0; a < d.aggregates.count; ++a) EXPECT_GT(size[a], 0) << what << ": aggregate " << a;
}

// A's device aggregation at the given independence distance (threshold 0.08) with the invariants
// checked, and deterministic: the same aggregates again with every launch shape.
DeviceAggregation valid_and_deterministic_aggregation(Matrix& A, int distance, const std::string& what) {
  const std::vector<test::SetupShape> shapes = test::setup_shapes();
  DeviceAggregation first = aggregate_on_device(test::setup_kernels(shapes[0]), A, 0.08, distance);
  expect_aggregate_invariants(first, what);
  for (const test::SetupShape& shape : shapes) {
    const DeviceAggregation again = aggregate_on_device(test::setup_kernels(shape), A, 0.08, distance);
    EXPECT_EQ(again.aggregates.of_node, first.aggregates.of_node) << what << ", " << shape.name;
  }
  return first;
}

TEST(DeviceAggregation, CoversEveryConnectedNodeOnceWithConnectedAggregates) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::amg_context(), Precision::Double);
  for (const HostCsrMatrix& host : aggregation_cases()) {
    Matrix A(test::amg_context(), host);
    const std::string what = std::to_string(host.rows) + " rows";
    const DeviceAggregation first = valid_and_deterministic_aggregation(A, 2, what);
    // Coarsening comparable to the host's: aggregates of a few nodes, not pairs, not the whole graph.
    const amg::Aggregates host_aggregates =
        amg::aggregate(amg::strength_of_connection(host, amg::NodeLayout::uniform(host.rows, 1), 0.08));
    if (host.rows > 100) {
      EXPECT_LT(first.aggregates.count * 3, host.rows) << what;
      EXPECT_LT(first.aggregates.count, 2 * host_aggregates.count) << what;
      EXPECT_GT(2 * first.aggregates.count, host_aggregates.count) << what;
    }
    EXPECT_LE(first.rounds, 20) << what;
  }
}

// Aggressive levels: roots of a distance-4 independent set. The same invariants and determinism, and a
// coarsening as strong as the host's aggregation of the distance-two graph (within 2x of its count),
// at least twice as coarse as distance 2 on the larger cases.
TEST(DeviceAggregation, DistanceFourAggregatesAreValidAndAsCoarseAsTheHostsAggressiveOnes) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::amg_context(), Precision::Double);
  for (const HostCsrMatrix& host : aggregation_cases()) {
    Matrix A(test::amg_context(), host);
    const std::string what = std::to_string(host.rows) + " rows";
    const DeviceAggregation four = valid_and_deterministic_aggregation(A, 4, what);
    const DeviceAggregation two = aggregate_on_device(test::setup_kernels(test::setup_shapes()[0]), A, 0.08, 2);
    const amg::Aggregates host_aggressive = amg::aggregate(
        amg::distance_two_graph(amg::strength_of_connection(host, amg::NodeLayout::uniform(host.rows, 1), 0.08)));
    if (host.rows > 300 && two.aggregates.count >= 8) {  // not the random graph: 1 aggregate either way
      EXPECT_LT(2 * four.aggregates.count, two.aggregates.count) << what;
      EXPECT_LT(four.aggregates.count, 2 * host_aggressive.count) << what;
      EXPECT_GT(2 * four.aggregates.count, host_aggressive.count) << what;
    }
    EXPECT_LE(four.aggregates.count, two.aggregates.count) << what;
    EXPECT_LE(four.rounds, 20) << what;
  }
}

// Every level of a device-built hierarchy against the host's computation of that level from the
// device's own inputs: host (the finest operator's values now), the aggregates (P_tent's columns) and
// the filtered pattern the device kept; at setup (`fresh`) that pattern must be the host's strength.
void expect_levels_match_the_host(const amg::DeviceHierarchy& h, const HostCsrMatrix& host, const AmgOptions& options,
                                  bool fresh, const std::string& name) {
  ASSERT_GE(h.size(), 3u) << name;
  amg::NullSpace B = amg::near_null_space(options, host.rows);
  HostCsrMatrix Al = host;
  double eps = options.strength_threshold;
  for (std::size_t l = 0; l + 1 < h.size(); ++l) {
    const amg::DeviceLevel& level = h.level(l);
    const std::string what = name + ", level " + std::to_string(l);
    if (l > 0) Al = level.A->to_host();
    const HostCsrMatrix T = level.tentative->to_host();
    amg::Aggregates aggregates;
    aggregates.count = T.cols;
    aggregates.of_node.assign(static_cast<std::size_t>(T.rows), -1);
    for (std::int32_t i = 0; i < T.rows; ++i)
      if (T.row_offsets[i + 1] > T.row_offsets[i]) aggregates.of_node[i] = T.col_indices[T.row_offsets[i]];
    amg::TentativeProlongator t = amg::tentative_prolongator(amg::NodeLayout::uniform(Al.rows, 1), aggregates, B);
    EXPECT_LE(relative_difference(T, t.P, what + " tentative"), 1e-15) << what;
    const std::vector<char> keep = test::read_array<char>(level.keep, Al.values.size());
    if (fresh) EXPECT_EQ(keep, amg::strength_of_connection(Al, amg::NodeLayout::uniform(Al.rows, 1), eps).keep) << what;
    const amg::SmoothedProlongator smoothed = amg::smooth_prolongator(Al, keep, t.P, options.prolongator_relaxation);
    const HostCsrMatrix P = level.smoothed.P->to_host();
    EXPECT_NEAR(level.smoothed.omega, smoothed.omega, 1e-15 * smoothed.omega) << what;
    EXPECT_LE(relative_difference(P, smoothed.P, what + " P"), 1e-14) << what;
    const HostCsrMatrix R = level.R->to_host();
    EXPECT_EQ(relative_difference(R, amg::transpose(P).matrix, what + " R"), 0.0) << what;
    const amg::TripleProduct rap = amg::triple_product(R, Al, P);
    EXPECT_LE(relative_difference(level.AP->to_host(), rap.AP, what + " A P"), 1e-14) << what;
    EXPECT_LE(relative_difference(h.level(l + 1).A->to_host(), rap.RAP, what + " R A P"), 1e-14) << what;
    B = std::move(t.coarse_space);
    eps *= 0.5;
  }
}

void expect_setup_matches_the_host(const HostCsrMatrix& host, Format format, const AmgOptions& options) {
  Matrix A(test::amg_context(), host, format);
  Blas blas(test::amg_context(), Location::Device, Precision::Double);
  PhaseTimes times;
  detail::amg::PhaseLog phases(times);
  const amg::DeviceHierarchy h(blas, A, options, phases);
  expect_levels_match_the_host(h, host, options, true, std::to_string(host.rows) + " rows, " + to_string(format));
  const std::vector<std::string> expected = {"strength of connection", "aggregation", "tentative prolongator",
                                             "prolongator smoothing",  "transpose",   "galerkin product",
                                             "coarse inverse"};
  for (const std::string& name : expected)
    EXPECT_NE(std::find_if(times.begin(), times.end(), [&](const auto& p) { return p.first == name; }), times.end())
        << name;
}

TEST(DeviceHierarchy, EveryLevelIsTheHostsComputationOfItsInputs) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::amg_context(), Precision::Double);
  AmgOptions options;
  options.coarse_size = 20;
  expect_setup_matches_the_host(poisson3d(12), Format::Csr, options);
  expect_setup_matches_the_host(test::jumping_coefficient3d(10, 100.0), Format::Ell, options);
  expect_setup_matches_the_host(convection_diffusion(30), Format::Hyb, options);
  options.prolongator_relaxation = 0.5;
  expect_setup_matches_the_host(anisotropic3d(10, 0.05), Format::Csr4, options);
  options.prolongator_relaxation = 0;  // plain aggregation: P = P_tent
  expect_setup_matches_the_host(poisson3d(12), Format::Csr, options);
}

// The update step on a device-built hierarchy, prolongators re-smoothed: every level is again the
// host's computation from the new values on the kept aggregates and filtered pattern.
TEST(DeviceHierarchy, TheUpdateRecomputesEveryLevelFromTheNewValues) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::amg_context(), Precision::Double);
  const HostCsrMatrix host = test::jumping_coefficient3d(10, 30.0);
  HostCsrMatrix changed = host;
  const std::vector<double> u = test::random_values(host.rows, 9);
  for (std::int32_t i = 0; i < host.rows; ++i)
    for (std::int32_t k = host.row_offsets[i]; k < host.row_offsets[i + 1]; ++k)
      changed.values[k] *= 1.0 + 0.3 * u[i] * u[host.col_indices[k]] + (host.col_indices[k] == i ? 0.5 : 0.0);
  AmgOptions options;
  options.coarse_size = 20;
  // Smoothed aggregation in both formats; plain aggregation (relaxation 0: P stays P_tent, the
  // operators follow the new values) in CSR.
  for (const auto& [format, relaxation] : {std::pair{Format::Csr, 1.0}, {Format::Ell, 1.0}, {Format::Csr, 0.0}}) {
    options.prolongator_relaxation = relaxation;
    Matrix A(test::amg_context(), host, format);
    Blas blas(test::amg_context(), Location::Device, Precision::Double);
    PhaseTimes times;
    detail::amg::PhaseLog phases(times);
    amg::DeviceHierarchy h(blas, A, options, phases);
    amg::VCycle cycle(blas, A, h, options, phases);
    A.update_values(changed.values);
    cycle.refresh_on_device(A, nullptr, phases,
                            [&](std::size_t l, Matrix& A_l) { h.refresh_next_level(l, A_l, true, phases); });
    expect_levels_match_the_host(h, changed, options, false,
                                 "updated, " + to_string(format) + ", relaxation " + std::to_string(relaxation));
  }
}

TEST(DeviceHierarchy, TheSameHierarchyOnEveryRun) {
  CLKR_SKIP_UNLESS_AVAILABLE(test::amg_context(), Precision::Double);
  const HostCsrMatrix host = test::jumping_coefficient3d(11, 1e3);
  Matrix A(test::amg_context(), host);
  Blas blas(test::amg_context(), Location::Device, Precision::Double);
  AmgOptions options;
  options.coarse_size = 30;
  PhaseTimes times;
  detail::amg::PhaseLog phases(times);
  const amg::DeviceHierarchy first(blas, A, options, phases), second(blas, A, options, phases);
  ASSERT_EQ(first.size(), second.size());
  for (std::size_t l = 1; l < first.size(); ++l) {
    const HostCsrMatrix a = first.level(l).A->to_host(), b = second.level(l).A->to_host();
    EXPECT_EQ(a.col_indices, b.col_indices) << l;
    EXPECT_EQ(a.values, b.values) << l;
  }
}

}  // namespace
}  // namespace clkr
