#!/usr/bin/env bash
# Session 7, first call: the DIA row sum with its loads grouped (8 diagonals' loads issued before their
# additions) against HEAD (.carry/old-src): SpMV alone, the AMG's solve kernels on jumping3d:256, and the
# issue-11 target on it.
set -uo pipefail
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export CLKR_DEVICE=nvidia
t0=$SECONDS
res=s23; rm -rf $res; mkdir -p $res
pack() { tar czf $OUT/s23.tgz $res 2>/dev/null; }
(cmake -S .carry/old-src -B build-old -DCMAKE_BUILD_TYPE=Release -DCLKR_BUILD_TESTS=OFF -DCLKR_BUILD_BENCHMARKS=OFF > $res/build-old.log 2>&1 && cmake --build build-old -j8 --target clkr_app >> $res/build-old.log 2>&1) &
(cmake -S . -B build-new -DCMAKE_BUILD_TYPE=Release -DCLKR_BUILD_TESTS=OFF -DCLKR_BUILD_BENCHMARKS=OFF > $res/build-new.log 2>&1 && cmake --build build-new -j8 --target clkr_app >> $res/build-new.log 2>&1) &
wait
ls build-old/clkr build-new/clkr || { tail -20 $res/build-*.log; pack; exit 1; }
echo "build $((SECONDS-t0)) s"
for b in old new; do export CLKR_CACHE_DIR=$PWD/build-$b/kernel-cache; build-$b/clkr devices > /dev/null 2>&1; done
for round in 1 2; do
  for b in old new; do
    export CLKR_CACHE_DIR=$PWD/build-$b/kernel-cache
    timeout 60 build-$b/clkr bench spmv poisson3d:256 --formats dia --precisions single,double --reps 20 > $res/spmv_${b}_$round.txt 2>&1
    timeout 60 build-$b/clkr solve jumping3d:256 --precond amg --precond-precision single --amg-aggressive 1 --json > $res/j256_${b}_$round.json 2>$res/j256_${b}_$round.err
  done
done
echo "spmv+solve $((SECONDS-t0)) s"; pack
for round in 1 2; do
  for b in old new; do
    export CLKR_CACHE_DIR=$PWD/build-$b/kernel-cache
    timeout 100 build-$b/clkr bench solve jumping3d:256 --methods jacobi,amg-single --amg-aggressive 1 --peers none --reps 3 --csv $res/bench_j256_${b}_$round.csv > $res/bench_j256_${b}_$round.txt 2>&1
    grep -E "^jumping" $res/bench_j256_${b}_$round.txt | sed "s/^/$b $round: /"
  done
done
echo "all done $((SECONDS-t0)) s"; pack
