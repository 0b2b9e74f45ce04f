#!/usr/bin/env bats
# The Kubernetes client library (lib/kube/client.c, lib/core/http.c,
# lib/kube/stream.c) driven through rai-test-tool against kube-sim:
# pagination, escaping on the wire, Status errors, retries, timeouts,
# TLS, watch and log streams, tracing with redaction, caps; plus the
# backend client (lib/runai/backend.c) against a static HTTP server.

load lib/common

case ${RAI_BUILD_DIR:-build/default} in
/*) TOOL_BIN=$RAI_BUILD_DIR/tests/helper/rai-test-tool ;;
*) TOOL_BIN=$TOP/${RAI_BUILD_DIR:-build/default}/tests/helper/rai-test-tool ;;
esac

# The tool, under valgrind when the suite runs that way.
tool() {
	if [ "${RAI_VALGRIND:-0}" = 1 ]; then
		valgrind -q --leak-check=full --show-leak-kinds=definite,indirect \
			--errors-for-leak-kinds=definite,indirect --error-exitcode=99 \
			"$TOOL_BIN" "$@"
	else
		"$TOOL_BIN" "$@"
	fi
}

kube() {
	tool kube "$@" --kubeconfig "$KUBECONFIG"
}

fault() {
	sim POST /_sim/faults "$1" >/dev/null
}

# Waits (up to 10 s) until N such requests are logged: kube-sim logs a
# request when it answers, so one that a client gave up on during a
# delay shows up late and must not leak into the next test's counts.
wait_requests() {
	local i
	for i in $(seq 1 $((200 * TIME_SCALE))); do
		[ "$(count_requests "$1" "$2")" -ge "$3" ] && return 0
		sleep 0.05
	done
	echo "expected $3 $1 $2 requests, saw $(count_requests "$1" "$2")" >&2
	return 1
}

setup_file() {
	[ -x "$TOOL_BIN" ] || { echo "build $TOOL_BIN first (make test-bins)" >&2; return 1; }
	kubesim_start --demo
	sim POST /_sim/bulk '{"plural": "configmaps", "namespace": "bulk", "count": 1234, "prefix": "cm"}' >/dev/null
	sim POST /_sim/seed '{"apiVersion": "v1", "kind": "Pod",
		"metadata": {"name": "logger", "namespace": "default"},
		"spec": {"nodeName": "node-1", "containers": [{"name": "main", "image": "busybox"}]},
		"status": {"phase": "Running"}}' >/dev/null
	sim POST /_sim/logs '{"namespace": "default", "pod": "logger",
		"lines": ["first line", "second line", "third line"]}' >/dev/null
}

teardown_file() {
	kubesim_stop
}

setup() {
	isolate_env
	use_sim_kubeconfig
	unset RUNAI_MAX_RETRIES RUNAI_REQUEST_TIMEOUT RUNAI_MAX_RESPONSE RUNAI_BACKEND_URL
	sim DELETE /_sim/faults >/dev/null
	mark_requests
}

teardown() {
	sim DELETE /_sim/faults >/dev/null || true
	if [ -n "${HTTP_PID:-}" ]; then
		kill "$HTTP_PID" 2>/dev/null || true
		wait "$HTTP_PID" 2>/dev/null || true
	fi
}

# --- lists -------------------------------------------------------------------

@test "list follows continue tokens and returns every item" {
	run -0 kube list configmaps -n bulk --limit 100 -o count
	assert_output 1234
	assert_equal "$(count_requests GET /api/v1/namespaces/bulk/configmaps)" 13
	assert_equal "$(requests_since_mark | jq -s '[.[] | select(.query.continue)] | length')" 12
	assert_request GET /api/v1/namespaces/bulk/configmaps \
		'.query.limit == ["100"] and (.query | has("continue") | not)'
}

@test "the default page size is 500" {
	run -0 kube list configmaps -n bulk -o count
	assert_output 1234
	assert_equal "$(count_requests GET /api/v1/namespaces/bulk/configmaps)" 3
	assert_request GET /api/v1/namespaces/bulk/configmaps '.query.limit == ["500"]'
}

@test "a merged list has no continue token and the last page's resourceVersion" {
	run -0 kube list configmaps -n bulk --limit 1000 -o json
	assert_equal "$(jq -r '.kind' <<<"$output")" ConfigMapList
	assert_equal "$(jq -r '.metadata | has("continue")' <<<"$output")" false
	assert_equal "$(jq -r '.metadata | has("remainingItemCount")' <<<"$output")" false
	assert_equal "$(jq -r '.items | map(.metadata.name) | unique | length' <<<"$output")" 1234
	[ -n "$(jq -r '.metadata.resourceVersion' <<<"$output")" ]
}

@test "--single-page returns one page with its continue token" {
	run -0 kube list configmaps -n bulk --limit 100 --single-page -o json
	assert_equal "$(jq '.items | length' <<<"$output")" 100
	[ -n "$(jq -r '.metadata.continue // empty' <<<"$output")" ]
	assert_equal "$(count_requests GET /api/v1/namespaces/bulk/configmaps)" 1
}

@test "a 410 while paging restarts the list once" {
	fault '{"path_prefix": "/api/v1/namespaces/bulk/configmaps", "count": 1}'
	fault '{"path_prefix": "/api/v1/namespaces/bulk/configmaps", "count": 1, "status": 410}'
	run -0 kube list configmaps -n bulk --limit 500 -o count
	assert_output 1234
	# page 1, page 2 (410), then pages 1-3 again
	assert_equal "$(count_requests GET /api/v1/namespaces/bulk/configmaps)" 5
}

@test "page by page, every page reaches the caller and the list is never merged" {
	run -0 kube list configmaps -n bulk --limit 500 -o pages
	assert_output "$(printf 'page 500\npage 500\npage 234\ntotal 1234')"
}

@test "page by page, a 410 tells the caller to start over, then pages again" {
	fault '{"path_prefix": "/api/v1/namespaces/bulk/configmaps", "count": 1}'
	fault '{"path_prefix": "/api/v1/namespaces/bulk/configmaps", "count": 1, "status": 410}'
	run -0 kube list configmaps -n bulk --limit 500 -o pages
	assert_output "$(printf 'page 500\nrestart\npage 500\npage 500\npage 234\ntotal 1234')"
	assert_equal "$(count_requests GET /api/v1/namespaces/bulk/configmaps)" 5
}

@test "a second 410 while paging is an error" {
	fault '{"path_prefix": "/api/v1/namespaces/bulk/configmaps", "count": 1}'
	fault '{"path_prefix": "/api/v1/namespaces/bulk/configmaps", "count": 1, "status": 410}'
	fault '{"path_prefix": "/api/v1/namespaces/bulk/configmaps", "count": 1, "delay": 0.01}'
	fault '{"path_prefix": "/api/v1/namespaces/bulk/configmaps", "count": 1, "status": 410}'
	run -1 --separate-stderr kube list configmaps -n bulk --limit 500 -o count
	assert_equal "$stderr" "rai-test-tool: error from server (Gone): injected fault (410)"
	assert_output ""
	assert_equal "$(count_requests GET /api/v1/namespaces/bulk/configmaps)" 4
}

# --- escaping on the wire ----------------------------------------------------

@test "a label selector reaches the server intact" {
	run -0 kube list namespaces -l 'runai/queue in (team-a,team-b),!absent' -o names
	assert_output "runai-team-a
runai-team-b"
	assert_request GET /api/v1/namespaces \
		'.query.labelSelector == ["runai/queue in (team-a,team-b),!absent"]'
}

@test "a field selector with != and URL metacharacters reaches the server intact" {
	run -0 kube list namespaces -l runai/queue --field-selector 'metadata.name!=runai-team-a,metadata.name!=x+y&z=1#w%41' -o names
	assert_output "runai-team-b
runai-team-c
runai-team-d"
	assert_request GET /api/v1/namespaces \
		'.query.fieldSelector == ["metadata.name!=runai-team-a,metadata.name!=x+y&z=1#w%41"] and (.query | has("z") | not)'
}

@test "a name with reserved characters stays one path segment" {
	run -1 --separate-stderr kube get nodes 'we ird?x=1&y=%41#frag'
	assert_equal "$stderr" 'rai-test-tool: error from server (NotFound): nodes "we ird?x=1&y=%41#frag" not found'
	assert_request GET '/api/v1/nodes/we ird?x=1&y=%41#frag' '.query == {}'
}

# --- errors from the server --------------------------------------------------

@test "404 shows the Status reason and message" {
	run -1 --separate-stderr kube get nodes nope
	assert_equal "$stderr" 'rai-test-tool: error from server (NotFound): nodes "nope" not found'
	assert_output ""
}

@test "403 shows the Status reason and message" {
	fault '{"path_prefix": "/api/v1/nodes", "status": 403}'
	run -1 --separate-stderr kube list nodes
	assert_equal "$stderr" "rai-test-tool: error from server (Forbidden): forbidden: injected fault"
}

@test "401 for a static token shows Unauthorized and is not repeated" {
	run -1 --separate-stderr tool kube list nodes --server "$KUBESIM_URL" --ca "$KUBESIM_CA" --token wrong
	assert_equal "$stderr" "rai-test-tool: error from server (Unauthorized): Unauthorized"
	assert_equal "$(count_requests GET /api/v1/nodes)" 1
}

@test "401 for a token file is retried once after re-reading the file" {
	echo wrong >"$BATS_TEST_TMPDIR/token"
	run -1 --separate-stderr tool kube list nodes --server "$KUBESIM_URL" --ca "$KUBESIM_CA" \
		--token-file "$BATS_TEST_TMPDIR/token"
	assert_equal "$stderr" "rai-test-tool: error from server (Unauthorized): Unauthorized"
	assert_equal "$(count_requests GET /api/v1/nodes)" 2
}

@test "a token file is sent as a bearer token" {
	printf '%s\n' "$KUBESIM_TOKEN" >"$BATS_TEST_TMPDIR/token"
	run -0 tool kube list nodes -o names --server "$KUBESIM_URL" --ca "$KUBESIM_CA" \
		--token-file "$BATS_TEST_TMPDIR/token"
	assert_output "node-1
node-2"
	assert_request GET /api/v1/nodes '.auth == "bearer"'
}

@test "500 with a Status shows its reason and message" {
	fault '{"path_prefix": "/api/v1/nodes", "status": 500}'
	run -1 --separate-stderr kube list nodes --retries 0
	assert_equal "$stderr" "rai-test-tool: error from server (InternalError): Internal error occurred: injected fault"
}

@test "500 with an HTML body shows the reason phrase and an excerpt" {
	fault '{"path_prefix": "/api/v1/nodes", "status": 500, "body": "html"}'
	run -1 --separate-stderr kube list nodes --retries 0
	assert_equal "$stderr" "rai-test-tool: error from server (InternalError): 500 Internal Server Error: <html><head><title>500 Internal Server Error</title></head><body><h1>500 Internal Server Error</h1><hr><center>nginx</center></body></html>"
}

@test "a garbage 200 body is a JSON error naming the request" {
	fault '{"path_prefix": "/api/v1/nodes", "status": 200, "body": "garbage"}'
	run -1 --separate-stderr kube list nodes
	assert_equal "$stderr" "rai-test-tool: error: response from GET $KUBESIM_URL/api/v1/nodes?limit=500: malformed JSON near byte 1 of 23"
	assert_output ""
}

@test "a truncated 200 body is an error, not partial data" {
	fault '{"path_prefix": "/api/v1/nodes/node-1", "status": 200, "body": "truncated"}'
	run -1 --separate-stderr kube get nodes node-1 --retries 0
	[[ "$stderr" == "rai-test-tool: error: reading the response from GET $KUBESIM_URL/api/v1/nodes/node-1 failed: transfer closed with "*" bytes remaining to read (curl 18)" ]]
	assert_output ""
}

@test "a truncated body on a GET is retried" {
	fault '{"path_prefix": "/api/v1/nodes/node-1", "status": 200, "body": "truncated"}'
	run -0 kube get nodes node-1
	assert_equal "$(jq -r .metadata.name <<<"$output")" node-1
	assert_equal "$(count_requests GET /api/v1/nodes/node-1)" 2
}

# --- retries -----------------------------------------------------------------

@test "503 twice then success: a GET succeeds after 3 requests" {
	fault '{"path_prefix": "/api/v1/nodes", "count": 2, "status": 503}'
	run -0 --separate-stderr kube list nodes -o names -v 1
	assert_output "node-1
node-2"
	assert_equal "$(count_requests GET /api/v1/nodes)" 3
	assert_equal "$(grep -c "^retrying GET $KUBESIM_URL/api/v1/nodes?limit=500 in [0-9.]*s (503 Service Unavailable)\$" <<<"$stderr")" 2
}

@test "RUNAI_MAX_RETRIES=0 turns retries off" {
	fault '{"path_prefix": "/api/v1/nodes", "count": 2, "status": 503}'
	RUNAI_MAX_RETRIES=0 run -1 --separate-stderr kube list nodes
	assert_equal "$stderr" "rai-test-tool: error from server (ServiceUnavailable): the server is currently unable to handle the request"
	assert_equal "$(count_requests GET /api/v1/nodes)" 1
}

@test "retries give up after the maximum number of attempts" {
	fault '{"path_prefix": "/api/v1/nodes", "count": 10, "status": 502, "body": "empty"}'
	run -1 --separate-stderr kube list nodes --retries 2
	assert_equal "$stderr" "rai-test-tool: error from server: 502 Bad Gateway"
	assert_equal "$(count_requests GET /api/v1/nodes)" 3
}

@test "429 with Retry-After 1 waits a second, then succeeds" {
	fault '{"path_prefix": "/api/v1/nodes", "status": 429, "retry_after": 1}'
	SECONDS=0
	run -0 --separate-stderr kube list nodes -o names -v 1
	[ "$SECONDS" -ge 1 ]
	assert_output "node-1
node-2"
	assert_equal "$stderr" "retrying GET $KUBESIM_URL/api/v1/nodes?limit=500 in 1.0s (429 Too Many Requests)"
	assert_equal "$(count_requests GET /api/v1/nodes)" 2
}

@test "a POST answered 503 is not repeated" {
	printf '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"once"},"data":{"a":"b"}}' \
		>"$BATS_TEST_TMPDIR/cm.json"
	fault '{"path_prefix": "/api/v1/namespaces/default/configmaps", "method": "POST", "count": 3, "status": 503}'
	run -1 --separate-stderr kube create configmaps -n default -f "$BATS_TEST_TMPDIR/cm.json"
	assert_equal "$stderr" "rai-test-tool: error from server (ServiceUnavailable): the server is currently unable to handle the request"
	assert_equal "$(count_requests POST /api/v1/namespaces/default/configmaps)" 1
}

# --- transport ---------------------------------------------------------------

@test "a closed port is a connect error, quickly" {
	SECONDS=0
	run -1 --separate-stderr tool kube version --server https://127.0.0.1:1
	[ "$SECONDS" -lt $((5 * TIME_SCALE)) ]
	[[ "$stderr" == "rai-test-tool: error: cannot connect to 'https://127.0.0.1:1/version': "*"(curl 7)" ]]
}

@test "connect failures are retried with a note at -v 1" {
	run -1 --separate-stderr tool kube version --server https://127.0.0.1:1 --retries 2 -v 1
	assert_equal "$(grep -c "^retrying GET https://127.0.0.1:1/version in [0-9.]*s (Couldn't connect to server)\$" <<<"$stderr")" 2
}

@test "the wrong CA is a TLS error with a hint" {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-keyout "$BATS_TEST_TMPDIR/k" -out "$BATS_TEST_TMPDIR/other.crt" \
		-days 1 -subj /CN=other 2>/dev/null
	run -1 --separate-stderr tool kube version --server "$KUBESIM_URL" --ca "$BATS_TEST_TMPDIR/other.crt"
	[[ "$stderr" == "rai-test-tool: error: TLS connection to '$KUBESIM_URL/version' failed: "*"(curl 60)
hint: check the cluster's certificate-authority"* ]]
}

@test "tls-server-name verifies the certificate against that name" {
	run -0 tool kube version --server "$KUBESIM_URL" --ca "$KUBESIM_CA" --tls-server-name localhost
	assert_output v1.32.5
}

@test "a tls-server-name the certificate does not carry fails" {
	run -1 --separate-stderr tool kube version --server "$KUBESIM_URL" --ca "$KUBESIM_CA" --tls-server-name wrong.example
	[[ "$stderr" == *"TLS connection to '$KUBESIM_URL/version' failed: "*"'wrong.example'"* ]]
}

@test "a client certificate from the kubeconfig authenticates" {
	run -0 tool kube list nodes -o names --kubeconfig "$KUBESIM_DIR/kubeconfig-cert"
	assert_output "node-1
node-2"
	assert_request GET /api/v1/nodes '.auth == "cert" and .user == "kube-sim-admin"'
}

@test "--insecure skips verification" {
	run -0 tool kube version --server "$KUBESIM_URL" --insecure
	assert_output v1.32.5
}

@test "without a CA the system store does not trust the cluster" {
	run -1 --separate-stderr tool kube version --server "$KUBESIM_URL"
	[[ "$stderr" == "rai-test-tool: error: TLS connection to '$KUBESIM_URL/version' failed: "* ]]
}

@test "a slow answer hits RUNAI_REQUEST_TIMEOUT" {
	# the answer comes 8 s late: the timeout fires long before, even on
	# a loaded machine where starting the tool takes seconds
	fault "{\"path_prefix\": \"/api/v1/nodes\", \"delay\": $((8 * TIME_SCALE))}"
	SECONDS=0
	RUNAI_REQUEST_TIMEOUT=$TIME_SCALE run -1 --separate-stderr kube list nodes --retries 0
	[ "$SECONDS" -lt $((8 * TIME_SCALE)) ]
	[[ "$stderr" == "rai-test-tool: error: request to '$KUBESIM_URL/api/v1/nodes?limit=500' timed out: "* ]]
	wait_requests GET /api/v1/nodes 1
}

@test "a response over the cap is refused" {
	run -1 --separate-stderr kube list nodes --max-response 1000
	assert_equal "$stderr" "rai-test-tool: error: response from GET $KUBESIM_URL/api/v1/nodes?limit=500 exceeds 1000 bytes"
	assert_output ""
}

@test "the cap also comes from RUNAI_MAX_RESPONSE" {
	RUNAI_MAX_RESPONSE=2048 run -1 --separate-stderr kube list nodes
	assert_equal "$stderr" "rai-test-tool: error: response from GET $KUBESIM_URL/api/v1/nodes?limit=500 exceeds 2 KiB"
}

@test "requests reuse one connection" {
	run -0 --separate-stderr kube list configmaps -n bulk -o count -v 9
	assert_equal "$(grep -c '^\* Re-using existing connection' <<<"$stderr")" 2
}

# --- writes ------------------------------------------------------------------

@test "create with --dry-run sends dryRun=All and stores nothing" {
	printf '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dry"},"data":{"a":"b"}}' \
		>"$BATS_TEST_TMPDIR/cm.json"
	run -0 kube create configmaps -n default -f "$BATS_TEST_TMPDIR/cm.json" --dry-run
	assert_equal "$(jq -r .metadata.name <<<"$output")" dry
	assert_request POST /api/v1/namespaces/default/configmaps \
		'.query.dryRun == ["All"] and .headers["content-type"] == "application/json" and .body.data.a == "b"'
	run -1 kube get configmaps dry -n default
}

@test "patch sends the content type of its kind" {
	run -0 kube patch nodes node-2 -p '{"metadata":{"labels":{"t0200":"yes"}}}' --type merge
	assert_equal "$(jq -r '.metadata.labels.t0200' <<<"$output")" yes
	assert_request PATCH /api/v1/nodes/node-2 '.headers["content-type"] == "application/merge-patch+json"'
	run -0 kube patch nodes node-2 -p '[{"op":"remove","path":"/metadata/labels/t0200"}]' --type json
	assert_equal "$(jq -r '.metadata.labels.t0200' <<<"$output")" null
	assert_request PATCH /api/v1/nodes/node-2 '.headers["content-type"] == "application/json-patch+json"'
}

@test "update is a PUT of the whole object" {
	run -0 kube get nodes node-1
	jq -c '.metadata.labels.t0200 = "put"' <<<"$output" >"$BATS_TEST_TMPDIR/n.json"
	run -0 kube update nodes -f "$BATS_TEST_TMPDIR/n.json"
	assert_equal "$(jq -r '.metadata.labels.t0200' <<<"$output")" put
	assert_request PUT /api/v1/nodes/node-1 '.body.metadata.labels.t0200 == "put"'
}

@test "delete sends the propagation policy in DeleteOptions" {
	printf '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"gone"}}' >"$BATS_TEST_TMPDIR/cm.json"
	run -0 kube create configmaps -n default -f "$BATS_TEST_TMPDIR/cm.json"
	run -0 kube delete configmaps gone -n default --propagation Foreground
	assert_request DELETE /api/v1/namespaces/default/configmaps/gone \
		'.body.kind == "DeleteOptions" and .body.propagationPolicy == "Foreground"'
	run -1 --separate-stderr kube get configmaps gone -n default
	assert_equal "$stderr" 'rai-test-tool: error from server (NotFound): configmaps "gone" not found'
}

# --- discovery ---------------------------------------------------------------

@test "server version is the gitVersion" {
	run -0 kube version
	assert_output v1.32.5
	assert_request GET /version
}

@test "group/version discovery: served, then not served" {
	run -0 kube has-group run.ai v1
	assert_output yes
	run -0 kube has-group example.com v9
	assert_output no
	assert_request GET /apis/example.com/v9
}

# --- watch -------------------------------------------------------------------

@test "watch delivers an ADDED event and stops when the callback asks" {
	run -0 kube watch namespaces -l runai/queue=team-a --max-events 1
	assert_output "ADDED runai-team-a"
	assert_request GET /api/v1/namespaces \
		'.query.watch == ["1"] and .query.allowWatchBookmarks == ["true"] and .query.labelSelector == ["runai/queue=team-a"]'
}

@test "watch ends cleanly at timeoutSeconds" {
	SECONDS=0
	run -0 kube watch namespaces -l nothing=here --watch-timeout 1
	assert_output ""
	[ "$SECONDS" -lt $((5 * TIME_SCALE)) ]
	assert_request GET /api/v1/namespaces '.query.timeoutSeconds == ["1"]'
}

@test "watch from a compacted resourceVersion fails with 410 Expired" {
	sim POST /_sim/compact >/dev/null
	run -1 --separate-stderr kube watch namespaces --resource-version 1
	[[ "$stderr" == "rai-test-tool: error from server (Expired): too old resource version: 1 ("*")" ]]
	assert_output ""
}

@test "a watch cut in the middle of an event is an error" {
	fault '{"path_prefix": "/api/v1/namespaces", "method": "GET", "cut_after_bytes": 40}'
	run -1 --separate-stderr kube watch namespaces
	assert_equal "$stderr" "rai-test-tool: error: watch stream from $KUBESIM_URL/api/v1/namespaces?watch=1&allowWatchBookmarks=true ended in the middle of an event"
	assert_output ""
}

# --- line streams ------------------------------------------------------------

@test "a log stream delivers every line" {
	run -0 kube stream /api/v1/namespaces/default/pods/logger/log
	assert_output "first line
second line
third line"
	assert_request GET /api/v1/namespaces/default/pods/logger/log '.headers.accept == "application/json, */*"'
}

@test "a followed log stream stops cleanly when the callback asks" {
	run -0 kube stream '/api/v1/namespaces/default/pods/logger/log?follow=true' --max-lines 2
	assert_output "first line
second line"
}

@test "a log stream cut mid-line delivers the partial line, then fails" {
	fault '{"path_prefix": "/api/v1/namespaces/default/pods/logger/log", "cut_after_bytes": 15}'
	run -1 --separate-stderr kube stream '/api/v1/namespaces/default/pods/logger/log?follow=true'
	assert_output "first line
seco"
	[[ "$stderr" == "rai-test-tool: error: reading the response from GET $KUBESIM_URL/api/v1/namespaces/default/pods/logger/log?follow=true failed: "*"(curl 18)" ]]
}

@test "a stream answered with a Status fails with it" {
	run -1 --separate-stderr kube stream /api/v1/namespaces/default/pods/nobody/log
	assert_equal "$stderr" 'rai-test-tool: error from server (NotFound): pods "nobody" not found'
}

@test "a stream whose answer does not start in time times out" {
	# the answer comes 8 s late: the timeout fires long before, even on
	# a loaded machine where starting the tool takes seconds
	fault "{\"path_prefix\": \"/api/v1/namespaces/default/pods/logger/log\", \"delay\": $((8 * TIME_SCALE))}"
	SECONDS=0
	RUNAI_REQUEST_TIMEOUT=$TIME_SCALE run -1 --separate-stderr kube stream /api/v1/namespaces/default/pods/logger/log --retries 0
	[ "$SECONDS" -lt $((8 * TIME_SCALE)) ]
	assert_equal "$stderr" "rai-test-tool: error: request to '$KUBESIM_URL/api/v1/namespaces/default/pods/logger/log' timed out: no answer after $((1000 * TIME_SCALE)) ms"
	wait_requests GET /api/v1/namespaces/default/pods/logger/log 1
}

@test "a stream whose answer does not start in time is retried" {
	fault "{\"path_prefix\": \"/api/v1/namespaces/default/pods/logger/log\", \"delay\": $((2 * TIME_SCALE))}"
	RUNAI_REQUEST_TIMEOUT=$TIME_SCALE run -0 --separate-stderr kube stream /api/v1/namespaces/default/pods/logger/log -v 1
	assert_output "first line
second line
third line"
	# the emulator logs a request when it answers, so ask the client
	[[ "$stderr" =~ ^"retrying GET $KUBESIM_URL/api/v1/namespaces/default/pods/logger/log in "[0-9.]+"s (Timeout was reached)"$ ]]
	wait_requests GET /api/v1/namespaces/default/pods/logger/log 2
}

@test "a stream whose setup gets 503 is retried" {
	fault '{"path_prefix": "/api/v1/namespaces/default/pods/logger/log", "status": 503}'
	run -0 kube stream /api/v1/namespaces/default/pods/logger/log
	assert_output "first line
second line
third line"
	assert_equal "$(count_requests GET /api/v1/namespaces/default/pods/logger/log)" 2
}

# --- tracing -----------------------------------------------------------------

@test "-v 6 logs one line per request" {
	run -0 --separate-stderr kube list nodes -o names -v 6
	[[ "$stderr" =~ ^"GET $KUBESIM_URL/api/v1/nodes?limit=500 200 OK in "[0-9]+" ms"$ ]]
}

@test "-v 8 shows headers with the token redacted" {
	run -0 --separate-stderr kube list nodes -o names -v 8
	[[ "$stderr" == *"> Authorization: Bearer <redacted>"* ]]
	[[ "$stderr" == *"< HTTP/1.1 200 OK"* ]]
	[[ "$stderr" == *"< Content-Type: application/json"* ]]
	[[ "$stderr" == *'Response Body: {"kind":"NodeList"'*"[truncated "* ]]
	run grep -c -F "$KUBESIM_TOKEN" <<<"$stderr"
	assert_output 0
}

@test "-v 9 prints a curl command line without the token" {
	run -0 --separate-stderr kube version -v 9
	[[ "$stderr" == *"curl -v -XGET -H 'Accept: application/json' -H 'Authorization: Bearer <redacted>' '$KUBESIM_URL/version'"* ]]
	run grep -c -F "$KUBESIM_TOKEN" <<<"$stderr"
	assert_output 0
}

@test "-v 10 logs request bodies with secrets redacted" {
	printf '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"stringData":{"token":"hunter2-secret"}}' \
		>"$BATS_TEST_TMPDIR/s.json"
	run -0 --separate-stderr kube create secrets -n default -f "$BATS_TEST_TMPDIR/s.json" --dry-run -v 10
	[[ "$stderr" == *'Request Body: {"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"stringData":{"token":"<redacted>"}}'* ]]
	[[ "$stderr" != *hunter2-secret* ]]
}

# --- backend -----------------------------------------------------------------

# A static HTTP server on a free port, serving $1; sets HTTP_URL, HTTP_PID.
static_http() {
	"$PYTHON" -u -m http.server 0 --bind 127.0.0.1 --directory "$1" \
		>"$BATS_TEST_TMPDIR/http.log" 2>&1 &
	HTTP_PID=$!
	local i port=
	for i in $(seq 1 $((100 * TIME_SCALE))); do
		port=$(sed -n 's/.* port \([0-9]*\) .*/\1/p' "$BATS_TEST_TMPDIR/http.log")
		[ -n "$port" ] && break
		sleep 0.05
	done
	[ -n "$port" ]
	HTTP_URL=http://127.0.0.1:$port
}

@test "backend version reads GET /api/v1/version" {
	mkdir -p "$BATS_TEST_TMPDIR/www/api/v1"
	printf '{"version":"2.18.0"}\n' >"$BATS_TEST_TMPDIR/www/api/v1/version"
	static_http "$BATS_TEST_TMPDIR/www"
	run -0 tool backend version --url "$HTTP_URL/" --token t0
	assert_output 2.18.0
}

@test "backend URL comes from RUNAI_BACKEND_URL" {
	mkdir -p "$BATS_TEST_TMPDIR/www/api/v1"
	printf '0.1.11\n' >"$BATS_TEST_TMPDIR/www/api/v1/version"
	static_http "$BATS_TEST_TMPDIR/www"
	RUNAI_BACKEND_URL=$HTTP_URL run -0 tool backend version
	assert_output 0.1.11
}

@test "backend 404 is an HTTP error naming the status" {
	mkdir -p "$BATS_TEST_TMPDIR/www"
	static_http "$BATS_TEST_TMPDIR/www"
	run -1 --separate-stderr tool backend version --url "$HTTP_URL"
	[[ "$stderr" == "rai-test-tool: error from server (NotFound): 404 Not Found: "* ]]
}

@test "no backend URL is a configuration error with a hint" {
	run -1 --separate-stderr tool backend version
	assert_equal "$stderr" "rai-test-tool: error: no Run:ai backend URL is configured
hint: set RUNAI_BACKEND_URL to the control plane's address"
}
