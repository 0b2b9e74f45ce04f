#!/usr/bin/env bash
# runai list projects / list nodes / list -A against kubectl get of the
# same objects, on one emulator holding 1,000 and then 10,000 jobs (each
# with its pod), then on a fresh one holding 1,000 distributed jobs
# (PyTorchJobs of 4 pods). Prints a table: median wall time and peak RSS of both,
# and their ratios (runai / kubectl: below 1 means runai is faster or
# smaller; the issue aims at 0.2 of the time and 0.25 of the memory for
# list -A). Numbers, not a pass/fail: compare runs on the same machine
# only. It also prints what one empty list costs on the emulator: that
# floor is the server's (Python), paid per request by both programs; and
# for each list -A, what the emulator alone takes to answer its largest
# list and every list runai asks for (curl, one after another): the part
# of runai's time no client asking for those lists can save.
#
#   bench/list.sh [RUNS]        (default 5 runs per measurement, median)
#
# LIST_SIZES (default "1000 10000") are the job counts of the first part;
# set it empty to measure the distributed jobs alone.
#
# Needs kubectl 1.32 at $KUBECTL (default the gcloud SDK's kubectl.1.32).
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${1:-5}
BIN=${RAI_BIN_DIR:-$TOP/build/default}
KUBECTL=${KUBECTL:-/usr/lib/google-cloud-sdk/bin/kubectl.1.32}
PY=/usr/bin/python3
[ -x "$BIN/runai" ] || { echo "build first: make" >&2; exit 1; }
[ -x "$KUBECTL" ] || { echo "kubectl 1.32 not found at $KUBECTL" >&2; exit 1; }

STATE=$(mktemp -d)
trap '"$TOP/tests/peers/peers" stop "$STATE"; rm -rf "$STATE"' EXIT
"$TOP/tests/peers/peers" start "$STATE" --demo
# shellcheck disable=SC1091
. "$STATE/env"
export KUBECONFIG="$STATE/kubeconfig" KUBECACHEDIR="$STATE/kcache"
cp "$KUBESIM_KUBECONFIG" "$KUBECONFIG"
# the /_sim credential goes through a file descriptor, not argv
simauth() {
	printf 'Authorization: Bearer %s\n' "$(cat "$KUBESIM_SIM_TOKEN_FILE")"
}
simapi() {
	curl -sS --fail-with-body --cacert "$KUBESIM_CA" -X POST -H @<(simauth) \
		-H 'Content-Type: application/json' --data-binary "$2" \
		"$KUBESIM_URL$1" >/dev/null
}
simapi /_sim/controller '{"paused": true}'

# shellcheck source=bench/lib.sh
. "$TOP/bench/lib.sh"

# What one request costs the emulator itself: the median of 7 GETs of an
# empty list through curl (a new connection each, as for a new process).
floor_ms() {
	local _
	for _ in 1 2 3 4 5 6 7; do
		curl -sS -o /dev/null -w '%{time_total}\n' --cacert "$KUBESIM_CA" \
			-H "Authorization: Bearer $KUBESIM_TOKEN" \
			"$KUBESIM_URL/apis/batch/v1/namespaces/runai-team-b/jobs?limit=500"
	done | sort -n | sed -n 4p | "$PY" -c 'import sys; print("%.1f" % (float(sys.stdin.read()) * 1000))'
}
echo "emulator: an empty list answers in $(floor_ms) ms (median of 7); runs per measurement: $RUNS (median)"
echo

# The emulator's own share of a list -A: the wall time of curl fetching
# its largest list (plain, as runai asks for it from a server on this
# machine) over a new connection,
# and of curl fetching every list runai asks for (taken from runai's
# own -v 6 trace), one after another on one connection. runai cannot
# finish before the first answer is in, nor, asking one list at a time,
# before the second; the rest is its own.
EMU=()
emulator_alone() {
	local t urls=() outs=() u
	read -r t _ < <(measure curl -sS -o /dev/null --cacert "$KUBESIM_CA" \
		-H "Authorization: Bearer $KUBESIM_TOKEN" "$KUBESIM_URL$2")
	EMU+=("$(printf '%-16s the emulator alone (curl of %s): %ss' "$1" "${2%%\?*}" "$t")")
	while read -r u; do
		urls+=("$u")
		outs+=(-o /dev/null)
	done < <(RUNAI_VERBOSITY=6 "$BIN/runai" list -A 2>&1 >/dev/null | awk '$1 == "GET" { print $2 }')
	read -r t _ < <(measure curl -sS "${outs[@]}" --cacert "$KUBESIM_CA" \
		-H "Authorization: Bearer $KUBESIM_TOKEN" "${urls[@]}")
	EMU+=("$(printf '%-16s the emulator alone (curl of all %d lists, one after another): %ss' "$1" "${#urls[@]}" "$t")")
}

FMT='%-6s  %-14s  %9s  %9s  %12s  %12s  %7s  %7s\n'
# shellcheck disable=SC2059
printf "$FMT" n command 'runai s' 'kubectl s' 'runai KiB' 'kubectl KiB' 'time x' 'mem x'
row() {
	local tx mx
	tx=$(ratio "$3" "$4") mx=$(ratio "$5" "$6")
	# shellcheck disable=SC2059
	printf "$FMT" "$1" "$2" "$3" "$4" "$5" "$6" "$tx" "$mx"
	[ "${7:-}" != nosummary ] || return 0
	summary list "$2, $1 jobs" time "$tx" kubectl "$3 s" "$4 s"
	summary list "$2, $1 jobs" memory "$mx" kubectl "$5 KiB" "$6 KiB"
}
have=0
for n in ${LIST_SIZES-1000 10000}; do
	simapi /_sim/bulk "{\"plural\": \"runaijobs\", \"namespace\": \"runai-team-a\", \"count\": $((n - have)), \"prefix\": \"job$n-\"}"
	have=$n
	{ read -r rt rm; read -r kt km; } < <(measure "$BIN/runai" list projects \
		--vs "$KUBECTL" get projects.run.ai)
	row "$n" "list projects" "$rt" "$kt" "$rm" "$km"
	# list nodes reads the nodes and every non-terminated pod; kubectl
	# does the same in two commands, so their times add up
	{ read -r rt rm; read -r kt1 km1; read -r kt2 km2; } < <(measure \
		"$BIN/runai" list nodes --vs "$KUBECTL" get nodes --vs "$KUBECTL" get pods -A \
		--field-selector=status.phase!=Succeeded,status.phase!=Failed)
	kt=$("$PY" -c "import sys; print('%.4f' % (float(sys.argv[1]) + float(sys.argv[2])))" "$kt1" "$kt2")
	km=$(( km1 > km2 ? km1 : km2 ))
	row "$n" "list nodes" "$rt" "$kt" "$rm" "$km"
	# list -A reads the projects' namespaces, the services, the
	# workloads of every kind and the name-reservation ConfigMaps of
	# every project (11 lists; runai -v 6 names them); kubectl
	# prints the RunaiJobs alone
	{ read -r rt rm; read -r kt km; } < <(measure "$BIN/runai" list -A \
		--vs "$KUBECTL" get runaijobs -A -o wide)
	row "$n" "list -A" "$rt" "$kt" "$rm" "$km"
	# runai asks a server on loopback for plain answers, kubectl for
	# gzip; the same kubectl asking for plain ones, for comparison
	read -r pt pm < <(measure "$KUBECTL" get runaijobs -A -o wide --disable-compression)
	row "$n" "list -A, plain" "$rt" "$pt" "$rm" "$pm" nosummary
	# the same with every list sent at once on 4 connections (by
	# default runai does so only once an answer has kept it waiting
	# 3 ms, which the emulator on loopback never does)
	read -r rt rm < <(RUNAI_PARALLEL_REQUESTS=4 measure "$BIN/runai" list -A)
	row "$n" "list -A at once" "$rt" "$kt" "$rm" "$km" nosummary
	emulator_alone "list -A, $n:" "/apis/run.ai/v1/runaijobs?limit=5000"
done

# Distributed jobs: a fresh emulator holding only 1,000 PyTorchJobs of a
# master and 3 workers (4,000 pods); runai list -A reads every kind as
# above, kubectl prints the PyTorchJobs alone.
"$TOP/tests/peers/peers" stop "$STATE"
rm -rf "${STATE:?}"/*
"$TOP/tests/peers/peers" start "$STATE" --demo
# shellcheck disable=SC1091
. "$STATE/env"
cp "$KUBESIM_KUBECONFIG" "$KUBECONFIG"
rm -rf "$KUBECACHEDIR"
simapi /_sim/controller '{"paused": true}'
simapi /_sim/bulk '{"plural": "pytorchjobs", "namespace": "runai-team-a", "count": 1000, "prefix": "ddp-"}'
{ read -r rt rm; read -r kt km; } < <(measure "$BIN/runai" list -A \
	--vs "$KUBECTL" get pytorchjobs -A -o wide)
row 1000 "list -A (dist)" "$rt" "$kt" "$rm" "$km"
emulator_alone "list -A (dist):" "/apis/kubeflow.org/v1/pytorchjobs?limit=5000"
echo
printf '%s\n' "${EMU[@]}"
echo
echo "list projects: runai list projects | kubectl get projects.run.ai"
echo "list nodes:    runai list nodes    | kubectl get nodes + get pods -A (non-terminated)"
echo "list -A:       runai list -A       | kubectl get runaijobs -A -o wide"
echo "list -A, plain: the same runai run | kubectl --disable-compression get runaijobs -A -o wide"
echo "list -A at once: the same, RUNAI_PARALLEL_REQUESTS=4 (every list sent at once)"
echo "list -A (dist): runai list -A      | kubectl get pytorchjobs -A -o wide (1,000 jobs of 4 pods)"
echo "s: median wall time; KiB: median peak RSS; x: runai / kubectl"
