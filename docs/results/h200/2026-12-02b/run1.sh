#!/usr/bin/env bash
# Session 2026-12-02 (second of the day), first machine: the whole suite on NVIDIA at $1 (owed for
# 78ecb9f, 1bb6820 and 59b6f0f), then `auto` on the stiff SuiteSparse set (since 1bb6820 the variable
# nodes of the shells are found on GPUs too and send the setup to the host) and poisson3d:128's value
# update with single and binary16 hierarchies (the half-copy work buffers kept since 78ecb9f).
set -uo pipefail
t0=$SECONDS
export CLKR_GPU_TEST_PASSES=nvidia CLKR_GPU_TEST_JOBS=8 CLKR_COMMIT=$1
timeout 450 bash .ci/gpu-test .carry
echo "suite rc=$? $((SECONDS - t0)) s"
res=auto-update; rm -rf $res; mkdir -p $res
pack() { tar czf $OUT/$res.tgz $res 2>/dev/null; }
export CLKR_DEVICE=nvidia CLKR_CACHE_DIR=$PWD/build-gpu-test/kernel-cache
b=build-gpu-test/clkr
left() { echo $((585 - SECONDS)); }
m=.carry/matrices
timeout $(left) $b bench solve $m/bcsstk17.mtx.gz $m/s2rmq4m1.mtx.gz $m/s1rmq4m1.mtx.gz $m/s2rmt3m1.mtx.gz \
  --methods jacobi,amg,amg-single --peers none --reps 2 --maxit 40000 --csv $res/auto.csv 2>&1 |
  grep -E "converged|stagnat|max-it"
pack
timeout $(left) $b bench solve poisson3d:128 --methods cg,amg-update-single,amg-update-half --amg-aggressive 1 \
  --peers none --reps 5 --csv $res/p128.csv 2>&1 | grep -E "^poisson"
echo "all done $((SECONDS - t0)) s"; pack
