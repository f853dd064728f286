#!/usr/bin/env bash
# Plots the two-GPU run of benchmarks/run_gpu_dist.sh (docs/distributed.md) with gnuplot:
#   dist_scaling.png  one CG variant, double, time per iteration per problem: the single-device fused CG,
#                     the distributed CG on 1 rank, on 2 ranks, and the ideal (1 rank / 2 for strong
#                     scaling; 1 rank on half the rows for weak scaling), with the communication share
#                     of the 2-rank runs printed above their bars.
# Usage: plot_dist.sh RESULTS_DIR [OUT_DIR [VARIANT [GPUS]]]   (RESULTS_DIR holds single_device.csv,
#        strong_np1.csv, strong_np2.csv and weak_np2.csv; OUT_DIR defaults to RESULTS_DIR, VARIANT to
#        classic, GPUS, the cards' name for the title, to H200s)
set -euo pipefail
if [ $# -lt 1 ] || [ "$1" = "-h" ] || [ "$1" = "--help" ]; then
  sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
results=$1
out=${2:-$1}
variant=${3:-classic}
gpus=${4:-H200s}
command -v gnuplot >/dev/null || { echo "plot_dist.sh: gnuplot is not installed" >&2; exit 1; }
data=$(mktemp)
trap 'rm -f "$data"' EXIT

# One row per bar group: label, fused 1 GPU, 1 rank, 2 ranks, ideal (ms), 2-rank communication share (%).
python3 - "$results" "$variant" >"$data" <<'EOF'
import csv, sys, os
d, variant = sys.argv[1], sys.argv[2]
def rows(name):
    path = os.path.join(d, name)
    return list(csv.DictReader(open(path))) if os.path.exists(path) else []
def ms(rs, matrix, key='seconds_per_iteration'):
    for r in rs:
        if r['matrix'] == matrix and r.get('variant', 'classic') == variant:
            return float(r[key]) * (1e3 if key != 'communication_share' else 100)
    return float('nan')
fused = {r['matrix']: float(r['wall_s_per_iter_median']) * 1e3 for r in rows('single_device.csv')}
np1, np2, weak = rows('strong_np1.csv'), rows('strong_np2.csv'), rows('weak_np2.csv')
for m in ('poisson3d:192', 'poisson3d:256'):
    one = ms(np1, m)
    print(f'"{m} strong" {fused.get(m, float("nan")):.4f} {one:.4f} {ms(np2, m):.4f} {one / 2:.4f} '
          f'{ms(np2, m, "communication_share"):.0f}')
for big, small in (('poisson3d:242', 'poisson3d:192'), ('poisson3d:323', 'poisson3d:256')):
    one = ms(np1, small)
    print(f'"{big} weak" {fused.get(small, float("nan")):.4f} {one:.4f} {ms(weak, big):.4f} {one:.4f} '
          f'{ms(weak, big, "communication_share"):.0f}')
EOF

gnuplot <<EOF
set terminal pngcairo size 1000,560 font ",11"
set output '$out/dist_scaling.png'
set title "Distributed CG ($variant, double, CSR) on two $gpus: time per iteration"
set ylabel "ms per iteration"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set key below
set grid ytics
set yrange [0:*]
set xtics nomirror
plot '$data' using 2:xtic(1) title "fused CG, 1 GPU (no MPI)", \
     '' using 3 title "distributed, 1 rank", \
     '' using 4 title "distributed, 2 ranks (label: communication share)", \
     '' using 5 title "ideal (1 rank / 2; weak: 1 rank on half the rows)", \
     '' using (\$0):(\$4):(sprintf("%d%%", \$6)) with labels offset 1.6,0.7 notitle
EOF
echo "wrote $out/dist_scaling.png"
