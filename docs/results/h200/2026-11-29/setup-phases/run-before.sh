#!/usr/bin/env bash
# Diagnostic: the AMG setup's phases with their commands (launches, waits, allocations) on the H200.
set -uo pipefail
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
r=$OUT/session2; mkdir -p $r
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCLKR_BUILD_TESTS=OFF -DCLKR_BUILD_BENCHMARKS=OFF >$r/build.log 2>&1 && cmake --build build-gpu -j16 >>$r/build.log 2>&1 || { tail -30 $r/build.log; exit 1; }
export CLKR_DEVICE=nvidia CLKR_CACHE_DIR=$PWD/build-gpu/kernel-cache
b=build-gpu/clkr
for m in jumping3d:256 poisson3d:128; do
  for rep in 1 2; do
    $b solve $m --precond amg --precond-precision single --amg-aggressive 1 --json > $r/${m/:/_}_$rep.json 2>$r/${m/:/_}_$rep.err
  done
  $b solve $m --precond amg --precond-precision single --amg-aggressive 1 > $r/${m/:/_}_report.txt 2>&1
done
cd $OUT && tar czf session2.tgz session2 && rm -rf session2
