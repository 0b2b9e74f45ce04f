#!/usr/bin/env bats
# Issue 24, finding 9: the emulator's /_sim control API answered anyone
# on the machine, so any local user could add a system:masters user to
# a running demo. Every /_sim request now needs the random token in the
# state directory's sim-token (mode 0600); without it: 401 and a JSON
# Status, and nothing done. The Kubernetes API is unchanged.

load lib/common

setup_file() {
	kubesim_start --demo
}

teardown_file() {
	kubesim_stop
}

setup() {
	isolate_env
}

# raw CURL-ARGS...: /_sim without the sim helper's credential; prints the
# body, then the status on its own line
raw() {
	curl -sS --cacert "$KUBESIM_CA" -w '\n%{http_code}\n' "$@"
}

MALLORY='{"user": "mallory", "groups": ["system:masters"], "token": "t-mallory-0123456789"}'

@test "the token file is private to the emulator's user" {
	[ "$(stat -c %a "$KUBESIM_SIM_TOKEN_FILE")" = 600 ]
	[ "$(dirname "$KUBESIM_SIM_TOKEN_FILE")" = "$KUBESIM_DIR" ]
	[ "$(wc -c <"$KUBESIM_SIM_TOKEN_FILE")" -ge 33 ]
}

@test "without the token: 401 with a Status, and no system:masters user is added" {
	run -0 raw -X POST -H 'Content-Type: application/json' --data-binary "$MALLORY" \
		"$KUBESIM_URL/_sim/users"
	assert_line --index 1 401
	jq -e '.kind == "Status" and .code == 401 and .reason == "Unauthorized"' <<<"${lines[0]}"
	jq -e '.message | contains("sim-token")' <<<"${lines[0]}"
	# the token was not added: the API does not know it
	run -0 curl -sS --cacert "$KUBESIM_CA" -o /dev/null -w '%{http_code}' \
		-H "Authorization: Bearer t-mallory-0123456789" "$KUBESIM_URL/api/v1/nodes"
	assert_output 401
	run ! grep -q mallory "$KUBESIM_DIR/tokens.csv"
}

@test "a wrong token, a Basic header, or the cluster's own admin token: 401 too" {
	local h
	for h in "Bearer wrong" "Basic $(printf 'a:b' | base64)" "Bearer $KUBESIM_TOKEN"; do
		run -0 raw -H "Authorization: $h" "$KUBESIM_URL/_sim/health"
		assert_line --index 1 401
	done
	run -0 raw "$KUBESIM_URL/_sim/faults"
	assert_line --index 1 401
	run -0 raw -X POST "$KUBESIM_URL/_sim/outage" -d '{"seconds": 5}'
	assert_line --index 1 401
}

@test "with the token (the sim helper): the control API works" {
	run -0 sim GET /_sim/health
	jq -e '.pid' <<<"$output"
	run -0 sim POST /_sim/users "$MALLORY"
	run -0 curl -sS --cacert "$KUBESIM_CA" -o /dev/null -w '%{http_code}' \
		-H "Authorization: Bearer t-mallory-0123456789" "$KUBESIM_URL/api/v1/nodes"
	assert_output 200
}

@test "the Kubernetes API is unchanged: the admin token and anonymous /version" {
	run -0 kube_api -o /dev/null -w '%{http_code}' "$KUBESIM_URL/api/v1/nodes"
	assert_output 200
	run -0 curl -sS --cacert "$KUBESIM_CA" "$KUBESIM_URL/version"
	jq -e '.gitVersion' <<<"$output"
	use_sim_kubeconfig
	run -0 runai list nodes
}
