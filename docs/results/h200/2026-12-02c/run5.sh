#!/usr/bin/env bash
# Session 2026-12-02 (third): time to solution on the stiff set at the session's last commit, against
# the best of CG and Jacobi-CG in the same run, with OpenMP's defaults and with OMP_PROC_BIND=spread
# (run4: a steadier, ~10% shorter host setup). `bench solve --methods cg,jacobi,amg --reps 3`.
set -uo pipefail
t0=$SECONDS
res=run5; rm -rf $res; mkdir -p $res
opts=(-DCMAKE_BUILD_TYPE=Release -DCLKR_BUILD_TESTS=OFF -DCLKR_BUILD_BENCHMARKS=OFF -DCLKR_BUILD_EXAMPLES=OFF -DCLKR_WITH_MPI=OFF)
cmake -S . -B build-gpu "${opts[@]}" >$res/cmake.log 2>&1 && cmake --build build-gpu -j16 --target clkr_app >$res/build.log 2>&1
echo "build rc=$? $((SECONDS - t0)) s"
[ -e /etc/OpenCL/vendors/nvidia.icd ] || echo /usr/lib/libnvidia-opencl.so.1 >/etc/OpenCL/vendors/nvidia.icd
export CLKR_DEVICE=nvidia CLKR_CACHE_DIR=$PWD/build-gpu/kernel-cache
m=.carry/matrices
set -- $m/bcsstk17.mtx.gz $m/bcsstk16.mtx.gz $m/s1rmq4m1.mtx.gz $m/s2rmt3m1.mtx.gz $m/s2rmq4m1.mtx.gz
build-gpu/clkr bench solve $m/s2rmt3m1.mtx.gz --methods cg,jacobi,amg --peers none --reps 1 >/dev/null 2>&1
for cfg in default spread; do
  e=(); [ $cfg = spread ] && e=(OMP_PROC_BIND=spread)
  timeout 120 env "${e[@]}" build-gpu/clkr bench solve "$@" --methods cg,jacobi,amg --peers none --reps 3 \
    --maxit 40000 --csv $res/$cfg.csv 2>&1 | grep -E "^(bcsstk|s[12]rm)"
  echo "$cfg rc=$? $((SECONDS - t0)) s"
done
cp -r $res $OUT/
