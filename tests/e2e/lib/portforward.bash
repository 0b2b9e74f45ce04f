# Helpers of the port-forward files (t2960, t2962): a free loopback
# port, a web server in a job, runai port-forward in the background.

free_port() {
	"$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# web_job JOB PORT: a job serving its working directory (which holds
# index.txt, "hello from JOB") with python3 -m http.server on PORT.
web_job() {
	runai submit "$1" -i python -- sh -c \
		"echo hello from $1 >index.txt && exec python3 -m http.server $2 --bind 127.0.0.1" >/dev/null
	pod_running "$1"
}

# start_pf ARGS...: runai port-forward in the background, once it listens;
# PF_LOCAL is the first local port it printed.
start_pf() {
	runai port-forward "$@" >"$BATS_TEST_TMPDIR/pf.out" 2>"$BATS_TEST_TMPDIR/pf.err" 3>&- &
	PF_PID=$!
	local _
	for _ in $(seq 1 $((100 * TIME_SCALE))); do
		grep -q '^Forwarding from' "$BATS_TEST_TMPDIR/pf.out" && break
		kill -0 "$PF_PID" 2>/dev/null || break
		sleep 0.1
	done
	PF_LOCAL=$(sed -n 's/^Forwarding from [^ ]*:\([0-9]*\) -> .*/\1/p' "$BATS_TEST_TMPDIR/pf.out" | head -1)
	[ -n "$PF_LOCAL" ] || { cat "$BATS_TEST_TMPDIR/pf.err" >&2; return 1; }
}

# get PATH: fetches http://127.0.0.1:$PF_LOCAL/PATH, retrying while the
# pod's server starts.
get() {
	local _
	for _ in $(seq 1 $((50 * TIME_SCALE))); do
		curl -sf -m 20 "http://127.0.0.1:$PF_LOCAL/$1" && return 0
		sleep 0.2
	done
	return 1
}

# assert_pod_switch OLD JOB: waits for runai port-forward to say it went
# from pod OLD (deleted) to the job's next pod, and checks what it said.
assert_pod_switch() {
	local _
	for _ in $(seq 1 $((100 * TIME_SCALE))); do
		grep -q "now" "$BATS_TEST_TMPDIR/pf.err" && break
		sleep 0.2
	done
	run cat "$BATS_TEST_TMPDIR/pf.err"
	assert_line "runai: pod $1 was deleted; its connections were cut"
	assert_line --regexp "^runai: forwarding to pod $2-[a-z0-9]+ now$"
	refute_output --partial "forwarding to pod $1 "
}
