#!/usr/bin/env python3
"""The AMG setup built on the host and on the device (`clkr solve --amg-setup host|device --json`), run
alternately in fresh processes: the median setup time, its phases, iterations, levels, operator
complexity and solve time per matrix and location, and the ratio device / host.

    usage: benchmarks/amg_setup_compare.py [--clkr build/clkr] [--reps 3] [--warmup 1] [--extra "--format ell"]
                                           MATRIX...

MATRIX is anything `clkr solve` takes (poisson3d:128, a .mtx file). Each run is a new process, so the
first kernel compilation is kept out of the timings only by the kernel cache (CLKR_CACHE_DIR): `warmup`
uncounted runs per matrix and location come first (0 when the cache is already warm).
"""
import argparse
import json
import shlex
import statistics
import subprocess
import sys


def run(clkr, matrix, where, extra):
    command = [clkr, "solve", matrix, "--precond", "amg", "--amg-setup", where, "--json"] + shlex.split(extra)
    done = subprocess.run(command, capture_output=True, text=True)
    try:  # a solve that does not converge exits non-zero but still reports
        return json.loads(done.stdout)
    except json.JSONDecodeError:
        sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--clkr", default="build/clkr")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--extra", default="", help="more clkr solve options, e.g. '--format ell'")
    parser.add_argument("matrices", nargs="+")
    args = parser.parse_args()
    print("matrix,setup_on,reps,setup_ms,solve_ms,iterations,levels,coarse_rows_level1,operator_complexity,phases_ms")
    for matrix in args.matrices:
        results = {"host": [], "device": []}
        for _ in range(args.warmup):
            for where in results:
                run(args.clkr, matrix, where, args.extra)  # kernel programs into the cache
        for _ in range(args.reps):
            for where in results:
                results[where].append(run(args.clkr, matrix, where, args.extra))
        medians = {}
        for where, runs in results.items():
            pre = [r["preconditioner"] for r in runs]
            setup = statistics.median(p["setup_seconds"] for p in pre) * 1e3
            solve = statistics.median(r["solve_seconds"] for r in runs) * 1e3
            phases = {name: statistics.median(p["setup_phases"].get(name, 0.0) for p in pre) * 1e3
                      for name in pre[0]["setup_phases"]}
            levels = pre[0]["levels"]
            medians[where] = setup
            phase_text = " ".join(f"{name.replace(' ', '_')}={ms:.1f}" for name, ms in phases.items())
            print(f"{matrix},{pre[0].get('setup_on', where)},{len(runs)},{setup:.1f},{solve:.1f},{runs[0]['iterations']},"
                  f"{len(levels)},{levels[1]['rows'] if len(levels) > 1 else 0},{pre[0]['operator_complexity']:.3f},"
                  f"{phase_text}", flush=True)
        print(f"# {matrix}: device setup / host setup = {medians['device'] / medians['host']:.3f}", flush=True)


if __name__ == "__main__":
    main()
