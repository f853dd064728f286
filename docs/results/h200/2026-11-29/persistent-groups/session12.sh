#!/usr/bin/env bash
# Session 5, call 3: (a) which combination hangs clkr bench cg with the ViennaCL peer; (b) the persistent
# kernel's groups per compute unit on the matrices the persistent path runs without the balanced kernel.
set -uo pipefail
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export CLKR_DEVICE=nvidia
t0=$SECONDS
res=s12; rm -rf $res; mkdir -p $res
pack() { tar czf $OUT/s12.tgz $res; }
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCLKR_BUILD_TESTS=OFF -DCLKR_BUILD_BENCHMARKS=OFF \
  -DVIENNACL_ROOT=$PWD/.carry/include > $res/build.log 2>&1 &&
  cmake --build build-gpu -j16 --target clkr_app >> $res/build.log 2>&1 || { tail -20 $res/build.log; exit 1; }
echo "build $((SECONDS-t0)) s; gdb: $(which gdb eu-stack 2>/dev/null | tr '\n' ' ')"
export CLKR_CACHE_DIR=$PWD/build-gpu/kernel-cache
mats=""
for m in bcsstk08 1138_bus bcsstk18 bcsstk17 bcsstk25; do mats="$mats .carry/matrices/$m.mtx.gz"; done
# (a) each case bounded; a case still running after its limit gets its threads' stacks dumped
hangcase() {  # NAME LIMIT ARGS...
  local v=$1 lim=$2; shift 2
  build-gpu/clkr bench cg "$@" --precisions double --iterations 500 --reps 5 > $res/$v.txt 2>$res/$v.err &
  local pid=$! s=$SECONDS
  while kill -0 $pid 2>/dev/null && [ $((SECONDS-s)) -lt $lim ]; do sleep 1; done
  if kill -0 $pid 2>/dev/null; then
    echo "$v: STILL RUNNING after $lim s: $(tr '\r' '\n' < $res/$v.err | tail -1)"
    { for t in /proc/$pid/task/*; do echo "== $t $(cat $t/comm) $(cat $t/wchan)"; cat $t/stack 2>/dev/null; done
      command -v gdb >/dev/null && gdb -p $pid -batch -ex "thread apply all bt 12" 2>&1; } > $res/$v.stacks 2>&1
    kill -9 $pid
  else
    wait $pid; echo "$v: rc=$? $((SECONDS-s)) s"; grep -E "^(powerlaw|bcsstk|poisson)" $res/$v.txt
  fi
  pack
}
hangcase vcl_fused 40 powerlaw:30000 --formats csr --peers viennacl --cg-path fused
hangcase vcl_persistent 40 powerlaw:30000 --formats csr --peers viennacl
hangcase vcl_bcsstk17 40 .carry/matrices/bcsstk17.mtx.gz --formats csr --peers viennacl
hangcase vcl_p64 40 poisson3d:64 --formats csr --peers viennacl
# (b) groups per compute unit on the persistent path's other matrices
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
file=$(printf '%s_%s.txt' "$name" "$driver" | sed 's/[^A-Za-z0-9.-]/_/g')
for round in 1 2; do
  for g in 1 2 4; do
    cache=$PWD/$res/cache-g$g; mkdir -p $cache/params
    echo "cg.persistent_groups_per_compute_unit = $g" > $cache/params/$file
    CLKR_CACHE_DIR=$cache timeout 120 build-gpu/clkr bench cg poisson3d:64 poisson3d:96 $mats powerlaw:30000 --formats csr \
      --precisions double,single --iterations 500 --reps 5 --peers none --csv $res/g${g}_r$round.csv > $res/g${g}_r$round.txt 2>&1
    echo "g$g round $round rc=$? ($((SECONDS-t0)) s)"; pack
  done
done
for g in 1 2 4; do echo "== g$g"; grep -E "^(powerlaw|bcsstk|poisson|1138)" $res/g${g}_r1.txt $res/g${g}_r2.txt; done
echo "all $((SECONDS-t0)) s"
