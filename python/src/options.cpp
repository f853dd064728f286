#include "options.hpp"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <functional>
#include <map>

#include "clkr/runtime/error.hpp"

namespace py = pybind11;

namespace clkr::python {
namespace {

// Applies each key of `given` through `setters`; an unknown key is an Error listing the known ones.
using Setters = std::map<std::string, std::function<void(const py::handle&)>>;

void apply(const char* what, const py::dict& given, const Setters& setters) {
  for (const auto& [key, value] : given) {
    const std::string name = py::str(key);
    const auto setter = setters.find(name);
    if (setter == setters.end()) {
      std::string known;
      for (const auto& [k, _] : setters) known += (known.empty() ? "" : ", ") + k;
      throw Error(std::string(what) + ": unknown option '" + name + "' (known: " + known + ")");
    }
    try {
      setter->second(value);
    } catch (const py::cast_error&) {
      throw Error(std::string(what) + "['" + name +
                  "']: " + std::string(py::str(py::type::of(value).attr("__name__"))) + " is not the expected type");
    }
  }
}

template <class T>
std::function<void(const py::handle&)> set(T& field) {
  return [&field](const py::handle& v) { field = v.cast<T>(); };
}

void parse_amg(const py::dict& given, AmgOptions& o) {
  apply("amg", given,
        {{"strength_threshold", set(o.strength_threshold)},
         {"coarse_size", set(o.coarse_size)},
         {"max_levels", set(o.max_levels)},
         {"prolongator_relaxation", set(o.prolongator_relaxation)},
         {"block_size", set(o.block_size)},
         {"aggressive_levels", set(o.aggressive_levels)},
         {"smoother", [&o](const py::handle& v) { o.smoother = parse_amg_smoother(v.cast<std::string>()); }},
         {"pre_sweeps", set(o.pre_sweeps)},
         {"post_sweeps", set(o.post_sweeps)},
         {"chebyshev_degree", set(o.chebyshev_degree)},
         {"jacobi_weight", set(o.jacobi_weight)},
         {"eigen_iterations", set(o.eigen_iterations)},
         {"update_prolongator", set(o.update_prolongator)},
         {"update_eigen_iterations", set(o.update_eigen_iterations)},
         // An (n, m) array: m near-null-space vectors of n elements (the rigid-body modes, ...).
         {"near_null_space", [&o](const py::handle& v) {
            const auto a = v.cast<py::array_t<double, py::array::c_style | py::array::forcecast>>();
            if (a.ndim() != 2) throw Error("amg['near_null_space'] must be a 2-D array (rows of A, vectors)");
            o.near_null_space.assign(a.shape(1), std::vector<double>(a.shape(0)));
            for (py::ssize_t i = 0; i < a.shape(0); ++i)
              for (py::ssize_t j = 0; j < a.shape(1); ++j) o.near_null_space[j][i] = a.at(i, j);
          }}});
}

void parse_chebyshev(const py::dict& given, ChebyshevOptions& o) {
  apply("chebyshev", given,
        {{"degree", set(o.degree)},
         {"eigen_iterations", set(o.eigen_iterations)},
         {"upper_safety", set(o.upper_safety)},
         {"lower_ratio", set(o.lower_ratio)}});
}

}  // namespace

Plan make_plan(const std::string& solver, const std::string& precond, const std::string& precision, double tol,
               int maxiter, int restart, const py::dict& amg, const py::dict& chebyshev) {
  Plan plan;
  const SolverKind kind = parse_solver(solver);
  if (kind == SolverKind::Ir)
    throw Error("solver 'ir' is not offered here (expected cg, pcg, gmres, fgmres, bicgstab)");
  plan.precond.kind = parse_precond(precond);
  if (kind == SolverKind::Pcg) {  // "pcg" is CG with Jacobi, as in the program and the C API
    if (plan.precond.kind != PrecondKind::None && plan.precond.kind != PrecondKind::Jacobi)
      throw Error("solver 'pcg' is CG with Jacobi; for precond='" + precond + "' use solver='cg'");
    plan.precond.kind = PrecondKind::Jacobi;
  }
  plan.kind = kind == SolverKind::Pcg ? SolverKind::Cg : kind;
  if (!amg.empty() && plan.precond.kind != PrecondKind::Amg) throw Error("amg options given without precond='amg'");
  if (!chebyshev.empty() && plan.precond.kind != PrecondKind::Chebyshev)
    throw Error("chebyshev options given without precond='chebyshev'");
  parse_amg(amg, plan.precond.amg);
  parse_chebyshev(chebyshev, plan.precond.chebyshev);
  plan.precision = parse_precision(precision);
  if (!(tol > 0 && tol < 1)) throw Error("tol " + std::to_string(tol) + " must lie in (0, 1)");
  if (maxiter < 1) throw Error("maxiter " + std::to_string(maxiter) + " must be at least 1");
  if (restart < 1) throw Error("restart " + std::to_string(restart) + " must be at least 1");
  plan.options.relative_tolerance = tol;
  plan.options.max_iterations = maxiter;
  plan.options.restart = restart;
  return plan;
}

}  // namespace clkr::python
