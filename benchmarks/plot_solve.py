#!/usr/bin/env python3
"""Time-to-solution plots from `clkr bench solve --csv` files (and benchmarks/cupy_solve.py's CSV), with
gnuplot: how iterations and times grow with the problem size for one generator family.

  solve_iterations.png  iterations against rows, one line per method (AMG stays flat where CG grows)
  solve_time.png        seconds against rows (log-log): solve phase and setup + solve per method

usage: plot_solve.py OUT_DIR CSV[@LABEL_SUFFIX]... [--family poisson3d] [--title TEXT]
A CSV given as FILE@SUFFIX has SUFFIX appended to its methods' labels (two runs of the same method with
different options: solve.csv solve_jacobi_smoother.csv@', Jacobi smoother'). Rows of other matrices, and
rows whose status is not `converged`, are left out (said on stderr).
"""
import argparse
import csv
import os
import re
import subprocess
import sys
import tempfile


def read_rows(paths, family):
    """(label, n, iterations, solve_seconds, total_seconds) per converged row of the family."""
    rows = []
    for arg in paths:
        path, _, suffix = arg.partition("@")
        with open(path, newline="") as f:
            for r in csv.DictReader(f):
                if not r["matrix"].startswith(family + ":"):
                    continue
                if r.get("status", "converged") != "converged":
                    print(f"left out: {r['matrix']} {r.get('method', 'cupy')}: {r['status']}", file=sys.stderr)
                    continue
                if "implementation" in r:  # clkr bench solve
                    where = "" if r["implementation"] in ("clkr-device",) else r["implementation"] + " "
                    label = where + r["method"]
                    total = float(r["total_seconds"])
                else:  # cupy_solve.py: CG without a preconditioner, no setup
                    label = "CuPy cg"
                    total = float(r["solve_seconds"])
                rows.append((label + suffix, int(float(r["n"])), int(r["iterations"]), float(r["solve_seconds"]), total))
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out_dir")
    p.add_argument("csv", nargs="+")
    p.add_argument("--family", default="poisson3d")
    p.add_argument("--title", default="")
    p.add_argument("--only", default="", help="a regular expression: plot only the labels it matches")
    a = p.parse_args()
    rows = read_rows(a.csv, a.family)
    if not rows:
        sys.exit(f"plot_solve.py: no converged {a.family} rows in {' '.join(a.csv)}")
    labels = sorted({r[0] for r in rows if re.search(a.only, r[0])}, key=lambda l: (l.startswith("CuPy"), l))
    os.makedirs(a.out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        data = {}
        for label in labels:
            path = os.path.join(work, "".join(c if c.isalnum() else "_" for c in label) + ".dat")
            with open(path, "w") as f:
                for _, n, its, solve, total in sorted(r for r in rows if r[0] == label):
                    f.write(f"{n} {its} {solve} {total}\n")
            data[label] = path
        title = a.title or f"{a.family}: time to a 1e-8 relative residual"
        its_plot = ", ".join(f"'{data[l]}' u 1:2 w lp lw 2 t '{l}'" for l in labels)
        time_plot = ", ".join(f"'{data[l]}' u 1:3 w lp lw 2 t '{l} (solve)'" for l in labels)
        time_plot += ", " + ", ".join(f"'{data[l]}' u 1:4 w lp dt 2 lw 2 t '{l} (setup+solve)'"
                                      for l in labels if "amg" in l or "chebyshev" in l)
        script = f"""
set terminal pngcairo size 900,680 font ',11' noenhanced
set key outside below maxrows 4
set grid
set logscale x
set xrange [{0.8 * min(r[1] for r in rows)}:{1.25 * max(r[1] for r in rows)}]
set xlabel 'rows'
set output '{a.out_dir}/solve_iterations.png'
set title '{title}: iterations'
set ylabel 'iterations'
set yrange [0:*]
plot {its_plot}
set output '{a.out_dir}/solve_time.png'
set title '{title}: seconds'
set ylabel 'seconds'
set logscale y
set yrange [*:*]
plot {time_plot}
"""
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
    print(f"wrote {a.out_dir}/solve_iterations.png, {a.out_dir}/solve_time.png")


if __name__ == "__main__":
    main()
