#!/usr/bin/env bash
# The Gauss-Seidel ranges' minimum (48362ee, HybridGaussSeidel::kMinRangeEntries) timed on the GPU
# machine's host cores: the clkr program built at 48362ee^ (one range per thread) and at the current
# tree, the stiff SPD set on the host backend with the Gauss-Seidel smoother, two rounds alternating
# the binaries. Run from the repository root on the lent machine, the old tree carried in
# .carry/gs-before (git archive 48362ee^).
set -uo pipefail
carry=.carry
source benchmarks/carried_matrix.sh
out=${OUT:-.}/gs-ranges
mkdir -p "$out"
nproc | sed 's/^/host cores: /' | tee "$out/host.txt"
for tree in before after; do
  src=$([ $tree = before ] && echo "$carry/gs-before" || echo .)
  cmake -S "$src" -B build-gs-$tree -DCMAKE_BUILD_TYPE=Release -DCLKR_BUILD_TESTS=OFF -DCLKR_BUILD_BENCHMARKS=OFF \
    -DCLKR_BUILD_EXAMPLES=OFF -DCLKR_BUILD_PYTHON=OFF >"$out/build-$tree.log" 2>&1 &&
    cmake --build build-gs-$tree -j"$(nproc)" --target clkr_app >>"$out/build-$tree.log" 2>&1 ||
    { tail -30 "$out/build-$tree.log"; exit 1; }
done
suite=""
for m in bcsstk17.mtx.gz bcsstk16.mtx s2rmq4m1.mtx s1rmq4m1.mtx bcsstk25.mtx s2rmt3m1.mtx; do
  f=$(carried "$m")
  [ -n "$f" ] && suite="$suite $f"
done
for round in 1 2; do
  for tree in before after; do
    echo "=== round $round, $tree ($(date +%T))"
    CLKR_CACHE_DIR=$PWD/build-gs-$tree/kernel-cache build-gs-$tree/clkr bench solve $suite \
      --methods host:amg-gs,host:amg-gs-plain --peers none --reps 3 --maxit 40000 \
      --csv "$out/gs_${tree}_$round.csv" 2>"$out/gs_${tree}_$round.err" | grep clkr- | tee "$out/gs_${tree}_$round.txt"
  done
done
