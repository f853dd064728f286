#!/usr/bin/env bash
# Session 2026-12-02, second machine: the half-value tests on NVIDIA at $1 (the floor reduced on the
# device, 8582e28), then two alternating rounds of the issue-11 targets with single against binary16
# hierarchy values: poisson3d:128's update + solve against CG, jumping3d:256 against Jacobi-CG (each
# round with its own baseline), poisson3d:256's solve against CG, and the iterations at 128/192/256.
set -uo pipefail
t0=$SECONDS
export CLKR_GPU_TEST_PASSES=nvidia CLKR_GPU_TEST_JOBS=8 CLKR_COMMIT=$1
export CLKR_GPU_TEST_FILTER='Half|half|FromDevice'
timeout 200 bash .ci/gpu-test .carry
echo "suite rc=$? $((SECONDS - t0)) s"
res=half-update; rm -rf $res; mkdir -p $res
pack() { tar czf $OUT/half-update.tgz $res 2>/dev/null; }
export CLKR_DEVICE=nvidia CLKR_CACHE_DIR=$PWD/build-gpu-test/kernel-cache
b=build-gpu-test/clkr
left() { echo $((585 - SECONDS)); }
bench() {  # name problem methods reps
  timeout $(left) $b bench solve $2 --methods $3 --amg-aggressive 1 --peers none --reps $4 --csv $res/$1.csv 2>&1 |
    grep -E "^(poisson|jumping)"
  pack
}
for round in 1 2; do
  bench p128_$round poisson3d:128 cg,amg-update-single,amg-update-half 5
  bench j256_$round jumping3d:256 jacobi,amg-single,amg-half 3
done
bench p256 poisson3d:256 cg,amg-single,amg-half 3
bench p192 poisson3d:192 cg,amg-half 3
echo "all done $((SECONDS - t0)) s"; pack
