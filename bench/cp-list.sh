#!/usr/bin/env bash
# Control-plane mode: runai list jobs -A over many workloads, which the
# control plane gives in pages (GET /api/v1/workloads, offset and limit),
# against curl fetching the same pages one after another on one
# connection: what the emulated control plane alone takes to answer
# them, below which no client that asks for those pages can go. At 2,000
# and then 10,000 workloads (the emulator's bulkWorkloads: training
# workloads of project team-a in the control plane's records, no
# cluster objects), the median wall time and peak RSS of both, and
# their ratios; then runai's peak RSS beyond the first size: flat when
# runai holds one page at a time, not every workload.
#
#   bench/cp-list.sh [RUNS]      (default 3 runs per measurement, median)
#
# CP_LIST_SIZES (default "2000 10000") are the sizes; CP_VERSION (default
# 2.24) the release the emulator plays.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${1:-3}
BIN=${RAI_BIN_DIR:-$TOP/build/default}
PY=/usr/bin/python3
[ -x "$BIN/runai" ] || { echo "build first: make" >&2; exit 1; }

STATE=$(mktemp -d)
trap '"$TOP/tests/peers/peers" stop "$STATE"; rm -rf "$STATE"' EXIT
"$TOP/tests/peers/peers" start "$STATE" --demo --control-plane "${CP_VERSION:-2.24}"
# shellcheck disable=SC1091
. "$STATE/env"
SIMDIR=$STATE/sim
CP_URL=$(jq -r .control_plane_url "$SIMDIR/ready.json")
CP_CREDS=$(jq -r .control_plane_credentials "$SIMDIR/ready.json")
# runai's own configuration, away from the user's
export HOME=$STATE/home XDG_CONFIG_HOME=$STATE/home/.config
mkdir -p "$HOME"
export KUBECONFIG=$STATE/kubeconfig
cp "$KUBESIM_KUBECONFIG" "$KUBECONFIG"
"$BIN/runai" config control-plane "$CP_URL" >/dev/null
jq -r .password "$CP_CREDS" |
	"$BIN/runai" login --username "$(jq -r .username "$CP_CREDS")" --password-stdin >/dev/null
simauth() {
	printf 'Authorization: Bearer %s\n' "$(cat "$KUBESIM_SIM_TOKEN_FILE")"
}
simapi() {
	curl -sS --fail-with-body --cacert "$KUBESIM_CA" -X POST -H @<(simauth) \
		-H 'Content-Type: application/json' --data-binary "$2" \
		"$KUBESIM_URL$1" >/dev/null
}
# the control plane's token, for curl, through a file (never argv)
TOKEN_HEADER=$STATE/token-header
(umask 077 && printf 'Authorization: Bearer %s\n' \
	"$("$BIN/runai" auth get-token -o plaintext)" >"$TOKEN_HEADER")

# shellcheck source=bench/lib.sh
. "$TOP/bench/lib.sh"

FMT='%-7s  %6s  %9s  %9s  %10s  %10s  %7s  %7s\n'
# shellcheck disable=SC2059
printf "$FMT" workloads pages 'runai s' 'curl s' 'runai KiB' 'curl KiB' 'time x' 'mem x'
have=0 first_rm='' first_n=''
for n in ${CP_LIST_SIZES:-2000 10000}; do
	simapi /_sim/controlplane "{\"bulkWorkloads\": {\"count\": $((n - have)), \"start\": $have, \"project\": \"team-a\", \"prefix\": \"bulk-\"}}"
	have=$n
	# every request runai sends for the listing (its -v 6 trace), sent
	# again by curl, one after another on one connection
	urls=() outs=()
	while read -r u; do
		urls+=("$u")
		outs+=(-o /dev/null)
	done < <(RUNAI_VERBOSITY=6 "$BIN/runai" list jobs -A 2>&1 >/dev/null | awk '$1 == "GET" { print $2 }')
	pages=$(printf '%s\n' "${urls[@]}" | grep -c '/api/v1/workloads?' || true)
	rows=$("$BIN/runai" list jobs -A | grep -c '^bulk-' || true)
	[ "$rows" -eq "$n" ] || { echo "runai listed $rows of the $n workloads" >&2; exit 1; }
	{ read -r rt rm; read -r ct cm; } < <(measure "$BIN/runai" list jobs -A \
		--vs curl -sS -H "@$TOKEN_HEADER" "${outs[@]}" "${urls[@]}")
	tx=$(ratio "$rt" "$ct") mx=$(ratio "$rm" "$cm")
	# shellcheck disable=SC2059
	printf "$FMT" "$n" "$pages" "$rt" "$ct" "$rm" "$cm" "$tx" "$mx"
	summary cp-list "list jobs -A, $n workloads" time "$tx" "curl of the same ${#urls[@]} requests" "$rt s" "$ct s"
	if [ -z "$first_rm" ]; then
		first_rm=$rm first_n=$n
	else
		summary cp-list "list jobs -A, $n workloads" memory "$(ratio "$rm" "$first_rm")" "runai at $first_n workloads" "$rm KiB" "$first_rm KiB"
	fi
done
echo
echo "runai: runai list jobs -A (control-plane mode) | curl: every request runai sends, one after another, one connection"
echo "pages: the workload pages of one listing; s: median wall time; KiB: median peak RSS; x: runai / curl"
echo "memory flat in the workloads: runai's KiB at the last size over the first ($first_n): $(ratio "$rm" "$first_rm")"
