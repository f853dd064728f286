#!/usr/bin/env bash
# The changed parts' tests on NVIDIA (with the compressed carry), then the setup phases and the two
# missed GPU targets measured with that build.
set -uo pipefail
export CLKR_GPU_TEST_PASSES=nvidia CLKR_GPU_TEST_JOBS=8
export CLKR_GPU_TEST_FILTER='Matrix|AmgBlockSize|AmgOnBlocks|Spectrum|Chebyshev|Amg|DeviceSetup|Lanczos|Relaxation|Pcg|HostThreads'
timeout 330 bash .ci/gpu-test .carry
r=$OUT/session3; mkdir -p $r
export CLKR_DEVICE=nvidia CLKR_CACHE_DIR=$PWD/build-gpu-test/kernel-cache
b=build-gpu-test/clkr
for m in jumping3d:256 poisson3d:128; do
  for rep in 1 2; do
    $b solve $m --precond amg --precond-precision single --amg-aggressive 1 --json > $r/${m/:/_}_$rep.json 2>$r/${m/:/_}_$rep.err
  done
done
$b bench solve jumping3d:256 poisson3d:128 --methods jacobi,amg-single,amg-update-single --amg-aggressive 1 --peers none --reps 3 --csv $r/bench.csv 2>&1 | tee $r/bench.txt | grep -E "^(poisson|jumping)"
cd $OUT && tar czf session3.tgz session3 && rm -rf session3
