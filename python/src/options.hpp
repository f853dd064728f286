// The Python module's solve options (solver, preconditioner, precision, tolerances, and the amg=,
// chebyshev=, refinement= and settings= dictionaries) as the library's SolverChoice, whose plan_solver
// checks them with the same table of settings as the C API and the Fortran module.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "clkr/solver/solver_setup.hpp"

namespace clkr::python {

// amg={"coarse_size": 100} becomes the setting amg.coarse_size=100 (near_null_space, an array, the
// choice's near-null space); settings= takes whole keys ({"precond.precision": "single"}). A dictionary
// for a preconditioner not chosen is a clkr::Error saying so.
SolverChoice solver_choice(const std::string& solver, const std::string& precond, const std::string& precision,
                           double tol, int maxiter, int restart, const pybind11::dict& amg,
                           const pybind11::dict& chebyshev, const pybind11::dict& refinement,
                           const pybind11::dict& settings);

}  // namespace clkr::python
