#!/usr/bin/env bash
# Session 2026-12-02 (second), third machine: the whole suite on NVIDIA at $1, where the whole AMG cycle
# runs in one launch by default up to 300,000 rows (amg_cycle.fine_max_rows; the finest level's CSR copy
# made on the device); then the stiff SuiteSparse set with the default against the parameter at 0 (two
# alternating rounds, the first with CG and Jacobi-CG for the baseline), and generated problems around
# the threshold with it at 0 and at 10^6.
set -uo pipefail
t0=$SECONDS
export CLKR_GPU_TEST_PASSES=nvidia CLKR_GPU_TEST_JOBS=8 CLKR_COMMIT=$1
timeout 460 bash .ci/gpu-test .carry
echo "suite rc=$? $((SECONDS - t0)) s"
res=whole-default; rm -rf $res; mkdir -p $res
pack() { tar czf $OUT/$res.tgz $res 2>/dev/null; }
export CLKR_DEVICE=nvidia CLKR_CACHE_DIR=$PWD/build-gpu-test/kernel-cache
b=build-gpu-test/clkr
params=$CLKR_CACHE_DIR/params/NVIDIA_H200_$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1).txt
mkdir -p $(dirname $params)
left() { echo $((585 - SECONDS)); }
cfg() {
  case $1 in
    default) rm -f $params ;;
    off) printf 'amg_cycle.fine_max_rows = 0\n' >$params ;;
    big) printf 'amg_cycle.fine_max_rows = 1000000\n' >$params ;;
  esac
}
m=.carry/matrices
set -- $m/bcsstk17.mtx.gz $m/bcsstk16.mtx.gz $m/s2rmq4m1.mtx.gz $m/s1rmq4m1.mtx.gz $m/s2rmt3m1.mtx.gz $m/bcsstk25.mtx.gz
for round in 1 2; do
  for c in default off; do
    cfg $c
    methods=amg,amg-single; [ $round = 1 ] && [ $c = default ] && methods=cg,jacobi,amg,amg-single
    timeout $(left) $b bench solve "$@" --methods $methods --peers none --reps 3 --maxit 40000 \
      --csv $res/suitesparse_${c}_$round.csv >/dev/null 2>&1
    echo "$c round $round: $((SECONDS - t0)) s"; pack
  done
done
for c in off big; do
  cfg $c
  timeout $(left) $b bench solve poisson3d:48 poisson3d:64 poisson3d:80 jumping3d:64 --methods amg \
    --peers none --reps 3 --csv $res/generated_$c.csv 2>&1 | grep -E "^(poisson|jumping)"
  pack
done
rm -f $params
echo "all done $((SECONDS - t0)) s"; pack
