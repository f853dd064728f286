// The host backend's AMG asks nothing of the device: its levels, prolongators, node blocks and the
// coarsest inverse stay host matrices (MatrixOptions::defer_upload), in the setup and in an update,
// and the preconditioner still solves as it should.
#include <gtest/gtest.h>

#include "amg_test_support.hpp"
#include "clkr/blas/blas.hpp"
#include "clkr/precond/amg.hpp"

namespace clkr {
namespace {

CommandCounts total(const PhaseCommands& phases) {
  CommandCounts sum;
  for (const auto& [phase, counts] : phases) sum += counts;
  return sum;
}

void expect_no_device_work(const PhaseCommands& phases, const std::string& what) {
  const CommandCounts c = total(phases);
  EXPECT_EQ(c.launches, 0u) << what;
  EXPECT_EQ(c.writes, 0u) << what << ": " << c.write_bytes << " bytes sent to the device";
  EXPECT_EQ(c.reads, 0u) << what;
  EXPECT_EQ(c.allocations, 0u) << what << ": " << c.allocated_bytes << " bytes allocated on the device";
}

TEST(AmgHostBackend, SetupAndUpdateAskNothingOfTheDevice) {
  auto context = test::amg_context();
  // Scalar nodes (point smoothing) and nodes of 3 unknowns (node-block smoothing, its block matrices).
  for (const HostCsrMatrix& host : {poisson3d(16), test::grid_with_blocks(24, 3)}) {
    const std::string what = std::to_string(host.rows) + " rows";
    MatrixOptions matrix_options;
    matrix_options.keep_host_copy = true;
    Matrix A(context, host, Format::Csr, matrix_options);
    Blas blas(context, Location::Host, Precision::Double);
    AmgOptions options;
    options.coarse_size = 60;  // three levels or more, so that the coarse levels are matrices of the setup
    Amg M(blas, A, options);
    ASSERT_GE(M.levels().size(), 3u) << what;
    expect_no_device_work(M.setup_commands(), what + ", setup");
    const int iterations = test::pcg_iterations_on_ones(blas, A, M);

    test::update_with_doubled_values(A, host, M);
    expect_no_device_work(M.update_commands(), what + ", update");
    EXPECT_EQ(test::pcg_iterations_on_ones(blas, A, M), iterations) << what;
  }
}

}  // namespace
}  // namespace clkr
