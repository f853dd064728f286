#!/usr/bin/env python3
"""Time to solution (setup + solve, ms) by matrix, as grouped bars, from `clkr bench solve --csv` files,
with gnuplot (plot_cg_series.py's bars): several runs or settings side by side with the peers of the
same calls, e.g. the AMG on single unknowns against nodes of different sizes, Eigen's IC-CG and hypre.

usage: plot_solve_series.py OUT.png SERIES... [--title TEXT]
  SERIES: LABEL=CSV:IMPLEMENTATION:METHOD, e.g. 'clkr AMG, nodes=all_1.csv:clkr-device:amg' or
          'host AMG=all_1.csv:clkr-host:host:amg'
          'Eigen IC-CG=all_1.csv:eigen:ic-cg'
Matrices are taken in the order the first series lists them; a matrix a series lacks, or whose row did
not converge, is left empty.
"""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_cg_series import bars_main  # noqa: E402


def read_series(spec):
    """(label, {matrix: total ms}, [matrices in file order]) of one SERIES argument."""
    label, _, rest = spec.partition("=")
    # The method is the rest, so that the host backend's methods ("host:amg") keep their colon.
    path, implementation, method = (rest.split(":", 2) + ["", ""])[:3]
    totals, order = {}, []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["implementation"] != implementation or r["method"] != method:
                continue
            if r["matrix"] not in order:
                order.append(r["matrix"])
            if r["status"] == "converged" and r["total_seconds"]:
                totals[r["matrix"]] = 1e3 * float(r["total_seconds"])
    if not order:
        sys.exit(f"plot_solve_series.py: no rows for '{spec}'")
    return label, totals, order


def main():
    bars_main(__doc__, read_series, "time to solution, setup + solve", "ms, setup + solve (log)")


if __name__ == "__main__":
    main()
