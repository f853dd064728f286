#!/usr/bin/env bash
# Issue 13, item 3 on the GPU machine: CG per iteration with A in DIA against CSR, ELL, SELL and what
# --format auto picks, on poisson3d:192, :128 (fused CG) and :64 (persistent) in double and single; the SpMV alone per
# format; DIA solves (fused and persistent path) checked against the host reference in three
# precisions; and a short table of milliseconds per iteration against CSR. The target
# (docs/performance-formats.md, "DIA"): DIA CG on poisson3d:192 in double at least 15% faster than CSR's
# 0.366 ms per iteration, predicted from the bytes at 0.30 ms. About 2 minutes after the build on an
# H200. Results in ./gpu-dia (and $OUT/gpu-dia.tgz on the lent machine, rewritten after every step).
#   usage: benchmarks/run_gpu_dia.sh [BUILD_DIR]   (built here when BUILD_DIR/clkr is missing; default build-gpu)
set -uo pipefail
build=${1:-build-gpu}
out=gpu-dia
sections=all
source "$(dirname "$0")/gpu_run_steps.sh"

if [ ! -x "$build/clkr" ]; then
  step "build"
  build_clkr . "$build" "$out/build.log" -- clkr_app
fi
export CLKR_DEVICE=${CLKR_DEVICE:-nvidia} CLKR_CACHE_DIR=${CLKR_CACHE_DIR:-$PWD/$build/kernel-cache}
bin=$build/clkr
$bin devices --no-check 2>/dev/null | grep -E '^ \*' | tee -a "$out/gpu.txt"

step "what --format auto picks, and why"
for m in poisson3d:64 poisson3d:128 poisson3d:192; do
  echo "$m: $($bin info "$m" | grep -E '^(diagonals|auto format)' | tr '\n' ' ')"
done | tee "$out/auto.txt"

# poisson3d:64 (262,144 rows) runs plain CG as the persistent kernel on NVIDIA, poisson3d:128 (2.1 M
# rows, past cg.persistent_max_rows) on the fused path.
step "DIA solves checked against the host reference (persistent and fused CG)"
for m in poisson3d:64 poisson3d:128; do
  for prec in double qdouble single; do
    tol=1e-10
    [ $prec = single ] && tol=1e-5
    timeout 120 $bin solve $m --format dia --precision $prec --tol $tol --verify --json \
      >"$out/check.json" 2>"$out/check.err"
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(sys.argv[2], {k: d.get(k) for k in ('status','iterations','true_relative_residual')}, 'max |x - x_ref| / max |x_ref|', d.get('verify',{}).get('max_relative_difference'))" \
      "$out/check.json" "$m dia $prec" || cat "$out/check.err"
  done
done | tee "$out/check.txt"

# poisson3d:64 runs csr, dia and auto on the persistent kernel (ell and sell on the fused path).
step "CG, 200 iterations (tolerance 0), 5 repetitions: csr, ell, sell, dia, auto in double and single"
$bin bench cg poisson3d:192 poisson3d:128 poisson3d:64 --formats csr,ell,sell,dia,auto --precisions double,single \
  --iterations 200 --reps 5 --peers none --csv "$out/cg.csv" --json "$out/cg.json" 2>"$out/cg.err" |
  tee "$out/cg.txt"

step "SpMV alone per format (kernel time, 20 calls)"
$bin bench spmv poisson3d:192 --formats csr,ell,sell,dia --precisions double,single --reps 20 \
  --csv "$out/spmv.csv" 2>/dev/null | tee "$out/spmv.txt"

step "summary: CG milliseconds per iteration (median wall clock), and the change against CSR"
python3 - "$out/cg.csv" <<'EOF' | tee "$out/summary.txt"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["implementation"] == "clkr" and r["status"] == "ok"]
ms = {(r["matrix"], r["precision"], r["format"]): 1e3 * float(r["wall_s_per_iter_median"]) for r in rows}
print(f"{'matrix':<16} {'precision':<9} {'format':<10} {'ms/iter':>8} {'vs csr':>8}")
for (matrix, precision, fmt), t in sorted(ms.items()):
    csr = ms.get((matrix, precision, "csr"))
    change = f"{100 * (t / csr - 1):+.1f}%" if csr else "-"
    print(f"{matrix:<16} {precision:<9} {fmt:<10} {t:8.3f} {change:>8}")
print("target: poisson3d:192 double dia at most 0.85 x csr (issue 13: >= 15% faster; today's csr 0.366 ms)")
EOF

step "done"
