#!/usr/bin/env python3
"""Peer reference for the GPU benchmarks: CuPy's CG (cupyx.scipy.sparse.linalg.cg on cuSPARSE CSR)
in double precision, b = A*1, a fixed number of iterations, on the same matrices `clkr bench cg` runs.

Prints one CSV row per matrix: matrix,n,nnz,iterations,seconds_per_iteration,copy_gbs
(copy_gbs: a device-to-device copy measured in the same run, bytes read plus written).
Usage: cupy_cg.py [--iterations 500] [--reps 3] [--dump-csr PATH] SPEC...
  SPEC: poisson3d:N, a .mtx/.mtx.gz path, or any other clkr generator spec (powerlaw:N), which
  PATH (build/benchmarks/clkr_dump_csr) writes as raw CSR arrays for this script to read.
"""
import argparse
import os
import subprocess
import sys
import tempfile
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


def load(spec, dump_csr):
    if spec.startswith("poisson3d:"):
        return poisson3d(int(spec.split(":")[1]))
    if os.path.exists(spec):
        return sp.csr_matrix(scipy.io.mmread(spec))
    # Another generator: clkr's own arrays, so both run the very same matrix.
    if not dump_csr:
        sys.exit(f"cupy_cg.py: {spec} is neither poisson3d:N nor a file; give --dump-csr build/benchmarks/clkr_dump_csr")
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "a")
        rows, cols, _ = (int(v) for v in subprocess.check_output([dump_csr, spec, prefix], text=True).split())
        # Row offsets come as int64 (clkr_dump_csr); SciPy and cuSPARSE take int32 where they fit.
        indptr = np.fromfile(prefix + ".indptr", dtype=np.int64)
        if indptr[-1] < 2**31:
            indptr = indptr.astype(np.int32)
        indices = np.fromfile(prefix + ".indices", dtype=np.int32)
        data = np.fromfile(prefix + ".data", dtype=np.float64)
    return sp.csr_matrix((data, indices, indptr), shape=(rows, cols))


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
    ap.add_argument("--dump-csr", default="", help="clkr_dump_csr, for generator specs other than poisson3d:N")
    ap.add_argument("specs", nargs="+")
    args = ap.parse_args()
    bw = copy_bandwidth()
    print("matrix,n,nnz,iterations,seconds_per_iteration,copy_gbs")
    for spec in args.specs:
        a_host = load(spec, args.dump_csr)
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
