#!/usr/bin/env python3
"""GPU peer of `clkr bench solve`: CuPy's CG (cupyx.scipy.sparse.linalg.cg on cuSPARSE CSR) in double
precision to a relative tolerance on ||b - A x|| / ||b||, b = ones, x0 = 0, on the same matrices.

The generator specs are built as clkr builds them (poisson3d:N, anisotropic3d:N[:EPS], jumping3d:N[:C]),
Matrix Market files are read with SciPy. Prints one CSV row per matrix:
matrix,n,nnz,status,iterations,solve_seconds,true_relative_residual
(the median solve time of --reps timed runs after one warm-up; CuPy's CG has no setup).
Usage: cupy_solve.py [--tol 1e-8] [--maxit 20000] [--reps 3] SPEC...
"""
import argparse
import sys
import time

import cupy as cp
import cupyx.scipy.sparse as cpsp
import cupyx.scipy.sparse.linalg as cpla
import numpy as np
import scipy.io
import scipy.sparse as sp


def stencil3d(n, face_x, face_y, face_z, boundary):
    """-div(k grad u) on an n^3 grid, x fastest: face_*(x, y, z) is the coupling between cell (x, y, z) and
    its upper neighbour along the axis (arrays of shape (n, n, n), indexed [z, y, x]); boundary(axis) the
    coupling of each cell to the Dirichlet boundary beyond it (same shape)."""
    idx = np.arange(n ** 3).reshape(n, n, n)
    rows, cols, vals = [], [], []
    diag = np.zeros((n, n, n))
    for axis, face in ((2, face_x), (1, face_y), (0, face_z)):
        lower = [slice(None)] * 3
        upper = [slice(None)] * 3
        lower[axis] = slice(0, n - 1)
        upper[axis] = slice(1, n)
        w = face[tuple(lower)]
        a, b = idx[tuple(lower)].ravel(), idx[tuple(upper)].ravel()
        rows += [a, b]
        cols += [b, a]
        vals += [-w.ravel(), -w.ravel()]
        diag[tuple(lower)] += w
        diag[tuple(upper)] += w
        first = [slice(None)] * 3
        last = [slice(None)] * 3
        first[axis] = 0
        last[axis] = n - 1
        bnd = boundary(axis)
        diag[tuple(first)] += bnd[tuple(first)]
        diag[tuple(last)] += bnd[tuple(last)]
    rows.append(idx.ravel())
    cols.append(idx.ravel())
    vals.append(diag.ravel())
    return sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n ** 3, n ** 3))


def load(spec):
    name, _, rest = spec.partition(":")
    if name in ("poisson3d", "anisotropic3d", "jumping3d"):
        parts = rest.split(":")
        n = int(parts[0])
        ones = np.ones((n, n, n))
        if name == "poisson3d":
            return stencil3d(n, ones, ones, ones, lambda axis: ones)
        if name == "anisotropic3d":
            eps = float(parts[1]) if len(parts) > 1 else 1e-3
            return stencil3d(n, ones, ones, eps * ones, lambda axis: eps * ones if axis == 0 else ones)
        contrast = float(parts[1]) if len(parts) > 1 else 1e4
        z, y, x = np.meshgrid(np.arange(n), np.arange(n), np.arange(n), indexing="ij")
        k = np.where((4 * x // n + 4 * y // n + 4 * z // n) % 2 == 1, contrast, 1.0)

        def face(axis):
            shifted = np.roll(k, -1, axis=axis)  # the upper neighbour (wraps at the end: unused there)
            return 2 * k * shifted / (k + shifted)

        return stencil3d(n, face(2), face(1), face(0), lambda axis: k)
    return sp.csr_matrix(scipy.io.mmread(spec))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tol", type=float, default=1e-8)
    ap.add_argument("--maxit", type=int, default=20000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("specs", nargs="+")
    args = ap.parse_args()
    print("matrix,n,nnz,status,iterations,solve_seconds,true_relative_residual")
    for spec in args.specs:
        a_host = load(spec).tocsr()
        a = cpsp.csr_matrix(a_host)
        b = cp.ones(a.shape[0])
        times = []
        count = [0]

        def callback(_):
            count[0] += 1

        kwargs = {"tol": args.tol} if "tol" in cpla.cg.__code__.co_varnames else {"rtol": args.tol}
        # The first run warms up (cuSPARSE handles, kernels) and counts the iterations through the
        # callback; the timed runs go without it.
        for rep in range(args.reps + 1):
            cp.cuda.Device().synchronize()
            t = time.perf_counter()
            x, info = cpla.cg(a, b, maxiter=args.maxit, callback=None if rep else callback, **kwargs)
            cp.cuda.Device().synchronize()
            if rep:
                times.append(time.perf_counter() - t)
        residual = float(cp.linalg.norm(b - a @ x) / cp.linalg.norm(b))
        status = "converged" if info == 0 and residual <= 1.01 * args.tol else ("max-iterations" if info > 0 else "inaccurate")
        print(f"{spec},{a.shape[0]},{a.nnz},{status},{count[0]},{sorted(times)[len(times) // 2]:.6e},{residual:.3e}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
