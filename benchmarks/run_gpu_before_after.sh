#!/usr/bin/env bash
# Two builds of clkr timed on one GPU in one call: the CG table of the GPU benchmark set
# (run_gpu_benchmarks.sh: poisson3d:128/192 and the largest SPD matrices of ../shared/matrices in CSR,
# ELL and HYB, three precisions, 500 iterations; poisson3d:24-128 in CSR, double), once with this tree
# and once with an older source tree, in alternating rounds so that drift of the machine falls on both.
# It answers "did a change slow any row of the set down?" (issue 13: no regression over 3%):
# benchmarks/compare_cg_runs.py prints after / before per row, flagged past the threshold.
#   usage: benchmarks/run_gpu_before_after.sh CARRY_DIR BEFORE_DIR [ROUNDS]
#     CARRY_DIR: holds matrices/ (.ci/gpu-carry); BEFORE_DIR: the older source, e.g. made on the development
#     machine with `mkdir -p .carry/before && git archive REV | tar -x -C .carry/before` (carried with
#     .carry); ROUNDS: before/after pairs (default 1)
# Results land in ./gpu-before-after (and $OUT/gpu-before-after.tgz after every step).
set -uo pipefail
source "$(dirname "$0")/carried_matrix.sh"
carry=${1:?usage: run_gpu_before_after.sh CARRY_DIR BEFORE_DIR [ROUNDS]}
before_src=${2:?usage: run_gpu_before_after.sh CARRY_DIR BEFORE_DIR [ROUNDS]}
rounds=${3:-1}
out=gpu-before-after
source "$(dirname "$0")/gpu_run_steps.sh"

build() {  # build SOURCE_DIR BUILD_DIR: the clkr program alone
  build_clkr "$1" "$2" "$out/build-$(basename "$2").log" -DCLKR_BUILD_EXAMPLES=OFF -- clkr_app
}
step "build the older tree ($before_src) and this one"
build "$before_src" build-before &
build . build-after
wait $! || exit 1
export CLKR_DEVICE=${CLKR_DEVICE:-nvidia}

# The matrices uncompressed: an older reader may not take .gz.
mats="poisson3d:128 poisson3d:192"
mkdir -p "$out/matrices"
for m in bcsstk17.mtx bcsstk16.mtx s2rmq4m1.mtx s3rmq4m1.mtx s1rmq4m1.mtx bcsstk25.mtx s2rmt3m1.mtx s3rmt3m1.mtx; do
  f=$(carried "$m")
  if [ -z "$f" ]; then
    echo "note: $m not carried, left out"
    continue
  fi
  case "$f" in *.gz) gunzip -c "$f" >"$out/matrices/$m" ;; *) cp "$f" "$out/matrices/$m" ;; esac
  mats="$mats $out/matrices/$m"
done

for round in $(seq 1 "$rounds"); do
  for which in before after; do
    bin=build-$which/clkr
    export CLKR_CACHE_DIR=$PWD/build-$which/kernel-cache
    step "round $round, $which: CG table (CSR, ELL, HYB; three precisions)"
    $bin bench cg $mats --formats csr,ell,hyb --precisions double,single,qdouble --iterations 500 --reps 5 \
      --peers none --csv "$out/cg_${which}_$round.csv" 2>"$out/cg_${which}_$round.err" | tail -4
    step "round $round, $which: CG in CSR by size"
    $bin bench cg poisson3d:24 poisson3d:40 poisson3d:64 poisson3d:96 --formats csr --precisions double \
      --iterations 500 --reps 5 --peers none --csv "$out/sizes_${which}_$round.csv" \
      2>"$out/sizes_${which}_$round.err" | tail -2
  done
done
step "compare"
python3 "$(dirname "$0")/compare_cg_runs.py" --threshold 0.03 \
  --before "$out"/cg_before_*.csv "$out"/sizes_before_*.csv --after "$out"/cg_after_*.csv "$out"/sizes_after_*.csv |
  tee "$out/compare.txt"
step "done"
