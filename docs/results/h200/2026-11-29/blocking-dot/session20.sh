#!/usr/bin/env bash
# Session 6, last call: the whole suite on NVIDIA at the session's code (every AMG test there now runs
# the coarse cycle from 10,000 rows, NVIDIA's default), then the blocking dot/nrm2 change (7ea5479)
# measured: BiCGStab (blocking dots every iteration) at 7dd2fea (before, .carry/old-src) and now.
set -uo pipefail
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
t0=$SECONDS
res=s20; rm -rf $res; mkdir -p $res
pack() { tar czf $OUT/s20.tgz $res 2>/dev/null; }
(cmake -S .carry/old-src -B /tmp/build-old -DCMAKE_BUILD_TYPE=Release -DCLKR_BUILD_TESTS=OFF -DCLKR_BUILD_BENCHMARKS=OFF > $res/build-old.log 2>&1 &&
 cmake --build /tmp/build-old -j3 --target clkr_app >> $res/build-old.log 2>&1 || echo "old build failed") &
export CLKR_GPU_TEST_PASSES=nvidia CLKR_GPU_TEST_JOBS=8 CLKR_COMMIT=$1
OUT=$PWD/$res timeout 450 bash .ci/gpu-test .carry > $res/suite.txt 2>&1
echo "suite rc=$? ($((SECONDS-t0)) s)"; grep -E "tests passed|Failed|FAILED|\*\*\*" $res/gpu-test.txt | head -20; pack
wait
export CLKR_DEVICE=nvidia
for round in 1 2 3; do
  for v in old new; do
    b=/tmp/build-old/clkr; [ $v = new ] && b=build-gpu-test/clkr
    CLKR_CACHE_DIR=/tmp/cache-$v timeout 20 $b solve poisson3d:64 --solver bicgstab --precond jacobi > $res/bicgstab-$v-$round.txt 2>&1
    echo "$v $round: $(grep -E '^time|^iterations' $res/bicgstab-$v-$round.txt | tr '\n' ' ')"
    CLKR_CACHE_DIR=/tmp/cache-$v timeout 20 $b solve poisson3d:32 --solver gmres > $res/gmres-$v-$round.txt 2>&1
    echo "$v $round gmres: $(grep -E '^time|^iterations' $res/gmres-$v-$round.txt | tr '\n' ' ')"
  done
done
echo "all done $((SECONDS-t0)) s"; pack
