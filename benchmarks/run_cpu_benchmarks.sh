#!/usr/bin/env bash
# Runs the CPU benchmark set of docs/benchmarks.md on PoCL: `clkr bench cg` in double on poisson3d:64
# and the largest SPD SuiteSparse matrices against clkr's host backend, Eigen and ViennaCL; the BLAS1
# and SpMV sweeps; convergence histories; then the plots. Progress goes to the terminal.
# Usage: benchmarks/run_cpu_benchmarks.sh [BUILD_DIR] [RESULTS_DIR]
#   BUILD_DIR    holds the built `clkr` (default build/)
#   RESULTS_DIR  receives the CSV/JSON/logs and the PNG plots (default BUILD_DIR/benchmark-results/cpu)
# Environment: MATRIX_DIR (default ../shared/matrices next to the repository, else matrices/),
#   DEVICE (default pocl), ITERATIONS (500), REPS (5).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
results=${2:-$build/benchmark-results/cpu}
clkr=$build/clkr
device=${DEVICE:-pocl}
iterations=${ITERATIONS:-500}
reps=${REPS:-5}
if [ -z "${MATRIX_DIR:-}" ]; then
  MATRIX_DIR=$root/../shared/matrices
  [ -d "$MATRIX_DIR" ] || MATRIX_DIR=$root/matrices
fi
[ -x "$clkr" ] || { echo "run_cpu_benchmarks.sh: $clkr not found; build first (bash .ci/build $build)" >&2; exit 2; }
mkdir -p "$results"

# The eight largest SPD matrices of SOURCES.md (by nnz), as many as are present.
matrices=(poisson3d:64)
for m in bcsstk17.mtx.gz bcsstk16.mtx s2rmq4m1.mtx s3rmq4m1.mtx s1rmq4m1.mtx bcsstk25.mtx s2rmt3m1.mtx s3rmt3m1.mtx; do
  if [ -f "$MATRIX_DIR/$m" ]; then
    matrices+=("$MATRIX_DIR/$m")
  else
    echo "note: $MATRIX_DIR/$m not found, left out" >&2
  fi
done

step=0
steps=6
say() {
  step=$((step + 1))
  echo
  echo "== [$step/$steps] $*"
}

say "environment -> $results/environment.txt"
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "commit: $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  echo "host: $(uname -srm)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
  echo "memory: $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
  echo "load average before the run: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset} OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-unset}"
  echo "opencl:"
  "$clkr" devices --no-check | sed 's/^/  /'
} | tee "$results/environment.txt"

say "BLAS1 sweep (clkr bench blas1) -> blas1.csv"
"$clkr" bench blas1 --device "$device" --csv "$results/blas1.csv" | tee "$results/blas1.txt"

say "SpMV per format (clkr bench spmv) -> spmv.csv"
"$clkr" bench spmv "${matrices[@]}" --device "$device" --precisions double --csv "$results/spmv.csv" |
  tee "$results/spmv.txt"

say "CG against the host backend, Eigen and ViennaCL (clkr bench cg, double, $iterations iterations x $reps) -> cg.csv"
"$clkr" bench cg "${matrices[@]}" --device "$device" --precisions double --formats csr,csr4,ell,hyb \
  --iterations "$iterations" --reps "$reps" --csv "$results/cg.csv" --json "$results/cg.json" | tee "$results/cg.txt"

say "time to solution per precision on poisson3d:64 (clkr solve --json, --history) -> solve_*.json, history_*.csv"
for p in double qdouble single mixed; do
  # A solve that does not reach the tolerance (single precision stagnates) exits 1: that is a result here.
  history=()
  # Iterative refinement's history counts outer steps, not CG iterations: left out of the plot.
  [ "$p" = mixed ] || history=(--history "$results/history_$p.csv")
  "$clkr" solve poisson3d:64 --device "$device" --precision "$p" --tol 1e-10 --json "${history[@]}" \
    > "$results/solve_$p.json" || true
  "$clkr" solve poisson3d:64 --device "$device" --precision "$p" --tol 1e-10 --quiet || true
done

say "plots -> $results/*.png"
"$root/benchmarks/plot_benchmarks.sh" "$results"
echo "load average after the run: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$results/environment.txt"
