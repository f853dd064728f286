#!/usr/bin/env bash
# Session 6: the blocking dot/nrm2 change (7ea5479) measured where blocking dots run: unfused CG (two
# blocking dots an iteration), at 7dd2fea (before, .carry/old-src) and now, three rounds.
set -uo pipefail
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
t0=$SECONDS
res=s21; rm -rf $res; mkdir -p $res
for v in old new; do
  src=.carry/old-src; [ $v = new ] && src=.
  if [ ! -x /tmp/build-$v/clkr ]; then
    (cmake -S $src -B /tmp/build-$v -DCMAKE_BUILD_TYPE=Release -DCLKR_BUILD_TESTS=OFF -DCLKR_BUILD_BENCHMARKS=OFF > $res/build-$v.log 2>&1 &&
     cmake --build /tmp/build-$v -j8 --target clkr_app >> $res/build-$v.log 2>&1 || echo "$v build failed") &
  fi
done
wait
echo "builds $((SECONDS-t0)) s"
export CLKR_DEVICE=nvidia
for round in 1 2 3; do
  for v in old new; do
    CLKR_CACHE_DIR=/tmp/cache-$v timeout 30 /tmp/build-$v/clkr solve poisson3d:64 --cg-path unfused > $res/unfused-$v-$round.txt 2>&1
    echo "$v $round: $(grep -E '^time|^iterations|^commands' $res/unfused-$v-$round.txt | tr '\n' ' ')"
  done
done
tar czf $OUT/s21.tgz $res
