#!/usr/bin/env bash
# The device AMG setup on the GPU machine (docs/performance-amg-setup.md, "AMG setup on the device" and "Fewer
# host round trips in the device setup"), in one call of about 3 minutes after the build: what the
# device's commands cost (clkr bench commands: launch, wait, pageable transfer, allocation), the device
# setup by phase with its launches, waits, transfers and allocations on poisson3d:128/192/256
# (benchmarks/amg_setup_phases.py, fresh processes), the setup's kernels by device time on 256, and
# time to solution (clkr bench solve, CG, Jacobi-CG, AMG-PCG and its update step, device setup) on
# poisson3d:128/192 and the hard generated problems at 128 (anisotropic3d, jumping3d). The short table
# comes last (benchmarks/gpu_amg_setup_summary.py); everything lands in ./gpu-amg-setup-results (and
# $OUT/gpu-amg-setup-results.tgz on the lent machine, rewritten after every step).
#   usage: benchmarks/run_gpu_amg_setup.sh [SECTIONS]   (any of costs,phases,kernels,solve,hard and the
#          longer tests (the device setup's tests on the GPU) and compare (host against device setup,
#          ~1 minute more); default costs,phases,kernels,solve,hard)
#   BUILD_DIR=build-gpu-test: reuse that build (e.g. .ci/gpu-test's) instead of building into build-gpu
set -uo pipefail
sections=${1:-costs,phases,kernels,solve,hard}
out=gpu-amg-setup-results
source "$(dirname "$0")/gpu_run_steps.sh"

build=${BUILD_DIR:-build-gpu}
if [ -x "$build/clkr" ] && [ -n "${BUILD_DIR:-}" ]; then
  step "reusing the build in $build"
else
  step "build"
  with_tests=no
  if want tests; then
    if (build_clkr . "$build" "$out/build.log" -DCLKR_BUILD_TESTS=ON -- clkr_app clkr_precond_tests clkr_data_tests); then
      with_tests=yes
    else
      echo "building with the tests failed (no GoogleTest?): tests left out" | tee -a "$out/gpu.txt"
      sections=${sections//tests/}
      rm -rf "$build"
    fi
  fi
  [ $with_tests = yes ] || build_clkr . "$build" "$out/build.log" -- clkr_app
fi
export CLKR_DEVICE=${CLKR_DEVICE:-nvidia} CLKR_CACHE_DIR=$PWD/$build/kernel-cache
bin=$build/clkr
$bin devices --no-check 2>/dev/null | grep -E '^ \*' | tee -a "$out/gpu.txt"

if want tests; then
  step "tests of the device setup on the GPU (every kernel against its host reference, the AMG tests)"
  $build/tests/clkr_data_tests --gtest_filter='MatrixFromDevice*' 2>&1 | tail -3 | tee "$out/tests.txt"
  $build/tests/clkr_precond_tests --gtest_filter='Device*:Amg*' 2>&1 | tee -a "$out/tests_full.txt" |
    grep -E '^\[  (FAILED|PASSED) |tests ran|Failure' | tee -a "$out/tests.txt"
fi

step "warm-up: every kernel of the device setup, the cycle and the update into the kernel cache"
$bin solve poisson3d:32 --precond amg --amg-setup device >/dev/null 2>&1
$bin bench solve poisson3d:32 --methods cg,jacobi,amg,amg-update --amg-setup device --peers none --reps 1 \
  >/dev/null 2>&1

if want costs; then
  step "what the device's commands cost: launch, wait, pageable transfer, allocation"
  $bin bench commands --reps 10 --max-mib 512 2>&1 | tee "$out/command_costs.txt"
fi

if want phases; then
  step "device setup by phase with its commands, poisson3d:128/192/256 (fresh processes, medians of 2)"
  python3 benchmarks/amg_setup_phases.py --clkr $bin --reps 2 --extra "--amg-setup device" \
    --csv "$out/phases.csv" poisson3d:128 poisson3d:192 poisson3d:256 2>&1 | tee "$out/phases.txt"
fi

if want kernels; then
  step "clkr solve poisson3d:256 --precond amg --amg-setup device (phases, levels, the setup's kernels)"
  $bin solve poisson3d:256 --precond amg --amg-setup device 2>&1 | tee "$out/amg_device_poisson256.txt" |
    sed -n '/^setup/,/^complexity/p;/kernels (preconditioner setup/,$p' | head -40
fi

if want compare; then
  step "setup host vs device, poisson3d:128/192/256 (fresh processes, medians of 2)"
  python3 benchmarks/amg_setup_compare.py --clkr $bin --reps 2 --warmup 0 poisson3d:128 poisson3d:192 \
    poisson3d:256 2>&1 | tee "$out/setup_compare.csv"
fi

if want solve; then
  step "bench solve: time to solution, CG, Jacobi-CG, AMG-PCG with the device setup and its update step"
  $bin bench solve poisson3d:128 poisson3d:192 --methods cg,jacobi,amg,amg-update --amg-setup device \
    --peers none --reps 2 --csv "$out/solve_poisson.csv" 2>"$out/solve_poisson.err" | tee "$out/solve_poisson.txt"
fi

if want hard; then
  step "bench solve: anisotropic and jumping coefficients at 128, device setup"
  $bin bench solve anisotropic3d:128 jumping3d:128 --methods cg,jacobi,amg,amg-update --amg-setup device \
    --peers none --reps 2 --csv "$out/solve_hard.csv" 2>"$out/solve_hard.err" | tee "$out/solve_hard.txt"
fi

step "summary"
python3 benchmarks/gpu_amg_setup_summary.py "$out" | tee "$out/summary.txt"
step "done"
