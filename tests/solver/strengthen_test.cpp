// Strengthening on demand (SolveOptions::strengthen_check, Preconditioner::strengthen): CG asks its
// preconditioner at the checks with its forecast, restarts from x when the preconditioner changed, and
// reports it; a preconditioner that declines changes nothing. Run on the fused device iteration and on
// the host backend's BLAS-call PCG.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "clkr/io/generators.hpp"
#include "clkr/precond/jacobi.hpp"
#include "clkr/solver/cg.hpp"
#include "solver_test_support.hpp"

namespace clkr {
namespace {

// Poisson 2D with its rows and columns scaled by D = 10^U(0, 2): the diagonal spans four orders of
// magnitude, so CG without a preconditioner needs hundreds of iterations and with Jacobi tens.
HostCsrMatrix badly_scaled_poisson(int n) {
  HostCsrMatrix A = poisson2d(n);
  const std::vector<double> u = test::random_vector(static_cast<std::size_t>(A.rows), 17);
  std::vector<double> d(u.size());
  for (std::size_t i = 0; i < u.size(); ++i) d[i] = std::pow(10.0, 1.0 + u[i]);
  for (std::int32_t i = 0; i < A.rows; ++i)
    for (std::int64_t k = A.row_offsets[i]; k < A.row_offsets[i + 1]; ++k) A.values[k] *= d[i] * d[A.col_indices[k]];
  return A;
}

// The identity until asked to strengthen, then Jacobi (when `agrees`); it keeps what it was asked.
class IdentityThenJacobi : public Preconditioner {
 public:
  IdentityThenJacobi(const Blas& solver, Matrix& A, bool agrees)
      : Preconditioner(solver, A, std::nullopt, "identity-then-jacobi"), jacobi_(solver, A), agrees_(agrees) {}
  bool symmetric() const override { return true; }
  PrecondKind kind() const override { return PrecondKind::Jacobi; }
  std::string description() const override { return strong_ ? "jacobi now" : "identity so far"; }
  const std::vector<SlowConvergence>& asks() const { return asks_; }

 protected:
  void apply_checked(Vector& r, Vector& z) override {
    if (strong_) {
      jacobi_.apply(r, z);
    } else {
      blas().copy(r, z);
    }
  }
  void update_values(Matrix& A, PhaseTimes&) override { jacobi_.update(A); }
  bool strengthen_checked(Matrix&, const SlowConvergence& evidence, PhaseTimes& phases) override {
    asks_.push_back(evidence);
    if (!agrees_) return false;
    strong_ = true;
    phases.emplace_back("switch", 0.0);
    return true;
  }

 private:
  Jacobi jacobi_;
  bool agrees_;
  bool strong_ = false;
  std::vector<SlowConvergence> asks_;
};

class StrengthenOnDemand : public ::testing::TestWithParam<Location> {
 protected:
  void SetUp() override {
    if (!test::context()->info().fp64) GTEST_SKIP() << "the device has no fp64";
  }
  struct Outcome {
    SolveResult result;
    std::vector<SlowConvergence> asks;
    double true_residual = 0;
    double strengthen_seconds = 0;
  };
  // CG on the scaled Poisson, b = ones, with the identity-then-Jacobi preconditioner.
  Outcome solve(bool agrees, int check) {
    const HostCsrMatrix host = badly_scaled_poisson(32);
    Matrix A(test::context(), host);
    Blas blas(test::context(), GetParam(), Precision::Double);
    IdentityThenJacobi M(blas, A, agrees);
    const std::vector<double> ones(static_cast<std::size_t>(host.rows), 1.0);
    Vector b(test::context(), ones), x(test::context(), ones.size());
    SolveOptions options;
    options.strengthen_check = check;
    options.max_iterations = 20000;
    Outcome o;
    o.result = cg(blas, A, M, b, x, options);
    o.asks = M.asks();
    o.true_residual = test::relative_residual(host, ones, x.to_host());
    o.strengthen_seconds = M.strengthen_seconds();
    return o;
  }
};

TEST_P(StrengthenOnDemand, RestartsWithTheStrongerPreconditioner) {
  const Outcome weak = solve(false, 0);
  const Outcome strong = solve(true, 20);
  ASSERT_TRUE(weak.result.converged()) << weak.result.message;
  ASSERT_TRUE(strong.result.converged()) << strong.result.message;
  // Asked once, at iteration 20, with a forecast of more iterations and a time per iteration.
  ASSERT_EQ(strong.asks.size(), 1u);
  EXPECT_EQ(strong.asks[0].iterations, 20);
  EXPECT_GT(strong.asks[0].forecast_iterations, 20.0);
  EXPECT_GT(strong.asks[0].seconds_per_iteration, 0.0);
  EXPECT_GT(strong.strengthen_seconds, 0.0);
  EXPECT_NE(strong.result.strengthened.find("asked at iteration 20"), std::string::npos) << strong.result.strengthened;
  EXPECT_NE(strong.result.strengthened.find("jacobi now"), std::string::npos) << strong.result.strengthened;
  // Jacobi after the restart: far fewer iterations in all than the identity's, and x is the solution.
  EXPECT_LT(2 * strong.result.iterations, weak.result.iterations)
      << "identity " << weak.result.iterations << ", strengthened " << strong.result.iterations;
  EXPECT_LE(strong.true_residual, 1e-8);
  EXPECT_TRUE(weak.result.strengthened.empty()) << weak.result.strengthened;
}

// Declining, it is asked at every check (20, 40, 80, ...) and the solve runs as without checks: the
// same iterations, give or take the one that a drained device iteration can add (cg_device waits for
// the iteration in flight before asking, and an iteration that reaches the tolerance there is
// confirmed one later), and the same accuracy.
TEST_P(StrengthenOnDemand, ADecliningPreconditionerChangesNothing) {
  const Outcome unasked = solve(false, 0);
  const Outcome declined = solve(false, 20);
  ASSERT_TRUE(unasked.result.converged()) << unasked.result.message;
  ASSERT_TRUE(declined.result.converged()) << declined.result.message;
  EXPECT_TRUE(unasked.asks.empty());
  std::vector<int> at;
  for (const SlowConvergence& ask : declined.asks) at.push_back(ask.iterations);
  std::vector<int> expected;
  for (int k = 20; k < declined.result.iterations; k *= 2) expected.push_back(k);
  EXPECT_EQ(at, expected);
  EXPECT_LE(std::abs(declined.result.iterations - unasked.result.iterations), 1)
      << unasked.result.iterations << " against " << declined.result.iterations;
  EXPECT_TRUE(declined.result.strengthened.empty()) << declined.result.strengthened;
  EXPECT_EQ(declined.strengthen_seconds, 0.0);
  EXPECT_LE(declined.true_residual, 1e-8);
}

INSTANTIATE_TEST_SUITE_P(Locations, StrengthenOnDemand, ::testing::Values(Location::Device, Location::Host),
                         [](const auto& info) { return info.param == Location::Device ? "Device" : "Host"; });

}  // namespace
}  // namespace clkr
