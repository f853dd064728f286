#!/usr/bin/env python3
"""Milliseconds per CG iteration by matrix, as grouped bars, from `clkr bench cg --csv` files (and
benchmarks/cupy_cg.py's CSV), with gnuplot: several runs or settings side by side, e.g. a parameter
file against the defaults with the peers of the same call.

usage: plot_cg_series.py OUT.png SERIES... [--title TEXT]
  SERIES: LABEL=CSV[:IMPLEMENTATION[:FORMAT]], e.g. '1 group/CU=cg_g1.csv:clkr'
          'ViennaCL CSR=cg_new.csv:viennacl:csr' 'CuPy=cupy.csv' (a cupy_cg.py file has one series)
Matrices are taken in the order the first series lists them; a matrix a series lacks is left empty.
The y axis is logarithmic: the matrices' times span two decades.
"""
import argparse
import csv
import os
import subprocess
import sys
import tempfile


def read_series(spec):
    """(label, {matrix: ms per iteration}, [matrices in file order]) of one SERIES argument."""
    label, _, rest = spec.partition("=")
    path, _, select = rest.partition(":")
    implementation, _, fmt = select.partition(":")
    times, order = {}, []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if "seconds_per_iteration" in r:  # cupy_cg.py
                seconds = float(r["seconds_per_iteration"])
            else:  # clkr bench cg
                if implementation and r["implementation"] != implementation:
                    continue
                if fmt and r["format"] != fmt:
                    continue
                if r["status"] != "ok" or not r["wall_s_per_iter_median"]:
                    continue
                seconds = float(r["wall_s_per_iter_median"])
            if r["matrix"] not in times:
                order.append(r["matrix"])
                times[r["matrix"]] = 1e3 * seconds
    if not times:
        sys.exit(f"plot_cg_series.py: no rows for '{spec}'")
    return label, times, order


def draw_bars(out, title, ylabel, series, matrices):
    """Grouped bars of series [(label, {matrix: value})] over `matrices` (those with a value in some
    series), log y axis, into the PNG `out`."""
    matrices = [m for m in matrices if any(m in t for _, t in series)]
    values = [t[m] for _, t in series for m in matrices if m in t]
    with tempfile.TemporaryDirectory() as work:
        data = os.path.join(work, "bars.dat")
        with open(data, "w") as f:
            f.write("matrix " + " ".join(f'"{label}"' for label, _ in series) + "\n")
            for m in matrices:
                f.write(f'"{m}" ' + " ".join(f"{t[m]:.6g}" if m in t else "NaN" for _, t in series) + "\n")
        columns = ", ".join(f"'{data}' u {i + 2}:xtic(1) t col" for i in range(len(series)))
        script = f"""
set terminal pngcairo size 1000,600 font ',11' noenhanced
set output '{out}'
set title '{title}'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set logscale y
set yrange [{0.5 * min(values)}:{2 * max(values)}]
set grid ytics
set ylabel '{ylabel}'
set xtics rotate by -30
set key outside below horizontal
plot {columns}
"""
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
    print(f"wrote {out}")


def bars_main(doc, read, title, ylabel):
    """A bar script's command line (OUT.png SERIES... [--title TEXT], `doc` its help): each SERIES read
    by `read` into (label, {matrix: value}, [matrices]), drawn by draw_bars in the first one's order."""
    p = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out")
    p.add_argument("series", nargs="+")
    p.add_argument("--title", default=title)
    a = p.parse_args()
    series = [read(s) for s in a.series]
    draw_bars(a.out, a.title, ylabel, [(label, t) for label, t, _ in series], series[0][2])


def main():
    bars_main(__doc__, read_series, "CG, ms per iteration", "ms per iteration (log)")


if __name__ == "__main__":
    main()
