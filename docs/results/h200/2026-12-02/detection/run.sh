#!/usr/bin/env bash
# Session 2026-12-02, fifth machine: the AMG's block-size and node detection without sorts and on all
# cores (3d7a711) on the 16-core host: its tests on NVIDIA, the SuiteSparse set with the host setup
# (the "block size" phase in each row's note), and one more round of jumping3d:256's target.
set -uo pipefail
t0=$SECONDS
export CLKR_GPU_TEST_PASSES=nvidia CLKR_GPU_TEST_JOBS=8 CLKR_COMMIT=$1
export CLKR_GPU_TEST_FILTER='AmgBlockSize|AmgOnBlocks|VariableNodes|HalfValuesRange'
timeout 200 bash .ci/gpu-test .carry
echo "suite rc=$? $((SECONDS - t0)) s"
res=detection; rm -rf $res; mkdir -p $res
pack() { tar czf $OUT/detection.tgz $res 2>/dev/null; }
export CLKR_DEVICE=nvidia CLKR_CACHE_DIR=$PWD/build-gpu-test/kernel-cache
b=build-gpu-test/clkr
left() { echo $((330 - SECONDS)); }
m=.carry/matrices
timeout $(left) $b bench solve $m/bcsstk17.mtx.gz $m/bcsstk16.mtx.gz $m/s2rmq4m1.mtx.gz $m/s1rmq4m1.mtx.gz \
  $m/s2rmt3m1.mtx.gz --methods jacobi,amg --amg-setup host --peers none --reps 2 --csv $res/host.csv 2>&1 |
  grep -E "clkr-device"
pack
timeout $(left) $b bench solve jumping3d:256 --methods jacobi,amg-half --amg-aggressive 1 --peers none --reps 3 \
  --csv $res/j256.csv 2>&1 | grep -E "^jumping"
echo "all done $((SECONDS - t0)) s"; pack
