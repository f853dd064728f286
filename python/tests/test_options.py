"""The options beyond solver/precond/precision: storage formats (auto included), mixed precision, the
preconditioners' and refinement's settings, and the arrays uploaded without a copy; with their bad input."""
import gc
import os

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import clkr
from conftest import convection_diffusion2d, poisson3d, random_vector, relative_residual


@pytest.mark.parametrize("format", ["csr", "csr4", "ell", "hyb", "sell", "dia", "auto"])
def test_every_format_solves_the_same_system(ctx, format):
    A = poisson3d(8)
    b = random_vector(A.shape[0])
    M = clkr.matrix(A, device=ctx, format=format)
    assert M.format in ("csr", "csr4", "ell", "hyb", "sell", "dia")
    if format != "auto":
        assert M.format == format
    x, info = clkr.solve(M, b, precond="jacobi", tol=1e-10, device=ctx)
    assert info.converged and relative_residual(A, b, x) <= 1e-9


def test_mixed_precision_reaches_double_accuracy_with_single_inside(ctx):
    A = poisson3d(10)
    b = random_vector(A.shape[0])
    x, info = clkr.solve(A, b, precision="mixed", tol=1e-11, device=ctx)
    assert info.converged and info.inner_iterations > 0, info
    assert relative_residual(A, b, x) <= 1e-10
    N = convection_diffusion2d(16)
    c = random_vector(N.shape[0], seed=2)
    y, info = clkr.solve(N, c, solver="gmres", precision="mixed", tol=1e-11, device=ctx,
                         refinement={"scheme": "restarted", "inner_tolerance": 1e-3})
    assert info.converged and info.inner_iterations > info.iterations, info
    assert np.allclose(y, spla.spsolve(N.tocsc(), c), rtol=0, atol=1e-8 * np.abs(y).max())


def test_mixed_precision_takes_a_preconditioner_inside(ctx):
    # Reliable-update PCG: the AMG in single precision inside, the double accuracy outside, in the
    # AMG-PCG's handful of iterations rather than CG's dozens.
    A = poisson3d(10)
    b = random_vector(A.shape[0])
    _, plain = clkr.solve(A, b, precision="mixed", tol=1e-11, device=ctx)
    x, info = clkr.solve(A, b, precond="amg", precision="mixed", tol=1e-11, device=ctx)
    assert info.converged and 0 < info.inner_iterations < plain.inner_iterations / 2, (info, plain)
    assert relative_residual(A, b, x) <= 1e-10


def test_preconditioner_settings_take_effect(ctx):
    A = poisson3d(10)
    b = random_vector(A.shape[0])
    _, low = clkr.solve(A, b, precond="chebyshev", chebyshev={"degree": 2}, tol=1e-10, device=ctx)
    _, high = clkr.solve(A, b, precond="chebyshev", chebyshev={"degree": 8}, tol=1e-10, device=ctx)
    assert low.converged and high.converged and high.iterations < low.iterations
    _, many = clkr.solve(A, b, precond="amg", amg={"coarse_size": 50}, tol=1e-10, device=ctx)
    _, one = clkr.solve(A, b, precond="amg", amg={"coarse_size": 50, "max_levels": 1}, tol=1e-10, device=ctx)
    assert one.converged and one.iterations <= 2 < many.iterations
    x, info = clkr.solve(A, b, precond="amg", tol=1e-10, device=ctx,
                         amg={"smoother": "jacobi", "sweeps": 2, "update_prolongator": True, "coarse_size": 50},
                         settings={"precond.precision": "single", "cg.path": "fused"})
    assert info.converged and relative_residual(A, b, x) <= 1e-9
    solver = clkr.Solver(A, precond="amg", amg={"coarse_size": 50}, settings={"precond.precision": "single"},
                         device=ctx)
    assert "single" in solver.description
    x, info = clkr.solve(A, b, precond="amg", tol=1e-10, device=ctx, settings={"precond.precision": "half"})
    assert info.converged and relative_residual(A, b, x) <= 1e-9
    half = clkr.Solver(A, precond="amg", settings={"precond.precision": "half"}, device=ctx)
    assert "half values" in half.description
    # prolongator_relaxation 0: plain aggregation, named in the description, and still a multigrid.
    plain = clkr.Solver(A, precond="amg", amg={"prolongator_relaxation": 0, "coarse_size": 50}, device=ctx)
    assert "plain aggregation" in plain.description
    x, info = clkr.solve(A, b, precond="amg", amg={"prolongator_relaxation": 0, "coarse_size": 50}, tol=1e-10,
                         device=ctx)
    assert info.converged and info.iterations < many.iterations * 3 and relative_residual(A, b, x) <= 1e-9
    # Nodes of different sizes (1 and 3 rows in turn), aggregated whole.
    sizes = np.resize([1, 3], A.shape[0])
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    offsets = offsets[offsets < A.shape[0]].tolist() + [A.shape[0]]
    x, info = clkr.solve(A, b, precond="amg", amg={"node_offsets": np.array(offsets), "coarse_size": 50}, tol=1e-10,
                         device=ctx)
    assert info.converged and relative_residual(A, b, x) <= 1e-9
    nodes = clkr.Solver(A, precond="amg", amg={"node_offsets": offsets, "coarse_size": 50}, device=ctx)
    assert f"{len(offsets) - 1} nodes of 1-3 unknowns" in nodes.description
    # Node-block smoothing on those nodes: the smoothers scale by the inverse node blocks.
    x, info = clkr.solve(A, b, precond="amg", amg={"node_offsets": offsets, "block_smoothing": True,
                                                   "coarse_size": 50}, tol=1e-10, device=ctx)
    assert info.converged and relative_residual(A, b, x) <= 1e-9
    blocks = clkr.Solver(A, precond="amg", amg={"node_offsets": offsets, "block_smoothing": True}, device=ctx)
    assert "node-block chebyshev" in blocks.description
    assert any(key.startswith("amg.coarse_size:") for key in clkr.setting_keys())


def test_bad_settings_name_the_key_or_value(ctx):
    A = poisson3d(4)
    b = np.ones(A.shape[0])
    with pytest.raises(clkr.Error, match="amg.coarse_size=ten: not an integer"):
        clkr.solve(A, b, precond="amg", amg={"coarse_size": "ten"}, device=ctx)
    with pytest.raises(clkr.Error, match="amg.coarse_size=2.5: not an integer"):
        clkr.solve(A, b, precond="amg", amg={"coarse_size": 2.5}, device=ctx)
    with pytest.raises(clkr.Error, match="not a boolean"):
        clkr.solve(A, b, precond="amg", amg={"update_prolongator": "perhaps"}, device=ctx)
    with pytest.raises(clkr.Error, match="unknown key 'nope'"):
        clkr.solve(A, b, settings={"nope": 1}, device=ctx)
    with pytest.raises(clkr.Error, match="without precision='mixed'"):
        clkr.solve(A, b, refinement={"scheme": "restarted"}, device=ctx)
    with pytest.raises(clkr.Error, match="does not apply to precision 'mixed'"):
        clkr.solve(A, b, precond="amg", precision="mixed", settings={"precond.precision": "double"}, device=ctx)
    with pytest.raises(clkr.Error, match="runs CG inside"):
        clkr.solve(A, b, solver="bicgstab", precision="mixed", refinement={"scheme": "reliable"}, device=ctx)
    with pytest.raises(clkr.Error, match="unknown matrix format 'bsr'"):
        clkr.solve(A, b, format="bsr", device=ctx)
    with pytest.raises(clkr.Error, match="needs a preconditioner"):
        clkr.solve(A, b, settings={"precond.precision": "single"}, device=ctx)
    with pytest.raises(clkr.Error, match="node_offsets run from 0 to"):
        clkr.solve(A, b, precond="amg", amg={"node_offsets": [0, 5]}, device=ctx)
    with pytest.raises(clkr.Error, match="1-D array"):
        clkr.solve(A, b, precond="amg", amg={"node_offsets": np.zeros((2, 2))}, device=ctx)


def test_int32_arrays_are_uploaded_as_they_are_and_not_kept(ctx):
    """SciPy's int32 CSR takes the path without a host copy; it solves what the int64 copy solves, bit for
    bit, leaves the arrays untouched and needs them no longer after the upload."""
    A = poisson3d(6)
    b = random_vector(A.shape[0])
    indptr, indices, data = A.indptr.copy(), A.indices.copy(), A.data.copy()
    assert indptr.dtype == np.int32
    direct = clkr.csr_matrix(indptr, indices, data, device=ctx)
    copied = clkr.csr_matrix(indptr.astype(np.int64), indices.astype(np.int64), data, device=ctx)
    assert np.array_equal(indptr, A.indptr) and np.array_equal(indices, A.indices) and np.array_equal(data, A.data)
    del indptr, indices, data
    gc.collect()
    x1, info1 = clkr.solve(direct, b, tol=1e-10, device=ctx)
    x2, info2 = clkr.solve(copied, b, tol=1e-10, device=ctx)
    assert info1.converged and info1.iterations == info2.iterations
    assert np.array_equal(x1, x2)
    bad = A.indices.copy()
    bad[A.indptr[2]] = A.shape[1]
    with pytest.raises(clkr.Error, match="column index 216 in row 2 out of range"):
        clkr.csr_matrix(A.indptr, bad, A.data, device=ctx)


def test_rigid_body_modes_as_the_amg_near_null_space(ctx):
    # Two nodes about the origin: the translations, then omega x r for omega = e_x, e_y, e_z.
    B = clkr.rigid_body_modes(np.array([[1.0, 0, 0], [-1, 0, 0]]))
    assert B.shape == (6, 6) and B.dtype == np.float64
    assert np.array_equal(B[:, 0], [1, 0, 0, 1, 0, 0])
    assert np.array_equal(B[:, 5], [0, 1, 0, 0, -1, 0])  # the rotation about z moves them along +-y
    assert clkr.rigid_body_modes([[0, 0], [2, 0]], unknowns_per_node=3).shape == (6, 3)
    with pytest.raises(ValueError, match="nodes, 2"):
        clkr.rigid_body_modes(np.zeros((4, 4)))
    with pytest.raises(clkr.Error, match="unknowns per node"):
        clkr.rigid_body_modes(np.zeros((4, 3)), unknowns_per_node=4)
    # A vector problem of three unknowns a node on a 6^3 grid (a Laplacian per component, coupled):
    # the six modes of its nodes are accepted as the near-null space, and the AMG says so.
    n = 6
    L = poisson3d(n)
    A = (sp.kron(L, np.eye(3) + 0.2 * (np.ones((3, 3)) - np.eye(3)))).tocsr()
    grid = np.stack(np.meshgrid(np.arange(n), np.arange(n), np.arange(n), indexing="ij"), -1)
    xyz = grid.reshape(-1, 3)[:, ::-1].astype(float)  # x fastest, as poisson3d numbers its points
    modes = clkr.rigid_body_modes(xyz)
    b = random_vector(A.shape[0])
    solver = clkr.Solver(A, precond="amg", amg={"block_size": 3, "near_null_space": modes}, tol=1e-10, device=ctx)
    assert "6 near-null vectors" in solver.description
    x, info = solver.solve(b)
    assert info.converged and relative_residual(A, b, x) <= 1e-9


def test_default_precision_is_double_or_quasi_double_without_fp64(ctx, monkeypatch):
    # precision="auto" (the default): double where the device has fp64, quasi-double where it has none
    # (CLKR_HIDE_FP64=1 makes the new context's device one without), so the defaults solve anywhere;
    # "double" on such a device is refused by name.
    A = poisson3d(8)
    b = random_vector(A.shape[0])
    solver = clkr.Solver(A, device=ctx)
    assert " in double " in solver.description, solver.description
    monkeypatch.setenv("CLKR_HIDE_FP64", "1")
    no_fp64 = clkr.Context(os.environ.get("CLKR_DEVICE", ""))
    monkeypatch.delenv("CLKR_HIDE_FP64")
    solver = clkr.Solver(A, device=no_fp64, tol=1e-11)
    assert " in qdouble " in solver.description, solver.description
    x, info = solver.solve(b)
    assert info.converged and relative_residual(A, b, x) <= 1e-10, info
    with pytest.raises(clkr.Error, match="fp64"):
        clkr.solve(A, b, precision="double", device=no_fp64)
