#!/usr/bin/env bash
# Session 4, fourth call (2026-11-29): the changed parts' tests on NVIDIA (the fault tests among them),
# then the update profiled and the 0.5x / 0.3x targets measured with that build.
set -uo pipefail
r=$OUT/s7; mkdir -p $r
t0=$SECONDS
export CLKR_GPU_TEST_PASSES=nvidia CLKR_GPU_TEST_JOBS=8 CLKR_COMMIT=$1
export CLKR_GPU_TEST_FILTER='Galerkin|Amg|Spectrum|Chebyshev|Relaxation|Lanczos|DeviceSetup|Pcg|Fault|Diagonal|Jacobi|Hostile|Precond|DeviceScalar'
timeout 330 bash .ci/gpu-test .carry
echo "tests done $((SECONDS-t0)) s"
g++ -O2 -std=c++17 -Iinclude -Wno-ignored-attributes benchmarks/amg_update_bench.cpp build-gpu-test/libclkr.a -lOpenCL -fopenmp -lz -o build-gpu-test/amgup 2>&1 | tail -5
export CLKR_DEVICE=nvidia CLKR_CACHE_DIR=$PWD/build-gpu-test/kernel-cache
b=build-gpu-test/clkr
build-gpu-test/amgup poisson3d:128 --updates 5 2>&1 | tee $r/update_poisson128.txt
build-gpu-test/amgup jumping3d:256 --updates 3 > $r/update_jumping256.txt 2>&1
for round in 1 2; do
  $b bench solve poisson3d:128 --methods cg,amg-update-single --amg-aggressive 1 --peers none --reps 3 --csv $r/bench_p128_$round.csv > $r/bench_p128_$round.txt 2>&1
  grep -E "^poisson" $r/bench_p128_$round.txt
done
echo "p128 done $((SECONDS-t0)) s"
(cd $OUT && tar czf s7.tgz s7)
timeout $((560-SECONDS)) $b bench solve jumping3d:256 --methods jacobi,amg-single,amg-update-single --amg-aggressive 1 --peers none --reps 3 --csv $r/bench_j256.csv > $r/bench_j256.txt 2>&1
grep -E "^jumping" $r/bench_j256.txt
echo "all done $((SECONDS-t0)) s"
(cd $OUT && tar czf s7.tgz s7 && rm -rf s7)
