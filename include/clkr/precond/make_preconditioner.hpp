// One entry point for building any preconditioner from options, as the `clkr` program and the C API do.
#pragma once

#include <memory>
#include <optional>
#include <string>

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
  // How Chebyshev's and AMG's matrices store their values on the device: Half (with precision Single)
  // halves their bytes once more (ValueStorage; docs/preconditioners.md). Jacobi multiplies no matrix.
  ValueStorage matrix_values = ValueStorage::Working;
  ChebyshevOptions chebyshev;
  AmgOptions amg;
};

// A preconditioner precision by name into `options`: "single", "qdouble", "double" (as parse_precision
// reads them: options.precision, values Working) or "half" (precision Single, values Half); throws
// clkr::Error naming the choices on anything else.
void set_precond_precision(PrecondOptions& options, const std::string& text);

// The preconditioner `options.kind` names for A, on solver's context and location (Identity for None).
std::unique_ptr<Preconditioner> make_preconditioner(const Blas& solver, Matrix& A, const PrecondOptions& options = {});

}  // namespace clkr
