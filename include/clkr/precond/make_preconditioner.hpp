// One entry point for building any preconditioner from options, as the `clkr` program and the C API do.
#pragma once

#include <memory>
#include <optional>

#include "clkr/precond/amg.hpp"
#include "clkr/precond/chebyshev.hpp"
#include "clkr/precond/identity.hpp"
#include "clkr/precond/jacobi.hpp"
#include "clkr/precond/preconditioner.hpp"

namespace clkr {

struct PrecondOptions {
  PrecondKind kind = PrecondKind::None;
  // The precision M^-1 r is computed in; default the solver's. Single inside a double solve halves the
  // bytes every application moves (docs/preconditioners.md measures whether it pays).
  std::optional<Precision> precision;
  ChebyshevOptions chebyshev;
  AmgOptions amg;
};

// The preconditioner `options.kind` names for A, on solver's context and location (Identity for None).
std::unique_ptr<Preconditioner> make_preconditioner(const Blas& solver, Matrix& A, const PrecondOptions& options = {});

}  // namespace clkr
