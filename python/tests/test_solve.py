"""clkr.solve on the systems the C++ tests solve, against SciPy's CG and the known residuals."""
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import clkr
from conftest import bundled, convection_diffusion2d, poisson3d, random_vector, relative_residual


def scipy_cg(A, b, tol):
    try:
        x, info = spla.cg(A, b, rtol=tol, atol=0, maxiter=20000)
    except TypeError:  # SciPy before 1.12 calls it tol
        x, info = spla.cg(A, b, tol=tol, atol=0, maxiter=20000)
    assert info == 0
    return x


@pytest.mark.parametrize("precond", ["none", "jacobi", "chebyshev", "amg"])
def test_cg_agrees_with_scipy_cg_on_poisson3d(ctx, precond):
    A = poisson3d(12)
    b = random_vector(A.shape[0])
    x, info = clkr.solve(A, b, precond=precond, tol=1e-10, device=ctx)
    assert info.converged, info.message
    assert info.status == "converged"
    assert info.true_relative_residual <= 1e-9
    assert relative_residual(A, b, x) <= 1e-9
    reference = scipy_cg(A, b, 1e-10)
    # Both within 1e-10 of b in the residual; cond(A) ~ 60 bounds the difference of the solutions.
    assert np.linalg.norm(x - reference) <= 1e-7 * np.linalg.norm(reference)


@pytest.mark.parametrize("name", ["nos3.mtx", "bcsstk14.mtx"])
def test_amg_cg_on_bundled_suitesparse_matrices_agrees_with_scipy(ctx, name):
    A = bundled(name)
    b = A @ np.ones(A.shape[0])
    x, info = clkr.solve(A, b, precond="amg", tol=1e-10, device=ctx)
    assert info.converged, info.message
    assert relative_residual(A, b, x) <= 1e-9
    jacobi, jacobi_info = clkr.solve(A, b, solver="pcg", tol=1e-10, device=ctx)
    assert jacobi_info.converged
    assert info.iterations < jacobi_info.iterations
    assert np.linalg.norm(x - jacobi) <= 1e-5 * np.linalg.norm(jacobi)


@pytest.mark.parametrize("solver", ["gmres", "fgmres", "bicgstab"])
@pytest.mark.parametrize("precond", ["none", "jacobi", "amg"])
def test_nonsymmetric_solvers_with_each_preconditioner(ctx, solver, precond):
    A = convection_diffusion2d(20)
    b = random_vector(A.shape[0], seed=3)
    x, info = clkr.solve(A, b, solver=solver, precond=precond, tol=1e-9, restart=40, device=ctx)
    assert info.converged, info.message
    assert relative_residual(A, b, x) <= 1e-8
    assert np.allclose(x, spla.spsolve(A.tocsc(), b), rtol=0, atol=1e-6 * np.abs(x).max())


@pytest.mark.parametrize("precision,tol", [("single", 1e-5), ("qdouble", 1e-10), ("double", 1e-12)])
def test_every_precision_reaches_its_tolerance(ctx, precision, tol):
    A = poisson3d(8)
    b = random_vector(A.shape[0], seed=5)
    x, info = clkr.solve(A, b, precision=precision, tol=tol, device=ctx)
    assert info.converged, info.message
    assert relative_residual(A, b, x) <= 10 * tol
    assert x.dtype == np.float64 and x.shape == b.shape


def test_every_scipy_format_and_raw_arrays_give_the_same_solution(ctx):
    A = poisson3d(6)
    b = random_vector(A.shape[0], seed=7)
    reference, _ = clkr.solve(A, b, tol=1e-12, device=ctx)
    coo = A.tocoo()
    # COO with every entry split in two halves: assembly-style duplicates, summed.
    split = sp.coo_matrix((np.concatenate([coo.data / 2, coo.data / 2]),
                           (np.concatenate([coo.row, coo.row]), np.concatenate([coo.col, coo.col]))), shape=A.shape)
    # CSR with the columns of each row reversed: not canonical, sorted on the way in.
    unsorted = A.copy()
    for i in range(A.shape[0]):
        lo, hi = unsorted.indptr[i], unsorted.indptr[i + 1]
        unsorted.indices[lo:hi] = unsorted.indices[lo:hi][::-1].copy()
        unsorted.data[lo:hi] = unsorted.data[lo:hi][::-1].copy()
    unsorted.has_sorted_indices = False
    inputs = {
        "csc": A.tocsc(),
        "coo": coo,
        "coo with duplicates": split,
        "unsorted csr": unsorted,
        "float32 values": A.astype(np.float32),
        "raw tuple": (A.data, A.indices, A.indptr),
        "1-based int64 arrays": clkr.csr_matrix(A.indptr.astype(np.int64) + 1, A.indices.astype(np.int64) + 1, A.data,
                                                index_base=1, device=ctx),
        "coo triplets": clkr.coo_matrix(split.row, split.col, split.data, A.shape, device=ctx),
        "ell format": clkr.matrix(A, device=ctx, format="ell"),
    }
    for name, matrix in inputs.items():
        x, info = clkr.solve(matrix, b, tol=1e-12, device=ctx)
        assert info.converged, name
        # float32 values are the matrix rounded to float: the same system only to ~1e-7.
        tol = 1e-5 if name == "float32 values" else 1e-9
        assert np.linalg.norm(x - reference) <= tol * np.linalg.norm(reference), name


def test_initial_guess_and_iteration_limit(ctx):
    A = poisson3d(8)
    b = random_vector(A.shape[0], seed=9)
    x, info = clkr.solve(A, b, tol=1e-10, device=ctx)
    again, info_again = clkr.solve(A, b, tol=1e-10, x0=x, device=ctx)
    assert info_again.iterations <= 1
    assert np.linalg.norm(again - x) <= 1e-9 * np.linalg.norm(x)
    _, capped = clkr.solve(A, b, tol=1e-12, maxiter=3, device=ctx)
    assert capped.status == "max-iterations" and not capped.converged and capped.iterations == 3


def test_devices_lists_the_default_one():
    devices = clkr.devices()
    assert devices, "no OpenCL device"
    assert sum(d["default"] for d in devices) == 1
    for d in devices:
        assert {"selector", "name", "platform", "type", "fp64", "global_memory"} <= d.keys()
    chosen = clkr.Context(next(d for d in devices if d["default"])["selector"])
    assert chosen.device["name"] == next(d for d in devices if d["default"])["name"]


def test_a_stiff_system_in_single_precision_is_scaled_into_range_and_says_so(ctx):
    A = poisson3d(6)
    s = sp.diags(10.0 ** np.random.default_rng(4).uniform(0, 7, A.shape[0]))
    stiff = (s @ A @ s).tocsr()  # entries up to ~6e14, as bcsstk25's
    b = stiff @ random_vector(A.shape[0])
    x, info = clkr.solve(stiff, b, precision="single", tol=1e-5, device=ctx)
    assert info.converged, info.message
    assert "D A D" in info.scaling
    assert np.isfinite(info.true_relative_residual)
    _, plain = clkr.solve(A, A @ np.ones(A.shape[0]), precision="single", tol=1e-5, device=ctx)
    assert plain.scaling == ""


def test_the_cg_path_is_reported_and_small_systems_run_on_the_host_of_a_cpu_device(ctx):
    A = poisson3d(10)
    b = random_vector(A.shape[0])
    x, info = clkr.solve(A, b, tol=1e-10, device=ctx)
    assert info.converged, info.message
    assert relative_residual(A, b, x) <= 1e-9
    if ctx.device["type"] == "CPU":
        assert info.path.startswith("host: "), info.path
    else:
        assert info.path in ("fused", "persistent"), info.path
    _, gmres = clkr.solve(A, b, solver="gmres", tol=1e-10, device=ctx)
    assert gmres.path == ""


def test_a_solve_says_whether_its_preconditioner_strengthened_itself(ctx):
    # Poisson's AMG converges in a handful of iterations: asked from iteration 2 on, it declines.
    A = poisson3d(10)
    b = random_vector(A.shape[0])
    x, info = clkr.solve(A, b, precond="amg", tol=1e-10, device=ctx,
                         settings={"cg.strengthen_check": "2", "amg.strengthen_test_vectors": "2"})
    assert info.converged, info.message
    assert info.strengthened == ""
    assert relative_residual(A, b, x) <= 1e-9
