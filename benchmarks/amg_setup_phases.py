#!/usr/bin/env python3
"""The AMG setup's phases with what each asked of the device (`clkr solve --json`: setup_phases and
setup_commands), medians of fresh processes: time, launches, waits and the time spent in them,
transfers, allocations and the time spent in them, and what is left (the host's own work, launch
overheads, releases). Prints one table per matrix, then the totals.

    usage: benchmarks/amg_setup_phases.py [--clkr build/clkr] [--reps 3] [--extra "--amg-setup device"]
                                          [--csv FILE] MATRIX...

--csv writes one row per matrix and phase (the medians above), the phase "total" last.
"""
import argparse
import csv
import json
import shlex
import statistics
import subprocess
import sys

FIELDS = ["launches", "waits", "wait_seconds", "reads", "read_bytes", "writes", "write_bytes", "allocations",
          "allocated_bytes", "allocation_seconds"]


def run(clkr, matrix, extra):
    command = [clkr, "solve", matrix, "--precond", "amg", "--json"] + shlex.split(extra)
    done = subprocess.run(command, capture_output=True, text=True)
    try:
        return json.loads(done.stdout)["preconditioner"]
    except (json.JSONDecodeError, KeyError):
        sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--clkr", default="build/clkr")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--extra", default="--amg-setup device")
    parser.add_argument("--csv", help="write the medians, one row per matrix and phase")
    parser.add_argument("matrices", nargs="+")
    args = parser.parse_args()
    rows = []
    for matrix in args.matrices:
        runs = [run(args.clkr, matrix, args.extra) for _ in range(args.reps)]
        phases = list(runs[0]["setup_phases"])
        print(f"# {matrix} ({args.extra}), medians of {len(runs)} processes: setup "
              f"{statistics.median(r['setup_seconds'] for r in runs) * 1e3:.1f} ms, "
              f"{len(runs[0]['levels'])} levels")
        print(f"{'phase':24s} {'ms':>8s} {'launch':>7s} {'waits':>6s} {'wait ms':>8s} {'reads':>6s} {'read MB':>8s} "
              f"{'writes':>6s} {'alloc':>6s} {'alloc MB':>9s} {'alloc ms':>8s} {'rest ms':>8s}")
        totals = {f: 0.0 for f in FIELDS + ["ms", "rest"]}
        for phase in phases:
            ms = statistics.median(r["setup_phases"][phase] for r in runs) * 1e3
            c = {f: statistics.median(r.get("setup_commands", {}).get(phase, {}).get(f, 0) for r in runs)
                 for f in FIELDS}
            rest = ms - 1e3 * (c["wait_seconds"] + c["allocation_seconds"])
            print(f"{phase:24s} {ms:8.1f} {c['launches']:7.0f} {c['waits']:6.0f} {c['wait_seconds'] * 1e3:8.1f} "
                  f"{c['reads']:6.0f} {c['read_bytes'] / 1e6:8.2f} {c['writes']:6.0f} {c['allocations']:6.0f} "
                  f"{c['allocated_bytes'] / 1e6:9.1f} {c['allocation_seconds'] * 1e3:8.1f} {rest:8.1f}")
            for f in FIELDS:
                totals[f] += c[f]
            totals["ms"] += ms
            totals["rest"] += rest
            rows.append(dict(matrix=matrix, phase=phase, ms=ms, rest_ms=rest, **c))
        t = totals
        print(f"{'total':24s} {t['ms']:8.1f} {t['launches']:7.0f} {t['waits']:6.0f} {t['wait_seconds'] * 1e3:8.1f} "
              f"{t['reads']:6.0f} {t['read_bytes'] / 1e6:8.2f} {t['writes']:6.0f} {t['allocations']:6.0f} "
              f"{t['allocated_bytes'] / 1e6:9.1f} {t['allocation_seconds'] * 1e3:8.1f} {t['rest']:8.1f}", flush=True)
        setup_ms = statistics.median(r["setup_seconds"] for r in runs) * 1e3
        rows.append(dict(matrix=matrix, phase="total", ms=setup_ms, rest_ms=t["rest"], **{f: t[f] for f in FIELDS}))
    if args.csv:
        with open(args.csv, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=["matrix", "phase", "ms", "rest_ms"] + FIELDS)
            writer.writeheader()
            writer.writerows(rows)


if __name__ == "__main__":
    main()
