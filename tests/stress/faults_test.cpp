// Faults while solving (issue 14, item 6), made on purpose: device memory that runs out in the middle of
// an AMG setup and of a GMRES solve (Context::limit_device_memory, as a full GPU refuses an allocation),
// and a command that fails in the middle of a setup or a solve (Context::fail_commands_after, as a kernel
// launch fails on a GPU with CL_OUT_OF_RESOURCES). Each must end in a clkr::Error naming what failed,
// leave no device memory behind (the context's counter back to zero once the objects are gone; caches
// such as a Blas's scratch vectors live as long as their object), and leave the process working: the same solve
// afterwards, on the same context and on a fresh one, gives what it gives when nothing failed, bit for bit. CI also
// runs this binary under AddressSanitizer.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "clkr/precond/amg.hpp"
#include "clkr/runtime/error.hpp"
#include "clkr/solver/solve.hpp"
#include "stress_support.hpp"

namespace {

using namespace clkr;
using clkr::test::bit_identical;
using clkr::test::job_rhs;
using clkr::test::settled_live_bytes;

constexpr const char* kMatrix = "poisson3d:16";

// A matrix with b and x on a context, and a Blas: what lives before the setup and the solve.
struct System {
  std::shared_ptr<Context> context;
  HostCsrMatrix host = load_matrix(kMatrix);
  Matrix A;
  Vector b, x;
  Blas blas;
  explicit System(std::shared_ptr<Context> c, Precision precision = Precision::Double)
      : context(std::move(c)),
        A(context, host),
        b(context, job_rhs(static_cast<std::size_t>(host.rows)), "b"),
        x(context, static_cast<std::size_t>(host.rows), "x"),
        blas(context, Location::Device, precision) {}
};

// A solver kind with its preconditioner, and the solve's result (x and its iterations).
struct SolveCase {
  SolverKind solver;
  PrecondKind precond;
  const char* label;
  CgPath cg_path = CgPath::Auto;
};
struct Answer {
  SolveStatus status;
  int iterations;
  std::vector<double> x;
};

Answer solve_with(System& s, const SolveCase& run) {
  PrecondOptions precond;
  precond.kind = run.precond;
  std::unique_ptr<Preconditioner> M = make_preconditioner(s.blas, s.A, precond);
  SolveOptions options;
  options.relative_tolerance = 1e-8;
  options.cg_path = run.cg_path;
  const SolveResult r = solve(run.solver, s.blas, s.A, *M, s.b, s.x, options);
  return {r.status, r.iterations, s.x.to_host()};
}

// What the run gives when nothing fails, on a context of its own.
Answer reference(const SolveCase& run) {
  System s(Context::create());
  return solve_with(s, run);
}

void expect_same_answer(const Answer& got, const Answer& expected, const std::string& label) {
  EXPECT_EQ(got.status, SolveStatus::Converged) << label;
  EXPECT_EQ(got.iterations, expected.iterations) << label;
  EXPECT_TRUE(bit_identical(got.x, expected.x)) << label << ": x differs from the solve without a fault";
}

bool mentions(const Error& e, const std::string& text) { return std::string(e.what()).find(text) != std::string::npos; }

// The device memory a context holds with no clkr object alive on it (after the driver has freed all).
std::uint64_t idle_bytes(Context& context) { return settled_live_bytes(context, 0); }

TEST(DeviceMemoryFault, RunningOutInTheMiddleOfAnAmgSetupIsAnErrorThatLeavesNothingBehind) {
  const SolveCase amg{SolverKind::Cg, PrecondKind::Amg, "cg + amg"};
  const Answer expected = reference(amg);
  // The AMG setup's own need: its peak beyond what the system holds, on a context of its own.
  std::uint64_t setup_need = 0;
  {
    System s(Context::create());
    const std::uint64_t before = settled_live_bytes(*s.context, s.context->device_memory().live_bytes);
    Amg M(s.blas, s.A);
    s.context->finish();
    setup_need = s.context->device_memory().peak_bytes - before;
  }
  ASSERT_GT(setup_need, 0u);

  const std::shared_ptr<Context> context = Context::create();
  {
    System s(context);
    const std::uint64_t before = settled_live_bytes(*context, context->device_memory().live_bytes);
    context->limit_device_memory(before + setup_need / 2);
    try {
      Amg M(s.blas, s.A);
      ADD_FAILURE() << "the AMG setup fit in half the memory it needs";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), CL_MEM_OBJECT_ALLOCATION_FAILURE) << e.what();
      EXPECT_TRUE(mentions(e, "allocating buffer '") && mentions(e, "CL_MEM_OBJECT_ALLOCATION_FAILURE") &&
                  mentions(e, "out of device memory"))
          << e.what();
    }
    EXPECT_EQ(settled_live_bytes(*context, before), before) << "the failed setup left device memory behind";
    // The same context, the limit lifted: the solve as if nothing had happened.
    context->limit_device_memory(0);
    expect_same_answer(solve_with(s, amg), expected, "the same context after the failed setup");
  }
  EXPECT_EQ(idle_bytes(*context), 0u) << "device memory held with every object gone";
  System fresh(Context::create());
  expect_same_answer(solve_with(fresh, amg), expected, "a fresh context after the failed setup");
}

TEST(DeviceMemoryFault, RunningOutInTheMiddleOfAGmresSolveIsAnErrorThatLeavesNothingBehind) {
  const SolveCase gmres{SolverKind::Gmres, PrecondKind::Jacobi, "gmres + jacobi"};
  const Answer expected = reference(gmres);
  const std::shared_ptr<Context> context = Context::create();
  {
    System s(context);
    PrecondOptions jacobi;
    jacobi.kind = PrecondKind::Jacobi;
    std::unique_ptr<Preconditioner> M = make_preconditioner(s.blas, s.A, jacobi);
    const std::uint64_t before = settled_live_bytes(*context, context->device_memory().live_bytes);
    // Room for a few work vectors, not for the 31 of the restart basis.
    context->limit_device_memory(before + 8 * sizeof(double) * static_cast<std::uint64_t>(s.host.rows));
    try {
      SolveOptions options;
      options.relative_tolerance = 1e-8;
      solve(SolverKind::Gmres, s.blas, s.A, *M, s.b, s.x, options);
      ADD_FAILURE() << "GMRES(30) solved with room for 8 vectors";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), CL_MEM_OBJECT_ALLOCATION_FAILURE) << e.what();
      EXPECT_TRUE(mentions(e, "allocating buffer '") && mentions(e, "gmres")) << e.what();
    }
    M.reset();
    context->limit_device_memory(0);
    expect_same_answer(solve_with(s, gmres), expected, "the same context after the failed solve");
  }
  EXPECT_EQ(idle_bytes(*context), 0u) << "device memory held with every object gone";
}

// A command failing at the k-th use of the queue, for k across the setup and the solve: either the
// call ends in a clkr::Error carrying CL_OUT_OF_RESOURCES (never a crash, a hang or a raw cl::Error),
// or it needed fewer commands and solved. Once its objects are gone the context holds no device memory,
// and the next solve on it gives the answer. The k are fixed and fractions of the commands a clean
// solve issues (the persistent CG on a GPU issues a few dozen, the fused path on PoCL thousands); every
// k up to a quarter of those must strike (a faulted run's count varies: the persistent CG's polls).
TEST(CommandFault, AFailedCommandAnywhereInASetupOrSolveIsAnErrorAndTheNextSolveWorks) {
  const std::vector<SolveCase> runs = {
      // CG's device kernels (Auto would run this small system on the host of a CPU device, with only
      // the uploads and read-backs of b and x as commands).
      {SolverKind::Cg, PrecondKind::None, "cg", CgPath::Fused},
      {SolverKind::Cg, PrecondKind::Amg, "cg + amg"},
      {SolverKind::Gmres, PrecondKind::Jacobi, "gmres + jacobi"},
      {SolverKind::BiCgStab, PrecondKind::Chebyshev, "bicgstab + chebyshev"},
  };
  for (const SolveCase& run : runs) {
    const Answer expected = reference(run);
    const std::shared_ptr<Context> context = Context::create();
    std::uint64_t commands = 0;
    {
      constexpr std::uint64_t kArmed = std::uint64_t{1} << 40;
      System s(context);
      context->fail_commands_after(kArmed);
      solve_with(s, run);
      commands = kArmed - context->commands_until_fault();
      context->fail_commands_after(0);
    }
    ASSERT_GE(commands, 8u) << run.label;
    std::set<std::uint64_t> ks = {commands / 4, commands / 2, commands};
    for (std::uint64_t k : {1, 2, 5, 17, 60, 200, 700, 2500})
      if (k <= commands) ks.insert(k);
    int failed = 0;
    for (std::uint64_t k : ks) {
      const bool must_strike = k <= commands / 4;
      const std::string label = std::string(run.label) + ", command " + std::to_string(k) + " failing";
      {
        System s(context);
        context->fail_commands_after(k);
        std::optional<Answer> answer;
        try {
          answer = solve_with(s, run);
        } catch (const Error& e) {
          ++failed;
          EXPECT_EQ(e.code(), CL_OUT_OF_RESOURCES) << label << ": " << e.what();
          EXPECT_TRUE(mentions(e, "CL_OUT_OF_RESOURCES")) << label << ": " << e.what();
        } catch (const std::exception& e) {
          ADD_FAILURE() << label << ": not a clkr::Error: " << e.what();
        }
        context->fail_commands_after(0);
        if (answer) {
          EXPECT_FALSE(must_strike) << label << ": solved, though a clean solve issues " << commands << " commands";
          expect_same_answer(*answer, expected, label + " (the solve needed fewer commands)");
        }
      }
      EXPECT_EQ(idle_bytes(*context), 0u) << label << ": device memory held with every object gone";
      System s(context);
      expect_same_answer(solve_with(s, run), expected, label + ", the next solve");
    }
    EXPECT_GE(failed, 4) << run.label << ": " << commands << " commands; the faults should have struck most of "
                         << ks.size() << " solves";
  }
}

}  // namespace
