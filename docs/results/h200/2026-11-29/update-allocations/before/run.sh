#!/usr/bin/env bash
# Session 4 (2026-11-29): the AMG update profiled (before any change), then the whole suite on NVIDIA.
set -uo pipefail
r=$OUT/s4; mkdir -p $r
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export CLKR_DEVICE=nvidia
t0=$SECONDS
cmake -S . -B build-prof -DCMAKE_BUILD_TYPE=Release -DCLKR_BUILD_TESTS=OFF -DCLKR_BUILD_BENCHMARKS=OFF > $r/build.log 2>&1 &&
  cmake --build build-prof -j16 --target clkr clkr_app >> $r/build.log 2>&1 || { tail -30 $r/build.log; }
g++ -O2 -std=c++17 -Iinclude -Wno-ignored-attributes benchmarks/amg_update_bench.cpp build-prof/libclkr.a -lOpenCL -fopenmp -lz -o build-prof/amgup 2>&1 | tail -5
echo "build $((SECONDS-t0)) s"
export CLKR_CACHE_DIR=$PWD/build-prof/kernel-cache
build-prof/amgup poisson3d:128 --updates 5 2>&1 | tee $r/update_poisson128.txt
build-prof/amgup poisson3d:128 --updates 3 --precond-precision double 2>&1 > $r/update_poisson128_double.txt
build-prof/amgup jumping3d:256 --updates 3 2>&1 > $r/update_jumping256.txt
build-prof/clkr bench solve poisson3d:128 --methods cg,amg-update-single --amg-aggressive 1 --peers none --reps 3 --csv $r/bench.csv > $r/bench.txt 2>&1
grep -E "^poisson" $r/bench.txt
echo "profile done $((SECONDS-t0)) s"
(cd $OUT && tar czf s4.tgz s4)
export CLKR_GPU_TEST_PASSES=nvidia CLKR_GPU_TEST_JOBS=8 CLKR_COMMIT=$1
timeout $((570-SECONDS)) bash .ci/gpu-test .carry
echo "all done $((SECONDS-t0)) s"
(cd $OUT && tar czf s4.tgz s4 && rm -rf s4)
