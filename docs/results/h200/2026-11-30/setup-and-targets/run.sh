#!/usr/bin/env bash
# Session 7, third call: the whole suite on NVIDIA at $1, then with that build the scan's kernels in
# jumping3d:256's setup and the issue-11 targets (poisson3d:128 update + solve, jumping3d:256, poisson3d:256).
set -uo pipefail
t0=$SECONDS
export CLKR_GPU_TEST_PASSES=nvidia CLKR_GPU_TEST_JOBS=8 CLKR_COMMIT=$1
timeout 430 bash .ci/gpu-test .carry
echo "suite rc=$? $((SECONDS-t0)) s"
res=s25; rm -rf $res; mkdir -p $res
pack() { tar czf $OUT/s25.tgz $res 2>/dev/null; }
export CLKR_DEVICE=nvidia CLKR_CACHE_DIR=$PWD/build-gpu-test/kernel-cache
b=build-gpu-test/clkr
for rep in 1 2; do
  timeout 40 $b solve jumping3d:256 --precond amg --precond-precision single --amg-aggressive 1 --json > $res/j256_$rep.json 2>$res/j256_$rep.err
done
pack
timeout $((585-SECONDS)) $b bench solve poisson3d:128 --methods cg,amg-update-single --amg-aggressive 1 --peers none --reps 5 --csv $res/p128.csv 2>&1 | grep -E "^poisson"
timeout $((585-SECONDS)) $b bench solve jumping3d:256 --methods jacobi,amg-single,amg-update-single --amg-aggressive 1 --peers none --reps 3 --csv $res/j256.csv 2>&1 | grep -E "^jumping"
pack
timeout $((585-SECONDS)) $b bench solve poisson3d:256 --methods cg,amg-single --amg-aggressive 1 --peers none --reps 3 --csv $res/p256.csv 2>&1 | grep -E "^poisson"
echo "all done $((SECONDS-t0)) s"; pack
