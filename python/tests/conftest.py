"""Shared by the Python tests: one device context for the session (compiling kernels once), the
systems the C++ tests solve (Poisson problems, the bundled SuiteSparse matrices) built with SciPy."""
import os
import pathlib

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import clkr

MATRICES = pathlib.Path(__file__).resolve().parents[2] / "matrices"


@pytest.fixture(scope="session")
def ctx():
    return clkr.Context(os.environ.get("CLKR_DEVICE", ""))


def poisson3d(n):
    """The 7-point Laplacian on an n^3 grid, as clkr's poisson3d:n generator makes it."""
    t = sp.diags([-np.ones(n - 1), 2 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1])
    i = sp.identity(n)
    return (sp.kron(sp.kron(t, i), i) + sp.kron(sp.kron(i, t), i) + sp.kron(sp.kron(i, i), t)).tocsr()


def convection_diffusion2d(n, wind=20.0):
    """A nonsymmetric 5-point operator: -Laplacian + wind * d/dx (upwinded) on an n^2 grid."""
    h = 1.0 / (n + 1)
    t = sp.diags([-np.ones(n - 1), 2 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1])
    d = sp.diags([-np.ones(n - 1), np.ones(n)], [-1, 0]) * (wind * h)
    i = sp.identity(n)
    return (sp.kron(i, t + d) + sp.kron(t, i)).tocsr()


def bundled(name):
    return sp.csr_matrix(scipy.io.mmread(str(MATRICES / name)))


def random_vector(n, seed=1):
    return np.random.default_rng(seed).uniform(-1, 1, n)


def relative_residual(A, b, x):
    return np.linalg.norm(b - A @ x) / np.linalg.norm(b)
