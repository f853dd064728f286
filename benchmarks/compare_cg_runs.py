#!/usr/bin/env python3
"""Compares `clkr bench cg` CSV files of two builds row by row: after / before of the median wall time
per iteration, keyed by matrix (its file name), implementation, format and precision; a row timed in
several files (rounds) takes the median of its medians. Prints every row, the rows slower than the
threshold, and the geometric mean; the exit code is 0 either way (a report, not a gate).
    usage: compare_cg_runs.py [--threshold 0.03] --before CSV... --after CSV...
"""
import argparse
import csv
import math
import os
import statistics
import sys


def read(paths):
    times = {}
    for path in paths:
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                if row.get("status", "") != "ok":  # skipped, unavailable, error: no time to compare
                    continue
                value = row.get("wall_s_per_iter_median", "")
                if not value:
                    continue
                key = (os.path.basename(row["matrix"]), row["implementation"], row["format"], row["precision"])
                times.setdefault(key, []).append(float(value))
    return {k: statistics.median(v) for k, v in times.items()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threshold", type=float, default=0.03)
    parser.add_argument("--before", nargs="+", required=True)
    parser.add_argument("--after", nargs="+", required=True)
    args = parser.parse_args()
    before, after = read(args.before), read(args.after)
    common = sorted(set(before) & set(after))
    if not common:
        print("no row appears in both runs")
        return 0
    print(f"{'matrix':<16} {'impl':<10} {'format':<8} {'precision':<9} {'before ms':>10} {'after ms':>10} {'after/before':>12}")
    slower, logs = [], []
    for key in common:
        ratio = after[key] / before[key]
        logs.append(math.log(ratio))
        flag = "  <-- slower" if ratio > 1 + args.threshold else ""
        if flag:
            slower.append((key, ratio))
        print(f"{key[0]:<16} {key[1]:<10} {key[2]:<8} {key[3]:<9} {before[key] * 1e3:10.4f} {after[key] * 1e3:10.4f}"
              f" {ratio:12.3f}{flag}")
    print(f"\n{len(common)} rows; geometric mean after/before {math.exp(sum(logs) / len(logs)):.3f}; "
          f"{len(slower)} slower by more than {args.threshold:.0%}")
    for key, ratio in slower:
        print(f"  {' '.join(key)}: {ratio:.3f}")
    only = sorted((set(before) | set(after)) - set(common))
    if only:
        print(f"{len(only)} rows in one run only: " + ", ".join(" ".join(k) for k in only[:12]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
