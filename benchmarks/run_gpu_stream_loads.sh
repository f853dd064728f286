#!/usr/bin/env bash
# SpmvParams::stream_loads on the GPU machine: the SpMV and CG with the matrix's entries read by
# cache-streaming loads (ld.global.cs) against plain loads, alternated in rounds within one call, with
# CuPy/cuSPARSE's CG on the same power-law matrices for the issue's ratio. Each variant has its own cache
# directory whose parameter file sets the key (as benchmarks/run_gpu_param_sweep.sh does). Results in
# ./gpu-stream-loads/ and $OUT/gpu-stream-loads.tgz after every step.
#   usage: benchmarks/run_gpu_stream_loads.sh [ROUNDS]      (default 2)
#   BUILD_DIR: a build with clkr and clkr_dump_csr in it (default build-gpu; built there when it has none)
#   MATRICES: the problems (specs or Matrix Market files; default powerlaw:300000 powerlaw:3000000
#             poisson3d:192)
set -uo pipefail
rounds=${1:-2}
out=gpu-stream-loads
sections=""
source "$(dirname "$0")/gpu_run_steps.sh"

build=${BUILD_DIR:-build-gpu}
if [ ! -x "$build/clkr" ] || [ ! -x "$build/benchmarks/clkr_dump_csr" ]; then
  step "build"
  build_clkr . "$build" "$out/build.log" -DCLKR_BUILD_BENCHMARKS=ON -- clkr_app clkr_dump_csr
fi
export CLKR_DEVICE=${CLKR_DEVICE:-nvidia}
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
file=$(printf '%s_%s.txt' "$name" "$driver" | sed 's/[^A-Za-z0-9.-]/_/g')
for variant in plain stream; do
  mkdir -p "$out/cache-$variant/params"
  echo "spmv.stream_loads = $([ $variant = stream ] && echo 1 || echo 0)" >"$out/cache-$variant/params/$file"
done

matrices=${MATRICES:-powerlaw:300000 powerlaw:3000000 poisson3d:192}
for round in $(seq 1 "$rounds"); do
  for variant in plain stream; do
    step "round $round, $variant: SpMV alone (kernel time, double)"
    CLKR_CACHE_DIR=$PWD/$out/cache-$variant "$build/clkr" bench spmv $matrices \
      --formats csr-balanced,csr-rows,auto --precisions double --reps 20 --csv "$out/spmv_${variant}_$round.csv" \
      2>/dev/null | tee "$out/spmv_${variant}_$round.txt"
    step "round $round, $variant: CG, double, 200 iterations (automatic format and path)"
    CLKR_CACHE_DIR=$PWD/$out/cache-$variant "$build/clkr" bench cg $matrices --formats auto --precisions double \
      --iterations 200 --reps 5 --peers none --csv "$out/cg_${variant}_$round.csv" 2>/dev/null |
      tee "$out/cg_${variant}_$round.txt"
  done
done

step "CuPy/cuSPARSE CG on the same matrices"
PYTHONUNBUFFERED=1 python3 benchmarks/cupy_cg.py --dump-csr "$build/benchmarks/clkr_dump_csr" --iterations 200 \
  --reps 5 $matrices 2>"$out/cupy.err" | tee "$out/cupy.csv"
step "done"
