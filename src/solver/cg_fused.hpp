// The device path of CG: three fused kernels per iteration (kernels/solver/cg.cl) with alpha, beta and
// rho kept on the device, and r'r read back without draining the queue.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "clkr/blas/blas.hpp"
#include "clkr/solver/options.hpp"
#include "solve_monitor.hpp"

namespace clkr::detail {

// block[index] = value, on the device (value and block in value.precision()).
void store_scalar(Context& context, const DeviceScalar& value, Vector& block, std::size_t index);

// Element i of `count` reals of precision p read back from the device into `bytes` (quasi-double: the
// `count` heads, then the `count` tails), as a double.
double staged_real(const unsigned char* bytes, Precision p, int count, int i);

// The start, and every restart, of a device CG: r = b - A x (unless `have_residual`), p = r, and r'r
// queued on the device.
DeviceScalar start_cg(Blas& blas, Matrix& A, Vector& b, Vector& x, Vector& r, Vector& p, bool x_is_zero,
                      bool have_residual);

// How the fused CG kernels (and the batched CG's, which mirror them) cover n rows, from the Blas's
// DeviceParams: CPUs about four contiguous chunks of rows per core, one work-item each; GPUs a grid of
// work-groups per compute unit walking the rows with a stride (coalesced).
struct FusedLaunchShape {
  bool chunked = false;   // CPUs: contiguous chunks; GPUs: grid-stride
  std::size_t local = 1;  // work-group size (the kernels' WG)
  std::size_t groups = 1;
  int chunk = 0;  // rows per work-item (chunked)
};
FusedLaunchShape fused_launch_shape(const Blas& blas, std::size_t n);

class FusedCgSteps {
 public:
  // Only for blas.location() == Device; any format and precision (formats without a fused SpMV kernel
  // run the Blas SpMV followed by a p'q partial-sum kernel). `preconditioner`: the precision PCG's
  // preconditioner computes in, when there is one; a single one inside a double solve makes the
  // mixed-precision kernels (update_xr also stores r's single copy; dot_rz and
  // update_p_preconditioned read z's single copy).
  FusedCgSteps(Blas& blas, Matrix& A, std::optional<Precision> preconditioner = std::nullopt);

  // rho = r'r of the starting residual, from the Blas's own reduction.
  void set_rho(const DeviceScalar& rr);
  // q = A p and the partial sums of p'q.
  void spmv_dot(Vector& p, Vector& q);
  // alpha = rho / p'q; x += alpha p; r -= alpha q; partial sums of r'r. With `join_into`, x is a sum of
  // steps that then joins it in the same pass: join_into += x + alpha p; x = 0 (grouped_solution.hpp).
  void update_xr(Vector& x, Vector& r, Vector& p, Vector& q, Vector* join_into = nullptr);
  // beta = r'r / rho; p = r + beta p; rho = r'r.
  void update_p(Vector& r, Vector& p);

  // PCG, after z = M^-1 r: the partial sums of r'z, then beta = r'z / rho; p = z + beta p; rho = r'z
  // (and r'r, from update_xr's partials, kept for the host).
  void dot_rz(Vector& r, Vector& z);
  void update_p_preconditioned(Vector& z, Vector& p);

  // The scalars after the latest update_p, read without blocking into staging slot `slot`
  // (0 <= slot < kReadSlots) and collected by wait_scalars(slot): the new rho (r'r, or PCG's r'z), p'q
  // and r'r.
  static constexpr int kReadSlots = 2;
  struct Scalars {
    double rho = 0, pq = 0, rr = 0;
  };
  void read_scalars(int slot);
  Scalars wait_scalars(int slot);

  FusedCgSteps(const FusedCgSteps&) = delete;
  FusedCgSteps& operator=(const FusedCgSteps&) = delete;
  ~FusedCgSteps();

 private:
  Blas& blas_;
  Matrix& A_;
  Precision precision_;
  // A mixed-precision PCG: update_xr also writes r's single copy, and dot_rz and
  // update_p_preconditioned read z's single copy (z_precision()).
  bool single_preconditioner_ = false;
  Precision z_precision() const { return single_preconditioner_ ? Precision::Single : precision_; }
  std::size_t n_;
  bool chunked_;  // the members of fused_launch_shape(blas, n)
  std::size_t local_ = 0;
  std::size_t groups_ = 0;
  int chunk_ = 0;
  enum class Step1 { CsrFused, CsrBalanced, EllFused, SellFused, DiaFused, SpmvThenDot } step1_;
  // CsrBalanced (kernels/solver/cg_balanced.cl): its row blocks, work-groups (and so p'q partial sums),
  // and local memory for a block's products.
  Matrix::RowBlockShape blocks_;
  std::size_t spmv_groups_ = 0;
  std::size_t products_bytes_ = 0;
  cl::Kernel spmv_dot_, dot_partials_, dot_rz_, update_xr_, update_p_, update_p_preconditioned_;
  Vector pq_partials_, rr_partials_, rz_partials_, scalars_;
  int rho_slot_ = 0;  // which of scalars_[0], scalars_[1] holds the current rho
  // Pinned (mapped) host memory the scalars are read into: a non-blocking read into ordinary pageable
  // memory is carried out synchronously by some drivers (NVIDIA's), which drains the queue.
  static constexpr std::size_t kScalars = 4;  // rho (two slots), p'q, r'r (PCG)
  static constexpr std::size_t kSlotBytes = 8 * kScalars;
  cl::Buffer staging_;
  unsigned char* staging_host_ = nullptr;
  std::array<cl::Event, kReadSlots> read_events_;
  std::array<int, kReadSlots> read_rho_slot_{};
  std::array<bool, kReadSlots> read_preconditioned_{};
  bool preconditioned_ = false;  // the latest step 3 was PCG's
};

// The judgements a device CG makes on the host (cg.cpp's fused path and the batched CG share them).
// The start: r'z finite (with a preconditioner), iteration 0 logged, r'z > 0; false: finished.
bool cg_device_started(SolveMonitor& monitor, bool preconditioned, double rr, double rz);
// Iteration k from its scalars: NotSpd or NonFinite end it, otherwise it is logged and either reached
// the tolerance (to be confirmed on b - A x) or goes on.
enum class CgVerdict { Continue, Reached, Ended };
CgVerdict judge_cg_iteration(SolveMonitor& monitor, int k, const FusedCgSteps::Scalars& s, bool preconditioned);
// The iteration that was in flight when iteration k - 1 reached the tolerance: logged if it did a step.
void record_in_flight(SolveMonitor& monitor, int k, const FusedCgSteps::Scalars& s);

}  // namespace clkr::detail
