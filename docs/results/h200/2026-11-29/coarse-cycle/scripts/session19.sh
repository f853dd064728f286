#!/usr/bin/env bash
# Session 6, fifth call: the coarse cycle with x staged in local memory, from 10,000 rows (the new NVIDIA
# default) against off; its tests on NVIDIA; the targets on jumping3d:256 and poisson3d:256.
set -uo pipefail
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export CLKR_DEVICE=nvidia
t0=$SECONDS
res=s19; rm -rf $res; mkdir -p $res
pack() { tar czf $OUT/s19.tgz $res 2>/dev/null; }
gtest_prefix=$PWD/build-gpu-gtest/prefix
if [ ! -d $gtest_prefix ]; then
{ cmake -S .carry/googletest -B build-gpu-gtest/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=$gtest_prefix \
    -DCMAKE_POSITION_INDEPENDENT_CODE=ON && cmake --build build-gpu-gtest/build -j16 && cmake --install build-gpu-gtest/build; } > $res/gtest.log 2>&1
fi
cmake -S . -B build-s15 -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$gtest_prefix -DCLKR_BUILD_BENCHMARKS=OFF > $res/build.log 2>&1 &&
  cmake --build build-s15 -j16 --target clkr_app clkr_precond_tests >> $res/build.log 2>&1 || { tail -30 $res/build.log; pack; exit 1; }
echo "build $((SECONDS-t0)) s"
export CLKR_CACHE_DIR=$PWD/build-s15/kernel-cache
(cd build-s15 && timeout 100 ./tests/clkr_precond_tests --gtest_filter='*AmgCoarse*:*AmgCycle*:*AmgSolve*' --gtest_brief=1 > ../$res/tests.txt 2>&1)
echo "tests rc=$? ($((SECONDS-t0)) s)"; tail -3 $res/tests.txt; grep -E "FAILED|Failure" -A3 $res/tests.txt | head -20; pack
export BUILD_DIR=build-s15
V="on unstaged:amg_cycle.staged_x=0 l8:amg_cycle.lanes=8 off:amg_cycle.coarse_max_rows=0"
timeout 100 bash benchmarks/run_gpu_param_sweep.sh "$V" solve poisson3d:128 --precond amg --amg-setup device --amg-aggressive 1 --precond-precision single > $res/sweep_report.txt 2>&1
grep -E "^===|^time|amg_coarse_cycle  |^total" $res/sweep_report.txt; mv gpu-param-sweep $res/sweep-report; pack
timeout 150 bash benchmarks/run_gpu_param_sweep.sh "on off:amg_cycle.coarse_max_rows=0 on2 off2:amg_cycle.coarse_max_rows=0 on3 off3:amg_cycle.coarse_max_rows=0" bench solve poisson3d:128 --methods cg,amg-update-single --amg-aggressive 1 --peers none --reps 5 --csv x > $res/sweep_p128.txt 2>&1
grep -E "^===|^poisson" $res/sweep_p128.txt; mv gpu-param-sweep $res/sweep-p128; pack
timeout 150 bash benchmarks/run_gpu_param_sweep.sh "on off:amg_cycle.coarse_max_rows=0" bench solve jumping3d:256 --methods jacobi,amg-single,amg-update-single --amg-aggressive 1 --peers none --reps 3 --csv x > $res/sweep_j256.txt 2>&1
grep -E "^===|^jumping" $res/sweep_j256.txt; mv gpu-param-sweep $res/sweep-j256; pack
timeout $((560-SECONDS)) bash benchmarks/run_gpu_param_sweep.sh "on off:amg_cycle.coarse_max_rows=0" bench solve poisson3d:256 --methods cg,amg-single --amg-aggressive 1 --peers none --reps 3 --csv x > $res/sweep_p256.txt 2>&1
grep -E "^===|^poisson" $res/sweep_p256.txt; mv gpu-param-sweep $res/sweep-p256 2>/dev/null
echo "all done $((SECONDS-t0)) s"; pack
