#!/usr/bin/env bash
# What a run costs before it does anything much: runai version, runai
# list on a project with no jobs and runai-adm node list (both against
# the emulator), beside kubectl version --client. For each, the median
# of RUNS runs of
#   CPU ms        user + system time (perf stat's task-clock)
#   page faults   minor faults (the pages a run touches: libraries,
#                 heap); none are major once the files are cached
#   peak KiB      peak RSS
# and, for runai and runai-adm, the instructions of one run under
# valgrind's callgrind, with the share of the dynamic loader (ld.so
# resolving the libraries' symbols) and of the TLS handshake with the
# certificates' parsing (SSL_connect, the CA's PEM). kubectl, a Go
# program, does not run under valgrind, and this machine's virtual CPU
# has no instruction counter for perf: its instructions are not shown.
#
#   bench/startup.sh [RUNS]        (default 10)
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${1:-10}
BIN=${RAI_BIN_DIR:-$TOP/build/default}
KUBECTL=${KUBECTL:-/usr/lib/google-cloud-sdk/bin/kubectl.1.32}
PY=/usr/bin/python3
[ -x "$BIN/runai" ] || { echo "build first: make" >&2; exit 1; }
command -v perf >/dev/null || { echo "perf not found (linux-perf)" >&2; exit 1; }

STATE=$(mktemp -d)
trap '"$TOP/tests/peers/peers" stop "$STATE"; rm -rf "$STATE"' EXIT
"$TOP/tests/peers/peers" start "$STATE" --demo
# shellcheck disable=SC1091
. "$STATE/env"
export KUBECONFIG="$STATE/kubeconfig" KUBECACHEDIR="$STATE/kcache"
cp "$KUBESIM_KUBECONFIG" "$KUBECONFIG"

# shellcheck source=bench/lib.sh
. "$TOP/bench/lib.sh"

# cost CMD...: "CPU_MS FAULTS", means over RUNS runs (perf stat -r)
cost() {
	perf stat -x, -r "$RUNS" -e task-clock,minor-faults "$@" 2>&1 >/dev/null |
		awk -F, '$3 == "task-clock" { ms = $1 } $3 == "minor-faults" { f = $1 }
			END { printf("%.1f %d\n", ms, f) }'
}
# ir CMD...: "TOTAL LDSO TLS" instructions of one run under callgrind
ir() {
	local out=$STATE/cg.out
	valgrind --tool=callgrind --callgrind-out-file="$out" "$@" >/dev/null 2>&1
	callgrind_annotate --inclusive=yes "$out" 2>/dev/null | awk '
		/PROGRAM TOTALS/ { gsub(",", "", $1); total = $1 }
		/rtld.c:_dl_start / { gsub(",", "", $1); ld = $1 }
		/SSL_connect / && !tls { gsub(",", "", $1); tls = $1 }
		/PEM_ASN1_read_bio / && !pem { gsub(",", "", $1); pem = $1 }
		END { printf("%d %d %d\n", total, ld, tls + pem) }'
}
FMT='%-28s  %8s  %11s  %9s  %13s  %7s  %7s\n'
# shellcheck disable=SC2059
printf "$FMT" command 'CPU ms' 'page faults' 'peak KiB' instructions 'ld.so' 'TLS'
row() {
	local name=$1 cpu faults rss total ld tls
	shift
	read -r cpu faults < <(cost "$@")
	read -r _ rss < <(measure "$@")
	total=- ld=- tls=-
	if [ "${1##*/}" != "${KUBECTL##*/}" ] && command -v valgrind >/dev/null; then
		read -r total ld tls < <(ir "$@")
		ld=$("$PY" -c "import sys; print('%.0f%%' % (100.0 * int(sys.argv[1]) / int(sys.argv[2])))" "$ld" "$total")
		tls=$("$PY" -c "import sys; print('%.0f%%' % (100.0 * int(sys.argv[1]) / int(sys.argv[2])))" "$tls" "$total")
	fi
	# shellcheck disable=SC2059
	printf "$FMT" "$name" "$cpu" "$faults" "$rss" "$total" "$ld" "$tls"
	ROWS+=("$name|$cpu|$faults|$rss")
}
ROWS=()
row "kubectl version --client" "$KUBECTL" version --client
row "runai version" "$BIN/runai" version
row "runai list (no jobs)" "$BIN/runai" list -p team-b
row "runai-adm node list" "$BIN/runai-adm" node list
echo
IFS='|' read -r _ kcpu kfaults krss <<<"${ROWS[0]}"
for r in "${ROWS[@]:1}"; do
	IFS='|' read -r name cpu faults rss <<<"$r"
	summary startup "$name" cpu "$(ratio "$cpu" "$kcpu")" "kubectl version --client" "$cpu ms" "$kcpu ms"
	summary startup "$name" "page faults" "$(ratio "$faults" "$kfaults")" "kubectl version --client" "$faults" "$kfaults"
	summary startup "$name" memory "$(ratio "$rss" "$krss")" "kubectl version --client" "$rss KiB" "$krss KiB"
done
echo "CPU ms and page faults: means of $RUNS runs (perf stat -r); peak KiB: median peak RSS"
echo "instructions: one run under callgrind; ld.so: the dynamic loader's share;"
echo "TLS: the handshake and the CA's parsing (SSL_connect, PEM_ASN1_read_bio)"
