#!/usr/bin/env bash
# Session 2026-12-02 (third): the AMG setup keeps the block-size detection's OpenMP workers when the
# host builds the hierarchy next (detection_release.diff), against the same tree with the release
# after the detection as before (the diff reversed), in one run: the stiff SuiteSparse set, three
# alternating rounds of `bench solve --methods amg --reps 5`, setup and its phases.
set -uo pipefail
t0=$SECONDS
res=run3; rm -rf $res; mkdir -p $res
here=docs/results/h200/2026-12-02c
opts=(-DCMAKE_BUILD_TYPE=Release -DCLKR_BUILD_TESTS=OFF -DCLKR_BUILD_BENCHMARKS=OFF -DCLKR_BUILD_EXAMPLES=OFF -DCLKR_WITH_MPI=OFF)
cmake -S . -B build-new "${opts[@]}" >$res/cmake.log 2>&1 && cmake --build build-new -j16 --target clkr_app >$res/build.log 2>&1
echo "new build rc=$? $((SECONDS - t0)) s"
rm -rf /tmp/old && mkdir /tmp/old && cp -r CMakeLists.txt cmake include src kernels /tmp/old/ 2>/dev/null
cp -r python fortran examples benchmarks tests /tmp/old/ 2>/dev/null
(cd /tmp/old && patch -R -p1 <$OLDPWD/$here/detection_release.diff >/dev/null) || echo "patch failed"
cmake -S /tmp/old -B build-old "${opts[@]}" >>$res/cmake.log 2>&1 && cmake --build build-old -j16 --target clkr_app >>$res/build.log 2>&1
echo "old build rc=$? $((SECONDS - t0)) s"
[ -e /etc/OpenCL/vendors/nvidia.icd ] || echo /usr/lib/libnvidia-opencl.so.1 >/etc/OpenCL/vendors/nvidia.icd
export CLKR_DEVICE=nvidia CLKR_CACHE_DIR=$PWD/build-new/kernel-cache
m=.carry/matrices
set -- $m/bcsstk17.mtx.gz $m/bcsstk16.mtx.gz $m/s1rmq4m1.mtx.gz $m/s2rmt3m1.mtx.gz $m/s2rmq4m1.mtx.gz
build-new/clkr bench solve $m/s2rmt3m1.mtx.gz --methods amg --peers none --reps 1 >/dev/null 2>&1  # kernel cache
for round in 1 2 3; do
  for v in old new; do
    timeout 100 build-$v/clkr bench solve "$@" --methods amg --peers none --reps 5 --maxit 40000 \
      --csv $res/setup_${v}_$round.csv >/dev/null 2>&1
    echo "$v round $round rc=$? $((SECONDS - t0)) s: $(cut -d, -f1,10 $res/setup_${v}_$round.csv | tail -n +2 | tr '\n' ' ')"
  done
done
cp -r $res $OUT/
echo "all done $((SECONDS - t0)) s"
