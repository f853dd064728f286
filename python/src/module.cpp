// The compiled half of the Python module (clkr._clkr): thin pybind11 bindings of the C++ API. Input
// checks that are Python's business (dtypes, SciPy formats, shapes) live in clkr/__init__.py; what
// the C++ API checks (sorted columns, NaN/Inf, index ranges) it checks here too, and its clkr::Error
// becomes clkr.Error with the same message.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "clkr/clkr.hpp"
#include "clkr/precond/rigid_body_modes.hpp"
#include "clkr/solver/format_choice.hpp"
#include "clkr/solver/solver_setup.hpp"
#include "options.hpp"

namespace py = pybind11;

namespace clkr::python {
namespace {

// Arrays as the bindings take them: C-contiguous, already of the dtype the C++ API wants (the Python
// layer converted them, so forcecast never changes a value silently here).
template <class T>
using Array = py::array_t<T, py::array::c_style | py::array::forcecast>;

template <class T>
const T* data_or_null(const Array<T>& a) {
  return a.size() == 0 ? nullptr : a.data();
}

void require_length(const char* name, py::ssize_t length, std::int64_t expected) {
  if (length != expected)
    throw Error(std::string(name) + " has " + std::to_string(length) + " elements, expected " +
                std::to_string(expected));
}

// The matrix in `format` (a Format's name, or "auto": clkr's choice for the device), uploaded from A.
std::shared_ptr<Matrix> on_device(const std::shared_ptr<Context>& context, const CsrView& A,
                                  const std::string& format) {
  const bool automatic = format == "auto";
  auto matrix = std::make_shared<Matrix>(context, A, automatic ? Format::Csr : parse_format(format));
  if (automatic) matrix->convert(format_named(format, matrix->stats(), context->info()));
  return matrix;
}

template <class I>
std::shared_ptr<Matrix> matrix_from_csr(const std::shared_ptr<Context>& context, std::int64_t rows, std::int64_t cols,
                                        const Array<I>& indptr, const Array<I>& indices, const Array<double>& data,
                                        int index_base, const std::string& format) {
  require_length("indptr", indptr.size(), rows + 1);
  require_length("data", data.size(), indices.size());
  py::gil_scoped_release release;
  // 0-based int32 arrays (what SciPy holds) are uploaded from NumPy's memory; others are converted once.
  if constexpr (std::is_same_v<I, std::int32_t>) {
    if (index_base == 0)
      return on_device(
          context,
          csr_view_of_arrays(rows, cols, indices.size(), indptr.data(), data_or_null(indices), data_or_null(data)),
          format);
  }
  return on_device(
      context,
      csr_from_arrays(rows, cols, indices.size(), indptr.data(), data_or_null(indices), data_or_null(data), index_base),
      format);
}

template <class I>
std::shared_ptr<Matrix> matrix_from_coo(const std::shared_ptr<Context>& context, std::int64_t rows, std::int64_t cols,
                                        const Array<I>& row, const Array<I>& col, const Array<double>& data,
                                        int index_base, const std::string& format) {
  require_length("col", col.size(), row.size());
  require_length("data", data.size(), row.size());
  py::gil_scoped_release release;
  return on_device(
      context, coo_to_csr(rows, cols, row.size(), data_or_null(row), data_or_null(col), data_or_null(data), index_base),
      format);
}

// A solver with its setup (the Blas and the preconditioner) kept across solves, like clkr_solver in C.
class Solver {
 public:
  Solver(std::shared_ptr<Matrix> matrix, const SolverChoice& choice) {
    const SolverPlan plan = plan_solver(choice, matrix->context()->info());
    py::gil_scoped_release release;
    setup_ = std::make_unique<SolverSetup>(std::move(matrix), plan);
  }

  // The preconditioner follows the matrix's new values (Matrix.update_values before).
  void update() {
    py::gil_scoped_release release;
    setup_->update();
  }

  // Solves for the columns of B (n x k, C order: one right-hand side per column); X0 the same shape
  // or None. Returns X and one result per column.
  std::pair<py::array_t<double>, std::vector<SolveResult>> solve(const Array<double>& B, const py::object& X0) {
    const auto n = static_cast<py::ssize_t>(setup_->matrix()->rows());
    if (B.ndim() != 2 || B.shape(0) != n)
      throw Error("b has " + std::to_string(B.ndim() == 0 ? 0 : B.shape(0)) + " rows, expected " + std::to_string(n) +
                  " (the rows of A)");
    const py::ssize_t k = B.shape(1);
    std::vector<Vector> b_columns, x_columns;
    const bool use_initial_guess = !X0.is_none();
    Array<double> x0_array;
    if (use_initial_guess) {
      x0_array = X0.cast<Array<double>>();
      if (x0_array.ndim() != 2 || x0_array.shape(0) != n || x0_array.shape(1) != k)
        throw Error("x0 must have the shape of b");
    }
    const auto& context = setup_->matrix()->context();
    for (py::ssize_t j = 0; j < k; ++j) {
      std::vector<double> column(static_cast<std::size_t>(n));
      for (py::ssize_t i = 0; i < n; ++i) column[i] = B.at(i, j);
      b_columns.emplace_back(context, column, "b");
      x_columns.emplace_back(context, static_cast<std::size_t>(n), "x");
      if (use_initial_guess) {
        for (py::ssize_t i = 0; i < n; ++i) column[i] = x0_array.at(i, j);
        x_columns.back().assign(column);
      }
    }
    std::vector<SolveResult> results;
    {
      py::gil_scoped_release release;
      results = setup_->solve(b_columns, x_columns, use_initial_guess);
    }
    py::array_t<double> X({n, k});
    auto out = X.mutable_unchecked<2>();
    for (py::ssize_t j = 0; j < k; ++j) {
      const std::vector<double> column = x_columns[j].to_host();
      for (py::ssize_t i = 0; i < n; ++i) out(i, j) = column[i];
    }
    return {X, results};
  }

  double setup_seconds() const { return setup_->setup_seconds(); }
  std::string description() const { return setup_->description(); }

 private:
  std::unique_ptr<SolverSetup> setup_;
};

py::dict device_dict(const DeviceInfo& d, bool is_default) {
  py::dict out;
  out["selector"] = d.index_selector();
  out["name"] = d.name;
  out["platform"] = d.platform_name;
  out["vendor"] = d.vendor;
  out["type"] = to_string(d.type);
  out["compute_units"] = d.compute_units;
  out["fp64"] = d.fp64;
  out["global_memory"] = d.global_memory;
  out["max_allocation"] = d.max_allocation;
  out["default"] = is_default;
  out["summary"] = d.summary();
  return out;
}

}  // namespace
}  // namespace clkr::python

PYBIND11_MODULE(_clkr, m) {
  using namespace clkr;
  using namespace clkr::python;
  m.doc() = "clkr's compiled bindings; use the clkr package, not this module";

  static py::exception<Error> error(m, "Error", PyExc_RuntimeError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      error(e.what());
    } catch (const cl::Error& e) {  // an OpenCL call that clkr did not wrap: still clkr.Error, named
      error((std::string(e.what()) + " failed with " + cl_error_name(e.err())).c_str());
    }
  });

  m.def("devices", [] {
    py::list out;
    const auto all = Context::list_devices();
    const std::size_t chosen = all.empty() ? 0 : Context::default_device_index();
    for (std::size_t i = 0; i < all.size(); ++i) out.append(device_dict(all[i], i == chosen));
    return out;
  });

  py::class_<Context, std::shared_ptr<Context>>(m, "Context")
      .def(py::init([](const std::string& device) { return Context::create(device); }), py::arg("device") = "")
      .def_property_readonly("device", [](const Context& c) { return device_dict(c.info(), false); })
      .def("__repr__", [](const Context& c) { return "clkr.Context(" + c.info().summary() + ")"; });

  py::class_<Matrix, std::shared_ptr<Matrix>>(m, "Matrix")
      .def_property_readonly("shape", [](const Matrix& a) { return py::make_tuple(a.rows(), a.cols()); })
      .def_property_readonly("nnz", &Matrix::nnz)
      .def_property_readonly("format", [](const Matrix& a) { return to_string(a.format()); })
      .def(
          "update_values",
          [](Matrix& a, const Array<double>& data) {
            require_length("data", data.size(), a.nnz());
            std::vector<double> values(data.data(), data.data() + data.size());
            py::gil_scoped_release release;
            a.update_values(values);
          },
          py::arg("data"));
  m.def("setting_keys", &solver_setting_keys);
  // The modes as a (rows, modes) array: the shape amg={"near_null_space": ...} takes.
  m.def("_rigid_body_modes", [](const Array<double>& coordinates, int dimension, int unknowns_per_node) {
    const std::vector<double> flat(coordinates.data(), coordinates.data() + coordinates.size());
    const std::vector<std::vector<double>> modes = rigid_body_modes(flat, dimension, unknowns_per_node);
    const auto rows = static_cast<py::ssize_t>(modes[0].size()), count = static_cast<py::ssize_t>(modes.size());
    py::array_t<double> out({rows, count});
    auto view = out.mutable_unchecked<2>();
    for (py::ssize_t i = 0; i < rows; ++i)
      for (py::ssize_t j = 0; j < count; ++j) view(i, j) = modes[j][i];
    return out;
  });
  m.def("_csr32", &matrix_from_csr<std::int32_t>);
  m.def("_csr64", &matrix_from_csr<std::int64_t>);
  m.def("_coo32", &matrix_from_coo<std::int32_t>);
  m.def("_coo64", &matrix_from_coo<std::int64_t>);

  py::class_<SolveResult>(m, "Result")
      .def_property_readonly("status", [](const SolveResult& r) { return to_string(r.status); })
      .def_property_readonly("converged", &SolveResult::converged)
      .def_readonly("iterations", &SolveResult::iterations)
      .def_readonly("recursive_relative_residual", &SolveResult::recursive_relative_residual)
      .def_readonly("true_relative_residual", &SolveResult::true_relative_residual)
      .def_readonly("solve_seconds", &SolveResult::seconds)
      .def_readonly("message", &SolveResult::message)
      .def_readonly("scaling", &SolveResult::scaling)
      .def_readonly("strengthened", &SolveResult::strengthened)
      .def_readonly("inner_iterations", &SolveResult::inner_iterations)
      .def_readonly("path", &SolveResult::path)
      .def("__repr__", [](const SolveResult& r) {
        return "clkr.Result(status='" + to_string(r.status) + "', iterations=" + std::to_string(r.iterations) +
               ", true_relative_residual=" + std::to_string(r.true_relative_residual) + ")";
      });

  py::class_<Solver>(m, "Solver")
      .def(py::init([](std::shared_ptr<Matrix> matrix, const std::string& solver, const std::string& precond,
                       const std::string& precision, double tol, int maxiter, int restart, const py::dict& amg,
                       const py::dict& chebyshev, const py::dict& refinement, const py::dict& settings,
                       const std::string& backend) {
             SolverChoice choice =
                 solver_choice(solver, precond, precision, tol, maxiter, restart, amg, chebyshev, refinement, settings);
             choice.backend = backend;
             return std::make_unique<Solver>(std::move(matrix), choice);
           }),
           py::arg("matrix"), py::arg("solver"), py::arg("precond"), py::arg("precision"), py::arg("tol"),
           py::arg("maxiter"), py::arg("restart"), py::arg("amg"), py::arg("chebyshev"), py::arg("refinement"),
           py::arg("settings"), py::arg("backend"))
      .def("update", &Solver::update)
      .def("solve", &Solver::solve, py::arg("b"), py::arg("x0"))
      .def_property_readonly("setup_seconds", &Solver::setup_seconds)
      .def_property_readonly("description", &Solver::description);
}
