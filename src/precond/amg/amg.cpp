// clkr::Amg: option checks, the hierarchy built on the host (hierarchy.cpp) or the device
// (device_hierarchy.cpp) and its device V-cycle (cycle.cpp), the update step, and what the
// preconditioner reports about itself.
#include "clkr/precond/amg.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "../../runtime/enum_names.hpp"
#include "../../runtime/format_number.hpp"
#include "../../runtime/host_threads.hpp"
#include "block_size.hpp"
#include "clkr/runtime/error.hpp"
#include "cycle.hpp"
#include "device_hierarchy.hpp"
#include "hierarchy.hpp"
#include "phase_times.hpp"
#include "test_vectors.hpp"

namespace clkr {
namespace {

const std::pair<AmgSmoother, const char*> kSmootherNames[] = {
    {AmgSmoother::Jacobi, "jacobi"},
    {AmgSmoother::Chebyshev, "chebyshev"},
    {AmgSmoother::Chebyshev4, "chebyshev4"},
    {AmgSmoother::GaussSeidel, "gauss-seidel"},
};

const std::pair<AmgOptions::SetupOn, const char*> kSetupNames[] = {
    {AmgOptions::SetupOn::Auto, "auto"},
    {AmgOptions::SetupOn::Device, "device"},
    {AmgOptions::SetupOn::Host, "host"},
};

const std::pair<AmgOptions::BlockSmoothing, const char*> kBlockSmoothingNames[] = {
    {AmgOptions::BlockSmoothing::Auto, "auto"},
    {AmgOptions::BlockSmoothing::Off, "off"},
    {AmgOptions::BlockSmoothing::On, "on"},
};

void check_options(const AmgOptions& o, std::int32_t rows) {
  auto fail = [](const std::string& what) { throw Error("amg: " + what); };
  if (!(o.strength_threshold >= 0 && o.strength_threshold < 1))
    fail("strength_threshold = " + detail::format_number(o.strength_threshold) + " must lie in [0, 1)");
  if (o.coarse_size < 1 || o.coarse_size > detail::amg::kMaxDirectRows)
    fail("coarse_size = " + std::to_string(o.coarse_size) + " must lie in [1, " +
         std::to_string(detail::amg::kMaxDirectRows) + "] (the coarsest level is inverted as a dense matrix)");
  if (o.max_levels < 1) fail("max_levels = " + std::to_string(o.max_levels) + " must be >= 1");
  if (!(o.prolongator_relaxation >= 0 && o.prolongator_relaxation <= 2))
    fail("prolongator_relaxation = " + detail::format_number(o.prolongator_relaxation) + " must lie in [0, 2]");
  if (o.block_size < 0 || (o.block_size > 0 && rows % o.block_size != 0))
    fail("block_size = " + std::to_string(o.block_size) + " must be 0 (auto) or divide the " + std::to_string(rows) +
         " rows");
  if (!o.node_offsets.empty()) {
    if (o.block_size > 1)
      fail("block_size = " + std::to_string(o.block_size) + " and node_offsets given: the nodes are one or the other");
    if (o.node_offsets.front() != 0 || o.node_offsets.back() != rows)
      fail("node_offsets run from " + std::to_string(o.node_offsets.front()) + " to " +
           std::to_string(o.node_offsets.back()) + "; they must run from 0 to the " + std::to_string(rows) + " rows");
    for (std::size_t k = 0; k + 1 < o.node_offsets.size(); ++k)
      if (o.node_offsets[k + 1] <= o.node_offsets[k])
        fail("node_offsets[" + std::to_string(k + 1) + "] = " + std::to_string(o.node_offsets[k + 1]) +
             " does not exceed node_offsets[" + std::to_string(k) + "] = " + std::to_string(o.node_offsets[k]) +
             ": every node needs a row");
  }
  if (o.test_vectors < 0 || o.test_vectors > AmgOptions::kMaxTestVectors)
    fail("test_vectors = " + std::to_string(o.test_vectors) + " must lie in [0, " +
         std::to_string(AmgOptions::kMaxTestVectors) + "] (each is a coarse unknown per aggregate)");
  if (o.strengthen_test_vectors < 0 || o.strengthen_test_vectors > AmgOptions::kMaxTestVectors)
    fail("strengthen_test_vectors = " + std::to_string(o.strengthen_test_vectors) + " must lie in [0, " +
         std::to_string(AmgOptions::kMaxTestVectors) + "] (0: never strengthen)");
  if ((o.test_vectors > 0 || o.strengthen_test_vectors > 0) && o.test_vector_steps < 1)
    fail("test_vector_steps = " + std::to_string(o.test_vector_steps) + " must be >= 1");
  if (o.aggressive_levels < 0) fail("aggressive_levels = " + std::to_string(o.aggressive_levels) + " must be >= 0");
  if (o.pre_sweeps < 0 || o.post_sweeps < 0)
    fail("pre_sweeps and post_sweeps must be >= 0 (got " + std::to_string(o.pre_sweeps) + " and " +
         std::to_string(o.post_sweeps) + ")");
  if (o.cycle_index < 1 || o.cycle_index > 2)
    fail("cycle_index = " + std::to_string(o.cycle_index) + " must be 1 (V-cycle) or 2 (W-cycle)");
  if (o.chebyshev_degree < 1) fail("chebyshev_degree = " + std::to_string(o.chebyshev_degree) + " must be >= 1");
  if (!(o.chebyshev_lower_ratio > 0 && o.chebyshev_lower_ratio < 1))
    fail("chebyshev_lower_ratio = " + detail::format_number(o.chebyshev_lower_ratio) + " must lie in (0, 1)");
  if (!(o.jacobi_weight >= 0 && std::isfinite(o.jacobi_weight)))
    fail("jacobi_weight = " + detail::format_number(o.jacobi_weight) + " must be >= 0 (0: 4 / (3 lambda_max))");
  if (o.eigen_iterations != 0 && o.eigen_iterations < 2)
    fail("eigen_iterations = " + std::to_string(o.eigen_iterations) + " must be 0 (Gershgorin) or >= 2");
  if (o.update_eigen_iterations != 0 && o.update_eigen_iterations < 2)
    fail("update_eigen_iterations = " + std::to_string(o.update_eigen_iterations) + " must be 0 (Gershgorin) or >= 2");
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The nodes of different sizes, as "961 nodes of 1-6 unknowns, "; nothing without them.
std::string node_note(const std::vector<std::int32_t>& offsets) {
  if (offsets.size() < 2) return {};
  detail::amg::NodeLayout nodes;
  nodes.offsets = offsets;
  const std::int32_t smallest = nodes.smallest(), largest = nodes.largest();
  return std::to_string(nodes.count()) + " nodes of " + std::to_string(smallest) +
         (largest > smallest ? "-" + std::to_string(largest) : std::string()) + " unknowns, ";
}

// "6 near-null vectors, " where the caller gave the near-null space (the rigid-body modes, say), and
// "6 smoothed test vectors, " for those the setup made (test_vectors).
std::string near_null_note(std::size_t vectors, int test_vectors) {
  const std::size_t given = vectors - static_cast<std::size_t>(test_vectors);
  std::string note = given == 0 ? std::string() : std::to_string(given) + " near-null vectors, ";
  if (test_vectors > 0) note += std::to_string(test_vectors) + " smoothed test vectors, ";
  return note;
}

// With half values asked for: the levels whose operators read single ones instead (their range does
// not fit binary16's, or the one-launch coarse cycle reads its own copies), as " (single values on
// levels 3, 4)"; else nothing.
std::string single_levels_note(const std::vector<AmgLevelInfo>& levels, ValueStorage asked) {
  if (asked != ValueStorage::Half) return {};
  std::string list;
  for (std::size_t l = 0; l < levels.size(); ++l)
    if (levels[l].values != "half") list += (list.empty() ? "" : ", ") + std::to_string(l);
  if (list.empty()) return {};
  return std::string(" (single values on level") + (list.find(',') != std::string::npos ? "s " : " ") + list + ")";
}

}  // namespace

std::string to_string(AmgSmoother smoother) { return detail::enum_name(kSmootherNames, smoother, "AmgSmoother"); }

AmgSmoother parse_amg_smoother(const std::string& text) {
  return detail::parse_enum_name(kSmootherNames, text, "AMG smoother");
}

std::string to_string(AmgOptions::SetupOn where) {
  return detail::enum_name(kSetupNames, where, "AmgOptions::SetupOn");
}

AmgOptions::SetupOn parse_amg_setup_on(const std::string& text) {
  return detail::parse_enum_name(kSetupNames, text, "AMG setup location");
}

std::string to_string(AmgOptions::BlockSmoothing choice) {
  return detail::enum_name(kBlockSmoothingNames, choice, "AmgOptions::BlockSmoothing");
}

AmgOptions::BlockSmoothing parse_amg_block_smoothing(const std::string& text) {
  for (const char* yes : {"true", "1", "yes"})
    if (text == yes) return AmgOptions::BlockSmoothing::On;
  for (const char* no : {"false", "0", "no"})
    if (text == no) return AmgOptions::BlockSmoothing::Off;
  return detail::parse_enum_name(kBlockSmoothingNames, text, "AMG block smoothing (auto, on or off)");
}

int parse_amg_cycle(const std::string& text) {
  if (text != "v" && text != "w") throw Error("expected v or w");
  return text == "w" ? 2 : 1;
}

struct Amg::Impl {
  AmgOptions options;
  std::unique_ptr<detail::amg::HostHierarchy> host;  // one of these two builds the hierarchy
  std::unique_ptr<detail::amg::DeviceHierarchy> device;
  std::string setup_note;
  PhaseCommands setup_commands, update_commands;
  std::unique_ptr<detail::amg::VCycle> cycle;
  std::vector<AmgLevelInfo> levels;
  double operator_complexity = 0, grid_complexity = 0;
  int strengthened_at = 0;  // the solve's iteration that asked, once strengthen() rebuilt

  // block_size 0: the size read from A's pattern, on A's host copy (kept: no transfer where A keeps one,
  // as the clkr program's matrices do; else one read back of A, which the host setup needs anyway).
  // Where the caller asked for the device setup and it can take A, 1 without reading A back: the device
  // setup aggregates one unknown per node. On a GPU with setup_on Auto the detection runs, and a block
  // size above 1 sends the setup to the host (bcsstk17: 248 PCG iterations with blocks of 6, 564
  // without; docs/preconditioners.md).
  void resolve_block_size(const Matrix& A, const Blas& blas, detail::amg::PhaseLog& phases) {
    if (options.block_size != 0) return;
    options.block_size = 1;
    if (!options.node_offsets.empty()) return;
    if (options.setup_on == AmgOptions::SetupOn::Device && device_builds(blas)) return;
    auto start = detail::amg::Clock::now();
    const HostCsrMatrix& host = A.host_csr();
    phases.add("matrix to the host", start);
    start = detail::amg::Clock::now();
    double fixed_share = 0, nodes_share = 0;
    options.block_size = detail::amg::detect_block_size(host, &fixed_share);
    // Nodes of different sizes, which win when larger on average than the fixed size's nodes, as larger
    // fixed sizes do, unless the fixed size is the more consistent (elasticity3d: b = 3 for every node,
    // where merged nodes of 3-6 rows at the faces are 86% consistent). Found, they move a GPU's setup
    // to the host, as blocks do (the device setup aggregates single unknowns): on the H200 the host
    // setup with the shells' nodes beat the device setup's single unknowns by 15-27% in time to
    // solution (docs/preconditioners.md, 2026-12-02).
    if (std::optional<detail::amg::NodeLayout> nodes = detail::amg::detect_variable_nodes(host, &nodes_share);
        nodes && host.rows > static_cast<std::int64_t>(options.block_size) * nodes->count() &&
        nodes_share >= fixed_share) {
      options.block_size = 1;
      options.node_offsets = std::move(nodes->offsets);
    }
    phases.add("block size", start);
  }

  // Auto: node blocks on every device. A Chebyshev step's second kernel (or, in the one-launch
  // cycle, its second step) costs 5-25% of an iteration, and the blocks took 18-60% of the iterations
  // off the shells and bcsstk17, none off bcsstk16 (2026-12-03: PoCL and an H200 alike, where the
  // time to solution moved by -50%..+16% and -31%..+14%; docs/preconditioners.md). A rule that tells
  // those matrices apart before the solve (how strongly a node's unknowns couple) is not known yet.
  void resolve_block_smoothing() {
    if (options.block_smoothing == AmgOptions::BlockSmoothing::Auto)
      options.block_smoothing = AmgOptions::BlockSmoothing::On;
  }

  // Whether the device would build the hierarchy with the options as they are.
  bool device_builds(const Blas& blas) const {
    if (options.setup_on == AmgOptions::SetupOn::Host || !detail::amg::device_setup_refusal(options, blas).empty())
      return false;
    return options.setup_on == AmgOptions::SetupOn::Device || blas.context()->info().type != DeviceType::Cpu;
  }

  // Whether the device builds the hierarchy (setup_on, and what the device setup can take); sets
  // setup_note when the device was asked for and cannot.
  bool build_on_device(const Blas& blas) {
    if (options.setup_on == AmgOptions::SetupOn::Device) setup_note = detail::amg::device_setup_refusal(options, blas);
    return device_builds(blas);
  }

  // test_vectors: the errors the hierarchy just built leaves (test_vectors.hpp) become the near-null
  // space of a new one, built on the host (the device setup takes the constants only).
  void rebuild_on_test_vectors(Blas& blas, Matrix& A, detail::amg::PhaseLog& phases) {
    auto start = detail::amg::Clock::now();
    std::vector<std::vector<double>> tests = detail::amg::smoothed_test_vectors(
        blas, A, [this](Vector& r, Vector& z) { cycle->apply(r, z); }, options.test_vectors, options.test_vector_steps);
    for (std::vector<double>& v : tests) options.near_null_space.push_back(std::move(v));
    phases.add("test vectors", start);
    cycle.reset();
    device.reset();
    host.reset();
    start = detail::amg::Clock::now();
    const HostCsrMatrix& host_a = A.host_csr();
    phases.add("matrix to the host", start);
    host = std::make_unique<detail::amg::HostHierarchy>(host_a, options,
                                                        detail::amg::near_null_space(options, A.rows()), phases);
    cycle = std::make_unique<detail::amg::VCycle>(blas, A, *host, options, phases);
  }

  void describe() {
    levels = cycle->level_info();
    double nnz = 0, rows = 0;
    for (const AmgLevelInfo& level : levels) {
      nnz += static_cast<double>(level.nnz);
      rows += static_cast<double>(level.rows);
    }
    operator_complexity = levels[0].nnz > 0 ? nnz / static_cast<double>(levels[0].nnz) : 1.0;
    grid_complexity = levels[0].rows > 0 ? rows / static_cast<double>(levels[0].rows) : 1.0;
  }
};

Amg::Amg(const Blas& solver, Matrix& A, AmgOptions options, std::optional<Precision> precision,
         ValueStorage matrix_values)
    : Preconditioner(solver, A, precision, "amg", matrix_values), impl_(std::make_unique<Impl>()) {
  check_options(options, A.rows());
  // The setup's products and kernels index entries in 32 bits (only SpMV and the solvers' own kernels
  // take CSR's 64-bit row offsets).
  if (A.nnz() > std::numeric_limits<std::int32_t>::max())
    throw Error("amg: the matrix has " + std::to_string(A.nnz()) +
                " entries, more than the 2147483647 the AMG setup indexes; Jacobi and Chebyshev take it");
  impl_->options = std::move(options);
  const auto start = std::chrono::steady_clock::now();
  PhaseTimes times;
  detail::amg::PhaseLog phases(times, &impl_->setup_commands, context().get());
  impl_->resolve_block_size(A, blas(), phases);
  impl_->resolve_block_smoothing();
  if (impl_->build_on_device(blas())) {
    // The detection's workers end before the device's turn; a host setup keeps them for its own loops
    // (on the H200's host a release takes 0.2-0.7 ms and the next loop's start 0.4: host_threads.hpp).
    detail::release_host_threads();
    impl_->device = std::make_unique<detail::amg::DeviceHierarchy>(blas(), A, impl_->options, phases);
    impl_->cycle = std::make_unique<detail::amg::VCycle>(blas(), A, *impl_->device, impl_->options, phases);
  } else {
    const auto read = detail::amg::Clock::now();
    const HostCsrMatrix& host = A.host_csr();  // kept by A: read back once
    phases.add("matrix to the host", read);
    impl_->host = std::make_unique<detail::amg::HostHierarchy>(
        host, impl_->options, detail::amg::near_null_space(impl_->options, A.rows()), phases);
    impl_->cycle = std::make_unique<detail::amg::VCycle>(blas(), A, *impl_->host, impl_->options, phases);
  }
  if (impl_->options.test_vectors > 0) impl_->rebuild_on_test_vectors(blas(), A, phases);
  impl_->describe();
  set_setup_time(seconds_since(start), std::move(times));
}

Amg::~Amg() = default;

std::string Amg::description() const {
  const std::size_t n = impl_->levels.size();
  const int b = impl_->options.block_size;
  const std::optional<std::size_t> one_launch = impl_->cycle->one_launch_level();
  const char* kind = impl_->options.plain_aggregation() ? "plain aggregation" : "smoothed aggregation";
  return "amg (" + std::string(kind) + ", " + std::to_string(n) + (n == 1 ? " level" : " levels") + ", " +
         (b > 1 ? "blocks of " + std::to_string(b) + ", " : std::string()) + node_note(impl_->options.node_offsets) +
         near_null_note(impl_->options.near_null_space.size(), impl_->options.test_vectors) +
         (impl_->strengthened_at > 0 ? "strengthened at iteration " + std::to_string(impl_->strengthened_at) + ", "
                                     : std::string()) +
         (impl_->options.cycle_index == 2 ? "W-cycle, " : std::string()) + impl_->cycle->smoother_description() +
         " smoothing, " +
         (one_launch ? "levels " + std::to_string(*one_launch) + "-" + std::to_string(n - 1) + " in one launch, "
                     : std::string()) +
         "operator complexity " + detail::format_number(impl_->operator_complexity) + ", " + precision_description() +
         single_levels_note(impl_->levels, matrix_values()) + ")";
}

const AmgOptions& Amg::options() const { return impl_->options; }
const std::vector<AmgLevelInfo>& Amg::levels() const { return impl_->levels; }
double Amg::operator_complexity() const { return impl_->operator_complexity; }
double Amg::grid_complexity() const { return impl_->grid_complexity; }
std::string Amg::setup_location() const { return impl_->device ? "device" : "host"; }
const std::string& Amg::setup_note() const { return impl_->setup_note; }
const PhaseCommands& Amg::setup_commands() const { return impl_->setup_commands; }
const PhaseCommands& Amg::update_commands() const { return impl_->update_commands; }
int Amg::strengthened_at() const { return impl_->strengthened_at; }

void Amg::apply_checked(Vector& r, Vector& z) { impl_->cycle->apply(r, z); }

// Strengthening on demand: the hierarchy as built becomes the first hierarchy of the smoothed test
// vectors (AmgOptions::strengthen_test_vectors), once, where the solve's forecast says it pays.
bool Amg::strengthen_checked(Matrix& A, const SlowConvergence& evidence, PhaseTimes& times) {
  AmgOptions& o = impl_->options;
  if (o.strengthen_test_vectors == 0 || o.test_vectors > 0) return false;
  // A hierarchy built on the device (a GPU's scalar problems) would be rebuilt on the host, whose cost
  // its device setup's time does not tell (poisson3d:192: 63-70 ms there, seconds on a host): the
  // cost rule would misjudge it, so it declines.
  if (impl_->device) return false;
  if (!detail::amg::test_vectors_pay(evidence, o.strengthen_test_vectors, o.test_vector_steps, setup_seconds()))
    return false;
  o.test_vectors = o.strengthen_test_vectors;
  o.aggressive_levels = std::max(o.aggressive_levels, 1);
  // Plain aggregation: each vector is a coarse unknown per aggregate, and a smoothed prolongator's
  // wider columns made bcsstk25's coarse levels denser still (6 vectors: operator complexity 6.0
  // against 3.5) for more time to solution on every path (2 cores: 1,980-2,220 against 995-1,170 ms).
  o.prolongator_relaxation = 0;
  detail::amg::PhaseLog phases(times);
  impl_->rebuild_on_test_vectors(blas(), A, phases);
  impl_->describe();
  impl_->strengthened_at = evidence.iterations;
  return true;
}

// The update step: a device-built hierarchy, and a host-built one on a device with fp64 with the
// prolongators kept (A not in SELL), recompute every coarse operator there; otherwise the host
// hierarchy is refreshed from A's host values and uploaded.
void Amg::update_values(Matrix& A, PhaseTimes& times) {
  const AmgOptions& o = impl_->options;
  impl_->update_commands.clear();
  detail::amg::PhaseLog phases(times, &impl_->update_commands, context().get());
  if (impl_->device) {  // no host copy of the hierarchy to refresh: always on the device, by its kernels
    detail::amg::DeviceHierarchy& device = *impl_->device;
    impl_->cycle->refresh_on_device(A, nullptr, phases, [&](std::size_t l, Matrix& A_l) {
      device.refresh_next_level(l, A_l, o.update_prolongator, phases);
    });
    impl_->describe();
    return;
  }
  const DeviceInfo& device = context()->info();
  const bool kernels_here = o.update_on == AmgOptions::UpdateOn::Device ||
                            (o.update_on == AmgOptions::UpdateOn::Auto && device.type != DeviceType::Cpu);
  // galerkin.cl reads A's ELL, CSR and DIA parts; SELL's slices take the host path (read back).
  const bool kernels_read_a = A.format() != Format::Sell;
  const bool on_device =
      !o.update_prolongator && location() == Location::Device && device.fp64 && kernels_here && kernels_read_a;
  if (on_device) {
    impl_->cycle->refresh_on_device(A, impl_->host.get(), phases);
  } else {
    const auto start = detail::amg::Clock::now();
    const HostCsrMatrix& host = A.host_csr();
    phases.add("matrix to the host", start);
    impl_->host->refresh(host, impl_->options.update_prolongator, phases);
    impl_->cycle->refresh(A, *impl_->host, impl_->options.update_prolongator, phases);
  }
  impl_->describe();
}

}  // namespace clkr
