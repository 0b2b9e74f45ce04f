#!/usr/bin/env bats
# Issue 57: with a descriptor limit below what the hosts need, rntop
# does not fail with EMFILE. It holds as many sockets as fit beside a
# reserve; in --once the other hosts wait for a free one and every host
# answers; live, the hosts take turns (a one-shot each, then the socket
# goes to the next host) and all of them stay ok. 80 hosts under
# `ulimit -n 64`, served by bench/rntop-sim-peer.py (one python3-asyncssh
# process, a port a host). Before, poll() itself refused the call (more
# entries than RLIMIT_NOFILE) and every host timed out.

load lib/common

N=80

setup_file() {
	/usr/bin/python3 -c 'import asyncssh' 2>/dev/null ||
		skip "python3-asyncssh is not installed"
	PEER_DIR="$BATS_FILE_TMPDIR/peer"
	mkdir -p "$PEER_DIR"
	ssh-keygen -q -t ed25519 -N '' -f "$PEER_DIR/id" >/dev/null
	/usr/bin/python3 "$TOP/bench/rntop-sim-peer.py" "$PEER_DIR" "$N" \
		2>"$PEER_DIR/err" 3>&- &
	echo $! >"$PEER_DIR/pid"
	for _ in $(seq 1 $((300 * TIME_SCALE))); do
		[ -e "$PEER_DIR/ready" ] && break
		sleep 0.1
	done
	[ -e "$PEER_DIR/ready" ] || { cat "$PEER_DIR/err" >&2; return 1; }
	sed 's/^/127.0.0.1:/' "$PEER_DIR/ports" >"$PEER_DIR/hosts"
	export PEER_DIR
}

teardown_file() {
	[ -z "${PEER_DIR:-}" ] || [ ! -s "$PEER_DIR/pid" ] ||
		kill "$(cat "$PEER_DIR/pid")" 2>/dev/null || true
}

setup() {
	isolate_env
	unset SSH_AUTH_SOCK
	RNTOP_PID=
}

teardown() {
	if [ -n "${RNTOP_PID:-}" ]; then
		kill "$RNTOP_PID" 2>/dev/null || true
		wait "$RNTOP_PID" 2>/dev/null || true
	fi
}

ARGS=(-F /dev/null --no-agent --no-cluster --connect-timeout 60 -t 30)

# limited CMD...: runs it with soft and hard descriptor limits of 64
limited() {
	(ulimit -n 64 && exec "$@")
}

@test "--once, 80 hosts under ulimit -n 64: every host answers, none fails" {
	run -0 --separate-stderr limited rntop "${ARGS[@]}" -i "$PEER_DIR/id" \
		--known-hosts "$PEER_DIR/known_hosts" --hostfile "$PEER_DIR/hosts" --once
	run -0 jq -c '[.cluster.hosts, .cluster.hosts_ok, .cluster.gpus]' <<<"$output"
	assert_output "[$N,$N,$((2 * N))]"
	[ "$(grep -ci 'too many open files' <<<"$output$stderr")" = 0 ]
}

@test "--batch, 80 hosts under ulimit -n 64: they take turns, all ok, never an error" {
	local out="$BATS_TEST_TMPDIR/live.jsonl" ok=0 fds most=0
	(ulimit -n 64 && exec rntop "${ARGS[@]}" -i "$PEER_DIR/id" \
		--known-hosts "$PEER_DIR/known_hosts" --hostfile "$PEER_DIR/hosts" \
		--batch -d 1 >"$out" 2>"$BATS_TEST_TMPDIR/err") &
	RNTOP_PID=$!
	for _ in $(seq 1 $((120 * TIME_SCALE))); do
		fds=$(find "/proc/$RNTOP_PID/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
		[ "$fds" -le "$most" ] || most=$fds
		ok=$(tail -n 1 "$out" | jq '.cluster.hosts_ok' 2>/dev/null || echo 0)
		[ "${ok:-0}" -lt "$N" ] || break
		sleep 0.5
	done
	assert_equal "$ok" "$N"
	# turns go on: two more lines, each with every host ok
	local lines
	lines=$(wc -l <"$out")
	for _ in $(seq 1 $((60 * TIME_SCALE))); do
		[ "$(wc -l <"$out")" -lt $((lines + 2)) ] || break
		sleep 0.5
	done
	run -0 jq -c '[.cluster.hosts_ok, ([.hosts[].mode] | unique)]' <<<"$(tail -n 1 "$out")"
	assert_output "[$N,[\"poll\"]]"
	# no line ever had a host in an error state
	run -0 jq -r '.hosts[].status' "$out"
	refute_output --regexp 'down|error|timeout|auth|hostkey'
	[ "$most" -le 64 ]
	local rc=0
	kill -INT "$RNTOP_PID"
	wait "$RNTOP_PID" || rc=$?
	RNTOP_PID=
	# 128 + SIGINT, as rntop documents; else what it said on the way out
	[ "$rc" = 130 ] || { echo "rntop exited $rc:"; cat "$BATS_TEST_TMPDIR/err"; false; }
}
