#!/usr/bin/env bash
# Session 5, call 2: the persistent CG's launch shape on powerlaw:30000 (issue 13; each variant its own
# parameter file, bounded by a timeout), ViennaCL in the same call; poisson3d:128's update + solve with
# fewer Lanczos steps in the update (issue 11). Everything lands in $OUT/s11.tgz.
set -uo pipefail
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export CLKR_DEVICE=nvidia
t0=$SECONDS
res=s11; rm -rf $res; mkdir -p $res
pack() { tar czf $OUT/s11.tgz $res; }
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCLKR_BUILD_TESTS=OFF -DCLKR_BUILD_BENCHMARKS=OFF \
  -DVIENNACL_ROOT=$PWD/.carry/include > $res/build.log 2>&1 &&
  cmake --build build-gpu -j16 --target clkr_app >> $res/build.log 2>&1 || { tail -20 $res/build.log; exit 1; }
echo "build $((SECONDS-t0)) s"
name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)
file=$(printf '%s_%s.txt' "$name" "$driver" | sed 's/[^A-Za-z0-9.-]/_/g')
variant() {  # NAME key=value...
  local v=$1; shift
  local cache=$PWD/$res/cache-$v
  mkdir -p $cache/params
  : > $cache/params/$file
  for kv in "$@"; do echo "${kv%%=*} = ${kv#*=}" >> $cache/params/$file; done
  CLKR_CACHE_DIR=$cache timeout 90 build-gpu/clkr bench cg powerlaw:30000 --formats csr --precisions double \
    --iterations 500 --reps 5 --peers none --cg-path persistent --csv $res/$v.csv > $res/$v.txt 2>$res/$v.err
  echo "$v rc=$? $(grep -E '^powerlaw' $res/$v.txt) ($((SECONDS-t0)) s)"
  pack
}
variant default
variant g2 cg.persistent_groups_per_compute_unit=2
variant g4 cg.persistent_groups_per_compute_unit=4
variant wg256g2 cg.persistent_work_group_size=256 cg.persistent_groups_per_compute_unit=2
variant wg256g4 cg.persistent_work_group_size=256 cg.persistent_groups_per_compute_unit=4
variant wg256g8 cg.persistent_work_group_size=256 cg.persistent_groups_per_compute_unit=8
variant wg1024 cg.persistent_work_group_size=1024
variant e2 spmv.csr_balanced_entries_per_item=2
variant e8 spmv.csr_balanced_entries_per_item=8
variant g2e2 cg.persistent_groups_per_compute_unit=2 spmv.csr_balanced_entries_per_item=2
variant wg256g4e2 cg.persistent_work_group_size=256 cg.persistent_groups_per_compute_unit=4 spmv.csr_balanced_entries_per_item=2
export CLKR_CACHE_DIR=$PWD/build-gpu/kernel-cache
timeout 150 build-gpu/clkr bench cg powerlaw:30000 --formats csr --precisions double --iterations 500 --reps 5 \
  --peers viennacl --csv $res/viennacl.csv > $res/viennacl.txt 2>$res/viennacl.err
echo "viennacl rc=$? ($((SECONDS-t0)) s)"; grep -E '^powerlaw' $res/viennacl.txt; pack
i=0
for e in 4 0 2 4; do
  i=$((i+1))
  timeout 100 build-gpu/clkr bench solve poisson3d:128 --methods cg,amg-update-single --amg-aggressive 1 --peers none \
    --reps 3 --amg-update-eigen $e --csv $res/p128_${i}_e$e.csv > $res/p128_${i}_e$e.txt 2>&1
  echo "update-eigen $e rc=$? ($((SECONDS-t0)) s)"; grep -E '^poisson' $res/p128_${i}_e$e.txt; pack
done
echo "all $((SECONDS-t0)) s"
