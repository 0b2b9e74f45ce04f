#!/usr/bin/env bash
# Streaming throughput: a stream of MIB MiB (default 100) through
#   runai exec -i JOB -- cat     against  kubectl exec -i POD -- cat
#   runai logs JOB               against  kubectl logs POD
# on one emulator, whose pod runs a real cat and serves a log of the
# same size. Prints the median wall time and peak RSS of both, the
# throughput, and the ratios (runai / kubectl: below 1 means runai is
# faster or smaller). Both clients pay the emulator's (Python) cost per
# byte, so the ratios understate the clients' own difference; the
# line "emulator alone" shows that floor, a raw curl of the same log.
# The CPU seconds of each client and of the emulator during its runs
# follow the table. Numbers, not a pass/fail: compare runs on the same
# machine only.
#
#   bench/stream.sh [RUNS] [MIB]      (default 3 runs, median; 100 MiB)
#
# Needs kubectl 1.32 at $KUBECTL (default the gcloud SDK's kubectl.1.32).
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${1:-3}
MIB=${2:-100}
BIN=${RAI_BIN_DIR:-$TOP/build/default}
KUBECTL=${KUBECTL:-/usr/lib/google-cloud-sdk/bin/kubectl.1.32}
PY=/usr/bin/python3
NS=runai-team-a
[ -x "$BIN/runai" ] || { echo "build first: make" >&2; exit 1; }
[ -x "$KUBECTL" ] || { echo "kubectl 1.32 not found at $KUBECTL" >&2; exit 1; }

STATE=$(mktemp -d)
trap '"$TOP/tests/peers/peers" stop "$STATE"; rm -rf "$STATE"' EXIT
"$TOP/tests/peers/peers" start "$STATE" --demo --log-buffer-mib "$((MIB + 8))"
# shellcheck disable=SC1091
. "$STATE/env"
export KUBECONFIG="$STATE/kubeconfig" KUBECACHEDIR="$STATE/kcache"
sed "s/namespace: .*/namespace: $NS/" "$KUBESIM_KUBECONFIG" >"$KUBECONFIG"
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
"$BIN/runai" submit bench -i ubuntu --interactive >/dev/null
simapi /_sim/tick '{"steps": 2}'
POD=$(curl -sS --cacert "$KUBESIM_CA" -H "Authorization: Bearer $KUBESIM_TOKEN" \
	"$KUBESIM_URL/api/v1/namespaces/$NS/pods" |
	jq -r '.items[] | select(.metadata.name | startswith("bench-")) | .metadata.name')

# shellcheck source=bench/lib.sh
. "$TOP/bench/lib.sh"
rate() { "$PY" -c "import sys; print('%.0f' % ($MIB / float(sys.argv[1])))" "$1"; }

# The input: MIB MiB of random bytes (exec), and a log of MIB MiB made
# of 100-byte lines (logs), appended 5,000 lines at a time.
INPUT="$STATE/input"
head -c "$((MIB << 20))" /dev/urandom >"$INPUT"
lines=$(((MIB << 20) / 100))
"$PY" - "$lines" "$NS" "$POD" <<'EOF' >"$STATE/batches"
import json, sys
n, ns, pod = int(sys.argv[1]), sys.argv[2], sys.argv[3]
for start in range(0, n, 5000):
    batch = ["%09d %s" % (i, "x" * 89) for i in range(start, min(n, start + 5000))]
    print(json.dumps({"namespace": ns, "pod": pod, "lines": batch}))
EOF
while IFS= read -r batch; do
	printf '%s' "$batch" | curl -sS --fail-with-body --cacert "$KUBESIM_CA" -X POST \
		-H @<(simauth) -H 'Content-Type: application/json' --data-binary @- \
		"$KUBESIM_URL/_sim/logs" >/dev/null
done <"$STATE/batches"

# Both clients must carry the bytes intact before their speed means anything.
want=$(sha256sum <"$INPUT")
got=$("$BIN/runai" exec -i bench -- sha256sum <"$INPUT")
[ "$got" = "$want" ] || { echo "runai exec changed the bytes: $got" >&2; exit 1; }
n=$("$BIN/runai" logs bench | grep -c "^[0-9]\{9\} x") || true; [ "$n" -eq "$lines" ] || { echo "runai logs gave $n lines of $lines" >&2; exit 1; }

FMT='%-26s  %9s  %9s  %10s  %10s  %9s  %9s  %7s  %7s\n'
# shellcheck disable=SC2059
printf "$FMT" "$MIB MiB" 'runai s' 'kubectl s' 'runai MiB/s' 'kubectl MiB/s' 'runai KiB' 'kubectl KiB' 'time x' 'mem x'
row() {
	local tx mx
	tx=$(ratio "$2" "$3") mx=$(ratio "$4" "$5")
	# shellcheck disable=SC2059
	printf "$FMT" "$1" "$2" "$3" "$(rate "$2")" "$(rate "$3")" "$4" "$5" "$tx" "$mx"
	summary stream "$1, $MIB MiB" time "$tx" kubectl "$2 s" "$3 s"
	summary stream "$1, $MIB MiB" memory "$mx" kubectl "$4 KiB" "$5 KiB"
}
# each measure also gives the client's CPU seconds and the emulator's
# during the run (medians), for the table of who spent what
export MEASURE_CPU_OF=$KUBESIM_PID
CPU=()
cpu_row() { CPU+=("$(printf '%-26s  %-8s  %9s  %9s' "$1" "$2" "$3" "$4")"); }
{ read -r rt rm rc rs; read -r kt km kc ks; } < <(measure \
	sh -c "exec '$BIN/runai' exec -i bench -- cat <'$INPUT'" \
	--vs sh -c "exec '$KUBECTL' exec -i '$POD' -- cat <'$INPUT'")
row "exec -i -- cat" "$rt" "$kt" "$rm" "$km"
cpu_row "exec -i -- cat" runai "$rc" "$rs"
cpu_row "exec -i -- cat" kubectl "$kc" "$ks"
{ read -r rt rm rc rs; read -r kt km kc ks; } < <(measure \
	"$BIN/runai" logs bench --vs "$KUBECTL" logs "$POD")
row "logs" "$rt" "$kt" "$rm" "$km"
cpu_row "logs" runai "$rc" "$rs"
cpu_row "logs" kubectl "$kc" "$ks"
unset MEASURE_CPU_OF
read -r ct _ < <(measure curl -sS -o /dev/null --cacert "$KUBESIM_CA" \
	-H "Authorization: Bearer $KUBESIM_TOKEN" \
	"$KUBESIM_URL/api/v1/namespaces/$NS/pods/$POD/log")
echo
# kube-apiserver 1.32 relays a log as the kubelet hands it over, never
# compressed, so kubectl's Accept-Encoding: gzip changes nothing there
echo "emulator alone: curl of the same log takes ${ct}s ($(rate "$ct") MiB/s)"
echo "s: median wall time; KiB: median peak RSS; x: runai / kubectl"
echo
# A client cannot finish before the emulator has done its part; where
# the emulator's CPU seconds come near the wall, that is the limit.
printf '%-26s  %-8s  %9s  %9s\n' "CPU seconds (medians)" client "its own" emulator
printf '%s\n' "${CPU[@]}"
