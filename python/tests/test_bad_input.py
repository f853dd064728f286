"""Bad input from Python: a TypeError for what is not an array of the right kind, clkr.Error (with the
library's message, naming the row) for what the arrays hold; never a crash."""
import numpy as np
import pytest
import scipy.sparse as sp

import clkr
from conftest import poisson3d


@pytest.fixture
def system():
    A = poisson3d(4)
    return A, np.ones(A.shape[0])


def test_dtypes_that_are_not_real_floats_or_integer_indices(ctx, system):
    A, b = system
    with pytest.raises(TypeError, match="complex128"):
        clkr.solve(A.astype(np.complex128), b, device=ctx)
    with pytest.raises(TypeError, match="b must be float32 or float64, not int64"):
        clkr.solve(A, np.ones(A.shape[0], dtype=np.int64), device=ctx)
    with pytest.raises(TypeError, match="indices must hold integers, not float64"):
        clkr.csr_matrix(A.indptr, A.indices.astype(np.float64), A.data, device=ctx)
    with pytest.raises(TypeError, match="scipy.sparse"):
        clkr.solve(A.toarray(), b, device=ctx)
    with pytest.raises(TypeError, match="device"):
        clkr.solve(A, b, device=3)


def test_array_contents_are_refused_naming_the_row(ctx, system):
    A, _ = system
    indices = A.indices.copy()
    indices[[A.indptr[5], A.indptr[5] + 1]] = indices[[A.indptr[5] + 1, A.indptr[5]]]
    with pytest.raises(clkr.Error, match="row 5"):
        clkr.csr_matrix(A.indptr, indices, A.data, device=ctx)
    data = A.data.copy()
    data[A.indptr[9]] = np.nan
    with pytest.raises(clkr.Error, match=r"nan at \(9, "):  # (row, column)
        clkr.csr_matrix(A.indptr, A.indices, data, device=ctx)
    with pytest.raises(clkr.Error, match="indptr has"):
        clkr.csr_matrix(A.indptr, A.indices, A.data, shape=(A.shape[0] + 1, A.shape[1]), device=ctx)
    with pytest.raises(clkr.Error, match="data has"):
        clkr.csr_matrix(A.indptr, A.indices, A.data[:-1], device=ctx)
    with pytest.raises(clkr.Error, match="base"):  # 0-based arrays declared 1-based
        clkr.csr_matrix(A.indptr, A.indices, A.data, index_base=1, device=ctx)
    with pytest.raises(clkr.Error, match="out of range|column"):
        clkr.coo_matrix([0, 1], [0, 99], [1.0, 1.0], (4, 4), device=ctx)


def test_right_hand_sides_and_options(ctx, system):
    A, b = system
    with pytest.raises(clkr.Error, match="rows"):
        clkr.solve(A, b[:-1], device=ctx)
    bad = b.copy()
    bad[3] = np.inf
    with pytest.raises(clkr.Error, match="(?i)inf|finite"):
        clkr.solve(A, bad, device=ctx)
    with pytest.raises(clkr.Error, match="minres"):
        clkr.solve(A, b, solver="minres", device=ctx)
    with pytest.raises(clkr.Error, match="ilu"):
        clkr.solve(A, b, precond="ilu", device=ctx)
    with pytest.raises(clkr.Error, match="coarse_size"):  # an unknown key lists the known ones
        clkr.solve(A, b, precond="amg", amg={"coarse_sise": 10}, device=ctx)
    with pytest.raises(clkr.Error, match="without precond='amg'"):
        clkr.solve(A, b, amg={"coarse_size": 10}, device=ctx)
    with pytest.raises(clkr.Error, match="tol"):
        clkr.solve(A, b, tol=0.0, device=ctx)
    with pytest.raises(clkr.Error, match="square|rows"):
        clkr.solve(sp.random(5, 6, density=0.5, format="csr", random_state=1), np.ones(5), device=ctx)


def test_a_device_selector_matching_nothing_lists_the_devices():
    with pytest.raises(clkr.Error, match="no-such-device"):
        clkr.Context("no-such-device")


def test_a_preconditioner_that_cannot_be_built_names_the_row(ctx):
    A = poisson3d(4).tolil()
    A[6, 6] = 0.0  # not stored: Jacobi has nothing to divide by
    with pytest.raises(clkr.Error, match=r"A\(6,6\) = 0"):
        clkr.solve(A.tocsr(), np.ones(64), precond="jacobi", device=ctx)


def test_a_negative_diagonal_under_cg_with_jacobi_is_not_spd_not_a_false_convergence(ctx):
    A = poisson3d(4).tolil()
    A[6, 6] = -6.0
    x, info = clkr.solve(A.tocsr(), np.ones(64), precond="jacobi", device=ctx)
    assert info.status == "not-spd" and not info.converged, info
