#!/usr/bin/env bats
# runai and runai-adm behind a real HTTP proxy (Debian's tinyproxy on
# loopback, tests/peers/proxy-peer), as on a jumpbox that reaches the
# cluster only through one: the API server through CONNECT tunnels from
# HTTPS_PROXY/https_proxy or the kubeconfig's proxy-url, the WebSocket
# streams (exec, logs -f) through the same tunnel, NO_PROXY honoured,
# a proxy that asks for credentials (407 without them, a clear error),
# the credentials never in -v=10 output, and runai-adm images push to a
# plain-HTTP registry through http_proxy; and an https:// proxy (a TLS
# front, tests/peers/tls-front) that only the cluster's CA vouches for,
# refused. The proxy's log says what went through it.

load lib/common
load lib/registry

NS=runai-team-a
PEER="$TOP/tests/peers/proxy-peer"
PASS=pr0xy-s3cret

setup_file() {
	"$PEER" check >/dev/null || return 0
	kubesim_start --demo --tick 0.2
	"$PEER" start "$BATS_FILE_TMPDIR/open"
	"$PEER" start "$BATS_FILE_TMPDIR/auth" --auth "alice:$PASS"
}

teardown_file() {
	"$PEER" stop "$BATS_FILE_TMPDIR/open"
	"$PEER" stop "$BATS_FILE_TMPDIR/auth"
	registry_stop_all 2>/dev/null || true
	kubesim_stop
}

setup() {
	local why
	why=$("$PEER" check) || skip "$why"
	FRONT_PID=
	sim_test_setup "$NS"
	unset https_proxy HTTPS_PROXY http_proxy no_proxy NO_PROXY
	OPEN=$(sed -n 's/^PROXY_PORT=//p' "$BATS_FILE_TMPDIR/open/env")
	AUTH=$(sed -n 's/^PROXY_PORT=//p' "$BATS_FILE_TMPDIR/auth/env")
}

teardown() {
	[ -z "${FRONT_PID:-}" ] || kill "$FRONT_PID" 2>/dev/null || true
}

# tunnels NAME: the CONNECT requests proxy NAME has carried to kube-sim
tunnels() {
	grep -c "CONNECT 127.0.0.1:$KUBESIM_PORT " "$BATS_FILE_TMPDIR/$1/log" || true
}

@test "HTTPS_PROXY and https_proxy: every request through a CONNECT tunnel; NO_PROXY goes around" {
	local before=$(tunnels open)
	HTTPS_PROXY=http://127.0.0.1:$OPEN run -0 runai list projects
	assert_output --partial team-a
	[ "$(tunnels open)" -gt "$before" ]
	before=$(tunnels open)
	https_proxy=http://127.0.0.1:$OPEN run -0 runai list nodes
	[ "$(tunnels open)" -gt "$before" ]
	before=$(tunnels open)
	https_proxy=http://127.0.0.1:$OPEN NO_PROXY=127.0.0.1 run -0 runai list nodes
	[ "$(tunnels open)" -eq "$before" ]
	https_proxy=http://127.0.0.1:$OPEN no_proxy=localhost,127.0.0.0/8 run -0 runai list nodes
	[ "$(tunnels open)" -eq "$before" ]
}

@test "exec and logs -f stream through the proxy's tunnel" {
	export https_proxy=http://127.0.0.1:$OPEN
	run -0 runai submit px1 -i busybox --interactive -- sh -c 'echo from-the-pod; sleep 600'
	pod_running px1
	local before=$(tunnels open)
	run -0 runai exec px1 -- echo through-the-tunnel
	assert_output through-the-tunnel
	[ "$(tunnels open)" -gt "$before" ]
	run -0 timeout $((10 * TIME_SCALE)) runai logs px1
	assert_output --partial from-the-pod
	# -f stays on the stream until the pod goes
	runai logs -f px1 >"$BATS_TEST_TMPDIR/follow" 2>&1 &
	local pid=$!
	local _
	for _ in $(seq 1 $((50 * TIME_SCALE))); do
		grep -q from-the-pod "$BATS_TEST_TMPDIR/follow" && break
		sleep 0.1
	done
	grep -q from-the-pod "$BATS_TEST_TMPDIR/follow"
	kill "$pid"
	wait "$pid" || true
	unset https_proxy
	run -0 runai delete job px1
}

@test "the kubeconfig's proxy-url with credentials: through the proxy, never shown" {
	local cluster
	cluster=$(yq -r '.contexts[0].context.cluster' "$KUBECONFIG")
	yq -yi "(.clusters[] | select(.name == \"$cluster\") | .cluster.\"proxy-url\") = \"http://alice:$PASS@127.0.0.1:$AUTH\"" "$KUBECONFIG"
	local before=$(tunnels auth)
	run -0 --separate-stderr runai -v=10 list projects
	assert_output --partial team-a
	[ "$(tunnels auth)" -gt "$before" ]
	[[ "$stderr" != *"$PASS"* ]]
	[[ "$output" != *"$PASS"* ]]
	# without the credentials the proxy says 407: said as the proxy's
	# answer, with what to do, for requests and streams alike
	yq -yi "(.clusters[] | select(.name == \"$cluster\") | .cluster.\"proxy-url\") = \"http://127.0.0.1:$AUTH\"" "$KUBECONFIG"
	run -1 --separate-stderr runai list projects
	assert_equal "$(head -n 1 <<<"$stderr")" "runai: error: the proxy refused the tunnel to 'https://127.0.0.1:$KUBESIM_PORT/apis/run.ai/v1' (HTTP 407)"
	assert_equal "$(tail -n 1 <<<"$stderr")" "hint: the proxy wants credentials: give them in its URL, http://USER:PASSWORD@HOST:PORT (https_proxy, or the kubeconfig's proxy-url)"
	[ "$(wc -l <<<"$stderr")" -eq 2 ]
}

# jobs_accept_encoding: the Accept-Encoding of the first list of team-c's
# RunaiJobs since the mark ("null" when none was sent)
jobs_accept_encoding() {
	jq -rs '[.[] | select(.path == "/apis/run.ai/v1/namespaces/runai-team-c/runaijobs")][0].headers."accept-encoding"' \
		< <(requests_since_mark)
}

@test "through a proxy the answers come gzip'ed, as kubectl asks for them, and decode whole" {
	sim POST /_sim/bulk '{"plural": "runaijobs", "namespace": "runai-team-c", "count": 1200, "prefix": "gz-"}' >/dev/null
	local cluster
	cluster=$(yq -r '.contexts[0].context.cluster' "$KUBECONFIG")
	yq -yi "(.clusters[] | select(.name == \"$cluster\") | .cluster.\"proxy-url\") = \"http://127.0.0.1:$OPEN\"" "$KUBECONFIG"
	mark_requests
	runai -v=8 list -p team-c >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err"
	# the list of 1,200 jobs (well over the server's 128 KiB) came gzip'ed
	grep -qi '< Content-Encoding: gzip' "$BATS_TEST_TMPDIR/err"
	[ "$(grep -c '^gz-[0-9]* *Running ' "$BATS_TEST_TMPDIR/out")" -eq 1200 ]
	run -0 jobs_accept_encoding
	assert_output --partial gzip
	# the same through https_proxy; the kubeconfig's disable-compression
	# keeps the answers plain even through a proxy
	yq -yi "del(.clusters[].cluster.\"proxy-url\")" "$KUBECONFIG"
	mark_requests
	local before=$(tunnels open)
	https_proxy=http://127.0.0.1:$OPEN run -0 runai list -p team-c -o name
	[ "${#lines[@]}" -ge 1200 ]
	[ "$(tunnels open)" -gt "$before" ]
	run -0 jobs_accept_encoding
	assert_output --partial gzip
	yq -yi "(.clusters[] | select(.name == \"$cluster\") | .cluster.\"disable-compression\") = true" "$KUBECONFIG"
	mark_requests
	https_proxy=http://127.0.0.1:$OPEN run -0 runai list -p team-c -o name
	[ "${#lines[@]}" -ge 1200 ]
	run -0 jq -s '[.[] | select(.headers."accept-encoding" != null)] | length' \
		< <(requests_since_mark)
	assert_output 0
}

@test "runai-adm images push to a plain-HTTP registry through http_proxy" {
	have_registry_peers || skip "docker-registry, skopeo, htpasswd or openssl missing"
	registry_start plain
	"$PYTHON" "$TOP/tests/helper/mkimages.py" ociarchive "$BATS_TEST_TMPDIR/oci.tar" >/dev/null
	http_proxy=http://127.0.0.1:$OPEN run -0 --separate-stderr runai-adm images push \
		"$BATS_TEST_TMPDIR/oci.tar" --registry "$REG_plain/px" --plain-http
	assert_equal "$(wc -l <<<"$output")" 4
	local one
	one=$(grep '/px/run-ai/one:1.0@' <<<"$output")
	# the registry's requests went through the proxy
	grep -q "http://$REG_plain/v2/" "$BATS_FILE_TMPDIR/open/log"
	run -0 skopeo_digest "$REG_plain/px/run-ai/one:1.0" --tls-verify=false
	assert_output "${one#*@}"
}

@test "an https:// proxy is checked against the system's CAs: the cluster's CA never vouches for it" {
	# a TLS front to the open proxy with the emulator's own server
	# certificate (127.0.0.1): the kubeconfig's CA signed it, the
	# system's CAs did not, so the proxy must be refused, and the tunnel
	# never made
	"$TOP/tests/peers/tls-front" "$KUBESIM_DIR/server.crt" "$KUBESIM_DIR/server.key" \
		"$OPEN" "$BATS_TEST_TMPDIR/front.port" 2>"$BATS_TEST_TMPDIR/front.log" &
	FRONT_PID=$!
	local _
	for _ in $(seq 1 $((50 * TIME_SCALE))); do
		[ -s "$BATS_TEST_TMPDIR/front.port" ] && break
		sleep 0.1
	done
	local port before=$(tunnels open)
	port=$(cat "$BATS_TEST_TMPDIR/front.port")
	HTTPS_PROXY=https://127.0.0.1:$port run -1 --separate-stderr runai list projects
	assert_equal "$(head -n 1 <<<"$stderr" | grep -c 'certificate')" 1
	grep -q '^handshake failed' "$BATS_TEST_TMPDIR/front.log"
	run grep -c '^handshake ok' "$BATS_TEST_TMPDIR/front.log"
	assert_output 0
	[ "$(tunnels open)" -eq "$before" ]
}
