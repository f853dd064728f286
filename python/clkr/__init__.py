"""clkr: sparse Krylov solvers (CG, GMRES, FGMRES, BiCGStab) with Jacobi, Chebyshev and algebraic
multigrid preconditioners on any OpenCL device, from Python.

    import clkr, scipy.sparse as sp
    x, info = clkr.solve(A, b, precond="amg")          # A: any scipy.sparse matrix
    print(info.status, info.iterations, info.true_relative_residual)

A thin shell over the C++ library: the arrays are validated here (dtypes, shapes, SciPy formats) and
by the library (sorted columns, index ranges, NaN/Inf), whose errors arrive as clkr.Error with its
message. docs/python.md has the whole story.
"""

from dataclasses import dataclass

import numpy as np

from . import _clkr
from ._clkr import Context, Error

__all__ = ["Context", "Error", "Matrix", "Result", "Solver", "coo_matrix", "csr_matrix", "devices", "matrix",
           "rigid_body_modes", "setting_keys", "solve"]

Matrix = _clkr.Matrix


def setting_keys():
    """Every key of the settings= dictionary, with what it sets ("amg.coarse_size: coarsen until ...");
    amg=, chebyshev= and refinement= take the keys after their prefix."""
    return _clkr.setting_keys()


def rigid_body_modes(coordinates, unknowns_per_node=None):
    """The rigid-body modes of a mesh, the AMG's near-null space for elasticity:
    amg={"block_size": u, "near_null_space": clkr.rigid_body_modes(xyz)}. coordinates: a (nodes, 2) or
    (nodes, 3) array in the matrix's node order, each node's unknowns numbered together;
    unknowns_per_node: the dimension (displacements, the default), or 3 in 2D / 6 in 3D with rotation
    unknowns (beams, plates, shells). Returns a (rows, 3) or (rows, 6) float64 array: the translations,
    then the rotations about the nodes' centroid (docs/preconditioners.md)."""
    c = np.asarray(coordinates)
    if c.ndim != 2 or c.shape[1] not in (2, 3):
        raise ValueError(f"coordinates must be a (nodes, 2) or (nodes, 3) array, not of shape {c.shape}")
    if c.dtype.kind not in "iuf":
        raise TypeError(f"coordinates must be integers or floats, not {c.dtype}")
    flat = np.ascontiguousarray(c, dtype=np.float64).ravel()
    return _clkr._rigid_body_modes(flat, c.shape[1], unknowns_per_node or 0)


def devices():
    """Every OpenCL device as a dict (selector, name, platform, type, fp64, memory, default)."""
    return _clkr.devices()


@dataclass(frozen=True)
class Result:
    """How one solve ended: status is 'converged', 'max-iterations', 'not-spd', 'breakdown',
    'non-finite' or 'stagnated'; true_relative_residual is ||b - A x|| / ||b|| recomputed in double;
    scaling says how a single or qdouble solve was kept inside float's range ('' when it needed nothing);
    inner_iterations counts the inner solver's iterations of precision='mixed' (0 otherwise); path says how
    CG ran on its device ('fused', 'persistent', or 'host: ...' for small systems on CPU devices; '' for the
    other solvers); strengthened says when CG asked its preconditioner to strengthen itself and what it
    became ('' when it did not: settings 'cg.strengthen_check', amg option 'strengthen_test_vectors')."""
    status: str
    converged: bool
    iterations: int
    recursive_relative_residual: float
    true_relative_residual: float
    setup_seconds: float
    solve_seconds: float
    message: str
    scaling: str
    inner_iterations: int = 0
    path: str = ""
    strengthened: str = ""


def _context(device):
    if isinstance(device, Context):
        return device
    if device is None:
        device = ""
    if not isinstance(device, str):
        raise TypeError(f"device must be a clkr.Context, a selector string or None, not {type(device).__name__}")
    return Context(device)


def _values(name, array):
    """float32/float64 data as contiguous float64 (the library's input precision)."""
    a = np.asarray(array)
    if a.dtype not in (np.float32, np.float64):
        raise TypeError(f"{name} must be float32 or float64, not {a.dtype}")
    return np.ascontiguousarray(a, dtype=np.float64)


def _index_arrays(names, arrays):
    """Integer index arrays as int32 when every one is int32, else int64 (refusing what int64 cannot hold)."""
    out = [np.asarray(a) for a in arrays]
    for name, a in zip(names, out):
        if a.dtype.kind not in "iu":
            raise TypeError(f"{name} must hold integers, not {a.dtype}")
        if a.ndim != 1:
            raise ValueError(f"{name} must be 1-D, not {a.ndim}-D")
    if all(a.dtype == np.int32 for a in out):
        return [np.ascontiguousarray(a) for a in out], 32
    for name, a in zip(names, out):
        if a.dtype == np.uint64 and a.size and a.max() > np.iinfo(np.int64).max:
            raise Error(f"{name} holds {a.max()}, past the 64-bit signed index range")
    return [np.ascontiguousarray(a, dtype=np.int64) for a in out], 64


def csr_matrix(indptr, indices, data, shape=None, index_base=0, device=None, format="csr"):
    """A clkr.Matrix on the device from CSR arrays (indices counted from index_base: 0, or 1 as Fortran
    codes count). The columns of each row must be strictly increasing; anything wrong is a clkr.Error
    naming the first bad row."""
    (indptr, indices), width = _index_arrays(("indptr", "indices"), (indptr, indices))
    data = _values("data", data).ravel()
    rows = indptr.size - 1
    if rows < 0:
        raise ValueError("indptr must hold rows + 1 offsets, at least one")
    rows, cols = (rows, rows) if shape is None else (int(shape[0]), int(shape[1]))
    make = _clkr._csr32 if width == 32 else _clkr._csr64
    return make(_context(device), rows, cols, indptr, indices, data, int(index_base), format)


def coo_matrix(row, col, data, shape, index_base=0, device=None, format="csr"):
    """A clkr.Matrix from COO triplets in any order; entries at the same position are summed (what
    finite-element assembly produces)."""
    (row, col), width = _index_arrays(("row", "col"), (row, col))
    data = _values("data", data).ravel()
    make = _clkr._coo32 if width == 32 else _clkr._coo64
    return make(_context(device), int(shape[0]), int(shape[1]), row, col, data, int(index_base), format)


def _canonical_csr(A):
    """A scipy.sparse matrix (any format) as CSR with sorted, unique columns per row: what the matrix
    means to SciPy (duplicates summed), in the form the library takes."""
    A = A.tocsr()
    if not A.has_canonical_format:
        A = A.copy()
        A.sum_duplicates()
    return A


def _is_scipy_sparse(A):
    try:
        import scipy.sparse
    except ImportError:
        return False
    return scipy.sparse.issparse(A)


def matrix(A, device=None, format="csr"):
    """A clkr.Matrix from a clkr.Matrix (returned as is), a scipy.sparse matrix (CSR, CSC, COO, ...)
    or a tuple (data, indices, indptr) of CSR arrays as scipy.sparse.csr_matrix takes them."""
    if isinstance(A, Matrix):
        return A
    if _is_scipy_sparse(A):
        A = _canonical_csr(A)
        return csr_matrix(A.indptr, A.indices, A.data, A.shape, device=device, format=format)
    if isinstance(A, tuple) and len(A) == 3:
        data, indices, indptr = A
        return csr_matrix(indptr, indices, data, device=device, format=format)
    raise TypeError("A must be a scipy.sparse matrix, a (data, indices, indptr) tuple or a clkr.Matrix, "
                    f"not {type(A).__name__}")


class Solver:
    """A solver whose setup (the matrix on the device, the preconditioner) serves many solves, and
    follows new values of the matrix (time stepping) through update()."""

    def __init__(self, A, solver="cg", precond="none", precision="auto", device=None, tol=1e-8, maxiter=10000,
                 restart=30, format="csr", amg=None, chebyshev=None, refinement=None, settings=None, backend="device"):
        self._pattern = None
        if _is_scipy_sparse(A):
            A = _canonical_csr(A)
            self._pattern = (A.indptr, A.indices)  # to check that update() keeps it
        self.matrix = matrix(A, device, format)
        self._solver = _clkr.Solver(self.matrix, solver, precond, precision, float(tol), int(maxiter), int(restart),
                                    amg or {}, chebyshev or {}, refinement or {}, settings or {}, str(backend))

    @property
    def setup_seconds(self):
        return self._solver.setup_seconds

    @property
    def description(self):
        return self._solver.description

    def update(self, values=None):
        """New values on the same pattern, then the preconditioner refreshed for them. values: the nnz
        values in the order of the CSR arrays the matrix was made from, or a scipy.sparse matrix with
        the same pattern; None: the values were already set through self.matrix.update_values()."""
        if values is not None:
            if _is_scipy_sparse(values):
                values = self._same_pattern_values(_canonical_csr(values))
            self.matrix.update_values(_values("values", values).ravel())
        self._solver.update()

    def _same_pattern_values(self, A):
        if self._pattern is None:
            raise Error("the matrix was not made from a scipy.sparse matrix: pass its values as an array")
        indptr, indices = self._pattern
        if A.shape != self.matrix.shape:
            raise Error(f"update: the new matrix is {A.shape[0]} x {A.shape[1]}, the solver's "
                        f"{self.matrix.shape[0]} x {self.matrix.shape[1]}")
        if np.array_equal(A.indptr, indptr) and np.array_equal(A.indices, indices):
            return A.data
        # The first row whose entry count or columns differ.
        counts_differ = np.diff(A.indptr) != np.diff(indptr)
        row = int(np.argmax(counts_differ)) if counts_differ.any() else \
            int(np.searchsorted(indptr, int(np.argmax(A.indices != indices)), side="right")) - 1
        raise Error(f"update: the new matrix's pattern differs in row {row} (a new pattern needs a new Solver)")

    def solve(self, b, x0=None):
        """x, result for a 1-D b; X, [results] for a 2-D b of shape (rows, k), one column per right-hand
        side, solved on the same setup."""
        b = _values("b", b)
        if b.ndim not in (1, 2):
            raise ValueError(f"b must be 1-D or 2-D (rows, k), not {b.ndim}-D")
        columns = b.reshape(b.shape[0], -1) if b.ndim == 1 else b
        if x0 is not None:
            x0 = _values("x0", x0)
            if x0.shape != b.shape:
                raise ValueError(f"x0 has shape {x0.shape}, b has {b.shape}")
            x0 = x0.reshape(columns.shape)
        X, results = self._solver.solve(columns, x0)
        results = [self._result(r) for r in results]
        return (X[:, 0], results[0]) if b.ndim == 1 else (X, results)

    def _result(self, r):
        return Result(r.status, r.converged, r.iterations, r.recursive_relative_residual, r.true_relative_residual,
                      self.setup_seconds, r.solve_seconds, r.message, r.scaling, r.inner_iterations, r.path,
                      r.strengthened)


def solve(A, b, solver="cg", precond="none", precision="auto", device=None, tol=1e-8, maxiter=10000, restart=30,
          x0=None, format="csr", amg=None, chebyshev=None, refinement=None, settings=None, backend="device"):
    """Solves A x = b. A: a scipy.sparse matrix, (data, indices, indptr) or a clkr.Matrix; b: 1-D, or
    2-D (rows, k) for k right-hand sides. solver: cg, pcg (CG with Jacobi), gmres, fgmres, bicgstab;
    precond: none, jacobi, chebyshev, amg; precision: auto (double, or qdouble on a device without fp64),
    double, single, qdouble, or mixed (iterative refinement: double outside, the solver and the
    preconditioner in single inside); device: a clkr.Context, a selector
    ('gpu', 'cpu', 'nvidia', '0:1') or None for the default; format: csr, csr4, ell, hyb, sell, dia or
    auto; backend: device (the device's OpenCL kernels) or host (OpenMP on this machine's cores, the
    matrix read back once into CSR on the host: the faster AMG on CPUs, and the only one with
    amg={"smoother": "gauss-seidel"}).
    amg, chebyshev, refinement: dictionaries of those options; settings: any setting by its whole key
    (clkr.setting_keys() lists them). Returns (x, Result) for a 1-D b and (X, [Result]) for a 2-D one;
    a solve that stops unconverged returns normally with its status."""
    return Solver(A, solver, precond, precision, device, tol, maxiter, restart, format, amg, chebyshev, refinement,
                  settings, backend).solve(b, x0)
