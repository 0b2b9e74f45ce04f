#!/usr/bin/env bash
# runai list projects / list nodes against kubectl get of the same
# objects, on one emulator holding 1,000 and then 10,000 jobs (each with
# its pod). Prints wall time and peak memory of both, and their ratios
# (runai / kubectl: below 1 means runai is faster or smaller). Numbers,
# not a pass/fail: compare runs on the same machine only.
#
#   bench/list.sh [RUNS]        (default 5 runs per measurement, median)
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
simapi() {
	curl -sS --fail-with-body --cacert "$KUBESIM_CA" -X POST \
		-H 'Content-Type: application/json' --data-binary "$2" \
		"$KUBESIM_URL$1" >/dev/null
}
simapi /_sim/controller '{"paused": true}'

measure() { "$PY" "$TOP/bench/measure.py" "$RUNS" "$@"; }
ratio() { "$PY" -c "import sys; a, b = map(float, sys.argv[1:]); print('%.2f' % (a / b if b else float('nan')))" "$1" "$2"; }

printf '%-8s %-16s %10s %10s %10s %10s %8s %8s\n' jobs command \
	runai_s kubectl_s runai_KiB kubectl_KiB time_x mem_x
have=0
for n in 1000 10000; do
	simapi /_sim/bulk "{\"plural\": \"runaijobs\", \"namespace\": \"runai-team-a\", \"count\": $((n - have)), \"prefix\": \"job$n-\"}"
	have=$n
	read -r rt rm < <(measure "$BIN/runai" list projects)
	read -r kt km < <(measure "$KUBECTL" get projects.run.ai)
	printf '%-8s %-16s %10s %10s %10s %10s %8s %8s\n' "$n" "list projects" \
		"$rt" "$kt" "$rm" "$km" "$(ratio "$rt" "$kt")" "$(ratio "$rm" "$km")"
	# list nodes reads the nodes and every non-terminated pod; kubectl
	# does the same in two commands, so their times add up
	read -r rt rm < <(measure "$BIN/runai" list nodes)
	read -r kt1 km1 < <(measure "$KUBECTL" get nodes)
	read -r kt2 km2 < <(measure "$KUBECTL" get pods -A \
		--field-selector=status.phase!=Succeeded,status.phase!=Failed)
	kt=$("$PY" -c "import sys; print('%.4f' % (float(sys.argv[1]) + float(sys.argv[2])))" "$kt1" "$kt2")
	km=$(( km1 > km2 ? km1 : km2 ))
	printf '%-8s %-16s %10s %10s %10s %10s %8s %8s\n' "$n" "list nodes" \
		"$rt" "$kt" "$rm" "$km" "$(ratio "$rt" "$kt")" "$(ratio "$rm" "$km")"
	# list -A reads the workloads, their pods and the name-reservation
	# ConfigMaps of every project; kubectl prints the RunaiJobs alone
	read -r rt rm < <(measure "$BIN/runai" list -A)
	read -r kt km < <(measure "$KUBECTL" get runaijobs -A -o wide)
	printf '%-8s %-16s %10s %10s %10s %10s %8s %8s\n' "$n" "list -A" \
		"$rt" "$kt" "$rm" "$km" "$(ratio "$rt" "$kt")" "$(ratio "$rm" "$km")"
done
