// A Context without profiling (ContextOptions::profiling = false, what `clkr bench solve` runs on):
// the same solve to the same bits, the Blas counters keep calls, flops and bytes but no device time,
// and what needs the device's timings (the tuner) refuses clearly instead of failing in the driver.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "../precision_support.hpp"
#include "clkr/blas/tuner.hpp"
#include "clkr/io/generators.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/solver/cg.hpp"
#include "solver_test_support.hpp"

namespace clkr {
namespace {

// The fused CG on `context`: its result, solution and counters.
struct ProfiledRun {
  SolveResult result;
  std::vector<double> x;
  std::map<std::string, OpCounters> counters;
};

ProfiledRun fused_cg_on(const std::shared_ptr<Context>& context, const HostCsrMatrix& host) {
  Matrix A(context, host, Format::Csr);
  Vector b(context, std::vector<double>(static_cast<std::size_t>(host.rows), 1.0), "b");
  Vector x(context, static_cast<std::size_t>(host.rows), "x");
  Blas blas(context, Location::Device, test::widest_device_precision(*context));
  SolveOptions options;
  options.cg_path = CgPath::Fused;
  ProfiledRun run;
  run.result = cg(blas, A, b, x, options);
  run.x = x.to_host();
  run.counters = blas.counters();
  return run;
}

TEST(ContextProfiling, OffSolvesToTheSameBitsAndCountsWithoutTimes) {
  ContextOptions off;
  off.profiling = false;
  const std::shared_ptr<Context> quiet = Context::create("", off);
  EXPECT_FALSE(quiet->profiling());
  EXPECT_TRUE(test::context()->profiling());
  const HostCsrMatrix host = poisson3d(12);
  const ProfiledRun timed = fused_cg_on(test::context(), host), untimed = fused_cg_on(quiet, host);
  ASSERT_TRUE(untimed.result.converged()) << untimed.result.message;
  EXPECT_EQ(untimed.result.iterations, timed.result.iterations);
  EXPECT_EQ(untimed.x, timed.x);
  ASSERT_EQ(untimed.counters.size(), timed.counters.size());
  for (const auto& [op, counters] : untimed.counters) {
    SCOPED_TRACE(op);
    ASSERT_TRUE(timed.counters.count(op));
    EXPECT_EQ(counters.calls, timed.counters.at(op).calls);
    EXPECT_EQ(counters.bytes, timed.counters.at(op).bytes);
    EXPECT_EQ(counters.seconds, 0.0);
  }
  double timed_seconds = 0;
  for (const auto& entry : timed.counters) timed_seconds += entry.second.seconds;
  EXPECT_GT(timed_seconds, 0.0);
  try {
    tune_device(quiet, TuneOptions{});
    FAIL() << "the tuner ran without profiling";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("profiling"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace clkr
