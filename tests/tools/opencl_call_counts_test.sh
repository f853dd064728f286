#!/usr/bin/env bash
# The fused CG enqueues the same OpenCL commands every iteration and nothing periodic: counted by the
# interposer (benchmarks/opencl_call_counts.c) around `clkr solve` at 64 and at 128 iterations, every
# kind of command and every kernel grows by a multiple of 64. (The grouped solution's join as an AXPY
# and a fill every 32 iterations grew them by 2: 3-6 us an iteration on an H100's small systems.)
#   usage: opencl_call_counts_test.sh CLKR INTERPOSER
set -euo pipefail
clkr=$1
interposer=$2
counts() {  # ITERATIONS FORMAT: "key|count" lines
  # A tolerance of 0 is never reached: `clkr solve` exits 1 (not converged) by design, 2 on an error.
  local out status=0
  out=$(LD_PRELOAD=$interposer "$clkr" solve poisson3d:8 --format "$2" --cg-path fused --tol 0 --maxit "$1" 2>&1 \
    >/dev/null) || status=$?
  if ((status > 1)); then
    echo "clkr solve failed ($status): $out" >&2
    exit 1
  fi
  sed -n 's/^opencl_call_counts: //p' <<<"$out" | awk '{ n = $NF; $NF = ""; sub(/ +$/, ""); print $0 "|" n }' | sort
}
status=0
for format in ell csr; do
  short=$(counts 64 "$format")
  long=$(counts 128 "$format")
  if ! grep -q '^kernel cg_update_xr|' <<<"$long"; then
    echo "FAIL ($format): the interposer counted no cg_update_xr launch:"
    echo "$long"
    exit 1
  fi
  # Every key of the longer solve against the shorter's count (0 where the shorter had none).
  while IFS='|' read -r key n; do
    before=$(grep -F "$key|" <<<"$short" | head -1 | cut -d'|' -f2)
    grew=$((n - ${before:-0}))
    if ((grew % 64 != 0)); then
      echo "FAIL ($format): '$key' grew by $grew over 64 more iterations (${before:-0} -> $n): not a whole number a step"
      status=1
    else
      echo "ok ($format): '$key' $((grew / 64)) an iteration"
    fi
  done <<<"$long"
done
exit $status
