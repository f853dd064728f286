#!/usr/bin/env bash
# Two processes running persistent CG on one GPU at once (issue 14, item 6): each solves the same
# systems ROUNDS times with `clkr solve --cg-path persistent`, both started together, so their
# persistent kernels contend for the GPU's compute units. Each solve must converge with a true residual
# below 1e-7; when a launch cannot have all its work-groups resident it is aborted and the solve starts
# over on the fused path (the designed fallback, unit-tested by
# PersistentCgPath.FallsBackToTheFusedPathWhenABarrierTimesOut): the script counts, per process, the
# solves that fell back (their JSON lists both the cg_persistent and the fused cg_update_xr kernels).
#
#   bash benchmarks/two_process_persistent_cg.sh [CLKR] [DEVICE] [ROUNDS]
#
# CLKR: the built program (build/clkr); DEVICE: a selector (nvidia); ROUNDS: solves per matrix (20).
# Exit code 0 when every solve of both processes converged; the summary goes to stdout.
set -euo pipefail
clkr=${1:-build/clkr}
device=${2:-nvidia}
rounds=${3:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Small enough for the persistent kernel's row limit on every device's defaults; poisson3d:40 has 64 k rows.
matrices=(poisson2d:200 poisson3d:40 poisson3d:24)

run_process() {
  local id=$1
  for ((round = 0; round < rounds; ++round)); do
    for m in "${matrices[@]}"; do
      "$clkr" solve "$m" --device "$device" --format csr --cg-path persistent --tol 1e-8 --json >"$work/$id-$round-${m//:/_}.json"
    done
  done
}

start=$(date +%s.%N)
run_process a &
pid_a=$!
run_process b &
pid_b=$!
status=0
wait "$pid_a" || status=1
wait "$pid_b" || status=1
end=$(date +%s.%N)

python3 - "$work" "$rounds" "${#matrices[@]}" "$status" "$start" "$end" <<'EOF'
import json, pathlib, sys
work, rounds, per_round, status, start, end = sys.argv[1:7]
expected = 2 * int(rounds) * int(per_round)
solves = {"a": [], "b": []}
for path in sorted(pathlib.Path(work).glob("*.json")):
    solves[path.name[0]].append(json.loads(path.read_text()))
bad = 0
for process, results in solves.items():
    kernels = [{k["name"] for k in r.get("kernels", [])} for r in results]
    fell_back = sum(1 for names in kernels if "cg_persistent" in names and "cg_update_xr" in names)
    persistent_only = sum(1 for names in kernels if "cg_persistent" in names and "cg_update_xr" not in names)
    failed = [r for r in results if not r["converged"] or r["true_relative_residual"] > 1e-7]
    bad += len(failed)
    print(f"process {process}: {len(results)} solves, {len(failed)} not converged, "
          f"{persistent_only} persistent to the end, {fell_back} fell back to the fused path")
    for r in failed:
        print(f"  {r['matrix']}: {r['status']} ({r['message']}), true residual {r['true_relative_residual']:.2e}")
total = sum(len(r) for r in solves.values())
print(f"{total} of {expected} solves reported, wall {float(end) - float(start):.1f} s")
sys.exit(0 if bad == 0 and total == expected and status == "0" else 1)
EOF
