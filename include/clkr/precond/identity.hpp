// clkr::Identity: M = I (z = r). Solvers given it run their unpreconditioned iterations (CG keeps its
// fused and persistent device paths), so `--precond none` costs nothing.
#pragma once

#include "clkr/precond/preconditioner.hpp"

namespace clkr {

class Identity : public Preconditioner {
 public:
  Identity(const Blas& solver, const Matrix& A);

  bool symmetric() const override { return true; }
  PrecondKind kind() const override { return PrecondKind::None; }
  std::string description() const override { return "none"; }

 protected:
  void apply_checked(Vector& r, Vector& z) override;
  void update_values(Matrix&, PhaseTimes&) override {}
};

}  // namespace clkr
