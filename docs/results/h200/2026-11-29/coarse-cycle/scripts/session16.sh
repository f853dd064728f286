#!/usr/bin/env bash
# Session 6, second call: the coarse cycle's launch shapes (after four-chain rows), its tests on NVIDIA,
# and its kernel time against the launch path's.
set -uo pipefail
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export CLKR_DEVICE=nvidia
t0=$SECONDS
res=s16; rm -rf $res; mkdir -p $res
pack() { tar czf $OUT/s16.tgz $res 2>/dev/null; }
gtest_prefix=$PWD/build-gpu-gtest/prefix
if [ ! -d $gtest_prefix ]; then
{ cmake -S .carry/googletest -B build-gpu-gtest/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=$gtest_prefix \
    -DCMAKE_POSITION_INDEPENDENT_CODE=ON && cmake --build build-gpu-gtest/build -j16 && cmake --install build-gpu-gtest/build; } > $res/gtest.log 2>&1
fi
cmake -S . -B build-s15 -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$gtest_prefix -DCLKR_BUILD_BENCHMARKS=OFF > $res/build.log 2>&1 &&
  cmake --build build-s15 -j16 --target clkr_app clkr_precond_tests >> $res/build.log 2>&1 || { tail -30 $res/build.log; pack; exit 1; }
echo "build $((SECONDS-t0)) s"
export CLKR_CACHE_DIR=$PWD/build-s15/kernel-cache
(cd build-s15 && timeout 100 ./tests/clkr_precond_tests --gtest_filter='*AmgCoarse*' --gtest_brief=1 > ../$res/tests.txt 2>&1)
echo "tests rc=$? ($((SECONDS-t0)) s)"; tail -3 $res/tests.txt; grep -E "FAILED|Failure" -A3 $res/tests.txt | head -20; pack
export BUILD_DIR=build-s15
V="g4 g1:amg_cycle.groups_per_compute_unit=1 g2:amg_cycle.groups_per_compute_unit=2 l2:amg_cycle.lanes=2 l8:amg_cycle.lanes=8 l16:amg_cycle.lanes=16 w256g8:amg_cycle.work_group_size=256,amg_cycle.groups_per_compute_unit=8 off:amg_cycle.coarse_max_rows=0"
timeout 150 bash benchmarks/run_gpu_param_sweep.sh "$V" solve poisson3d:128 --precond amg --amg-setup device --amg-aggressive 1 --precond-precision single > $res/sweep_report.txt 2>&1
grep -E "^===|^time|amg_coarse_cycle  |^total|chebyshev_step  |^spmv  " $res/sweep_report.txt; mv gpu-param-sweep $res/sweep-report; pack
timeout 200 bash benchmarks/run_gpu_param_sweep.sh "$V g4b off2:amg_cycle.coarse_max_rows=0" bench solve poisson3d:128 --methods cg,amg-update-single --amg-aggressive 1 --peers none --reps 5 --csv x > $res/sweep_p128.txt 2>&1
grep -E "^===|^poisson" $res/sweep_p128.txt; mv gpu-param-sweep $res/sweep-p128
echo "all done $((SECONDS-t0)) s"; pack
