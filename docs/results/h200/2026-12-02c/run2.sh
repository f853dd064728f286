#!/usr/bin/env bash
# Session 2026-12-02 (third), where the host setup of small AMG hierarchies spends its time on the H200
# machine's 16-core host: the cost of one OpenMP parallel loop (omp_overhead.cpp) and the setup phases
# of the stiff SuiteSparse set per thread count and wait policy, at $1.
set -uo pipefail
t0=$SECONDS
res=run2; rm -rf $res; mkdir -p $res
pack() { cp -r $res $OUT/ 2>/dev/null; }
lscpu >$res/lscpu.txt
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCLKR_BUILD_TESTS=OFF -DCLKR_BUILD_BENCHMARKS=OFF \
  -DCLKR_BUILD_EXAMPLES=OFF -DCLKR_WITH_MPI=OFF >$res/cmake.log 2>&1
cmake --build build-gpu -j16 --target clkr_app >$res/build.log 2>&1 || cmake --build build-gpu -j16 >>$res/build.log 2>&1
echo "build rc=$? $((SECONDS - t0)) s"; tail -2 $res/build.log
g++ -O2 -fopenmp docs/results/h200/2026-12-02c/omp_overhead.cpp -o omp_overhead && ./omp_overhead | tee $res/omp_overhead.txt
[ -e /etc/OpenCL/vendors/nvidia.icd ] || echo /usr/lib/libnvidia-opencl.so.1 >/etc/OpenCL/vendors/nvidia.icd
export CLKR_DEVICE=nvidia CLKR_CACHE_DIR=$PWD/build-gpu/kernel-cache
b=build-gpu/clkr
m=.carry/matrices
set -- $m/bcsstk17.mtx.gz $m/bcsstk16.mtx.gz $m/s1rmq4m1.mtx.gz $m/s2rmt3m1.mtx.gz
$b bench solve $m/s2rmt3m1.mtx.gz --methods amg --peers none --reps 1 >/dev/null 2>&1  # kernel cache
for cfg in 16 8 4 2 1 16:active 4:active 16:passive; do
  threads=${cfg%%:*}; policy=${cfg#*:}; [ "$policy" = "$cfg" ] && policy=
  OMP_NUM_THREADS=$threads ${policy:+OMP_WAIT_POLICY=$policy} timeout 120 $b bench solve "$@" --methods amg \
    --peers none --reps 3 --maxit 40000 --csv $res/setup_${threads}${policy:+_$policy}.csv >/dev/null 2>&1
  echo "$cfg: rc=$? $((SECONDS - t0)) s"
  cut -d, -f1,10 $res/setup_${threads}${policy:+_$policy}.csv | tail -n +2 | tr '\n' ' '; echo
  pack
done
echo "all done $((SECONDS - t0)) s"; pack
