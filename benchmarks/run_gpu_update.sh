#!/usr/bin/env bash
# The AMG's update step on the GPU machine (issue 11's target: after new values, update + solve at most
# 0.5x the unpreconditioned CG's time): clkr bench solve on poisson3d:128/192/256 with the update timed
# as the setup (amg-update: double hierarchy, amg-update-single: single-precision hierarchy), the
# unpreconditioned CG in the same run, the update's phases in each row's note; then the same with
# aggressive coarsening and with the damped-Jacobi smoother, and the heat example's time steps on 128^3.
# Results in ./gpu-update-results (and $OUT/gpu-update-results.tgz on the lent machine, rewritten after
# every step). About 3 minutes after the build on an H200.
#   usage: benchmarks/run_gpu_update.sh [BUILD_DIR]   (built here when BUILD_DIR/clkr is missing)
set -uo pipefail
build=${1:-build-gpu}
out=gpu-update-results
source "$(dirname "$0")/gpu_run_steps.sh"

if [ ! -x "$build/clkr" ] || [ ! -x "$build/examples/heat_time_steps" ]; then
  step "build"
  build_clkr . "$build" "$out/build.log" -- clkr_app heat_time_steps
fi
export CLKR_DEVICE=${CLKR_DEVICE:-nvidia} CLKR_CACHE_DIR=$PWD/$build/kernel-cache
bin=$build/clkr
sizes="poisson3d:128 poisson3d:192 poisson3d:256"

step "bench solve: update + solve against CG (double and single hierarchy)"
$bin bench solve $sizes --methods cg,amg-update,amg-update-single --peers none --reps 3 \
  --csv "$out/update.csv" 2>"$out/update.err" | tee "$out/update.txt"

step "bench solve: the same with aggressive coarsening of the finest level"
$bin bench solve $sizes --methods amg-update,amg-update-single --amg-aggressive 1 --peers none --reps 3 \
  --csv "$out/update_aggressive.csv" 2>"$out/update_aggressive.err" | tee "$out/update_aggressive.txt"

step "bench solve: damped-Jacobi smoother, single hierarchy"
$bin bench solve $sizes --methods amg-update-single --amg-smoother jacobi --peers none --reps 3 \
  --csv "$out/update_jacobi.csv" 2>"$out/update_jacobi.err" | tee "$out/update_jacobi.txt"

step "heat_time_steps 128 8 (update every step)"
"$build/examples/heat_time_steps" 128 8 "$CLKR_DEVICE" update 2>&1 | tee "$out/heat128.txt"

step "done"
