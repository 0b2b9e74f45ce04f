#!/usr/bin/env bash
# Runs every benchmark in bench/ (each prints its own detailed table) and
# ends with one table of all their ratios against the peer measured in
# the same run: below 1 means ours is faster or smaller. A benchmark that
# cannot run here (a peer missing) is reported and skipped.
#
#   bench/run-all.sh            (each benchmark with its own defaults)
#
# Build first (make). Numbers are for comparing runs on one machine.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
SUMMARY=$(mktemp)
trap 'rm -f "$SUMMARY"' EXIT
export RAI_BENCH_SUMMARY=$SUMMARY

failed=()
for b in "$TOP"/bench/*.sh; do
	name=${b##*/}
	case $name in run-all.sh|lib.sh) continue ;; esac
	echo "==== $name"
	if ! "$b"; then
		failed+=("$name")
	fi
	echo
done

echo "==== all ratios (ours / peer; below 1 is better)"
printf '%-8s  %-40s  %-7s  %6s  %s\n' bench case what ratio peer
while IFS=$'\t' read -r bench case what x peer; do
	printf '%-8s  %-40s  %-7s  %6s  %s\n' "$bench" "$case" "$what" "$x" "$peer"
done <"$SUMMARY"
if [ ${#failed[@]} -gt 0 ]; then
	echo "did not run: ${failed[*]}"
	exit 1
fi
