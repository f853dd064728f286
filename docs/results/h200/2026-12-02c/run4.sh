#!/usr/bin/env bash
# Session 2026-12-02 (third): the small-matrix AMG setup's spread between processes on the H200 machine
# (run3: medians of 5 setups from 27 to 41 ms on bcsstk17) against OpenMP's placement and wait settings:
# default, OMP_PROC_BIND=close, OMP_PROC_BIND=spread, OMP_WAIT_POLICY=passive, 8 threads; four
# alternating rounds of `bench solve --methods amg --reps 5` on the stiff set, at $1.
set -uo pipefail
t0=$SECONDS
res=run4; rm -rf $res; mkdir -p $res
opts=(-DCMAKE_BUILD_TYPE=Release -DCLKR_BUILD_TESTS=OFF -DCLKR_BUILD_BENCHMARKS=OFF -DCLKR_BUILD_EXAMPLES=OFF -DCLKR_WITH_MPI=OFF)
cmake -S . -B build-gpu "${opts[@]}" >$res/cmake.log 2>&1 && cmake --build build-gpu -j16 --target clkr_app >$res/build.log 2>&1
echo "build rc=$? $((SECONDS - t0)) s"
[ -e /etc/OpenCL/vendors/nvidia.icd ] || echo /usr/lib/libnvidia-opencl.so.1 >/etc/OpenCL/vendors/nvidia.icd
export CLKR_DEVICE=nvidia CLKR_CACHE_DIR=$PWD/build-gpu/kernel-cache
m=.carry/matrices
set -- $m/bcsstk17.mtx.gz $m/bcsstk16.mtx.gz $m/s1rmq4m1.mtx.gz $m/s2rmt3m1.mtx.gz $m/s2rmq4m1.mtx.gz
build-gpu/clkr bench solve $m/s2rmt3m1.mtx.gz --methods amg --peers none --reps 1 >/dev/null 2>&1  # kernel cache
for round in 1 2 3 4; do
  for cfg in default OMP_PROC_BIND=close OMP_PROC_BIND=spread OMP_WAIT_POLICY=passive OMP_NUM_THREADS=8; do
    name=${cfg#*=}; [ "$cfg" = default ] && name=default; [ "$cfg" = OMP_NUM_THREADS=8 ] && name=threads8
    e=(); [ "$cfg" = default ] || e=("$cfg")
    timeout 100 env "${e[@]}" build-gpu/clkr bench solve "$@" --methods amg --peers none --reps 5 --maxit 40000 \
      --csv $res/${name}_$round.csv >/dev/null 2>&1
    echo "$name round $round rc=$? $((SECONDS - t0)) s: $(cut -d, -f1,10 $res/${name}_$round.csv | tail -n +2 | tr '\n' ' ')"
  done
done
tar czf $OUT/run4.tgz $res
echo "all done $((SECONDS - t0)) s"
