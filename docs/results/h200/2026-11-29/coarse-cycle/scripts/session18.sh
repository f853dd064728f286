#!/usr/bin/env bash
# Session 6, fourth call: the coarse cycle from level 2 down only (poisson3d:128: 2,467 and 120 rows,
# coarse_max_rows 10,000): level 1's steps stay launches whose gathers the L1 serves.
set -uo pipefail
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export CLKR_DEVICE=nvidia
t0=$SECONDS
res=s18; rm -rf $res; mkdir -p $res
pack() { tar czf $OUT/s18.tgz $res 2>/dev/null; }
if [ -x /tmp/build-base/clkr ]; then export BUILD_DIR=/tmp/build-base; else export BUILD_DIR=build-s18; fi
V="c10k:amg_cycle.coarse_max_rows=10000 c10k-l4:amg_cycle.coarse_max_rows=10000,amg_cycle.lanes=4 c10k-l16:amg_cycle.coarse_max_rows=10000,amg_cycle.lanes=16 c10k-l32:amg_cycle.coarse_max_rows=10000,amg_cycle.lanes=32 off:amg_cycle.coarse_max_rows=0 on-l8:amg_cycle.lanes=8"
timeout 120 bash benchmarks/run_gpu_param_sweep.sh "$V" solve poisson3d:128 --precond amg --amg-setup device --amg-aggressive 1 --precond-precision single > $res/sweep_report.txt 2>&1
grep -E "^===|^time|amg_coarse_cycle  |^total" $res/sweep_report.txt; mv gpu-param-sweep $res/sweep-report; pack
timeout 200 bash benchmarks/run_gpu_param_sweep.sh "$V c10k-b:amg_cycle.coarse_max_rows=10000 off-b:amg_cycle.coarse_max_rows=0" bench solve poisson3d:128 --methods cg,amg-update-single --amg-aggressive 1 --peers none --reps 5 --csv x > $res/sweep_p128.txt 2>&1
grep -E "^===|^poisson" $res/sweep_p128.txt; mv gpu-param-sweep $res/sweep-p128
echo "all done $((SECONDS-t0)) s"; pack
