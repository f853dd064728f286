#!/usr/bin/env python3
"""The short table of benchmarks/run_gpu_amg_setup.sh, printed last: the device AMG setup per matrix
(total and its largest phases, the waits for the device and the time in them, the allocations and
their time), against the H200 measurement of 2026-11-25 and the prediction of docs/performance-amg-setup.md
("Fewer host round trips in the device setup"); then time to solution per matrix and method.

    usage: benchmarks/gpu_amg_setup_summary.py RESULTS_DIR
"""
import csv
import os
import sys

# H200, 2026-11-25 (docs/performance-amg-setup.md): setup ms by `clkr solve` in fresh processes, and the
# prediction for the changes of 2026-11-27 on that card.
BEFORE = {"poisson3d:128": 198, "poisson3d:192": 467, "poisson3d:256": 1024}
PREDICTED = {"poisson3d:128": 150, "poisson3d:192": 320, "poisson3d:256": 680}
BEFORE_TTS = {("poisson3d:128", "cg"): 51, ("poisson3d:128", "amg"): 171, ("poisson3d:128", "amg-update"): 96,
              ("poisson3d:192", "cg"): 178, ("poisson3d:192", "amg"): 519, ("poisson3d:192", "amg-update"): 334}


def read(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "gpu-amg-setup-results"
    phases = read(os.path.join(out, "phases.csv"))
    if phases:
        print("device AMG setup (clkr solve, fresh processes, medians), ms")
        print(f"{'matrix':16s} {'setup':>7s} {'before':>7s} {'predicted':>9s} {'waits':>6s} {'wait ms':>8s} "
              f"{'allocs':>6s} {'alloc ms':>8s}  largest phases")
        for matrix in dict.fromkeys(r["matrix"] for r in phases):
            rows = [r for r in phases if r["matrix"] == matrix]
            total = next(r for r in rows if r["phase"] == "total")
            largest = sorted((r for r in rows if r["phase"] != "total"), key=lambda r: -float(r["ms"]))[:4]
            text = ", ".join(f"{r['phase']} {float(r['ms']):.0f}" for r in largest)
            print(f"{matrix:16s} {float(total['ms']):7.0f} {BEFORE.get(matrix, float('nan')):7.0f} "
                  f"{PREDICTED.get(matrix, float('nan')):9.0f} {float(total['waits']):6.0f} "
                  f"{float(total['wait_seconds']) * 1e3:8.1f} {float(total['allocations']):6.0f} "
                  f"{float(total['allocation_seconds']) * 1e3:8.1f}  {text}")
    for name in ["solve_poisson.csv", "solve_hard.csv"]:
        rows = read(os.path.join(out, name))
        if not rows:
            continue
        print(f"\ntime to solution ({name}: clkr bench solve, medians), ms")
        print(f"{'matrix':18s} {'method':12s} {'iters':>6s} {'setup':>8s} {'solve':>8s} {'total':>8s} {'vs CG':>6s} "
              f"{'before':>7s}")
        for r in rows:
            if r["status"] != "converged":
                print(f"{r['matrix']:18s} {r['method']:12s} {r['status']}")
                continue
            ms = {k: float(r[k]) * 1e3 for k in ["setup_seconds", "solve_seconds", "total_seconds"]}
            cg = next((float(c["total_seconds"]) * 1e3 for c in rows
                       if c["matrix"] == r["matrix"] and c["method"] == "cg" and c["status"] == "converged"), None)
            ratio = ms["total_seconds"] / cg if cg else float("nan")
            print(f"{r['matrix']:18s} {r['method']:12s} {r['iterations']:>6s} {ms['setup_seconds']:8.1f} "
                  f"{ms['solve_seconds']:8.1f} {ms['total_seconds']:8.1f} {ratio:6.2f} "
                  f"{BEFORE_TTS.get((r['matrix'], r['method']), float('nan')):7.0f}")


if __name__ == "__main__":
    main()
