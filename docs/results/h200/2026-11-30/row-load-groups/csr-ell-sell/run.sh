#!/usr/bin/env bash
# Session 7, second call: the CSR, ELL and SELL row sums with their loads in groups of 8 (and the persistent
# CG's CSR rows) against 45e3b42 (.carry/old-src, DIA grouped already): SpMV alone per format, CG per
# iteration on the irregular set, the AMG's solve kernels and target on jumping3d:256.
set -uo pipefail
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export CLKR_DEVICE=nvidia
t0=$SECONDS
res=s24; rm -rf $res; mkdir -p $res
pack() { tar czf $OUT/s24.tgz $res 2>/dev/null; }
(cmake -S .carry/old-src -B build-old -DCMAKE_BUILD_TYPE=Release -DCLKR_BUILD_TESTS=OFF -DCLKR_BUILD_BENCHMARKS=OFF > $res/build-old.log 2>&1 && cmake --build build-old -j8 --target clkr_app >> $res/build-old.log 2>&1) &
(cmake -S . -B build-new -DCMAKE_BUILD_TYPE=Release -DCLKR_BUILD_TESTS=OFF -DCLKR_BUILD_BENCHMARKS=OFF > $res/build-new.log 2>&1 && cmake --build build-new -j8 --target clkr_app >> $res/build-new.log 2>&1) &
wait
ls build-old/clkr build-new/clkr || { tail -20 $res/build-*.log; pack; exit 1; }
echo "build $((SECONDS-t0)) s"
M=".carry/matrices/bcsstk17.mtx.gz .carry/matrices/bcsstk25.mtx.gz"
ls .carry/matrices | head -3 > $res/matrices.txt
for round in 1 2; do
  for b in old new; do
    export CLKR_CACHE_DIR=$PWD/build-$b/kernel-cache
    timeout 90 build-$b/clkr bench spmv powerlaw:300000 poisson3d:192 --formats csr,ell,sell,hyb --precisions single,double --reps 20 --csv $res/spmv_${b}_$round.csv > $res/spmv_${b}_$round.txt 2>&1
    timeout 60 build-$b/clkr bench cg powerlaw:30000 powerlaw:300000 poisson3d:192 $M --formats csr,sell --precisions double,single --iterations 200 --reps 3 --peers none --csv $res/cg_${b}_$round.csv > $res/cg_${b}_$round.txt 2>&1
    timeout 60 build-$b/clkr solve jumping3d:256 --precond amg --precond-precision single --amg-aggressive 1 --json > $res/j256_${b}_$round.json 2>$res/j256_${b}_$round.err
  done
  echo "round $round $((SECONDS-t0)) s"; pack
done
for round in 1 2; do
  for b in old new; do
    export CLKR_CACHE_DIR=$PWD/build-$b/kernel-cache
    timeout 100 build-$b/clkr bench solve jumping3d:256 --methods jacobi,amg-single --amg-aggressive 1 --peers none --reps 3 --csv $res/bench_j256_${b}_$round.csv > $res/bench_j256_${b}_$round.txt 2>&1
    grep -E "^jumping" $res/bench_j256_${b}_$round.txt | sed "s/^/$b $round: /"
  done
done
echo "all done $((SECONDS-t0)) s"; pack
