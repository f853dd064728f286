#!/usr/bin/env bash
# Session 6 (2026-11-29 evening), first call: the AMG's coarse levels in one launch. Tests of the cycle
# on NVIDIA, then poisson3d:128 update + solve, jumping3d:256 and poisson3d:256 with the coarse cycle on
# (the default) and off, and launch-shape variants.
set -uo pipefail
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export CLKR_DEVICE=nvidia
t0=$SECONDS
res=s15; rm -rf $res; mkdir -p $res
pack() { tar czf $OUT/s15.tgz $res gpu-param-sweep 2>/dev/null; }
gtest_prefix=$PWD/build-gpu-gtest/prefix
{ cmake -S .carry/googletest -B build-gpu-gtest/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=$gtest_prefix \
    -DCMAKE_POSITION_INDEPENDENT_CODE=ON && cmake --build build-gpu-gtest/build -j16 && cmake --install build-gpu-gtest/build; } > $res/gtest.log 2>&1
cmake -S . -B build-s15 -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$gtest_prefix -DCLKR_BUILD_BENCHMARKS=OFF > $res/build.log 2>&1 &&
  cmake --build build-s15 -j16 --target clkr_app clkr_precond_tests >> $res/build.log 2>&1 || { tail -30 $res/build.log; pack; exit 1; }
echo "build $((SECONDS-t0)) s"
export CLKR_CACHE_DIR=$PWD/build-s15/kernel-cache
(cd build-s15 && timeout 150 ./tests/clkr_precond_tests --gtest_filter='*AmgCoarse*:*AmgCycle*:*Relaxation*:*Chebyshev*:*AmgSolve*' --gtest_brief=1 > ../$res/tests.txt 2>&1)
echo "tests rc=$? ($((SECONDS-t0)) s)"; tail -5 $res/tests.txt; grep -E "FAILED|Failure" $res/tests.txt | head; pack
b=build-s15/clkr
timeout 40 $b solve poisson3d:128 --precond amg --amg-setup device --amg-aggressive 1 --precond-precision single > $res/solve_p128_report.txt 2>&1
grep -E "^levels|^ +[0-9]|amg_coarse|^time|^status|iterations" $res/solve_p128_report.txt | head -20; pack
export BUILD_DIR=build-s15
timeout $((400-SECONDS)) bash benchmarks/run_gpu_param_sweep.sh "on off:amg_cycle.coarse_max_rows=0 wg256:amg_cycle.work_group_size=256 g2:amg_cycle.groups_per_compute_unit=2 on2 off2:amg_cycle.coarse_max_rows=0" \
  bench solve poisson3d:128 --methods cg,amg-update-single --amg-aggressive 1 --peers none --reps 3 --csv x > $res/sweep_p128.txt 2>&1
grep -E "^===|^poisson" $res/sweep_p128.txt; pack
mv gpu-param-sweep $res/sweep-p128
echo "p128 done $((SECONDS-t0)) s"
timeout $((560-SECONDS)) bash benchmarks/run_gpu_param_sweep.sh "on off:amg_cycle.coarse_max_rows=0" \
  bench solve jumping3d:256 --methods jacobi,amg-single,amg-update-single --amg-aggressive 1 --peers none --reps 3 --csv x > $res/sweep_j256.txt 2>&1
grep -E "^===|^jumping" $res/sweep_j256.txt
mv gpu-param-sweep $res/sweep-j256 2>/dev/null
echo "all done $((SECONDS-t0)) s"; pack
