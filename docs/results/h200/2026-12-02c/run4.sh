#!/usr/bin/env bash
# Session 2026-12-02 (third): (1) two setup phases given more threads on small hierarchies
# (setup_threads.diff: the tentative prolongator's aggregates in chunks of at least eight per thread, the
# transpose in blocks of 16 k entries rather than 4096 rows) against the same tree without them, built
# side by side; (2) the spread of the small-matrix AMG setup between processes (run3: medians of 5
# setups of bcsstk17 from 27 to 41 ms) against OpenMP's placement and wait settings, with the new build:
# OMP_PROC_BIND=close / spread, OMP_WAIT_POLICY=passive, 8 threads. Four alternating rounds of
# `bench solve --methods amg --reps 5` on the stiff set.
set -uo pipefail
t0=$SECONDS
res=run4; rm -rf $res; mkdir -p $res
here=docs/results/h200/2026-12-02c
opts=(-DCMAKE_BUILD_TYPE=Release -DCLKR_BUILD_TESTS=OFF -DCLKR_BUILD_BENCHMARKS=OFF -DCLKR_BUILD_EXAMPLES=OFF -DCLKR_WITH_MPI=OFF)
cmake -S . -B build-new "${opts[@]}" >$res/cmake.log 2>&1 && cmake --build build-new -j16 --target clkr_app >$res/build.log 2>&1
echo "new build rc=$? $((SECONDS - t0)) s"
rm -rf /tmp/old && mkdir /tmp/old && cp -r CMakeLists.txt cmake include src kernels python fortran examples benchmarks tests /tmp/old/ 2>/dev/null
(cd /tmp/old && patch -R -p1 <$OLDPWD/$here/setup_threads.diff >/dev/null) || echo "patch failed"
cmake -S /tmp/old -B build-old "${opts[@]}" >>$res/cmake.log 2>&1 && cmake --build build-old -j16 --target clkr_app >>$res/build.log 2>&1
echo "old build rc=$? $((SECONDS - t0)) s"
[ -e /etc/OpenCL/vendors/nvidia.icd ] || echo /usr/lib/libnvidia-opencl.so.1 >/etc/OpenCL/vendors/nvidia.icd
export CLKR_DEVICE=nvidia CLKR_CACHE_DIR=$PWD/build-new/kernel-cache
m=.carry/matrices
set -- $m/bcsstk17.mtx.gz $m/bcsstk16.mtx.gz $m/s1rmq4m1.mtx.gz $m/s2rmt3m1.mtx.gz $m/s2rmq4m1.mtx.gz
build-new/clkr bench solve $m/s2rmt3m1.mtx.gz --methods amg --peers none --reps 1 >/dev/null 2>&1  # kernel cache
for round in 1 2 3 4; do
  for cfg in old new OMP_PROC_BIND=close OMP_PROC_BIND=spread OMP_WAIT_POLICY=passive OMP_NUM_THREADS=8; do
    case $cfg in
      old) name=old; b=build-old; e=() ;;
      new) name=new; b=build-new; e=() ;;
      OMP_NUM_THREADS=8) name=threads8; b=build-new; e=("$cfg") ;;
      *) name=${cfg#*=}; b=build-new; e=("$cfg") ;;
    esac
    timeout 100 env "${e[@]}" $b/clkr bench solve "$@" --methods amg --peers none --reps 5 --maxit 40000 \
      --csv $res/${name}_$round.csv >/dev/null 2>&1
    echo "$name round $round rc=$? $((SECONDS - t0)) s: $(cut -d, -f1,10 $res/${name}_$round.csv | tail -n +2 | tr '\n' ' ')"
  done
done
tar czf $OUT/run4.tgz $res
echo "all done $((SECONDS - t0)) s"
