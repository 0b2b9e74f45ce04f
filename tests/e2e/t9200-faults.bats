#!/usr/bin/env bats
# Faults across the suite, injected through the emulator's /_sim API:
# an API server restart (POST /_sim/outage: open connections cut, new
# ones turned away, state kept as etcd keeps it) during list, logs -f and
# exec; 429 storms; slow-loris answers that trickle a byte a second. Each
# command either rides the fault out or ends with one clear line and a
# non-zero exit, never a hang. (Size caps, cut watches and cut log
# streams are in t0200 and t2700; registry, sshd and provider faults in
# the images, rntop and login files.)

load lib/common
load lib/pods

NS=runai-team-a

setup_file() {
	pods_setup_file
}

teardown_file() {
	kubesim_stop
}

setup() {
	pods_setup
}

teardown() {
	pods_teardown
}

# outage SECONDS: the API server goes away for SECONDS (this call
# itself is answered first).
outage() {
	sim POST /_sim/outage "{\"seconds\": $1}" >/dev/null
}

# The emulator answers again after an outage.
back_up() {
	wait_until 400 sim GET /_sim/health >/dev/null
}

# One "runai: error..." line ("runai: error: ", or "runai: error from
# server (Reason): "), optionally followed by one "hint: " line.
clear_error() {
	local n
	n=$(wc -l <"$1")
	head -n 1 "$1" | grep -q '^runai: error' || { cat "$1" >&2; return 1; }
	[ "$n" -eq 1 ] || { [ "$n" -eq 2 ] && sed -n 2p "$1" | grep -q '^hint: '; } ||
		{ cat "$1" >&2; return 1; }
}

@test "the outage control cuts open connections and refuses new ones for a while" {
	# long enough that a loaded machine starts curl inside it
	run -0 sim POST /_sim/outage "{\"seconds\": $((3 * TIME_SCALE))}"
	assert_output --partial "\"seconds\":$((3 * TIME_SCALE))"
	run curl -sS --max-time 2 --cacert "$KUBESIM_CA" "$KUBESIM_URL/_sim/health"
	assert_failure
	back_up
	run sim POST /_sim/outage '{"seconds": -1}'
	assert_failure
	assert_output --partial 'seconds'
}

@test "logs -f rides out an API server restart: every line exactly once" {
	local pod
	pod=$(job_running restart-logs)
	add_seq "$pod" 1 100
	bg "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/err" runai logs -f restart-logs
	wait_until 200 has_lines "$BATS_TEST_TMPDIR/out" 100
	mark_requests
	outage 2
	sleep 2.2
	back_up
	add_seq "$pod" 101 200
	wait_until 400 has_lines "$BATS_TEST_TMPDIR/out" 200
	phase "$pod" Succeeded
	wait_exit "$BG_PID"
	[ "$BG_STATUS" -eq 0 ]
	diff <(seq 1 200) "$BATS_TEST_TMPDIR/out"
	# it reconnected, asking only for what came after the last line
	requests_since_mark | jq -e -s 'map(select(.path | endswith("/log")))
		| any(.query | tostring | test("sinceTime"))' >/dev/null
}

has_lines() {
	[ "$(wc -l <"$1")" -ge "$2" ]
}

@test "list --watch rides out an API server restart and shows what changed meanwhile" {
	local pod
	pod=$(job_running restart-watch)
	bg "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/err" runai list --watch
	wait_until 200 grep -q '^restart-watch  *Running' "$BATS_TEST_TMPDIR/out"
	outage 2
	sleep 2.2
	back_up
	# changed while the watch is broken: only a new list can show it
	phase "$pod" Succeeded
	wait_until 400 grep -q '^restart-watch  *Succeeded' "$BATS_TEST_TMPDIR/out"
	# still watching
	kill -0 "$BG_PID"
	kill "$BG_PID"
}

@test "list --watch gives up with one clear line when the API server stays away" {
	job_running gone-watch >/dev/null
	RUNAI_RECONNECT_TIMEOUT=2 RUNAI_MAX_RETRIES=0 \
		bg "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/err" runai list --watch
	wait_until 200 grep -q '^gone-watch ' "$BATS_TEST_TMPDIR/out"
	# away three times as long as runai waits for it to come back
	outage $((6 * TIME_SCALE))
	wait_until 300 eval '! kill -0 '"$BG_PID"' 2>/dev/null'
	wait_exit "$BG_PID"
	[ "$BG_STATUS" -eq 1 ]
	grep -v 'reconnecting in' "$BATS_TEST_TMPDIR/err" >"$BATS_TEST_TMPDIR/err.last"
	clear_error "$BATS_TEST_TMPDIR/err.last"
	grep -q 'did not answer again within 2 s' "$BATS_TEST_TMPDIR/err.last"
	back_up
}

@test "a list retries through a short restart and succeeds" {
	# down for about half a second; the retries wait 1.05 s at least
	outage 0.5
	run -0 runai list jobs
	assert_output --partial NAME
}

@test "a list during a long outage fails with one clear line, fast" {
	# refused at once, one retry a second later: well inside the outage
	outage $((6 * TIME_SCALE))
	local t0=$SECONDS
	RUNAI_MAX_RETRIES=1 run runai list jobs
	[ "$status" -ne 0 ]
	[ $((SECONDS - t0)) -lt $((5 * TIME_SCALE)) ]
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/err"
	clear_error "$BATS_TEST_TMPDIR/err"
	back_up
}

@test "an exec session cut by a restart ends with one clear line" {
	job_running restart-exec >/dev/null
	mkfifo "$BATS_TEST_TMPDIR/in"
	bg "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/err" \
		sh -c 'exec runai exec -i restart-exec -- cat <"$1"' sh "$BATS_TEST_TMPDIR/in"
	local runai_pid=$BG_PID
	local fd
	exec {fd}>"$BATS_TEST_TMPDIR/in"
	echo hello >&"$fd"
	# the session is up once cat has echoed the line back
	wait_until 400 grep -qx hello "$BATS_TEST_TMPDIR/out"
	outage 1
	wait_exit "$runai_pid"
	exec {fd}>&-
	[ "$BG_STATUS" -ne 0 ]
	clear_error "$BATS_TEST_TMPDIR/err"
	back_up
}

@test "a 429 storm: retried after Retry-After, then a clear error" {
	sim POST /_sim/faults '{"path_prefix":"/","count":100000,"status":429,"retry_after":1}' >/dev/null
	local t0=$SECONDS
	RUNAI_MAX_RETRIES=2 run runai list jobs
	[ "$status" -ne 0 ]
	# two retries, a second apart each: neither at once nor forever
	[ $((SECONDS - t0)) -ge 2 ]
	[ $((SECONDS - t0)) -lt $((10 * TIME_SCALE)) ]
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/err"
	clear_error "$BATS_TEST_TMPDIR/err"
	assert_output --regexp '429|[Tt]oo [Mm]any [Rr]equests'
}

@test "20 commands through a passing 429 storm all succeed" {
	# under valgrind 20 at once on two cores would outlast the emulator's
	# 10 s TLS handshake limit: 4 then (each still asks several lists)
	local i pids=() bad=0 n=$((20 / TIME_SCALE))
	# the first 20 requests to the jobs' namespace are turned away once
	sim POST /_sim/faults "{\"path_prefix\":\"/apis\",\"count\":20,\"status\":429,\"retry_after\":1}" >/dev/null
	for i in $(seq 1 "$n"); do
		runai list jobs >"$BATS_TEST_TMPDIR/o.$i" 2>"$BATS_TEST_TMPDIR/e.$i" &
		pids+=($!)
	done
	for i in $(seq 1 "$n"); do
		wait "${pids[i - 1]}" || { cat "$BATS_TEST_TMPDIR/e.$i" >&2; bad=1; }
	done
	[ "$bad" = 0 ]
	[ "$(sim GET /_sim/faults | jq length)" -eq 0 ]
}

@test "a slow-loris answer (a byte a second) hits the request timeout" {
	sim POST /_sim/faults '{"path_prefix":"/api/v1/namespaces/runai-team-a/services","count":100,"trickle":true}' >/dev/null
	local t0=$SECONDS
	RUNAI_REQUEST_TIMEOUT=2s RUNAI_MAX_RETRIES=0 run runai list jobs
	[ "$status" -ne 0 ]
	[ $((SECONDS - t0)) -lt $((8 * TIME_SCALE)) ]
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/err"
	clear_error "$BATS_TEST_TMPDIR/err"
	assert_output --regexp '[Tt]ime(d)? ?out|timeout'
}

@test "a slow-loris answer to runai-adm hits its timeout too" {
	sim POST /_sim/faults '{"path_prefix":"/api/v1/nodes","count":100,"trickle":true}' >/dev/null
	local t0=$SECONDS
	RUNAI_REQUEST_TIMEOUT=2s RUNAI_MAX_RETRIES=0 run runai-adm node list
	[ "$status" -ne 0 ]
	[ $((SECONDS - t0)) -lt $((8 * TIME_SCALE)) ]
	[[ ${lines[0]} == "runai-adm: error: "* ]]
}
