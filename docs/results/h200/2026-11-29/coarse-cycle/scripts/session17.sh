#!/usr/bin/env bash
# Session 6, third call: where the coarse cycle's ~150-230 us a launch go. Three builds of the same
# commit: as committed; its shared vector loads made plain (VEC_LOAD: no volatile, the L1 may serve them;
# an experiment, not a correct kernel by OpenCL's rules); every step given zero rows (the launch is its
# 20 grid barriers and nothing else: the solve's numbers are garbage, its kernel time is the point).
set -uo pipefail
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export CLKR_DEVICE=nvidia
t0=$SECONDS
res=s17; rm -rf $res; mkdir -p $res
pack() { tar czf $OUT/s17.tgz $res 2>/dev/null; }
for v in base plain barriers; do
  rm -rf /tmp/src-$v; mkdir -p /tmp/src-$v
  tar --exclude='./build*' --exclude='./.carry' --exclude='./.git' --exclude='./s1*' -cf - . | (cd /tmp/src-$v && tar xf -)
done
k=kernels/precond/coarse_cycle.cl
sed -i 's/VEC_LOAD_SHARED(b_in, (i))/VEC_LOAD(b_in, (i))/; s/VEC_LOAD_SHARED(x_out, (i))/VEC_LOAD(x_out, (i))/; s/VEC_LOAD_SHARED(arena, (ref) + (i))/VEC_LOAD(arena, (ref) + (i))/' /tmp/src-plain/$k
sed -i 's/const int kind = op\[OP_KIND\], n = op\[OP_ROWS\];/const int kind = op[OP_KIND], n = 0;/' /tmp/src-barriers/$k
diff /tmp/src-base/$k /tmp/src-plain/$k > $res/plain.diff; diff /tmp/src-base/$k /tmp/src-barriers/$k > $res/barriers.diff
wc -l $res/*.diff
for v in base plain barriers; do
  (cmake -S /tmp/src-$v -B /tmp/build-$v -DCMAKE_BUILD_TYPE=Release -DCLKR_BUILD_TESTS=OFF -DCLKR_BUILD_BENCHMARKS=OFF > $res/build-$v.log 2>&1 &&
   cmake --build /tmp/build-$v -j5 --target clkr_app >> $res/build-$v.log 2>&1 || echo "build $v failed") &
done
wait
echo "builds $((SECONDS-t0)) s"
mkdir -p cache-l8/params
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
file=$(printf '%s_%s.txt' "$name" "$driver" | sed 's/[^A-Za-z0-9.-]/_/g')
for shape in g4 l8 g1; do
  c=$PWD/cache-$shape; mkdir -p $c/params
  case $shape in g4) : > $c/params/$file ;; l8) echo "amg_cycle.lanes = 8" > $c/params/$file ;; g1) echo "amg_cycle.groups_per_compute_unit = 1" > $c/params/$file ;; esac
  for v in base plain barriers; do
    echo "=== $v $shape"
    CLKR_CACHE_DIR=$c timeout 30 /tmp/build-$v/clkr solve poisson3d:128 --precond amg --amg-setup device --amg-aggressive 1 --precond-precision single --maxit 19 > $res/report-$v-$shape.txt 2>&1
    grep -E "^status|amg_coarse_cycle  |^time  " $res/report-$v-$shape.txt
  done
done
pack
for v in; do
  echo "=== bench $v l8"
  CLKR_CACHE_DIR=$PWD/cache-l8 timeout 40 /tmp/build-$v/clkr bench solve poisson3d:128 --methods cg,amg-update-single --amg-aggressive 1 --peers none --reps 5 > $res/bench-$v.txt 2>&1
  grep -E "^poisson" $res/bench-$v.txt
done
echo "all done $((SECONDS-t0)) s"; pack
