#!/usr/bin/env bats
# rntop under --batch while its hosts flap: four real sshd peers, one of
# them stopped and started again on the same port every few seconds, for
# RAI_SOAK_SECONDS (30 in make check; the long run is
#     RAI_SOAK_SECONDS=600 RAI_E2E='t9500*' tests/run
# also with SANITIZE=1 or RAI_VALGRIND=1). rntop must keep reporting every
# interval (no gap longer than one interval plus slack), mark each
# flapped host down and then ok again, keep its memory flat, and exit
# cleanly on SIGTERM with nothing on stderr (a sanitizer or valgrind
# report would be there).

load lib/common
load lib/sshd

SOAK=${RAI_SOAK_SECONDS:-30}
NAMES=(s0 s1 s2 s3)

setup_file() {
	sshd_setup_file
	local n
	for n in "${NAMES[@]}"; do
		sshd_start "$n" h100x2
	done
}

teardown_file() {
	sshd_stop_all
}

setup() {
	isolate_env
	unset SSH_AUTH_SOCK
	RNTOP_PID= FLAP_PID=
}

teardown() {
	[ -z "$FLAP_PID" ] || { kill "$FLAP_PID" 2>/dev/null; wait "$FLAP_PID" 2>/dev/null; }
	[ -z "$RNTOP_PID" ] || { kill "$RNTOP_PID" 2>/dev/null; wait "$RNTOP_PID" 2>/dev/null; }
	return 0
}

# flap: forever, stop the next host, wait, start it again on its port.
# Each host is up 1.5 s (times TIME_SCALE) before the next goes: the
# time rntop has to reconnect and see all of them answer again.
flap() {
	local i=0 name port pause
	pause=$(scaled 1.5)
	while :; do
		name=${NAMES[i % ${#NAMES[@]}]}
		port=$(eval echo "\$PORT_$name")
		sshd_stop "$name"
		sleep "$pause"
		sshd_start "$name" h100x2 --port "$port" >/dev/null 2>&1 || true
		sleep "$pause"
		i=$((i + 1))
	done
}

rss_kib() {
	awk '/^VmRSS:/ { print $2 }' "/proc/$1/status" 2>/dev/null || echo 0
}

@test "--batch through flapping hosts: steady lines, flat memory, clean exit" {
	local interval=0.5 hosts=() n out="$HOME/out" err="$HOME/err"
	for n in "${NAMES[@]}"; do
		hosts+=("127.0.0.1:$(eval echo "\$PORT_$n")")
	done
	rntop "${RNTOP_SSH_ARGS[@]}" --batch -d "$interval" --reconnect-max 1 \
		--connect-timeout 2 "${hosts[@]}" >"$out" 2>"$err" &
	RNTOP_PID=$!
	# (under valgrind the wrapper execs valgrind: the same PID)
	local watch=$RNTOP_PID
	# every host reported once before the flapping starts
	for _ in $(seq 1 $((200 * TIME_SCALE))); do
		[ "$(tail -n 1 "$out" 2>/dev/null | jq -r '.cluster.hosts_ok' 2>/dev/null)" = 4 ] && break
		sleep 0.05
	done
	[ "$(tail -n 1 "$out" | jq -r '.cluster.hosts_ok')" = 4 ]
	flap &
	FLAP_PID=$!
	# RSS after a quarter of the run (warm) and at the end
	local quarter=$((SOAK / 4)) warm last
	sleep "$quarter"
	warm=$(rss_kib "$watch")
	sleep $((SOAK - quarter))
	last=$(rss_kib "$watch")
	kill "$FLAP_PID"
	wait "$FLAP_PID" 2>/dev/null || true
	FLAP_PID=
	kill -TERM "$RNTOP_PID"
	local rc=0
	wait "$RNTOP_PID" || rc=$?
	RNTOP_PID=
	# a clean exit (128 + SIGTERM), nothing on stderr
	[ "$rc" -eq 143 ]
	[ ! -s "$err" ] || { cat "$err" >&2; false; }
	# a line every interval (no gap longer than one interval plus
	# slack); hosts went down, and the first to go came back
	run "$PYTHON" - "$out" "$interval" "$TIME_SCALE" <<-'EOF'
		import datetime, json, sys
		lines = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
		times = [datetime.datetime.fromisoformat(l["time"].replace("Z", "+00:00")) for l in lines]
		worst = max((b - a).total_seconds() for a, b in zip(times, times[1:]))
		limit = 2 * float(sys.argv[2]) * int(sys.argv[3]) + 0.5
		downs = [i for i, l in enumerate(lines) if any(h["status"] == "down" for h in l["hosts"])]
		# the hosts first seen down each answer again later (while the
		# next ones flap: all four at once is a matter of speed)
		first = downs and [h["name"] for h in lines[downs[0]]["hosts"] if h["status"] == "down"]
		back = bool(first) and all(any(h["name"] == n and h["status"] == "ok"
		                               for l in lines[downs[0]:] for h in l["hosts"])
		                           for n in first)
		print("%d lines, worst gap %.2f s (limit %.2f), %d with a host down, recovered: %s"
		      % (len(lines), worst, limit, len(downs), bool(back)))
		sys.exit(0 if worst <= limit and downs and back else 1)
	EOF
	echo "# $output" >&3
	[ "$status" -eq 0 ] || { echo "$output" >&2; false; }
	# memory flat: no growth beyond allocator noise
	echo "# RSS warm $warm KiB, end $last KiB" >&3
	[ "$warm" -gt 0 ]
	[ "$last" -le $((warm + warm / 5 + 2048)) ]
}
