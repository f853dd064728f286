// What the device AMG setup and its update ask of the device, bounded per level (Amg::setup_commands,
// update_commands), so that a regression that a GPU would pay for is caught on any device: no array
// of a level read back (the bytes read in the hierarchy's phases are the few of counts and partial
// maxima), the waits for the device per level at most a few dozen in the setup (prefix-sum totals,
// rounds of the aggregation, the phases' ends) and a few in the update, and one wait per Lanczos run.
#include <gtest/gtest.h>

#include <algorithm>

#include "../precision_support.hpp"
#include "amg_test_support.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/precond/amg.hpp"

namespace clkr {
namespace {

CommandCounts total(const PhaseCommands& phases, const std::vector<std::string>& leave_out = {}) {
  CommandCounts sum;
  for (const auto& [phase, counts] : phases)
    if (std::find(leave_out.begin(), leave_out.end(), phase) == leave_out.end()) sum += counts;
  return sum;
}

const CommandCounts& phase(const PhaseCommands& phases, const std::string& name) {
  for (const auto& [p, counts] : phases)
    if (p == name) return counts;
  static const CommandCounts none;
  ADD_FAILURE() << "no phase '" << name << "'";
  return none;
}

// What one small read of the hierarchy's phases may bring: a count (8 bytes), or the partial maxima of
// a pass over a level (gershgorin.cl: 12 bytes per work-group, at most 8 groups per compute unit).
std::uint64_t bytes_per_small_read(const DeviceInfo& device) {
  return std::max<std::uint64_t>(16, 12 * 8 * std::max<std::uint64_t>(device.compute_units, 1));
}

TEST(DeviceSetupCommands, FewWaitsPerLevelAndNoArrayReadBack) {
  auto context = test::amg_context();
  CLKR_SKIP_UNLESS_AVAILABLE(context, Precision::Double);
  const HostCsrMatrix host = poisson3d(32);
  for (Format format : {Format::Csr, Format::Ell}) {
    Matrix A(context, host, format);
    Blas blas(context, Location::Device, Precision::Double);
    AmgOptions options;
    options.setup_on = AmgOptions::SetupOn::Device;
    options.coarse_size = 100;
    Amg M(blas, A, options);
    ASSERT_EQ(M.setup_location(), "device");
    const std::size_t levels = M.levels().size(), coarsened = levels - 1;
    ASSERT_GE(coarsened, 2u);
    const std::string what = to_string(format) + ", " + std::to_string(levels) + " levels";
    const PhaseCommands& setup = M.setup_commands();
    // The hierarchy's phases read no array: 32768 rows, an array of them is 131 KB of ints or 262 KB
    // of doubles; the coarsest operator comes to the host in "coarse inverse", and the smoother setup
    // reads each level's statistics (a fixed 4 KB histogram) on its first SpMV.
    const CommandCounts hierarchy = total(setup, {"coarse inverse", "smoother setup"});
    EXPECT_LE(hierarchy.read_bytes, hierarchy.reads * bytes_per_small_read(context->info())) << what;
    // Waits: about 24 a coarsened level on Poisson (2026-11-27; 60-80 before the counts were batched
    // and the matrices made on the device stopped reading their diagonals and statistics back).
    EXPECT_LE(hierarchy.waits, 30 * coarsened) << what;
    // The smoothers: per level the Gershgorin pass and one read of the Lanczos run's scalars (two
    // reads a step before), and the statistics of the coarse operators.
    EXPECT_LE(phase(setup, "smoother setup").waits, 3 * coarsened) << what;

    A.update_values(host.values);
    M.update(A);
    const PhaseCommands& update = M.update_commands();
    const CommandCounts refresh = total(update, {"coarse inverse"});
    EXPECT_LE(refresh.read_bytes, refresh.reads * bytes_per_small_read(context->info())) << what;
    // Per level: the check for NaN, the end of the Galerkin phase, the Gershgorin pass, the Lanczos
    // run; the CSR copy of A in ELL once.
    EXPECT_LE(refresh.waits, 5 * coarsened + 2) << what;
    // The products' row bounds are kept from the setup: a first update allocates the Lanczos runs' four
    // vectors a level and small buffers, no array of a product (four ints a row of A, of A P, ...).
    std::uint64_t smoothed_rows = 0;
    for (std::size_t l = 0; l < coarsened; ++l) smoothed_rows += static_cast<std::uint64_t>(M.levels()[l].rows);
    EXPECT_LE(refresh.allocated_bytes, 4 * sizeof(double) * smoothed_rows + 65536) << what;
    // Those are kept: a later update allocates nothing (on NVIDIA's OpenCL a buffer allocated and
    // released around its kernel costs ~80 us, and an update made ~50 of them).
    A.update_values(host.values);
    M.update(A);
    EXPECT_EQ(total(M.update_commands(), {}).allocations, 0u) << what << ": the second update";
  }
}

}  // namespace
}  // namespace clkr
