// The device side of the distributed pipelined CG (kernels/dist/pipelined_cg.cl): one fused pass of
// an iteration's vector updates with the partial sums of the next iteration's dot products, the sums
// added up on the device and read back into pinned memory without blocking, so that the host can
// queue the next SpMV before it waits for them.
#pragma once

#include <vector>

#include "clkr/blas/blas.hpp"

namespace clkr::detail {

class PipelinedCgSteps {
 public:
  // For `n` elements of each vector on blas's device (n may be 0: a rank without rows sums zeros);
  // `preconditioned` picks the update with M's vectors (u, m, q).
  PipelinedCgSteps(Blas& blas, std::size_t n, bool preconditioned);
  ~PipelinedCgSteps();
  PipelinedCgSteps(const PipelinedCgSteps&) = delete;
  PipelinedCgSteps& operator=(const PipelinedCgSteps&) = delete;

  // The vectors of one rank, named as in Ghysels and Vanroose's Algorithm 3 (pipelined_cg.cl's table);
  // without M, u, m and q are null (u = r, m = w, q = s).
  struct Vectors {
    Vector *n, *z, *s, *p, *x, *r, *w;
    Vector *u = nullptr, *m = nullptr, *q = nullptr;
  };
  // Queues the updates with (alpha, beta), the sums of r'r, r'u and w'u (without M: r'r and w'r) and
  // their read-back. Returns at once.
  void update(double alpha, double beta, const Vectors& v);
  // This rank's sums of the latest update(), waiting for their read-back: {r'r, r'u, w'u}, or
  // {r'r, w'r} without M.
  std::vector<double> sums();

 private:
  Blas& blas_;
  Precision precision_;
  std::size_t n_;
  bool preconditioned_;
  int count_;  // sums per update: 3 with M, 2 without
  std::size_t local_ = 0, groups_ = 0;
  int chunk_ = 0;
  cl::Kernel update_, sums_kernel_;
  Vector partials_, sums_;
  // Pinned (mapped) host memory for the sums: a read into pageable memory is carried out synchronously
  // by some drivers (NVIDIA's), which would make the host wait before it queues the next SpMV.
  cl::Buffer staging_;
  unsigned char* staging_host_ = nullptr;
  cl::Event read_done_;
};

}  // namespace clkr::detail
