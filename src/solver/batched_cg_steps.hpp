// The device steps of batched CG (kernels/solver/batched_cg.cl): k independent CG recurrences in
// lockstep on n x k interleaved blocks, the SpMM reading the matrix once for all k columns, every
// per-column scalar (alpha, beta, rho) kept on the device as the fused CG (cg_fused.hpp) keeps its one.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "cg_fused.hpp"
#include "clkr/blas/blas.hpp"

namespace clkr::detail {

class BatchedCgSteps {
 public:
  // Columns per batch at most: each work-item keeps k row sums and k partial dots in registers, and
  // past 16 columns the matrix is already under 1/16 of an iteration's traffic (docs/performance.md).
  static constexpr int kMaxColumns = 16;

  // Device location, CSR only, 1 <= k <= kMaxColumns, n*k < 2^31 (batched_cg_supported checks
  // these). inv_diag (1 / a_ii in blas's precision, e.g. Jacobi::inverse_diagonal()) fuses the Jacobi
  // preconditioner into step 2; null: no preconditioner.
  BatchedCgSteps(Blas& blas, Matrix& A, int k, Vector* inv_diag);
  int columns() const { return k_; }
  bool preconditioned() const { return inv_diag_ != nullptr; }

  // Y = A X for k interleaved vectors of n elements (a plain SpMM, without the CG's dot).
  void spmm(Vector& X, Vector& Y);
  // Step 1: Q = A P and the partial sums of p_j'q_j.
  void spmm_dot(Vector& P, Vector& Q);
  // Step 2: alpha_j = rho_j / p_j'q_j; X += alpha P; R -= alpha Q (columns active and p'q > 0 only);
  // partial sums of r_j'r_j. Preconditioned: also Z = D^-1 R and the partial sums of r_j'z_j.
  void update_xr(Vector& X, Vector& R, Vector& P, Vector& Q, Vector* Z);
  // Step 3: beta_j = rho_new_j / rho_j; P = Z + beta P (Z is R unpreconditioned), active columns only.
  void update_p(Vector& Z, Vector& P);

  // Which columns step (1) or are frozen (0); written to the device in queue order.
  void set_active(const std::vector<int>& active);
  // rho_j of the next step 2, from a device scalar (a restart) or from host values (all columns).
  void set_rho(int j, const DeviceScalar& rho);
  void set_rho(const std::vector<double>& rho);

  // v = column j of block; column j of block = v.
  void get_column(Vector& block, int j, Vector& v);
  void set_column(Vector& v, int j, Vector& block);

  // Every column's scalars after the latest update_p (rho, p'q, r'r as FusedCgSteps::Scalars), read
  // without blocking into staging slot `slot` and collected by wait_scalars(slot), which may be called
  // again for the same slot until it is read into anew.
  static constexpr int kReadSlots = FusedCgSteps::kReadSlots;
  void read_scalars(int slot);
  std::vector<FusedCgSteps::Scalars> wait_scalars(int slot);

  BatchedCgSteps(const BatchedCgSteps&) = delete;
  BatchedCgSteps& operator=(const BatchedCgSteps&) = delete;
  ~BatchedCgSteps();

 private:
  cl::Event launch(cl::Kernel& kernel);

  Blas& blas_;
  Matrix& A_;
  int k_;
  Vector* inv_diag_;
  Precision precision_;
  std::size_t n_;
  std::size_t local_ = 1, groups_ = 1;
  int chunk_ = 0;
  cl::Kernel spmm_, spmm_dot_, update_xr_, update_p_, get_column_, set_column_;
  Vector pq_partials_, rr_partials_, rz_partials_, scalars_;
  cl::Buffer active_;
  int rho_slot_ = 0;
  // Pinned host memory for the scalars (see FusedCgSteps: a pageable non-blocking read drains some
  // drivers' queues): per slot, 4 reals per column.
  std::size_t slot_bytes_ = 0;
  cl::Buffer staging_;
  unsigned char* staging_host_ = nullptr;
  std::array<cl::Event, kReadSlots> read_events_;
  std::array<int, kReadSlots> read_rho_slot_{};
};

// Whether the batched CG runs on these operands: a device Blas, A in CSR, n*k below 2^31 (block
// indices), and a kernel build of at most kMaxColumns columns per batch (larger k runs in batches).
bool batched_cg_supported(const Blas& blas, const Matrix& A, std::size_t k);

}  // namespace clkr::detail
