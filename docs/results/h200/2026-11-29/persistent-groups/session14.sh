#!/usr/bin/env bash
# Session 5, last call: two processes running the persistent CG (four groups per compute unit now) at
# once, and the soak test again (it failed once in the whole-suite run at d284842 by 16 bytes of device
# peak; its tiny systems never take the new probe: <= 2 groups).
set -uo pipefail
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export CLKR_DEVICE=nvidia
t0=$SECONDS
res=s14; rm -rf $res; mkdir -p $res
pack() { tar czf $OUT/s14.tgz $res; }
gtest_prefix=$PWD/build-gpu-gtest/prefix
{ cmake -S .carry/googletest -B build-gpu-gtest/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=$gtest_prefix \
    -DCMAKE_POSITION_INDEPENDENT_CODE=ON && cmake --build build-gpu-gtest/build -j16 && cmake --install build-gpu-gtest/build; } > $res/gtest.log 2>&1
cmake -S . -B build-s14 -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$gtest_prefix -DCLKR_BUILD_BENCHMARKS=OFF > $res/build.log 2>&1 &&
  cmake --build build-s14 -j16 --target clkr_app clkr_soak_tests >> $res/build.log 2>&1 || { tail -20 $res/build.log; ls build-s14/tests; exit 1; }
echo "build $((SECONDS-t0)) s"
export CLKR_CACHE_DIR=$PWD/build-s14/kernel-cache
timeout 200 bash benchmarks/two_process_persistent_cg.sh build-s14/clkr nvidia 10 > $res/two_process.txt 2>&1
echo "two-process rc=$? ($((SECONDS-t0)) s)"; tail -8 $res/two_process.txt; pack
(cd build-s14 && timeout 200 ./tests/clkr_soak_tests > ../$res/soak.txt 2>&1)
echo "soak rc=$? ($((SECONDS-t0)) s)"; grep -E "soak:|OK|FAILED|Failure|Expected" $res/soak.txt; pack
