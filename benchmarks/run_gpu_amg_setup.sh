#!/usr/bin/env bash
# The AMG setup on the device against the host setup on the GPU machine (docs/performance.md, "AMG setup
# on the device"): the device setup's tests on the GPU, then setup time by phase, levels, iterations and
# solve time on poisson3d:128/192/256 both ways, and time to solution against unpreconditioned CG.
# Results land in ./gpu-amg-setup-results (and as $OUT/gpu-amg-setup-results.tgz on the lent machine,
# rewritten after every step).
#   usage: benchmarks/run_gpu_amg_setup.sh [SECTIONS]   (any of tests,compare,report,solve,hard; default
#          tests,compare,solve,hard)
#   BUILD_DIR=build-gpu-test: reuse that build (e.g. .ci/gpu-test's) instead of building into build-gpu
set -uo pipefail
sections=${1:-tests,compare,solve,hard}
out=gpu-amg-setup-results
source "$(dirname "$0")/gpu_run_steps.sh"

build=${BUILD_DIR:-build-gpu}
if [ -x "$build/clkr" ] && [ -n "${BUILD_DIR:-}" ]; then
  step "reusing the build in $build"
else
  step "build"
  targets=(clkr_app)
  tests=OFF
  want tests && tests=ON && targets+=(clkr_precond_tests clkr_data_tests)
  configure() { cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCLKR_BUILD_BENCHMARKS=OFF -DCLKR_BUILD_TESTS=$1; }
  if ! configure $tests >"$out/build.log" 2>&1; then
    echo "configuring with the tests failed (no GoogleTest?): tests left out" | tee -a "$out/gpu.txt"
    sections=${sections//tests/}
    targets=(clkr_app)
    rm -rf build-gpu
    configure OFF >>"$out/build.log" 2>&1 || { tail -40 "$out/build.log"; exit 1; }
  fi
  cmake --build build-gpu -j"$(nproc)" --target "${targets[@]}" >>"$out/build.log" 2>&1 ||
    { tail -40 "$out/build.log"; exit 1; }
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

step "warm-up: every kernel of both setups and the cycle into the kernel cache"
for where in device host; do $bin solve poisson3d:32 --precond amg --amg-setup $where >/dev/null 2>&1; done

if want compare; then
  step "setup host vs device, poisson3d:128/192/256 (fresh processes, medians of 2)"
  python3 benchmarks/amg_setup_compare.py --clkr $bin --reps 2 --warmup 0 poisson3d:128 poisson3d:192 \
    poisson3d:256 2>&1 | tee "$out/setup_compare.csv"
fi

if want report; then
  step "clkr solve poisson3d:192 --precond amg --amg-setup device (phases, levels, kernels)"
  $bin solve poisson3d:192 --precond amg --amg-setup device 2>&1 | tee "$out/amg_device_poisson192.txt"
fi

if want solve; then
  step "bench solve: time to solution, CG against AMG-PCG with the device setup, and its update step"
  $bin bench solve poisson3d:128 poisson3d:192 poisson3d:256 --methods cg,amg,amg-update --amg-setup device \
    --peers none --reps 2 --csv "$out/solve_poisson_device_setup.csv" 2>"$out/solve_poisson.err" |
    tee "$out/solve_poisson_device_setup.txt"
fi

if want hard; then
  step "bench solve: anisotropic and jumping coefficients, device setup"
  $bin bench solve anisotropic3d:128 jumping3d:128 --methods cg,jacobi,amg --amg-setup device --peers none \
    --reps 2 --csv "$out/solve_hard_device_setup.csv" 2>"$out/solve_hard.err" | tee "$out/solve_hard_device_setup.txt"
fi
step "done"
