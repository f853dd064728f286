#!/usr/bin/env bash
# Turns the CSV files of `clkr bench` and `clkr solve --history` into PNG plots with gnuplot:
#   blas1_gflops.png          GFLOP/s against vector length, one panel per precision (clkr bench blas1 --csv)
#   cg_time_per_iteration.png CG time per iteration per matrix: clkr formats and the references (clkr bench cg --csv)
#   cg_relative_to_eigen.png  the same divided by Eigen's time (below 1: faster than Eigen; needs Eigen rows)
#   cg_gpu_peers.png          CG in double per matrix: best clkr format, best ViennaCL format and CuPy/cuSPARSE
#                             (cg.csv and cupy.csv of benchmarks/cupy_cg.py: GPU runs)
#   cg_persistent_vs_fused.png CG on CSR in double against n: persistent kernel vs fused path
#                             (cg_path_persistent.csv and cg_path_fused.csv, from clkr bench cg --cg-path)
#   convergence.png           relative residual against iteration, one line per history_*.csv
# Usage: plot_benchmarks.sh RESULTS_DIR [OUT_DIR]   (OUT_DIR defaults to RESULTS_DIR)
# RESULTS_DIR may hold blas1.csv, cg.csv, cupy.csv, cg_path_{persistent,fused}.csv and history_*.csv;
# each plot is made when its input exists.
set -euo pipefail

if [ $# -lt 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
  sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
results=$1
out=${2:-$1}
command -v gnuplot >/dev/null || { echo "plot_benchmarks.sh: gnuplot not found (apt-get install gnuplot-nox)" >&2; exit 2; }
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Prints the named columns of a clkr CSV, space-separated, for rows whose `status` is ok (every row of
# a CSV without a `status` column, such as cupy.csv). The columns read here all come before the
# free-text ones (device, note), which are the only ones that can hold quoted commas, so a plain comma
# split is exact for them.
columns() {
  local file=$1
  shift
  awk -F, -v want="$*" '
    NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; n = split(want, names, " ");
              for (k = 1; k <= n; ++k) if (!(names[k] in col)) { print "no column " names[k] > "/dev/stderr"; exit 1 }
              next }
    ("status" in col) && $col["status"] != "ok" { next }
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
  # The ratio needs Eigen rows, which a GPU run (--peers viennacl) does not have: without them the
  # relative table is all "?" and gnuplot would stop the script on an empty plot.
  kinds=absolute
  if awk '$2 ~ /^eigen\// { found = 1; exit } END { exit !found }' "$work/cg_long.txt"; then
    kinds="absolute relative"
  else
    echo "skipped $out/cg_relative_to_eigen.png: no Eigen rows in $results/cg.csv" >&2
  fi
  for kind in $kinds; do
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

# ---- CG in double against the GPU peers: best clkr format, best ViennaCL format, CuPy/cuSPARSE ------
# One bar per library and matrix. Each library is shown at its best sparse format for that matrix
# (the one a user would pick), which is the fair comparison; the winning format is written on the bar.
# A GPU plot: made when cupy.csv (which only benchmarks/run_gpu_benchmarks.sh writes) is there.
if [ -f "$results/cg.csv" ] && [ -f "$results/cupy.csv" ]; then
  columns "$results/cg.csv" matrix implementation format precision wall_s_per_iter_median > "$work/peers_cg.txt"
  columns "$results/cupy.csv" matrix seconds_per_iteration > "$work/peers_cupy.txt"
  # Table: matrix, clkr ms, clkr format, ViennaCL ms, ViennaCL format, CuPy ms ("?" where missing), in
  # the order of cg.csv; cupy.csv rows of matrices that cg.csv lacks are dropped. cupy_cg.py names a
  # matrix by the path it loaded (.carry/matrices/bcsstk17.mtx.gz), clkr by its basename (bcsstk17).
  # The last line of the output is the y range: the smallest and largest time, for the axis.
  awk -v cgfile="$work/peers_cg.txt" '
    FILENAME == cgfile {
      if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }
      if ($4 != "double" || ($2 != "clkr" && $2 != "viennacl")) next
      ms = $5 * 1e3
      if (!(($1, $2) in best) || ms < best[$1, $2]) { best[$1, $2] = ms; fmt[$1, $2] = $3 }
      next
    }
    { name = $1; sub(/.*\//, "", name); sub(/\.gz$/, "", name); sub(/\.mtx$/, "", name); cupy[name] = $2 * 1e3 }
    function keep(v) { if (v == "?") return; if (lo == "" || v < lo) lo = v; if (hi == "" || v > hi) hi = v }
    END {
      for (k = 1; k <= n; ++k) {
        m = order[k]
        c = ((m, "clkr") in best) ? best[m, "clkr"] : "?"
        v = ((m, "viennacl") in best) ? best[m, "viennacl"] : "?"
        u = (m in cupy) ? cupy[m] : "?"
        keep(c); keep(v); keep(u)
        printf "%s %s %s %s %s %s\n", m, c, ((m, "clkr") in fmt) ? fmt[m, "clkr"] : "-", \
               v, ((m, "viennacl") in fmt) ? fmt[m, "viennacl"] : "-", u
        if (c != "?") clkr = 1
        if (v != "?" || u != "?") peer = 1
      }
      print (clkr && peer) ? lo " " hi : "none"
    }' "$work/peers_cg.txt" "$work/peers_cupy.txt" > "$work/peers_all.txt"
  range=$(tail -n 1 "$work/peers_all.txt")
  if [ "$range" = none ]; then
    echo "skipped $out/cg_gpu_peers.png: no double-precision clkr and peer rows to compare" >&2
  else
    sed '$d' "$work/peers_all.txt" > "$work/peers.dat"
    # Whole decades around the data, with one more on top so that the labels above the bars fit.
    read -r ymin ymax <<< "$(echo "$range" | awk '{ printf "%g %g", 10 ^ int(log($1) / log(10) - ($1 < 1)), 10 ^ (int(log($2) / log(10) + 1 - ($2 < 1)) + 1) }')"
    bars=3
    {
      echo "$style"
      echo "set output '$out/cg_gpu_peers.png'"
      echo "set title 'CG in double, time per iteration (wall clock, median; lower is better)'"
      echo "set ylabel 'ms per CG iteration (log scale)'; set logscale y; set yrange [$ymin:$ymax]"
      echo "set key inside top right"
      echo "set datafile missing '?'"
      echo "set style data histogram; set style histogram clustered gap 1; set style fill solid 0.85 border -1"
      echo "set boxwidth 0.9; set xtics rotate by -30"
      # Bar i (0-based) of the cluster of row r is centred at r + (i - (bars - 1) / 2) / (bars + gap).
      echo "x(r, i) = r + (i - ($bars - 1) / 2.0) / ($bars + 1)"
      plot="plot '$work/peers.dat' using 2:xtic(1) title 'clkr (best format)' lt 1,"
      plot="$plot '' using 4 title 'ViennaCL (best format)' lt 2,"
      plot="$plot '' using 6 title 'CuPy/cuSPARSE (CSR)' lt 3,"
      # Labels above the bars: the time, and the format that gave it.
      plot="$plot '' using (x(\$0, 0)):2:(sprintf('%.3g %s', \$2, strcol(3))) with labels rotate left offset 0,0.5 font ',8' notitle,"
      plot="$plot '' using (x(\$0, 1)):4:(sprintf('%.3g %s', \$4, strcol(5))) with labels rotate left offset 0,0.5 font ',8' notitle,"
      plot="$plot '' using (x(\$0, 2)):6:(sprintf('%.3g', \$6)) with labels rotate left offset 0,0.5 font ',8' notitle,"
      echo "${plot%,}"
    } > "$work/peers.gp"
    gnuplot "$work/peers.gp"
    echo "wrote $out/cg_gpu_peers.png"
  fi
fi

# ---- CG on CSR in double: persistent kernel against the fused path, over the matrix size -----------
# The two paths are separate `clkr bench cg --cg-path` runs. The poisson3d:N sweep is drawn as lines
# (one problem, growing n), each point labelled N^3; the Matrix Market matrices are single points,
# unlabelled because several share n (the five s*rm*m1 matrices all have 5489 rows).
if [ -f "$results/cg_path_persistent.csv" ] && [ -f "$results/cg_path_fused.csv" ]; then
  for path in persistent fused; do
    columns "$results/cg_path_$path.csv" matrix n implementation format precision wall_s_per_iter_median |
      awk '$3 == "clkr" && $4 == "csr" && $5 == "double" {
             family = ($1 ~ /^poisson3d:/) ? "poisson" : "mtx"
             print $2, $6 * 1e3, $1 > (dir "/path_" path "_" family ".dat") }' dir="$work" path="$path"
    for family in poisson mtx; do
      touch "$work/path_${path}_$family.dat"
      sort -n -o "$work/path_${path}_$family.dat" "$work/path_${path}_$family.dat"
    done
  done
  if ! [ -s "$work/path_persistent_poisson.dat" ] && ! [ -s "$work/path_persistent_mtx.dat" ]; then
    echo "skipped $out/cg_persistent_vs_fused.png: no clkr CSR double rows in $results/cg_path_persistent.csv" >&2
  else
    {
      echo "$style"
      echo "set output '$out/cg_persistent_vs_fused.png'"
      echo "set title 'CG on CSR in double: persistent kernel vs fused path (wall clock, median)'"
      echo "set logscale xy; set format x '%.0s%c'; set xlabel 'rows n (log scale)'"
      echo "set ylabel 'ms per CG iteration (log scale)'"
      echo "set key inside top left"
      plot="plot"
      lt=1
      for path in persistent fused; do
        title=$([ "$path" = persistent ] && echo "persistent kernel" || echo "fused kernels (3 per iteration)")
        # gnuplot refuses to plot an empty file: a path without a family gets no series for it.
        [ -s "$work/path_${path}_poisson.dat" ] &&
          plot="$plot '$work/path_${path}_poisson.dat' using 1:2 with linespoints lt $lt lw 2 pt 7 ps 1.3 title '$title: poisson3d:N (N^3 rows)',"
        [ -s "$work/path_${path}_mtx.dat" ] &&
          plot="$plot '$work/path_${path}_mtx.dat' using 1:2 with points lt $lt pt 5 ps 1.3 title '$title: Matrix Market matrices',"
        lt=$((lt + 1))
      done
      # The grid size next to each poisson3d point of the persistent series (N^3 rows).
      [ -s "$work/path_persistent_poisson.dat" ] &&
        plot="$plot '$work/path_persistent_poisson.dat' using 1:2:(substr(strcol(3), 11, 99) . '^3') with labels offset 0,-1.2 notitle,"
      echo "${plot%,}"
    } > "$work/path.gp"
    gnuplot "$work/path.gp"
    echo "wrote $out/cg_persistent_vs_fused.png"
  fi
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
