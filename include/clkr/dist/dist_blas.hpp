// clkr::DistBlas: the BLAS level on distributed vectors and matrices. Elementwise operations run on
// each rank's slice through a clkr::Blas; dot products end in one MPI_Allreduce per call, several of
// them fused into one reduction by dots(); SpMV exchanges the halo while the local block is multiplied.
// Device work that fails on one rank is raised on every rank at the next reduction (see
// Communicator::deferred), so a failure never leaves a rank waiting.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "clkr/blas/blas.hpp"
#include "clkr/dist/communicator.hpp"
#include "clkr/dist/dist_matrix.hpp"
#include "clkr/dist/dist_vector.hpp"
#include "clkr/precond/preconditioner.hpp"

namespace clkr {

class DistBlas {
 public:
  // Device location only (each rank's slice lives on its device). Throws clkr::Error as Blas does.
  DistBlas(std::shared_ptr<Context> context, std::shared_ptr<Communicator> comm, Precision precision,
           BlasOptions options = {});

  Precision precision() const { return local_.precision(); }
  const std::shared_ptr<Context>& context() const { return local_.context(); }
  const std::shared_ptr<Communicator>& communicator() const { return comm_; }
  // The Blas of this rank's slice: its counters hold every kernel the distributed operations ran.
  Blas& local() { return local_; }

  void axpy(double a, DistVector& x, DistVector& y);  // y = a x + y
  void aypx(double a, DistVector& x, DistVector& y);  // y = a y + x
  void scal(double a, DistVector& x);                 // x = a x
  void copy(DistVector& x, DistVector& y);            // y = x
  // x'y over every rank: each rank's partial sum in the Blas's precision, summed in double.
  double dot(DistVector& x, DistVector& y);
  double nrm2(DistVector& x);
  // Several dot products with one MPI_Allreduce: the values of x_i'y_i in the order given.
  std::vector<double> dots(const std::vector<std::pair<DistVector*, DistVector*>>& pairs);
  // y = alpha A x + beta y: the halo exchange of x is started, the local block multiplied while the
  // messages travel, then the halo block added.
  void spmv(double alpha, DistMatrix& A, DistVector& x, double beta, DistVector& y);
  // z = M^-1 r on each rank's slice: block Jacobi with the node-local preconditioner M built on this
  // rank's local block (make_block_jacobi).
  void apply(Preconditioner& M, DistVector& r, DistVector& z);

 private:
  std::shared_ptr<Communicator> comm_;
  Blas local_;
};

}  // namespace clkr
