#!/usr/bin/env bash
# Writes bench/README.md: one table of the ratios of one bench/run-all.sh
# run, with the run's commit, date and machine. Nothing in that file is
# typed by hand; run this again after a new run-all.
#
#   bench/report.sh [RATIOS [OUTPUT]]
#
# RATIOS is the ratios.tsv that run-all.sh writes (default
# build/bench/ratios.tsv): "# key: value" lines (commit, date, nproc,
# model, kernel, and optionally machine, source, stolen, did not run),
# then one tab-separated line per ratio:
#
#   bench case what ratio goal verdict peer ours theirs [limit]
#
# with "-" for an empty field. A tenth field, where present, is the
# limit beside the case as that run measured it; without one the table
# says what bounds the case (the same for every run).
# OUTPUT defaults to bench/README.md. When RATIOS is another file than
# bench/last-run.tsv it is copied there, so the committed table keeps its
# source beside it.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
IN=${1:-$TOP/build/bench/ratios.tsv}
OUTPUT=${2:-$TOP/bench/README.md}
LAST=$TOP/bench/last-run.tsv
[ -r "$IN" ] || { echo "report.sh: no $IN: run bench/run-all.sh first" >&2; exit 1; }

# head KEY: the value of the "# KEY: value" line of the run's head.
head_of() {
	sed -n "s/^# $1: //p" "$IN" | head -n 1
}

# limit BENCH CASE WHAT PEER: what bounds the case on the machine, where
# the benchmark prints it (the same words as docs/benchmarks.md).
limit() {
	case "$1|$2|$3|$4" in
	"list|"*"|time|"*) echo "the emulator alone answering the same lists (curl, one after another): list.sh prints it" ;;
	"list-scale|"*"|time|kubectl") echo "curl of every list runai asks for, one after another: list-scale.sh prints it" ;;
	"list-scale|"*"|time|curl"*) echo "the emulator alone: this ratio is ours over that floor" ;;
	"cp-list|"*"|time|"*) echo "curl of the same pages, one after another: this ratio is ours over that floor" ;;
	"cp-list|"*"|memory|"*) echo "one page of workloads; the rows kept to sort and align the table grow with the workloads" ;;
	"startup|"*) echo "the 36 shared libraries Debian's libcurl loads: runai version is 97% the dynamic loader" ;;
	"portforward|"*"|time|"*) echo "curl straight to the pod's server, and the emulator's relay: portforward.sh prints both" ;;
	"push|"*"|time|skopeo") echo "a raw curl upload of the same blobs (the registry's speed)" ;;
	"push|"*"|time|curl upload") echo "the registry itself: this ratio is ours over that floor" ;;
	"stream|exec"*"|time|"*) echo "the emulator's relay CPU: stream.sh's CPU table" ;;
	"stream|logs"*"|time|"*) echo "curl of the same log (the emulator's speed)" ;;
	"rntop|--once, "*"|time|parallel-ssh") echo "the hosts' sshd and nvidia-smi on the same cores; rntop with /bin/true as nvidia-smi: rntop.sh prints it" ;;
	"rntop|--once owners, "*"remote cost off|time|"*) echo "rntop's own work and the emulator's: the hosts' nvidia-smi answers are cached" ;;
	"rntop|--once owners"*"|time|"*) echo "a second nvidia-smi start per host, on this machine's cores" ;;
	*) echo "-" ;;
	esac
}

commit=$(head_of commit)
date=$(head_of date)
machine=$(head_of machine)
if [ -z "$machine" ]; then
	machine="$(head_of nproc) CPUs, $(head_of model), $(head_of kernel)"
fi
source=$(head_of source)
stolen=$(head_of stolen)
skipped=$(head_of "did not run")

{
	cat <<'EOF'
# Benchmark results

This file is written by `bench/report.sh` from the table of one
`bench/run-all.sh` run; do not edit it by hand. To make a new one:

```sh
make && bench/run-all.sh && bench/report.sh
```

What each benchmark measures, against which peer, and what bounds each
case is in [docs/benchmarks.md](../docs/benchmarks.md). Compare numbers
only between runs on one machine.

The columns:

- **case**: the benchmark and what it measured, with the kind of
  number: time (median wall seconds), memory (median peak resident
  KiB) or cpu (CPU seconds).
- **ours**: the median of runai, runai-adm or rntop.
- **peer**: the program measured beside it in the same run, taking
  turns with it, and its median.
- **ratio**: ours / peer. Below 1 is better.
- **goal**: the bound the project set for the ratio, and whether this
  run met it (`ok`) or not (`MISS`); `-`: no bound.
- **the limit**: what no client can go below on the bench's machine,
  which the benchmark measures beside the case.

EOF
	echo "## The last run"
	echo
	echo "- Commit: \`$commit\`"
	echo "- Date: $date"
	echo "- Machine: $machine"
	[ -z "$source" ] || echo "- Source: $source"
	[ -z "$stolen" ] || echo "- CPU time taken by the hypervisor, per benchmark: $stolen"
	[ -z "$skipped" ] || echo "- Did not run: $skipped"
	echo
	echo "| case | ours | peer | ratio | goal | the limit |"
	echo "| --- | --- | --- | --- | --- | --- |"
	while IFS= read -r line; do
		case $line in '#'*|'') continue ;; esac
		IFS=$'\x1f' read -r bench case what ratio goal verdict peer ours theirs lim \
			< <(printf '%s\n' "$line" | tr '\t' '\037')
		[ -n "${lim:-}" ] && [ "$lim" != - ] || lim=$(limit "$bench" "$case" "$what" "$peer")
		[ "$theirs" = - ] || peer="$peer: $theirs"
		g=-
		[ "$goal" = - ] || g="≤ $goal $verdict"
		printf '| %s: %s (%s) | %s | %s | %s | %s | %s |\n' \
			"$bench" "$case" "$what" "$ours" "$peer" "$ratio" "$g" "$lim"
	done <"$IN"
	echo
	echo "## Scale curves"
	echo
	echo "How the cost grows with the cluster (bench/plot.sh, from this table's"
	echo "list-scale and cp-list rows and bench/rntop-scale.md; logarithmic"
	echo "axes: a straight line of slope 1 is linear growth):"
	echo
	echo "![runai list -A and rntop by cluster size](scale.png)"
} >"$OUTPUT.new"
mv "$OUTPUT.new" "$OUTPUT"
if [ "$(cd "$(dirname "$IN")" && pwd)/$(basename "$IN")" != "$LAST" ]; then
	cp "$IN" "$LAST"
fi
echo "wrote ${OUTPUT#"$TOP"/} from $IN"
# the curves beside it, from the same rows (kept as they were where
# gnuplot is not installed: plot.sh says so)
"$TOP/bench/plot.sh" "$IN" "$TOP/bench/rntop-scale.md" "$(dirname "$OUTPUT")/scale.png" ||
	echo "report.sh: bench/scale.png not redrawn" >&2
