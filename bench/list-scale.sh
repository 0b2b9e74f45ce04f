#!/usr/bin/env bash
# runai list -A as the cluster grows: one emulator filled with 10,000,
# then 50,000, then 100,000 RunaiJobs (each with its running pod, made by
# the emulator's /_sim/bulk), and at each size the median wall time and
# peak RSS of
#   runai list -A                              (ours)
#   kubectl get runaijobs -A -o wide           (the peer: the jobs alone)
#   curl of every list runai asks for, one after another on one
#   connection                                 (the limit: the emulator's
#                                              own time to answer them)
# Then the ratios, the CPU seconds of each client and of the emulator
# during its runs, and each one's time, CPU and memory per 1,000 jobs at
# every size: a figure that rises with the size is a cost that grows
# faster than the jobs do. The wall times include the emulator's own
# work (Python, the same for curl), which grows faster than the jobs;
# runai's CPU column is its own.
#
#   bench/list-scale.sh [RUNS]      (default 1 measured run after a warm-up;
#                                   kubectl takes minutes at 100,000)
#
# LIST_SCALE_SIZES (default "10000 50000 100000") are the sizes.
# Needs kubectl 1.32 at $KUBECTL (default the gcloud SDK's kubectl.1.32).
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${1:-1}
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

# per_k VALUE N: VALUE per 1,000 jobs, three significant digits
per_k() {
	"$PY" -c "import sys; print('%.3g' % (float(sys.argv[1]) * 1000 / float(sys.argv[2])))" "$1" "$2"
}

FMT='%-7s  %9s  %9s  %9s  %10s  %10s  %7s  %7s  %7s\n'
# shellcheck disable=SC2059
printf "$FMT" jobs 'runai s' 'kubectl s' 'curl s' 'runai KiB' 'kubectl KiB' 'time x' 'mem x' 'vs curl'
GROWTH=() CPU=()
have=0
for n in ${LIST_SCALE_SIZES:-10000 50000 100000}; do
	# in slices: one request of 100,000 jobs holds the emulator's
	# answer in memory at once
	while [ "$have" -lt "$n" ]; do
		step=$((n - have > 25000 ? 25000 : n - have))
		simapi /_sim/bulk "{\"plural\": \"runaijobs\", \"namespace\": \"runai-team-a\", \"count\": $step, \"start\": $have, \"prefix\": \"job-\"}"
		have=$((have + step))
	done
	# every list runai asks for (its -v 6 trace), fetched by curl on one
	# connection, one after another: what the emulator alone takes
	urls=() outs=()
	while read -r u; do
		urls+=("$u")
		outs+=(-o /dev/null)
	done < <(RUNAI_VERBOSITY=6 "$BIN/runai" list -A 2>&1 >/dev/null | awk '$1 == "GET" { print $2 }')
	{ read -r rt rm rc re; read -r kt km kc ke; read -r ct _ _ ce; } < <(MEASURE_CPU_OF=$KUBESIM_PID measure "$BIN/runai" list -A \
		--vs "$KUBECTL" get runaijobs -A -o wide \
		--vs curl -sS "${outs[@]}" --cacert "$KUBESIM_CA" \
		-H "Authorization: Bearer $KUBESIM_TOKEN" "${urls[@]}")
	tx=$(ratio "$rt" "$kt") mx=$(ratio "$rm" "$km") cx=$(ratio "$rt" "$ct")
	# shellcheck disable=SC2059
	printf "$FMT" "$n" "$rt" "$kt" "$ct" "$rm" "$km" "$tx" "$mx" "$cx"
	summary list-scale "list -A, $n jobs" time "$tx" kubectl "$rt s" "$kt s"
	summary list-scale "list -A, $n jobs" memory "$mx" kubectl "$rm KiB" "$km KiB"
	summary list-scale "list -A, $n jobs" time "$cx" "curl of the same ${#urls[@]} lists" "$rt s" "$ct s"
	GROWTH+=("$(printf '%-7s  %9s  %9s  %9s  %9s  %9s  %9s  %9s  %9s' "$n" \
		"$(per_k "$rt" "$n")" "$(per_k "$kt" "$n")" "$(per_k "$ct" "$n")" \
		"$(per_k "$rc" "$n")" "$(per_k "$kc" "$n")" "$(per_k "$re" "$n")" \
		"$(per_k "$rm" "$n")" "$(per_k "$km" "$n")")")
	CPU+=("$(printf '%-7s  %9s  %9s  %9s  %9s  %9s' "$n" "$rc" "$kc" "$re" "$ke" "$ce")")
done
echo
echo "CPU seconds of a run (medians): the client's own, and the emulator's while it ran"
printf '%-7s  %9s  %9s  %9s  %9s  %9s\n' jobs runai kubectl 'emu/runai' 'emu/kubectl' 'emu/curl'
printf '%s\n' "${CPU[@]}"
echo
echo "per 1,000 jobs (flat: linear; rising: grows faster than the jobs)"
printf '%-7s  %9s  %9s  %9s  %9s  %9s  %9s  %9s  %9s\n' jobs 'runai s' 'kubectl s' 'curl s' \
	'runai cpu' 'kctl cpu' 'emu cpu' 'runai KiB' 'kctl KiB'
printf '%s\n' "${GROWTH[@]}"
echo
echo "runai: runai list -A | kubectl: kubectl get runaijobs -A -o wide | curl: every list runai asks for, one connection"
echo "s: median wall time; KiB: median peak RSS; x: runai / peer"
