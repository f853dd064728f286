#!/usr/bin/env bash
# The GPU measurements of issue 13 for irregular rows, in one call of the device machine: CG with the
# load-balanced CSR kernels (csr: what auto runs; csr-rows: the row kernels as before; csr-balanced),
# SELL-C-sigma and HYB/ELL against ViennaCL (same OpenCL device) and CuPy/cuSPARSE, on power-law SPD
# matrices of 30 k, 300 k and 3 M rows, the irregular SuiteSparse SPD matrices and poisson3d:192; the
# SpMV alone per format; and solves checked against the host reference in three precisions.
#   usage: benchmarks/run_gpu_irregular.sh [CARRY_DIR] [BUILD_DIR]
#     CARRY_DIR holds include/viennacl and matrices/*.mtx (as for run_gpu_benchmarks.sh)
#     BUILD_DIR an existing build to reuse (default: build here into build-gpu, tests off)
# Results land in ./gpu-irregular (and as $OUT/gpu-irregular.tgz on the lent machine).
set -uo pipefail
source "$(dirname "$0")/carried_matrix.sh"
carry=${1:-.carry}
bin=${2:-build-gpu}
out=gpu-irregular
source "$(dirname "$0")/gpu_run_steps.sh"

if [ ! -x "$bin/clkr" ]; then
  step "build"
  build_clkr . "$bin" "$out/build.log" -DCLKR_BUILD_BENCHMARKS=ON -DVIENNACL_ROOT="$PWD/$carry/include"
fi
export CLKR_DEVICE=${CLKR_DEVICE:-nvidia} CLKR_CACHE_DIR=${CLKR_CACHE_DIR:-$PWD/$bin/kernel-cache}

# The irregular SPD matrices of ../shared/matrices: longest/mean row 28 (bcsstk08), 5.1, 3.9, 3.8, 3.6.
irregular=""
for m in bcsstk08.mtx 1138_bus.mtx bcsstk18.mtx bcsstk17.mtx.gz bcsstk25.mtx; do
  f=$(carried "$m")
  if [ -n "$f" ]; then irregular="$irregular $f"; else echo "note: $m not carried"; fi
done

# powerlaw:3000000 takes 20-80 s to generate (a shuffle of 171 M entries): made only for bench cg and CuPy.
step "what --format auto picks, and why"
for m in powerlaw:30000 powerlaw:300000 poisson3d:192 $irregular; do
  echo "$m: $($bin/clkr info "$m" | grep 'auto format')"
done | tee "$out/auto.txt"

step "solves checked against the host reference (NVIDIA's work-group barriers and local memory)"
for fmt in csr sell; do
  for prec in double qdouble single; do
    tol=1e-10; [ $prec = single ] && tol=1e-5
    timeout 120 $bin/clkr solve powerlaw:300000 --format $fmt --precision $prec --tol $tol --verify --json \
      > "$out/check.json" 2>"$out/check.err"
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[2], {k: d.get(k) for k in ('status','iterations','true_relative_residual','format_reason')}, d.get('verify',{}).get('max_relative_difference'))" \
      "$out/check.json" "powerlaw:300000 $fmt $prec" || cat "$out/check.err"
  done
done | tee "$out/check.txt"

step "CG, double, 500 iterations: power-law 30 k and 300 k rows and the irregular SuiteSparse matrices"
$bin/clkr bench cg powerlaw:30000 powerlaw:300000 $irregular --formats csr,csr-rows,sell,hyb --precisions double \
  --iterations 500 --reps 5 --peers viennacl --csv "$out/cg_irregular.csv" --json "$out/cg_irregular.json" \
  2>"$out/cg.err" | tee "$out/cg_irregular.txt"

step "CG, double, 200 iterations: powerlaw:3000000 (fused path) and poisson3d:192"
$bin/clkr bench cg powerlaw:3000000 poisson3d:192 --formats csr,csr-rows,sell,ell --precisions double \
  --iterations 200 --reps 5 --peers viennacl --csv "$out/cg_large.csv" --json "$out/cg_large.json" \
  2>>"$out/cg.err" | tee "$out/cg_large.txt"

step "SpMV alone per format (kernel time; double)"
$bin/clkr bench spmv powerlaw:300000 poisson3d:192 --formats csr-balanced,csr-rows,sell,hyb,ell \
  --precisions double --reps 20 --csv "$out/spmv.csv" 2>/dev/null | tee "$out/spmv.txt"

step "CuPy/cuSPARSE CG on the same matrices"
PYTHONUNBUFFERED=1 python3 benchmarks/cupy_cg.py --dump-csr "$bin/benchmarks/clkr_dump_csr" --iterations 500 --reps 5 \
  powerlaw:30000 powerlaw:300000 $irregular 2>"$out/cupy.err" | tee "$out/cupy.csv"
PYTHONUNBUFFERED=1 python3 benchmarks/cupy_cg.py --dump-csr "$bin/benchmarks/clkr_dump_csr" --iterations 200 --reps 5 \
  powerlaw:3000000 poisson3d:192 2>>"$out/cupy.err" | tail -n +2 | tee -a "$out/cupy.csv"

step "done"
