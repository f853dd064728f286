#!/usr/bin/env bash
# Session 2026-12-02 (second), second machine: the whole AMG cycle in one launch (amg_cycle.fine_max_rows,
# level 0 joining the coarse levels' grid-barrier kernel) at $1. Its tests on NVIDIA; then, with the
# parameter off and on (a params file over the defaults), the stiff SuiteSparse set (two alternating
# rounds), profiled solves of s2rmt3m1 and bcsstk17 with launch shapes (lanes, groups per compute unit),
# and poisson3d:32/48/64 to see up to what size the one launch pays (the default's threshold).
set -uo pipefail
t0=$SECONDS
export CLKR_GPU_TEST_PASSES=nvidia CLKR_GPU_TEST_JOBS=8 CLKR_COMMIT=$1
export CLKR_GPU_TEST_FILTER='CoarseCycle|WholeCycle'
timeout 200 bash .ci/gpu-test .carry
echo "suite rc=$? $((SECONDS - t0)) s"
res=whole; rm -rf $res; mkdir -p $res
pack() { tar czf $OUT/$res.tgz $res 2>/dev/null; }
export CLKR_DEVICE=nvidia CLKR_CACHE_DIR=$PWD/build-gpu-test/kernel-cache
b=build-gpu-test/clkr
params=$CLKR_CACHE_DIR/params/NVIDIA_H200_$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1).txt
mkdir -p $(dirname $params)
left() { echo $((585 - SECONDS)); }
cfg() {
  case $1 in
    off) rm -f $params ;;
    whole) printf 'amg_cycle.fine_max_rows = 1000000\n' >$params ;;
    lanes8) printf 'amg_cycle.fine_max_rows = 1000000\namg_cycle.lanes = 8\n' >$params ;;
    lanes32) printf 'amg_cycle.fine_max_rows = 1000000\namg_cycle.lanes = 32\n' >$params ;;
    groups2) printf 'amg_cycle.fine_max_rows = 1000000\namg_cycle.groups_per_compute_unit = 2\n' >$params ;;
    wg256) printf 'amg_cycle.fine_max_rows = 1000000\namg_cycle.work_group_size = 256\n' >$params ;;
  esac
}
table() {  # json: iterations, solve, the preconditioner's kernels
  python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ks = [k for k in d['kernels'] if k['blas'] == 'preconditioner']
ks.sort(key=lambda k: -k['seconds'])
row = ', '.join('%s %d x %.1f us' % (k['name'], k['calls'], k['seconds'] / max(k['calls'], 1) * 1e6) for k in ks[:6])
print(sys.argv[1], 'its', d['iterations'], 'solve %.2f ms' % (d['solve_seconds'] * 1e3), '|', row)
PY
}
m=.carry/matrices
set -- $m/bcsstk17.mtx.gz $m/bcsstk16.mtx.gz $m/s2rmq4m1.mtx.gz $m/s1rmq4m1.mtx.gz $m/s2rmt3m1.mtx.gz $m/bcsstk25.mtx.gz
for round in 1 2; do
  for c in off whole; do
    cfg $c
    methods=amg,amg-single; [ $round = 1 ] && [ $c = off ] && methods=cg,jacobi,amg,amg-single
    timeout $(left) $b bench solve "$@" --methods $methods --peers none --reps 3 --maxit 40000 \
      --csv $res/suitesparse_${c}_$round.csv >/dev/null 2>&1
    echo "$c round $round: $((SECONDS - t0)) s"; pack
  done
done
for c in off whole lanes8 lanes32 groups2 wg256; do
  cfg $c
  for name in s2rmt3m1 bcsstk17; do
    timeout 60 $b solve $m/$name.mtx.gz --precond amg --json >$res/${name}_$c.json 2>$res/${name}_$c.err &&
      table $res/${name}_$c.json
  done
  pack
done
for c in off whole; do
  cfg $c
  timeout $(left) $b bench solve poisson3d:32 poisson3d:48 poisson3d:64 jumping3d:48 --methods amg,amg-single \
    --peers none --reps 3 --csv $res/poisson_$c.csv 2>&1 | grep -E "^(poisson|jumping)"
  pack
done
rm -f $params
echo "all done $((SECONDS - t0)) s"; pack
