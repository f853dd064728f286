"""clkr.Solver: one setup for several right-hand sides and for new values across time steps."""
import numpy as np
import pytest

import clkr
from conftest import poisson3d, random_vector, relative_residual


@pytest.mark.parametrize("precond", ["none", "amg"])
def test_columns_of_b_equal_separate_solves(ctx, precond):
    A = poisson3d(9)
    n = A.shape[0]
    B = np.stack([random_vector(n, seed=s) for s in range(4)], axis=1)
    solver = clkr.Solver(A, precond=precond, tol=1e-10, device=ctx)
    X, results = solver.solve(B)
    assert X.shape == B.shape and len(results) == 4
    for j in range(4):
        x, info = solver.solve(B[:, j])
        assert results[j].converged and relative_residual(A, B[:, j], X[:, j]) <= 1e-9
        if precond == "amg":  # the columns one by one on the shared setup: the separate solves, bit for bit
            assert results[j].iterations == info.iterations
            np.testing.assert_array_equal(X[:, j], x)
        else:  # CG's columns in lockstep (batched kernels): the same iteration, rounded in another order
            assert abs(results[j].iterations - info.iterations) <= 1
            assert np.linalg.norm(X[:, j] - x) <= 1e-8 * np.linalg.norm(x)


def test_update_follows_new_values_like_a_fresh_setup(ctx):
    A = poisson3d(10)
    b = random_vector(A.shape[0], seed=2)
    solver = clkr.Solver(A, precond="amg", tol=1e-10, device=ctx)
    x1, info1 = solver.solve(b)
    shifted = (A + 0.5 * clkr_identity(A.shape[0])).tocsr()
    solver.update(shifted)  # a scipy matrix with the same pattern
    x2, info2 = solver.solve(b)
    fresh, fresh_info = clkr.solve(shifted, b, precond="amg", tol=1e-10, device=ctx)
    assert info2.converged and relative_residual(shifted, b, x2) <= 1e-9
    assert abs(info2.iterations - fresh_info.iterations) <= 1
    assert not np.allclose(x1, x2)
    solver.update(2 * shifted.data)  # the values as an array: the solution halves
    x3, _ = solver.solve(b)
    assert np.linalg.norm(2 * x3 - x2) <= 1e-8 * np.linalg.norm(x2)


def clkr_identity(n):
    import scipy.sparse as sp
    return sp.identity(n, format="csr")


def test_a_pattern_change_is_refused_and_leaves_the_solver_working(ctx):
    A = poisson3d(5)
    b = random_vector(A.shape[0])
    solver = clkr.Solver(A, tol=1e-10, device=ctx)
    denser = A.tolil()
    denser[0, 7] = -0.01
    with pytest.raises(clkr.Error, match="pattern differs in row 0"):
        solver.update(denser.tocsr())
    with pytest.raises(clkr.Error, match="elements, expected"):
        solver.update(np.ones(A.nnz + 1))
    x, info = solver.solve(b)
    assert info.converged and relative_residual(A, b, x) <= 1e-9


def test_host_backend_solves_and_follows_updates(ctx):
    A = poisson3d(10)
    b = random_vector(A.shape[0], seed=3)
    device_x, device_info = clkr.solve(A, b, tol=1e-10, device=ctx)
    host_x, host_info = clkr.solve(A, b, tol=1e-10, device=ctx, backend="host")
    assert host_info.converged and relative_residual(A, b, host_x) <= 1e-9
    assert abs(host_info.iterations - device_info.iterations) <= 1  # the same CG, rounded in another order
    # The Gauss-Seidel smoother exists on the host backend only: a device refuses it.
    gauss_seidel = {"smoother": "gauss-seidel", "coarse_size": 50}
    solver = clkr.Solver(A, precond="amg", amg=gauss_seidel, tol=1e-10, device=ctx, backend="host")
    assert "on the host backend" in solver.description
    x, info = solver.solve(b)
    assert info.converged and relative_residual(A, b, x) <= 1e-9
    solver.update(2 * A.data)  # the host copy of the matrix follows: the solution halves
    x2, info2 = solver.solve(b)
    assert info2.converged and np.linalg.norm(2 * x2 - x) <= 1e-8 * np.linalg.norm(x)
    with pytest.raises(clkr.Error, match="runs on the host backend only"):
        clkr.Solver(A, precond="amg", amg=gauss_seidel, device=ctx)
    with pytest.raises(clkr.Error, match="unknown backend 'gpu'"):
        clkr.solve(A, b, device=ctx, backend="gpu")
