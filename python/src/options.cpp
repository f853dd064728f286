// solver_choice: Python's keyword arguments and option dictionaries as a SolverChoice.
#include "options.hpp"

#include <pybind11/numpy.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>
#include <string>

#include "clkr/runtime/error.hpp"

namespace py = pybind11;

namespace clkr::python {
namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

// A value as the settings' text: Python's own str() (which round-trips floats), booleans as true/false.
std::string setting_text(const py::handle& value) {
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>() ? "true" : "false";
  return py::str(value);
}

// `given`'s entries as settings "<prefix>.<key>"; amg's near_null_space and node_offsets go to the
// choice itself.
void add_settings(const char* prefix, const py::dict& given, SolverChoice& choice) {
  for (const auto& [key, value] : given) {
    const std::string name = py::str(key);
    if (std::string(prefix) == "amg" && name == "near_null_space") {
      // An (n, m) array: m near-null-space vectors of n elements (the rigid-body modes, ...).
      const auto a = py::cast<py::array_t<double, py::array::c_style | py::array::forcecast>>(value);
      if (a.ndim() != 2) throw Error("amg['near_null_space'] must be a 2-D array (rows of A, vectors)");
      choice.near_null_space.assign(a.shape(1), std::vector<double>(a.shape(0)));
      for (py::ssize_t i = 0; i < a.shape(0); ++i)
        for (py::ssize_t j = 0; j < a.shape(1); ++j) choice.near_null_space[j][i] = a.at(i, j);
      continue;
    }
    if (std::string(prefix) == "amg" && name == "node_offsets") {
      // A 1-D array of 0-based offsets: node k owns rows offsets[k] .. offsets[k+1] - 1.
      const auto a = py::cast<py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>>(value);
      if (a.ndim() != 1) throw Error("amg['node_offsets'] must be a 1-D array of node offsets");
      choice.node_offsets.clear();
      for (py::ssize_t k = 0; k < a.shape(0); ++k) {
        if (a.at(k) < 0 || a.at(k) > std::numeric_limits<std::int32_t>::max())
          throw Error("amg['node_offsets'][" + std::to_string(k) + "] = " + std::to_string(a.at(k)) +
                      " is not a row offset");
        choice.node_offsets.push_back(static_cast<std::int32_t>(a.at(k)));
      }
      continue;
    }
    choice.settings.emplace_back(*prefix ? std::string(prefix) + "." + name : name, setting_text(value));
  }
}

}  // namespace

SolverChoice solver_choice(const std::string& solver, const std::string& precond, const std::string& precision,
                           double tol, int maxiter, int restart, const py::dict& amg, const py::dict& chebyshev,
                           const py::dict& refinement, const py::dict& settings) {
  // The dictionaries' own names in the messages, as Python users wrote them.
  if (!amg.empty() && lower(precond) != "amg") throw Error("amg options given without precond='amg'");
  if (!chebyshev.empty() && lower(precond) != "chebyshev")
    throw Error("chebyshev options given without precond='chebyshev'");
  if (!refinement.empty() && lower(precision) != "mixed")
    throw Error("refinement options given without precision='mixed'");
  SolverChoice choice;
  choice.solver = solver;
  choice.preconditioner = precond;
  choice.precision = precision;
  choice.relative_tolerance = tol;
  choice.max_iterations = maxiter;
  choice.restart = restart;
  add_settings("amg", amg, choice);
  add_settings("chebyshev", chebyshev, choice);
  add_settings("refinement", refinement, choice);
  add_settings("", settings, choice);
  return choice;
}

}  // namespace clkr::python
