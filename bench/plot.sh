#!/usr/bin/env bash
# Draws the scale curves of the last runs as one PNG (gnuplot, Debian's
# gnuplot-nox): how runai's and rntop's cost grows with the cluster.
#
#   bench/plot.sh [RATIOS [RNTOP_TABLE [OUTPUT]]]
#
# RATIOS (default bench/last-run.tsv) gives the list-scale and cp-list
# rows (ours and the peer's numbers at each size); RNTOP_TABLE (default
# bench/rntop-scale.md) the first table of bench/rntop-scale.sh's
# results (hosts, then its columns in order). OUTPUT defaults to
# bench/scale.png; bench/report.sh links it from bench/README.md.
# Four panels, both axes logarithmic where sizes span decades, so a
# straight line of slope 1 is linear growth:
#   list -A time and peak memory, runai and kubectl, by jobs
#   control-plane list jobs -A time, runai and curl of the same pages
#   rntop peak memory (--once and live) and CPU by hosts
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
RATIOS=${1:-$TOP/bench/last-run.tsv}
RNTOP=${2:-$TOP/bench/rntop-scale.md}
OUTPUT=${3:-$TOP/bench/scale.png}
command -v gnuplot >/dev/null ||
	{ echo "plot.sh: gnuplot is not installed (Debian: gnuplot-nox; make deps)" >&2; exit 1; }
[ -r "$RATIOS" ] || { echo "plot.sh: cannot read $RATIOS" >&2; exit 1; }
[ -r "$RNTOP" ] || { echo "plot.sh: cannot read $RNTOP" >&2; exit 1; }

DATA=$(mktemp -d)
trap 'rm -rf "$DATA"' EXIT

# scale_rows BENCH WHAT PEER-PREFIX: "size ours theirs" for each size of
# BENCH's WHAT rows against that peer (numbers without their units),
# smallest size first.
scale_rows() {
	awk -F'\t' -v b="$1" -v w="$2" -v p="$3" '
		$1 == b && $3 == w && index($7, p) == 1 {
			n = $2; gsub(/[^0-9]/, "", n)
			split($8, o, " "); split($9, t, " ")
			print n, o[1], t[1]
		}' "$RATIOS" | sort -n
}
scale_rows list-scale time kubectl >"$DATA/list-time"
scale_rows list-scale memory kubectl >"$DATA/list-mem"
scale_rows cp-list time curl >"$DATA/cp-time"

# The first results table of rntop-scale.md: rows that start with a
# number of hosts; the columns as bench/rntop-scale.sh writes them.
awk -F'|' '
	/^\| *[0-9]+ *\|/ { seen = 1; print $2, $3, $4, $5, $9, $10; next }
	seen { exit }' "$RNTOP" >"$DATA/rntop"

for f in list-time list-mem cp-time rntop; do
	[ -s "$DATA/$f" ] || { echo "plot.sh: no rows for $f in its source" >&2; exit 1; }
done

gnuplot <<EOF
set terminal pngcairo size 1200,900 font ",10" noenhanced
set output "$OUTPUT.new"
set multiplot layout 2,2 title "Scale curves: runai and rntop against their peers (bench/plot.sh)"
set key top left
set grid
set logscale xy
set format x "%.0f"

set title "runai list -A: wall time by jobs"
set xlabel "jobs"
set ylabel "seconds"
plot "$DATA/list-time" using 1:2 with linespoints title "runai", \
     "" using 1:3 with linespoints title "kubectl"

set title "runai list -A: peak memory by jobs"
set ylabel "KiB"
plot "$DATA/list-mem" using 1:2 with linespoints title "runai", \
     "" using 1:3 with linespoints title "kubectl"

set title "control plane list jobs -A: wall time by workloads"
set xlabel "workloads"
set ylabel "seconds"
plot "$DATA/cp-time" using 1:2 with linespoints title "runai", \
     "" using 1:3 with linespoints title "curl of the same pages"

set title "rntop over simulated SSH hosts"
set xlabel "hosts"
set ylabel "KiB (peak)"
set y2label "CPU seconds (--once)"
set logscale y2
set y2tics
plot "$DATA/rntop" using 1:5 with linespoints title "live peak memory", \
     "" using 1:4 with linespoints title "--once peak memory", \
     "" using 1:3 axes x1y2 with linespoints title "--once CPU s (right)"
unset multiplot
EOF
mv "$OUTPUT.new" "$OUTPUT"
echo "wrote ${OUTPUT#"$TOP"/}"
