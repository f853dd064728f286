// clkr::Amg: smoothed-aggregation algebraic multigrid (Vanek, Mandel and Brezina 1996) as a
// preconditioner: one V-cycle per application. The hierarchy (strength of connection, aggregation,
// tentative prolongator from a near-null space, prolongator smoothing, Galerkin coarse operators
// P^T A P) is built on the device or on the host (AmgOptions::setup_on); the cycle runs on the device,
// with damped-Jacobi or Chebyshev smoothing on every level and a direct solve of the coarsest system.
// The parts live in src/precond/amg/, one file per concept; docs/preconditioners.md describes them.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "clkr/precond/preconditioner.hpp"

namespace clkr {

// Chebyshev: the Chebyshev polynomial (first kind) on [chebyshev_lower_ratio, 1] x lambda_max(D^-1 A);
// Chebyshev4: the fourth-kind Chebyshev smoother (Lottes 2023), which needs no lower end, at the same
// cost per sweep: 8-18% fewer iterations than Chebyshev on scalar 3D problems (Poisson, jumping and
// anisotropic coefficients) at 48^3-96^3, none at 256^3 (H200); at degree 2 a 8-37% shorter solve
// there than Chebyshev's degree 3; 7-28% more iterations on the SuiteSparse elasticity and shell
// matrices (docs/preconditioners.md).
// GaussSeidel: l1 hybrid Gauss-Seidel, forward before the coarse correction and backward after (one
// pass over the matrix a sweep, half of one from x = 0); the host backend only (a device refuses it).
enum class AmgSmoother { Jacobi, Chebyshev, Chebyshev4, GaussSeidel };
std::string to_string(AmgSmoother smoother);  // "jacobi", "chebyshev", "chebyshev4", "gauss-seidel"
AmgSmoother parse_amg_smoother(const std::string& text);

struct AmgOptions {
  // ---- coarsening -------------------------------------------------------------------------------
  // Nodes i and j are strongly connected when ||A_ij||^2 > eps^2 ||A_ii|| ||A_jj|| (blocks of a node
  // measured in the Frobenius norm; a_ij^2 > eps^2 |a_ii a_jj| for one unknown per node). eps halves
  // on every coarser level, as coarse operators are denser and weaker.
  double strength_threshold = 0.08;
  // Coarsening stops at this many rows or fewer: that level is solved directly.
  std::int32_t coarse_size = 500;
  int max_levels = 20;
  // The prolongator smoother's damping: omega = prolongator_relaxation * (4/3) / rho(D^-1 A_F), with
  // rho bounded by Gershgorin's theorem (A_F: A with its weak connections lumped onto the diagonal).
  // 0: plain (unsmoothed) aggregation, P = P_tent: about half the setup (no A_F P product, coarse
  // operators as sparse as A's aggregated blocks) and cheaper cycles, for more iterations where the
  // near-null space is exact (poisson3d:64: 26 against 12) and about as many where it is not (the
  // SuiteSparse shells and bcsstk*, whose rotations the constants miss): docs/preconditioners.md.
  double prolongator_relaxation = 1.0;
  bool plain_aggregation() const { return prolongator_relaxation == 0; }
  // Unknowns per node (numbered node by node: rows k*b .. k*b+b-1 belong to node k); aggregates are
  // built from whole nodes. A.rows() must be a multiple. 0: read from the sparsity pattern (of the
  // host CSR: A.host_csr()), 1 unless groups of b consecutive rows couple to the same nodes (bcsstk17:
  // 6, bcsstk16: 3; stencils: 1); and nodes of different sizes into node_offsets instead when
  // consecutive rows share most of their columns and these nodes average more than b rows (the shells
  // of Cylshell, whose constrained unknowns were removed: 961 nodes of 1-6 unknowns in 5489 rows, where
  // no b fits). Under setup_on Auto, b > 1 or nodes found send a GPU's setup to the host (the device
  // setup aggregates single unknowns); setup_on Device reads no pattern. Amg::options() reports what
  // was used. The `clkr` program's default.
  int block_size = 1;
  // Nodes of different sizes, numbered node by node: node k owns rows node_offsets[k] ..
  // node_offsets[k+1] - 1 (0 first, A.rows() last, increasing), as a FEM code numbers a mesh whose
  // nodes lost their constrained unknowns. Aggregates are built from whole nodes, and the default
  // near-null space has a vector per position in a node (1 on the j-th unknown of every node that has
  // one: the translations and rotations as constants). Empty: nodes of block_size; given, block_size
  // must be 1 (or 0, which then reads no pattern). Taken by the host setup (setup_on Auto builds there).
  std::vector<std::int32_t> node_offsets;
  // Levels (from the finest) that aggregate aggressively: aggregates reaching a node's strong
  // neighbours and theirs (the host setup aggregates the distance-two strength graph; the device setup
  // takes the roots from a distance-four independent set). 1 on 3D Poisson: operator complexity 1.61 ->
  // 1.11, 12 -> 15 PCG iterations (docs/preconditioners.md); 0 by default.
  int aggressive_levels = 0;
  // The near-null space B: vectors of A.rows() elements that A nearly annihilates and that the coarse
  // levels must represent exactly (3D elasticity: the six rigid-body modes). Empty: block_size
  // vectors, the constant on each unknown of a node (the constant vector for block_size 1).
  std::vector<std::vector<double>> near_null_space;
  // Smoothed test vectors (adaptive smoothed aggregation; src/precond/amg/test_vectors.hpp): where the
  // near-null space is not known and the constants are not one (a frame's beams, whose unknowns mix
  // displacements and rotations in no node order the pattern shows: bcsstk25), the setup first builds
  // the hierarchy as usual, then runs test_vector_steps CG iterations preconditioned by it on A e = 0
  // from test_vectors random starts, and builds the hierarchy again on the errors left: the modes the
  // first one could not reduce. They replace the default constants, or join a given near_null_space.
  // Each vector is a coarse unknown per aggregate, so pair it with aggressive_levels = 1, whose larger
  // aggregates keep the coarse levels sparse (bcsstk25 with 6 vectors: operator complexity 3.5 plain,
  // 5.9 smoothed; without it 6.8 and 17.5, and slower). It costs test_vectors * test_vector_steps
  // cycles and a second build: worth it where the first hierarchy takes hundreds of iterations
  // (bcsstk25 on 2 cores: 2,900 -> 580 PCG iterations, 0.33x Eigen IC-CG's time to solution;
  // docs/preconditioners.md), not where it takes tens. 0: off (the default). The second build runs on
  // the host whatever setup_on says; Amg::options() reports the vectors in near_null_space (so options
  // copied from it into a new Amg would add test vectors to them again: reset test_vectors to 0).
  int test_vectors = 0;
  // At most this many: more than a 3D shell's six rigid-body modes and as many again would make every
  // coarse operator denser than the fine one.
  static constexpr int kMaxTestVectors = 12;
  int test_vector_steps = 20;
  // Strengthening on demand (Preconditioner::strengthen): when a CG solve forecasts a long way to go
  // (SolveOptions::strengthen_check), a hierarchy built without test vectors rebuilds itself on this
  // many, with aggressive_levels at least 1 and plain aggregation (prolongator_relaxation 0: with
  // the vectors' coarse unknowns a smoothed P made the coarse levels too dense), and the solve
  // restarts from where it was; options() then reports what it was rebuilt with. It does so
  // only where the forecast saving, taken as a quarter of the remaining iterations' time, exceeds the
  // cost: test_vector_steps iterations per vector plus twice the first setup (CG's forecast from a
  // residual that humps is rough: bcsstk13 was forecast 855 iterations at iteration 200 and took 285).
  // So the solves the constants serve well never pay for it (their forecast stays short), and one
  // like bcsstk25's is caught at iteration 100 (docs/preconditioners.md). A hierarchy built on the
  // device declines (its rebuild would run on the host, at a cost its setup's time does not tell).
  // 0: never strengthen.
  int strengthen_test_vectors = 6;

  // ---- the cycle ---------------------------------------------------------------------------------
  AmgSmoother smoother = AmgSmoother::Chebyshev;
  int pre_sweeps = 1, post_sweeps = 1;
  // Node-block smoothing: the smoothers (Chebyshev, Chebyshev4, damped Jacobi) scale the residual by
  // the inverse of each node's diagonal block (the unknowns of a mesh node: block_size or
  // node_offsets; on coarser levels the coarse unknowns of an aggregate) instead of 1 / diag(A), and
  // their spectrum bound is that of B^-1 A. Levels whose nodes are all single unknowns keep the point
  // kernels. The blocks are built and refreshed on the host (from the host setup's operators, or A
  // read back after a device update), so only a host-built hierarchy has them (a device-built one
  // aggregates single unknowns). A Chebyshev step with blocks takes two kernels (the residual's SpMV,
  // then B^-1's with the update fused into it) where the point smoother takes one; in the one-launch
  // cycle two steps (docs/preconditioners.md measures it). Auto: the library's choice, On for now on
  // every device (the SuiteSparse matrices with nodes: up to 50% less time to solution on PoCL and
  // 31% on an H200, at most 16% more where the iterations hardly fall); Amg::options() reports it.
  enum class BlockSmoothing { Auto, Off, On };
  BlockSmoothing block_smoothing = BlockSmoothing::Auto;
  // How often a level visits the next coarser one per cycle: 1, a V-cycle; 2, a W-cycle (level l is
  // visited 2^l times; the coarsest level's solve is exact, so the last coarse level visits it once).
  int cycle_index = 1;
  // Chebyshev: the polynomial degree of one sweep, on [chebyshev_lower_ratio * upper, upper] with
  // upper = 1.1 * lambda_max(D^-1 A). 3 by default: on Poisson problems and the SuiteSparse elasticity
  // matrices it takes 25-35% fewer iterations than 2 for about the same total work, and fewer than
  // damped Jacobi by more (docs/preconditioners.md compares them).
  int chebyshev_degree = 3;
  double chebyshev_lower_ratio = 1.0 / 30;
  // Damped Jacobi: x += w D^-1 (b - A x), w = jacobi_weight, or 4 / (3 lambda_max(D^-1 A)) when 0.
  double jacobi_weight = 0;
  // Lanczos steps per level for lambda_max(D^-1 A) (run on the device with the level's operator);
  // 0 takes Gershgorin's bound instead (no setup SpMVs, a looser bound).
  int eigen_iterations = 10;

  // ---- the update step (Preconditioner::update) ----------------------------------------------------
  // false (the default): keep the aggregates and the prolongators P (and R = P^T) of the setup and
  // recompute the coarse operators R A P from A's new values (on the device, in double, when it has
  // fp64), the smoothers' spectrum bounds and the coarsest inverse, as PETSc's GAMG reuses its
  // interpolation; true: also re-smooth P from the new values on the host (the hierarchy a fresh setup
  // on the kept aggregates would build; slower).
  bool update_prolongator = false;
  // Lanczos steps per level for the smoothers' bound in update(), from the setup's start vector: the
  // setup's bound is scaled by the ratio of their largest Ritz value to the one the setup's run had
  // after as many steps (exact when the values are scaled; docs/preconditioners.md says how close
  // otherwise). eigen_iterations or more: a fresh estimate, as the setup makes; 0: Gershgorin's bound.
  int update_eigen_iterations = 4;
  // Where update() recomputes R (A P) when the prolongators are kept. Auto: on the device when it is
  // not a CPU and has fp64 (the galerkin.cl kernels, no transfer of A), else on the host, whose
  // sparse products beat the kernels on CPU devices (poisson3d:64 on PoCL, 2 cores: an update takes
  // 67 ms on the host, 150-200 ms with the kernels). Device: the kernels wherever there is fp64; Host:
  // always the host (it reads A back unless the Matrix keeps its host copy).
  enum class UpdateOn { Auto, Device, Host };
  UpdateOn update_on = UpdateOn::Auto;

  // ---- where the setup runs -----------------------------------------------------------------------
  // Device: every level built by kernels on the preconditioner's device (a parallel aggregation by
  // distance-2 independent sets, distance-4 on aggressive levels, the sparse products by hashing;
  // docs/preconditioners.md), the operators never leaving it; Host: the host setup (OpenMP), uploaded.
  // Auto: Device on GPUs, Host on CPU devices (faster there). The device setup takes block_size 1
  // without a near_null_space, a device with fp64 and Location::Device: otherwise the host builds the hierarchy
  // and (with Device) Amg::setup_note() says why. block_size 0 with Device: 1, A not read back; with
  // Auto or Host: detected on A's host copy (so on a GPU a matrix with blocks is set up on the host).
  // A device-built hierarchy is updated on the device whatever update_on says.
  enum class SetupOn { Auto, Device, Host };
  SetupOn setup_on = SetupOn::Auto;
};

std::string to_string(AmgOptions::SetupOn where);  // "auto", "device", "host"
AmgOptions::SetupOn parse_amg_setup_on(const std::string& text);
std::string to_string(AmgOptions::BlockSmoothing choice);  // "auto", "off", "on"
// "auto", and "on"/"off" or the boolean words (true, false, 1, 0, yes, no).
AmgOptions::BlockSmoothing parse_amg_block_smoothing(const std::string& text);
// AmgOptions::cycle_index from its name: "v" 1, "w" 2; anything else throws "expected v or w".
int parse_amg_cycle(const std::string& text);

// One level of a built hierarchy, finest first.
struct AmgLevelInfo {
  std::int64_t rows = 0, nnz = 0;
  std::int64_t prolongator_nnz = 0;  // P from the next coarser level to this one (0 on the coarsest)
  double lambda_max = 0;             // the smoother's bound on lambda_max(D^-1 A) (0 on the coarsest)
  std::string format;                // the operator's storage format; "dense" for the direct solve
  std::string values;                // how its values are stored: the precision's name, or "half"
};

class Amg : public Preconditioner {
 public:
  // Builds the hierarchy for A (A must outlive the preconditioner: the finest level multiplies by A
  // itself). Throws clkr::Error for: a non-square A or rows not a multiple of block_size, a diagonal
  // entry that is not positive (naming row and level), a near-null-space vector of the wrong length
  // or with NaN/Inf, options out of range, an aggregation that makes no progress (naming the level),
  // NaN/Inf appearing in a coarse operator, a singular coarsest operator.
  // `matrix_values` Half (with precision Single): every level's operator, P, R and the coarsest
  // inverse read as binary16 values where they fit (ValueStorage); levels() says where.
  Amg(const Blas& solver, Matrix& A, AmgOptions options = {}, std::optional<Precision> precision = std::nullopt,
      ValueStorage matrix_values = ValueStorage::Working);
  ~Amg() override;

  bool symmetric() const override { return true; }
  PrecondKind kind() const override { return PrecondKind::Amg; }
  std::string description() const override;

  const AmgOptions& options() const;
  const std::vector<AmgLevelInfo>& levels() const;
  // sum over levels of nnz / nnz(A): the memory and work of a V-cycle relative to one SpMV with A.
  double operator_complexity() const;
  // sum over levels of rows / rows(A).
  double grid_complexity() const;
  // Where the hierarchy was built: "device" or "host".
  std::string setup_location() const;
  // Why the host built it although setup_on asked for the device (empty otherwise).
  const std::string& setup_note() const;
  // What the setup and the latest update() asked of the device, phase by phase (the phases of
  // setup_phases() and update_phases()): the launches, waits and transfers that cost a GPU more than
  // the bytes its kernels move.
  const PhaseCommands& setup_commands() const;
  const PhaseCommands& update_commands() const;
  // The iteration of the solve at which the hierarchy strengthened itself (0: it has not).
  int strengthened_at() const;

 protected:
  void apply_checked(Vector& r, Vector& z) override;
  void update_values(Matrix& A, PhaseTimes& phases) override;
  bool strengthen_checked(Matrix& A, const SlowConvergence& evidence, PhaseTimes& phases) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace clkr
