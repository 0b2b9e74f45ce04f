#!/usr/bin/env bats
# Issue 24, finding 2: plain HTTP to an identity provider only to a
# loopback address, judged on the parsed URL. A hostile issuer on
# 127.0.0.1 names a token endpoint that reads as loopback but is not
# ("http://127.0.0.1@127.0.0.2:PORT/token"): the password grant must not
# be sent, and a listener on 127.0.0.2 must receive nothing. The same
# issuer with an honest loopback token endpoint does get the grant.

load lib/common
load lib/hostile

setup_file() {
	"$PYTHON" -c 'import socket; socket.socket().bind(("127.0.0.2", 0))' 2>/dev/null ||
		skip "127.0.0.2 cannot be bound here"
	hostile_start sink sink --host 127.0.0.2
}

teardown_file() {
	hostile_stop_all
}

setup() {
	isolate_env
}

teardown() {
	idp_stop
}

# The issuer lives for one test, the sink for the whole file.
idp_stop() {
	[ -n "${IDP_PID:-}" ] || return 0
	kill "$IDP_PID" 2>/dev/null || true
	wait "$IDP_PID" 2>/dev/null || true
	IDP_PID=
}

# idp TOKEN-ENDPOINT: a hostile issuer naming TOKEN-ENDPOINT; writes a
# kubeconfig whose user logs in there with a client secret.
idp() {
	local dir="$BATS_TEST_TMPDIR/idp"
	mkdir -p "$dir"
	"$PYTHON" "$TOP/tests/e2e/lib/hostile.py" idp --ready "$dir/ready" \
		--log "$dir/log" --token-endpoint "$1" >"$dir/out" 2>&1 &
	IDP_PID=$!
	for _ in $(seq 1 $((200 * TIME_SCALE))); do
		[ -s "$dir/ready" ] && break
		sleep 0.05
	done
	IDP_PORT=$(cat "$dir/ready")
	IDP_LOG="$dir/log"
	export KUBECONFIG="$HOME/.kube/config"
	cat >"$KUBECONFIG" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: https://127.0.0.1:1
users:
- name: oidc
  user:
    auth-provider:
      name: oidc
      config:
        idp-issuer-url: http://127.0.0.1:$IDP_PORT
        client-id: runai-cli
        client-secret: s3cret-client-secret
        auth-flow: cli
contexts:
- name: c
  context:
    cluster: c
    user: oidc
current-context: c
EOF
	chmod 600 "$KUBECONFIG"
}

login() {
	printf '%s\n' 'hunter2-password' |
		runai login --auth-flow cli --username alice --password-stdin
}

@test "a token endpoint hiding 127.0.0.2 behind user info gets no credentials" {
	idp "http://127.0.0.1@127.0.0.2:$HOSTILE_sink_PORT/token"
	run -1 --separate-stderr login
	assert_equal "$(wc -l <<<"$stderr")" 1
	stderr_has "no usable token_endpoint"
	stderr_has "127.0.0.2"
	# discovery was read, the grant went nowhere
	grep -q '"GET", "path": "/.well-known/openid-configuration"' "$IDP_LOG"
	run ! grep -q '"POST"' "$IDP_LOG"
	sleep 0.2
	run ! grep -qE 'hunter2|s3cret|alice|connection' "$BATS_FILE_TMPDIR/hostile-sink.log"
}

@test "a token endpoint on a look-alike host name is refused before any lookup" {
	idp "http://localhost.evil.example:$HOSTILE_sink_PORT/token"
	run -1 --separate-stderr login
	stderr_has "no usable token_endpoint"
	stderr_has "localhost.evil.example"
	run ! grep -q '"POST"' "$IDP_LOG"
}

@test "plain http to the name localhost is refused; only loopback addresses" {
	idp "http://localhost:$HOSTILE_sink_PORT/token"
	run -1 --separate-stderr login
	stderr_has "no usable token_endpoint"
	run ! grep -q 'connection' "$BATS_FILE_TMPDIR/hostile-sink.log"
}

@test "an honest loopback token endpoint gets the grant" {
	idp "http://127.0.0.1:{port}/token"
	run -1 --separate-stderr login
	stderr_is "runai: error: invalid username or password"
	grep '"POST", "path": "/token"' "$IDP_LOG" | grep -q 'hunter2-password'
	# the secret went to the issuer, never to a log or the terminal
	run ! grep -q 's3cret' <<<"$stderr$output"
}

@test "an issuer that is plain http off loopback is refused" {
	idp "http://127.0.0.1:{port}/token"
	K=http://127.0.0.1@127.0.0.2:$HOSTILE_sink_PORT yq -yi \
		'.users[0].user["auth-provider"].config["idp-issuer-url"] = env.K' "$KUBECONFIG"
	run -1 --separate-stderr login
	stderr_has "is not an https URL"
	run ! grep -q 'connection' "$BATS_FILE_TMPDIR/hostile-sink.log"
}
