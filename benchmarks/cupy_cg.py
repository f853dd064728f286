#!/usr/bin/env python3
"""Peer reference for the GPU benchmarks: CuPy's CG (cupyx.scipy.sparse.linalg.cg on cuSPARSE CSR)
in double precision, b = A*1, a fixed number of iterations, on the same matrices `clkr bench cg` runs.

Prints one CSV row per matrix: matrix,n,nnz,iterations,seconds_per_iteration,copy_gbs
(copy_gbs: a device-to-device copy measured in the same run, bytes read plus written).
Usage: cupy_cg.py [--iterations 500] [--reps 3] SPEC...   (SPEC: poisson3d:N or a .mtx/.mtx.gz path)
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


def poisson3d(n):
    """7-point Laplacian on an n^3 grid (diag 6, off-diagonals -1), as clkr's generator."""
    one = sp.diags([-np.ones(n - 1), 2 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1])
    eye = sp.identity(n)
    a = sp.kron(sp.kron(one, eye), eye) + sp.kron(sp.kron(eye, one), eye) + sp.kron(sp.kron(eye, eye), one)
    return a.tocsr()


def load(spec):
    if spec.startswith("poisson3d:"):
        return poisson3d(int(spec.split(":")[1]))
    return sp.csr_matrix(scipy.io.mmread(spec))


def copy_bandwidth():
    src = cp.ones(1 << 28, dtype=cp.float64)  # 2 GiB
    dst = cp.empty_like(src)
    times = []
    for _ in range(5):
        cp.cuda.Device().synchronize()
        t = time.perf_counter()
        dst[...] = src
        cp.cuda.Device().synchronize()
        times.append(time.perf_counter() - t)
    return 2 * src.nbytes / sorted(times)[len(times) // 2] / 1e9


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iterations", type=int, default=500)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("specs", nargs="+")
    args = ap.parse_args()
    bw = copy_bandwidth()
    print("matrix,n,nnz,iterations,seconds_per_iteration,copy_gbs")
    for spec in args.specs:
        a_host = load(spec)
        a = cpsp.csr_matrix(a_host)
        b = a @ cp.ones(a.shape[0])
        best = []
        for rep in range(args.reps + 1):  # the first run warms up (cuSPARSE handles, kernels)
            cp.cuda.Device().synchronize()
            t = time.perf_counter()
            cpla.cg(a, b, tol=1e-300, maxiter=args.iterations) if "tol" in cpla.cg.__code__.co_varnames else \
                cpla.cg(a, b, rtol=1e-300, maxiter=args.iterations)
            cp.cuda.Device().synchronize()
            if rep:
                best.append((time.perf_counter() - t) / args.iterations)
        print(f"{spec},{a.shape[0]},{a.nnz},{args.iterations},{sorted(best)[len(best) // 2]:.6e},{bw:.1f}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
