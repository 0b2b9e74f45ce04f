#!/usr/bin/env bats
# runai port-forward against an API server from before Kubernetes 1.31,
# which serves no SPDY in a WebSocket (kube-sim --no-portforward-tunnel):
# runai's upgrade offers the tunnel first and the channel protocol
# second, the server picks the channels, and every connection then gets
# a WebSocket of its own: content, a burst (at most 8 upgrades at once),
# each upgrade resuming the client's TLS session, a pod deleted with a
# connection open.

load lib/common
load lib/portforward

NS=runai-team-a

setup_file() {
	kubesim_start_sandboxed --no-portforward-tunnel
}

teardown_file() {
	kubesim_stop
}

setup() {
	sim_test_setup "$NS"
	PF_PID=
}

teardown() {
	[ -z "$PF_PID" ] || kill "$PF_PID" 2>/dev/null || true
	kube_api -X DELETE "$KUBESIM_URL/apis/run.ai/v1/namespaces/$NS/runaijobs" >/dev/null || true
	kube_api -X DELETE "$KUBESIM_URL/api/v1/namespaces/$NS/pods" >/dev/null || true
}

@test "the channel protocol when the server has no tunnel: content, 50 at once, 20 MiB intact" {
	local port i
	port=$(free_port)
	web_job web21 "$port"
	mark_requests
	start_pf web21 --port ":$port"
	run -0 get index.txt
	assert_output "hello from web21"
	runai exec web21 -- sh -c 'for i in $(seq 1 50); do echo "file $i" >"f$i"; done; head -c 20971520 /dev/urandom >big'
	seq 1 50 | xargs -P 50 -I{} sh -c \
		"curl -sf -m 30 http://127.0.0.1:$PF_LOCAL/f{} >'$BATS_TEST_TMPDIR/r{}'"
	for i in $(seq 1 50); do
		[ "$(cat "$BATS_TEST_TMPDIR/r$i")" = "file $i" ] || { echo "request $i: $(cat "$BATS_TEST_TMPDIR/r$i")"; return 1; }
	done
	run -0 runai exec web21 -- sha256sum big
	local want=${output%% *}
	curl -sf -m 60 -o "$BATS_TEST_TMPDIR/big" "http://127.0.0.1:$PF_LOCAL/big"
	[ "$(sha256sum <"$BATS_TEST_TMPDIR/big" | cut -d' ' -f1)" = "$want" ]
	# one upgrade per connection, every one let through
	run -0 jq -r 'select(.path | endswith("/portforward")) | .status' < <(requests_since_mark)
	[ "$(grep -c '^101$' <<<"$output")" -ge 52 ]
	refute_line --regexp '^[^1]'
	# the first, made at the start to learn the protocol, offered the
	# tunnel too; the server's answer (channels) ended it at once, and
	# runai went on with a WebSocket per connection
	run -0 jq -r 'select(.path | endswith("/portforward")) | .headers["sec-websocket-protocol"]' "$KUBESIM_DIR/requests.jsonl"
	assert_line --index 0 "SPDY/3.1+portforward.k8s.io, v4.channel.k8s.io"
	assert_line "v4.channel.k8s.io"
	[ ! -s "$BATS_TEST_TMPDIR/pf.err" ] || { cat "$BATS_TEST_TMPDIR/pf.err"; return 1; }
}

@test "a burst of connections waits in the listener's backlog: at most 8 upgrades at once, every one answered" {
	local port pfpath i most
	port=$(free_port)
	web_job web12 "$port"
	start_pf web12 --port ":$port"
	mark_requests
	get index.txt >/dev/null
	pfpath=$(requests_since_mark | jq -r 'select(.path | endswith("/portforward")) | .path' | tail -1)
	[ -n "$pfpath" ]
	# the emulator holds each upgrade a second and counts how many it
	# holds at once: without a cap all 30 would be there together; with
	# it, more than one (a second leaves even a loaded machine the time
	# to send the next upgrades while the first is held)
	sim POST /_sim/faults "{\"path_prefix\": \"$pfpath\", \"count\": 31, \"delay\": 1}" >/dev/null
	seq 1 30 | xargs -P 30 -I{} sh -c \
		"curl -sf -m 60 http://127.0.0.1:$PF_LOCAL/index.txt >'$BATS_TEST_TMPDIR/b{}'"
	for i in $(seq 1 30); do
		[ "$(cat "$BATS_TEST_TMPDIR/b$i")" = "hello from web12" ] || { echo "request $i: $(cat "$BATS_TEST_TMPDIR/b$i")"; return 1; }
	done
	run -0 sim GET /_sim/faults
	most=$(jq -r --arg p "$pfpath" '.[] | select(.path_prefix == $p) | .most_waiting' <<<"$output")
	echo "most upgrades held at once: $most"
	[ "$most" -ge 2 ] && [ "$most" -le 8 ]
	[ ! -s "$BATS_TEST_TMPDIR/pf.err" ] || { cat "$BATS_TEST_TMPDIR/pf.err"; return 1; }
}

@test "each connection's upgrade resumes the client's TLS session (no full handshake per connection)" {
	local port
	port=$(free_port)
	web_job web11 "$port"
	start_pf web11 --port ":$port"
	get index.txt >/dev/null
	mark_requests
	local _
	for _ in $(seq 1 10); do
		curl -sf -m 30 -o /dev/null "http://127.0.0.1:$PF_LOCAL/index.txt"
	done
	run -0 jq -r 'select(.path | endswith("/portforward")) | "\(.status) \(.tls_resumed)"' < <(requests_since_mark)
	[ "${#lines[@]}" -eq 10 ]
	refute_line --regexp '^.* (false|null)$'
	assert_line "101 true"
	# at once too: (the emulator's TLS server declines a ticket now and
	# then when many arrive together, as it may: most are resumed)
	mark_requests
	seq 1 20 | xargs -P 20 -I{} curl -sf -m 30 -o /dev/null "http://127.0.0.1:$PF_LOCAL/index.txt"
	run -0 jq -r 'select(.path | endswith("/portforward")) | .tls_resumed' < <(requests_since_mark)
	[ "${#lines[@]}" -eq 20 ]
	[ "$(grep -c '^true$' <<<"$output")" -ge 10 ] || { echo "$output"; false; }
}

@test "the pod deleted: the job's next pod takes the next connection" {
	local port old
	port=$(free_port)
	web_job web23 "$port"
	old=$(kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/pods?labelSelector=release%3Dweb23" | jq -r '.items[0].metadata.name')
	start_pf web23 --port ":$port" --pod-running-timeout 20s
	run -0 get index.txt
	assert_output "hello from web23"
	kube_api -X DELETE "$KUBESIM_URL/api/v1/namespaces/$NS/pods/$old" >/dev/null
	assert_pod_switch "$old" web23
	run -0 get index.txt
	assert_output "hello from web23"
}
