#!/usr/bin/env bash
# Session 5, call 4 (commit d284842): the persistent CG with four groups per compute unit (the new NVIDIA
# default) against one (a parameter file), ViennaCL (fixed peer) and CuPy in the same call; the persistent
# kernel past its limits (powerlaw:300000, poisson3d:128); poisson3d:128's update + solve against CG.
set -uo pipefail
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export CLKR_DEVICE=nvidia
t0=$SECONDS
res=s13; rm -rf $res; mkdir -p $res
pack() { tar czf $OUT/s13.tgz $res; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $res/gpu.txt
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCLKR_BUILD_TESTS=OFF -DCLKR_BUILD_BENCHMARKS=ON \
  -DVIENNACL_ROOT=$PWD/.carry/include > $res/build.log 2>&1 &&
  cmake --build build-gpu -j16 --target clkr_app clkr_dump_csr >> $res/build.log 2>&1 || { tail -20 $res/build.log; exit 1; }
echo "build $((SECONDS-t0)) s"
export CLKR_CACHE_DIR=$PWD/build-gpu/kernel-cache
mats=""
for m in bcsstk08 1138_bus bcsstk18 bcsstk17 bcsstk25; do mats="$mats .carry/matrices/$m.mtx.gz"; done
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
file=$(printf '%s_%s.txt' "$name" "$driver" | sed 's/[^A-Za-z0-9.-]/_/g')
g1=$PWD/$res/cache-g1; mkdir -p $g1/params; echo "cg.persistent_groups_per_compute_unit = 1" > $g1/params/$file
run() {  # NAME LIMIT CLKR-ARGS...
  local v=$1 lim=$2; shift 2
  timeout $lim build-gpu/clkr "$@" > $res/$v.txt 2> $res/$v.err
  echo "== $v rc=$? ($((SECONDS-t0)) s)"; grep -E "^(powerlaw|bcsstk|poisson|1138)" $res/$v.txt; pack
}
run cg_new 200 bench cg powerlaw:30000 powerlaw:300000 $mats poisson3d:64 poisson3d:96 --formats csr --precisions double \
  --iterations 500 --reps 5 --peers viennacl --csv $res/cg_new.csv
CLKR_CACHE_DIR=$g1 run cg_g1 120 bench cg powerlaw:30000 powerlaw:300000 $mats poisson3d:64 poisson3d:96 --formats csr \
  --precisions double --iterations 500 --reps 5 --peers none --csv $res/cg_g1.csv
run pl300k_persistent 60 bench cg powerlaw:300000 --formats csr --precisions double --iterations 500 --reps 5 --peers none \
  --cg-path persistent --csv $res/pl300k_persistent.csv
run p128_paths_persistent 60 bench cg poisson3d:128 --formats csr --precisions double --iterations 300 --reps 5 --peers none \
  --cg-path persistent --csv $res/p128_persistent.csv
run p128_paths_fused 60 bench cg poisson3d:128 --formats csr --precisions double --iterations 300 --reps 5 --peers none \
  --cg-path fused --csv $res/p128_fused.csv
PYTHONUNBUFFERED=1 timeout 150 python3 benchmarks/cupy_cg.py --dump-csr build-gpu/benchmarks/clkr_dump_csr --iterations 500 \
  --reps 5 powerlaw:30000 powerlaw:300000 > $res/cupy.csv 2> $res/cupy.err
echo "== cupy rc=$? ($((SECONDS-t0)) s)"; cat $res/cupy.csv; pack
for round in 1 2; do
  run p128_update_$round 100 bench solve poisson3d:128 --methods cg,amg-update-single --amg-aggressive 1 --peers none --reps 3 \
    --csv $res/p128_update_$round.csv
done
echo "all $((SECONDS-t0)) s"
