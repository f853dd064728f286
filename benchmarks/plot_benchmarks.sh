#!/usr/bin/env bash
# Turns the CSV files of `clkr bench` and `clkr solve --history` into PNG plots with gnuplot:
#   blas1_gflops.png          GFLOP/s against vector length, one panel per precision (clkr bench blas1 --csv)
#   cg_time_per_iteration.png CG time per iteration per matrix: clkr formats and the references (clkr bench cg --csv)
#   cg_relative_to_eigen.png  the same divided by Eigen's time (below 1: faster than Eigen)
#   convergence.png           relative residual against iteration, one line per history_*.csv
# Usage: plot_benchmarks.sh RESULTS_DIR [OUT_DIR]   (OUT_DIR defaults to RESULTS_DIR)
# RESULTS_DIR may hold blas1.csv, cg.csv and history_*.csv; each plot is made when its input exists.
set -euo pipefail

if [ $# -lt 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
  sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
results=$1
out=${2:-$1}
command -v gnuplot >/dev/null || { echo "plot_benchmarks.sh: gnuplot not found (apt-get install gnuplot-nox)" >&2; exit 2; }
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Prints the named columns of a clkr CSV, space-separated, for rows whose `status` is ok. The columns
# read here all come before the free-text ones (device, note), which are the only ones that can hold
# quoted commas, so a plain comma split is exact for them.
columns() {
  local file=$1
  shift
  awk -F, -v want="$*" '
    NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; n = split(want, names, " ");
              for (k = 1; k <= n; ++k) if (!(names[k] in col)) { print "no column " names[k] > "/dev/stderr"; exit 1 }
              next }
    $col["status"] != "ok" { next }
    { line = ""; for (k = 1; k <= n; ++k) line = line (k > 1 ? " " : "") $col[names[k]]; print line }' "$file"
}

style='set terminal pngcairo size 1100,700 font "Sans,11" noenhanced
set grid
set key outside right top
set linetype 1 lc rgb "#1f77b4"; set linetype 2 lc rgb "#ff7f0e"; set linetype 3 lc rgb "#2ca02c"
set linetype 4 lc rgb "#d62728"; set linetype 5 lc rgb "#9467bd"; set linetype 6 lc rgb "#8c564b"
set linetype 7 lc rgb "#e377c2"; set linetype 8 lc rgb "#7f7f7f"; set linetype 9 lc rgb "#bcbd22"
set linetype 10 lc rgb "#17becf"; set linetype 11 lc rgb "#000000"; set linetype 12 lc rgb "#aec7e8"
set linetype cycle 12'

# ---- BLAS1: GFLOP/s (top) and GB/s (bottom) against n, one column of panels per precision --------
if [ -f "$results/blas1.csv" ]; then
  columns "$results/blas1.csv" op precision n gflops gbytes_per_s copy_gbytes_per_s > "$work/blas1.txt"
  precisions=$(awk '{print $2}' "$work/blas1.txt" | awk '!seen[$0]++')
  ops=$(awk '{print $1}' "$work/blas1.txt" | awk '!seen[$0]++')
  copy=$(awk '{print $6; exit}' "$work/blas1.txt")
  count=$(echo "$precisions" | wc -w)
  {
    echo "$style"
    echo "set terminal pngcairo size $((420 * count + 160)),800 font 'Sans,10' noenhanced"
    echo "set output '$out/blas1_gflops.png'"
    echo "set multiplot layout 2,$count title 'clkr BLAS1 against vector length (kernel time from OpenCL profiling)'"
    echo "set logscale x 2; set format x '2^%L'; set xlabel 'n'; set key inside top right"
    for metric in gflops gbs; do
      for p in $precisions; do
        plot="plot"
        for op in $ops; do
          # COPY does no arithmetic: it has no GFLOP/s.
          [ "$metric" = gflops ] && [ "$op" = copy ] && continue
          awk -v p="$p" -v op="$op" '$1 == op && $2 == p {print $3, $4, $5}' "$work/blas1.txt" | sort -n \
            > "$work/blas1_${p}_${op}.dat"
          column=$([ "$metric" = gflops ] && echo 2 || echo 3)
          plot="$plot '$work/blas1_${p}_${op}.dat' using 1:$column with linespoints lw 2 title '$op',"
        done
        if [ "$metric" = gflops ]; then
          echo "set title '$p: GFLOP/s'; set ylabel 'GFLOP/s'"
        else
          echo "set title '$p: GB/s (dashed: device copy bandwidth)'; set ylabel 'GB/s'"
          plot="$plot $copy with lines dt 2 lc 'black' title 'copy bandwidth',"
        fi
        echo "${plot%,}"
      done
    done
    echo "unset multiplot"
  } > "$work/blas1.gp"
  gnuplot "$work/blas1.gp"
  echo "wrote $out/blas1_gflops.png"
fi

# ---- CG: time per iteration per matrix, clkr formats next to the references -----------------------
if [ -f "$results/cg.csv" ]; then
  columns "$results/cg.csv" matrix implementation format precision wall_s_per_iter_median > "$work/cg.txt"
  # One series per implementation/format/precision ("clkr/csr/double", "eigen/csr/double", ...).
  awk '{ series = $2 "/" $3 "/" $4; print $1, series, $5 * 1e3 }' "$work/cg.txt" > "$work/cg_long.txt"
  matrices=$(awk '{print $1}' "$work/cg_long.txt" | awk '!seen[$0]++')
  series=$(awk '{print $2}' "$work/cg_long.txt" | awk '!seen[$0]++' | sort)
  # A matrix x series table ("?" where a configuration did not run), and the same divided by Eigen's
  # time in the precision of the series.
  for kind in absolute relative; do
    {
      printf 'matrix'
      for s in $series; do printf ' %s' "$s"; done
      printf '\n'
      for m in $matrices; do
        printf '%s' "$m"
        for s in $series; do
          awk -v m="$m" -v s="$s" -v kind="$kind" '
            { t[$1 " " $2] = $3 }
            END {
              v = t[m " " s]
              split(s, part, "/")
              e = t[m " eigen/csr/" part[3]]
              if (v == "") { printf " ?"; exit }
              if (kind == "absolute") printf " %s", v
              else if (e != "" && e > 0) printf " %.4f", v / e
              else printf " ?"
            }' "$work/cg_long.txt"
        done
        printf '\n'
      done
    } > "$work/cg_$kind.dat"
  done
  n_series=$(echo "$series" | wc -w)
  for kind in absolute relative; do
    if [ "$kind" = absolute ]; then
      file=cg_time_per_iteration.png
      labels="set ylabel 'ms per CG iteration (log scale)'; set logscale y"
      title="CG time per iteration (wall clock, median)"
    else
      file=cg_relative_to_eigen.png
      labels="set ylabel 'time per iteration / Eigen (same precision)'; set yrange [0:*]"
      title="CG time per iteration relative to Eigen (below 1: faster than Eigen)"
    fi
    {
      echo "$style"
      echo "set output '$out/$file'"
      echo "set title '$title'"
      echo "$labels"
      echo "set datafile missing '?'"
      echo "set style data histogram; set style histogram clustered gap 1; set style fill solid 0.85 border -1"
      echo "set boxwidth 0.9; set xtics rotate by -30"
      [ "$kind" = relative ] && echo "set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 2 lw 2"
      echo "plot for [c=2:$((n_series + 1))] '$work/cg_$kind.dat' using c:xtic(1) title columnheader(c)"
    } > "$work/cg_$kind.gp"
    gnuplot "$work/cg_$kind.gp"
    echo "wrote $out/$file"
  done
fi

# ---- convergence: relative residual against iteration ---------------------------------------------
shopt -s nullglob
histories=("$results"/history_*.csv)
if [ ${#histories[@]} -gt 0 ]; then
  {
    echo "$style"
    echo "set output '$out/convergence.png'"
    echo "set title 'CG convergence: recursive relative residual ||r_k|| / ||b||'"
    echo "set logscale y; set format y '1e%L'; set xlabel 'iteration'; set ylabel 'relative residual'"
    echo "set datafile separator ','"
    plot="plot"
    dash=1
    for h in "${histories[@]}"; do
      name=$(basename "$h" .csv)
      # Different dash patterns: histories that coincide (double and qdouble often do) stay visible.
      plot="$plot '$h' skip 1 using 1:2 with lines lw 2 dt $dash title '${name#history_}',"
      dash=$((dash + 1))
    done
    echo "${plot%,}"
  } > "$work/convergence.gp"
  gnuplot "$work/convergence.gp"
  echo "wrote $out/convergence.png"
fi
