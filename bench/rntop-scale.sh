#!/usr/bin/env bash
# rntop at scale, by simulation: N SSH hosts served by one light peer
# process (bench/rntop-sim-peer.py: Debian's python3-asyncssh, one port
# a host, each with its own two GPUs), so that 2,000 hosts fit on one
# machine. Not part of make check. For each N (default 200 500 1000
# 2000):
#   once    rntop --once: wall time, CPU seconds (user+sys), peak RSS
#           (/usr/bin/time -v), and the hosts that answered; resolved
#           through an ssh_config (-F) whose one "Host *" block serves
#           every host, so one ssh -G run stands for all of them
#   live    rntop --batch -d 2 for SECS seconds (default 60) once every
#           host answered: CPU seconds per host per tick, peak RSS
#           (VmHWM) and KiB per host, the most descriptors open (sampled
#           every second), the time from start to the first line with
#           every host ok, and in the steady lines the oldest host's age
#           (a full refresh within 2 s of ticks: every age under 4 s)
# Goals (issue 57): CPU and memory grow at most linearly, at most 30 KiB
# per host, no descriptor exhaustion at the default ulimit -n, a full
# refresh of 2,000 hosts within 2 s of ticks. The peer is Python on the
# same cores: its CPU is not rntop's, but it slows every answer.
#
#   bench/rntop-scale.sh [N...]     (SECS=60 in the env)
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
BIN=${RAI_BIN_DIR:-$TOP/build/default}
SECS=${SECS:-60}
SIZES=("$@")
[ ${#SIZES[@]} -gt 0 ] || SIZES=(200 500 1000 2000)
PY=/usr/bin/python3
[ -x "$BIN/rntop" ] || { echo "build first: make (or set RAI_BIN_DIR)" >&2; exit 1; }
"$PY" -c 'import asyncssh' 2>/dev/null ||
	{ echo "python3-asyncssh is not installed (Debian: apt-get install python3-asyncssh)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time is not installed (Debian: time)" >&2; exit 1; }
STATE=$(mktemp -d)
PEER_PID=
stop_peer() {
	[ -z "$PEER_PID" ] || { kill "$PEER_PID" 2>/dev/null; wait "$PEER_PID" 2>/dev/null || true; }
	PEER_PID=
}
trap 'stop_peer; rm -rf "$STATE"' EXIT
ssh-keygen -q -t ed25519 -N '' -f "$STATE/id" >/dev/null
printf 'Host *\n  User bench\n  ConnectTimeout 120\n' >"$STATE/ssh_config"

# start_peer N: the peer on N ports; hosts.txt lists them
start_peer() {
	local n=$1
	rm -f "$STATE/ready"
	"$PY" "$TOP/bench/rntop-sim-peer.py" "$STATE" "$n" 2>"$STATE/peer.err" &
	PEER_PID=$!
	for _ in $(seq 1 600); do [ -e "$STATE/ready" ] && break; sleep 0.1; done
	[ -e "$STATE/ready" ] || { echo "the peer did not start:" >&2; cat "$STATE/peer.err" >&2; exit 1; }
	sed 's/^/127.0.0.1:/' "$STATE/ports" >"$STATE/hosts.txt"
}

ARGS=(-F "$STATE/ssh_config" -i "$STATE/id" --no-agent --known-hosts "$STATE/known_hosts"
	--hostfile "$STATE/hosts.txt" --no-cluster --connect-timeout 120 -t 60)

# once N: "wall cpu maxrss_kib answered"
once() {
	/usr/bin/time -v -o "$STATE/time.txt" "$BIN/rntop" "${ARGS[@]}" --once >"$STATE/once.json" 2>"$STATE/once.err" || true
	awk -F': ' -v ok="$(jq '.cluster.hosts_ok' "$STATE/once.json" 2>/dev/null || echo '?')" '
		/Elapsed \(wall clock\)/ { n = split($2, t, ":"); w = 0; for (i = 1; i <= n; i++) w = w * 60 + t[i] }
		/User time/ { u = $2 } /System time/ { s = $2 } /Maximum resident set size/ { m = $2 }
		END { printf "%.2f %.2f %d %s\n", w, u + s, m, ok }' "$STATE/time.txt"
}

# live N: "all_ok_s cpu_per_host_tick peak_kib kib_per_host max_fds max_age lines"
live() {
	local n=$1 out="$STATE/live.jsonl" pid t0 t1 start hz fds maxfds=0 ok=0 all_ok=nan peak
	hz=$(getconf CLK_TCK)
	start=$(date +%s.%N)
	"$BIN/rntop" "${ARGS[@]}" --batch -d 2 >"$out" 2>"$STATE/live.err" &
	# the mode the hosts ended in (stream, or poll after a silent stream)
	pid=$!
	for _ in $(seq 1 600); do
		ok=$(tail -n 1 "$out" 2>/dev/null | jq '.cluster.hosts_ok' 2>/dev/null || echo 0)
		if [ "${ok:-0}" -ge "$n" ]; then
			all_ok=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
			break
		fi
		sleep 0.2
	done
	: >"$out"
	t0=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
	for _ in $(seq 1 "$SECS"); do
		fds=$(find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
		[ "$fds" -le "$maxfds" ] || maxfds=$fds
		sleep 1
	done
	t1=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
	peak=$(awk '/VmHWM/ { print $2 }' "/proc/$pid/status")
	kill -INT "$pid"
	wait "$pid" || true
	tail -n 1 "$out" | jq -r '[.hosts[].mode] | group_by(.) | map("\(.[0]): \(length)") | join(", ")' >"$STATE/modes" 2>/dev/null || true
	awk -v a="$t0" -v b="$t1" -v hz="$hz" -v n="$n" -v s="$SECS" -v p="$peak" -v f="$maxfds" \
		-v ok="$all_ok" -v age="$(jq -R 'fromjson? | [.hosts[].age // 999] | max' "$out" | sort -g | tail -n 1)" -v l="$(wc -l <"$out")" \
		'BEGIN { printf "%s %.6f %d %.1f %d %s %d\n", ok, (b - a) / hz / n / (s / 2), p, p / n, f, age, l }'
}

FMT='%-6s %8s %8s %10s %9s | %8s %12s %10s %8s %6s %7s %5s\n'
# shellcheck disable=SC2059
printf "$FMT" hosts "once s" "cpu s" "peak KiB" answered "all ok s" "cpu s/host/tick" "peak KiB" "KiB/host" fds "max age" lines
for n in "${SIZES[@]}"; do
	start_peer "$n"
	read -r w c m ok < <(once)
	read -r allok cpt peak kph fds age lines < <(live "$n")
	stop_peer
	# shellcheck disable=SC2059
	printf "$FMT" "$n" "$w" "$c" "$m" "$ok/$n" "$allok" "$cpt" "$peak" "$kph" "$fds" "$age" "$lines"
	echo "       live modes at the end: $(cat "$STATE/modes" 2>/dev/null)"
	echo "$n $w $c $m $ok $allok $cpt $peak $kph $fds $age" >>"$STATE/rows"
done
echo "ulimit -n: soft $(ulimit -Sn), hard $(ulimit -Hn) (rntop raises its soft limit to the hard one)"
# linear growth: each size's CPU per host per tick and KiB per host against the smallest's
awk 'NR == 1 { c = $7; p = $8; f = $1 } NR > 1 { printf "%s hosts: %.1f KiB more per host than at %s\n", $1, ($8 - p) / ($1 - f), f }' "$STATE/rows"
awk 'NR == 1 { c = $7; k = $9; f = $1 } { printf "%s hosts: CPU per host per tick x%.2f, KiB per host x%.2f of the %s-host run\n", $1, $7 / c, $9 / k, f }' "$STATE/rows"
