#!/usr/bin/env bash
# Session 7, fourth call: the AMG setup's spreads and strength fill with grouped loads (032d1b0): the AMG
# and setup tests on NVIDIA, jumping3d:256's setup kernels, and the issue-11 targets again.
set -uo pipefail
t0=$SECONDS
export CLKR_GPU_TEST_PASSES=nvidia CLKR_GPU_TEST_JOBS=8 CLKR_COMMIT=$1
export CLKR_GPU_TEST_FILTER='Device|Aggreg|Strength|Amg|Spmv|Persistent|Cg'
timeout 300 bash .ci/gpu-test .carry
echo "tests rc=$? $((SECONDS-t0)) s"
res=s26; rm -rf $res; mkdir -p $res
pack() { tar czf $OUT/s26.tgz $res 2>/dev/null; }
export CLKR_DEVICE=nvidia CLKR_CACHE_DIR=$PWD/build-gpu-test/kernel-cache
b=build-gpu-test/clkr
for rep in 1 2; do
  timeout 40 $b solve jumping3d:256 --precond amg --precond-precision single --amg-aggressive 1 --json > $res/j256_$rep.json 2>$res/j256_$rep.err
done
pack
for round in 1 2; do
  timeout $((560-SECONDS)) $b bench solve jumping3d:256 --methods jacobi,amg-single --amg-aggressive 1 --peers none --reps 3 --csv $res/j256_$round.csv 2>&1 | grep -E "^jumping"
  pack
done
timeout $((585-SECONDS)) $b bench solve poisson3d:128 --methods cg,amg-update-single --amg-aggressive 1 --peers none --reps 5 --csv $res/p128.csv 2>&1 | grep -E "^poisson"
echo "all done $((SECONDS-t0)) s"; pack
