#!/usr/bin/env bats
# Bad servers and bad transports: every failure is one clear line on
# stderr and exit 1, never a crash or a hang.

load lib/common

setup_file() {
	kubesim_start --demo
}

teardown_file() {
	kubesim_stop
}

setup() {
	isolate_env
	use_sim_kubeconfig
	sim DELETE /_sim/faults >/dev/null
	export RUNAI_MAX_RETRIES=0
}

teardown() {
	sim DELETE /_sim/faults >/dev/null || true
}

fault() {
	sim POST /_sim/faults "$1" >/dev/null
}

# stderr has exactly one "runai: error" line (plus an optional hint).
assert_one_error_line() {
	[ "$(printf '%s\n' "$stderr" | grep -c '^runai: error')" -eq 1 ]
	! printf '%s\n' "$stderr" | grep -qv -e '^runai: error' -e '^hint: '
}

@test "401 from the server: Unauthorized, exit 1" {
	sed -i "s/token: .*/token: wrong-token/" "$KUBECONFIG"
	run -1 --separate-stderr runai list projects
	[[ "$stderr" == "runai: error from server (Unauthorized): "* ]]
	assert_one_error_line
}

@test "403 is the contract's Access denied, the server's words in the hint" {
	fault '{"path_prefix": "/apis/run.ai/v1/projects", "count": 1, "status": 403}'
	run -1 --separate-stderr runai list projects
	assert_equal "${stderr%%$'\n'*}" "runai: error: Access denied. You are not authorized to perform this action."
	[[ "$stderr" == *$'\n'"hint: "*[Ff]orbidden* ]]
	assert_one_error_line
}

@test "404 without a body falls back to the status line" {
	fault '{"path_prefix": "/api/v1/nodes", "count": 1, "status": 404, "body": "empty"}'
	run -1 --separate-stderr runai list nodes
	assert_equal "$stderr" "runai: error from server (NotFound): 404 Not Found"
}

@test "500 with an HTML body shows the phrase and an excerpt" {
	fault '{"path_prefix": "/api/v1/nodes", "count": 1, "status": 500, "body": "html"}'
	run -1 --separate-stderr runai list nodes
	[[ "$stderr" == "runai: error from server (InternalError): 500 Internal Server Error: <"* ]]
	assert_one_error_line
}

@test "a non-JSON 200 body is a protocol error" {
	fault '{"path_prefix": "/api/v1/nodes", "count": 1, "status": 200, "body": "garbage"}'
	run -1 --separate-stderr runai list nodes
	[[ "$stderr" == "runai: error: "*"JSON"* ]]
	assert_one_error_line
}

@test "a truncated body is an error, not a partial table" {
	fault '{"path_prefix": "/api/v1/nodes", "count": 1, "status": 200, "body": "truncated"}'
	run -1 --separate-stderr runai list nodes
	[ -z "$output" ]
	[[ "$stderr" == "runai: error: "* ]]
	assert_one_error_line
}

@test "503 then success is retried for a GET" {
	unset RUNAI_MAX_RETRIES
	fault '{"path_prefix": "/api/v1/nodes", "count": 2, "status": 503, "retry_after": 0}'
	mark_requests
	run -0 runai list nodes -o name
	assert_output "node/node-1
node/node-2"
	[ "$(requests_since_mark | jq -s '[.[] | select(.path == "/api/v1/nodes")] | length')" -eq 3 ]
}

@test "a slow server hits the request timeout" {
	fault "{\"path_prefix\": \"/api/v1/nodes\", \"count\": 1, \"delay\": $((5 * TIME_SCALE))}"
	SECONDS=0
	RUNAI_REQUEST_TIMEOUT=1 run -1 --separate-stderr runai list nodes
	[[ "$stderr" == *"timed out"* ]]
	[ "$SECONDS" -lt $((5 * TIME_SCALE)) ]
}

@test "--request-timeout works the same" {
	fault '{"path_prefix": "/api/v1/nodes", "count": 1, "delay": 5}'
	run -1 --separate-stderr runai --request-timeout 1s list nodes
	[[ "$stderr" == *"timed out"* ]]
}

@test "a response over the size cap is refused" {
	RUNAI_MAX_RESPONSE=2000 run -1 --separate-stderr runai list nodes
	[[ "$stderr" == *"exceeds"* ]]
	assert_one_error_line
}

@test "a closed port is a connect error naming the server" {
	sed -i "s#server: .*#server: https://127.0.0.1:1#" "$KUBECONFIG"
	run -1 --separate-stderr runai list projects
	[[ "$stderr" == "runai: error: cannot connect to 'https://127.0.0.1:1"* ]]
}

@test "the wrong CA is a TLS error with a hint" {
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-keyout "$BATS_TEST_TMPDIR/k" -out "$BATS_TEST_TMPDIR/other.crt" \
		-days 1 -subj /CN=other 2>/dev/null
	sed -i "s#certificate-authority-data: .*#certificate-authority-data: $(base64 -w0 "$BATS_TEST_TMPDIR/other.crt")#" "$KUBECONFIG"
	run -1 --separate-stderr runai list projects
	[[ "$stderr" == *"TLS connection to '$KUBESIM_URL"*"failed"* ]]
	[[ "$stderr" == *"hint: "*"certificate-authority"* ]]
}

@test "-v=8 shows requests but never the token" {
	run -0 --separate-stderr runai -v=8 list projects
	[[ "$stderr" == *"GET $KUBESIM_URL/apis/run.ai/v1/projects"* ]]
	[[ "$stderr" == *"Authorization: Bearer <redacted>"* ]]
	[[ "$stderr" != *"$KUBESIM_TOKEN"* ]]
}
