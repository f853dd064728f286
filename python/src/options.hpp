// The Python module's solve options (solver, preconditioner, precision, tolerances, the amg= and
// chebyshev= dictionaries) parsed into the C++ API's, refusing an unknown name or key with the list of
// the known ones, as the `clkr` program and the C API do.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "clkr/data/precision.hpp"
#include "clkr/precond/make_preconditioner.hpp"
#include "clkr/solver/options.hpp"

namespace clkr::python {

struct Plan {
  SolverKind kind = SolverKind::Cg;  // never Pcg: that is Cg with Jacobi here
  PrecondOptions precond;
  Precision precision = Precision::Double;
  SolveOptions options;
};

Plan make_plan(const std::string& solver, const std::string& precond, const std::string& precision, double tol,
               int maxiter, int restart, const pybind11::dict& amg, const pybind11::dict& chebyshev);

}  // namespace clkr::python
