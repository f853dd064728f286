#!/usr/bin/env bash
# Session 2026-12-01, first call: the NVIDIA suite's half-value, SpMV, AMG and Chebyshev tests at $1,
# then the issue-11 targets with the hierarchy's values in single against binary16 (amg-single against
# amg-half): jumping3d:256 against Jacobi-CG, poisson3d:256's solve phase against CG, poisson3d:128's
# update + solve against CG, and the profiled kernel tables of both on jumping3d:256.
set -uo pipefail
t0=$SECONDS
export CLKR_GPU_TEST_PASSES=nvidia CLKR_GPU_TEST_JOBS=8 CLKR_COMMIT=$1
export CLKR_GPU_TEST_FILTER='Half|half|Spmv|Amg|Chebyshev|Relaxation|Precond|Galerkin|CoarseCycle'
# CLKR_HALF_SUITE=0 skips the suite (a call after the whole suite ran on the still-warm machine).
if [ "${CLKR_HALF_SUITE:-1}" = 1 ]; then
  timeout 300 bash .ci/gpu-test .carry
  echo "suite rc=$? $((SECONDS - t0)) s"
fi
res=half; rm -rf $res; mkdir -p $res
pack() { tar czf $OUT/half.tgz $res 2>/dev/null; }
export CLKR_DEVICE=nvidia CLKR_CACHE_DIR=$PWD/build-gpu-test/kernel-cache
b=build-gpu-test/clkr
for p in single half; do
  timeout 40 $b solve jumping3d:256 --precond amg --precond-precision $p --amg-aggressive 1 --json \
    >$res/j256_$p.json 2>$res/j256_$p.err
done
pack
left() { echo $((585 - SECONDS)); }
timeout $(left) $b bench solve jumping3d:256 --methods jacobi,amg-single,amg-half --amg-aggressive 1 --peers none \
  --reps 3 --csv $res/j256.csv 2>&1 | grep -E "^jumping"
pack
timeout $(left) $b bench solve poisson3d:256 --methods cg,amg-single,amg-half --amg-aggressive 1 --peers none \
  --reps 3 --csv $res/p256.csv 2>&1 | grep -E "^poisson"
pack
timeout $(left) $b bench solve poisson3d:128 --methods cg,amg-update-single,amg-update-half --amg-aggressive 1 \
  --peers none --reps 5 --csv $res/p128.csv 2>&1 | grep -E "^poisson"
pack
timeout $(left) $b bench solve jumping3d:256 --methods amg-single,amg-half --amg-aggressive 1 --peers none \
  --reps 3 --csv $res/j256_again.csv 2>&1 | grep -E "^jumping"
echo "all done $((SECONDS - t0)) s"; pack
