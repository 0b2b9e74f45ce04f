#!/usr/bin/env bats
# What runai tolerates from a control plane that answers as the documents
# allow but not as our emulator usually does: lists that never end, a
# create answer without the job's name, access tokens that are no JWT,
# a server that ignores filterBy; 2.18's name for an access key; and the
# emulator itself refusing a request that breaks the release's document.
# This file is 2.24; t6040-cp-robustness-2.18.bats is a link to it, and
# the profile is the version in the name the file is run under.

load lib/common
load lib/cp

CP_VERSION=${BATS_TEST_FILENAME##*/t6040-cp-robustness-}
CP_VERSION=${CP_VERSION%.bats}
# a command that loops would run past this; one that stops, far below
BOUND=20

setup_file() {
	cp_start
}

teardown_file() {
	kubesim_stop
}

setup() {
	cp_setup
}

# each test's settings end with it, whatever its outcome
teardown() {
	cp_settings "{\"paging\": null, \"createName\": null, \"opaqueTokens\": false,
		\"expiresIn\": $(expires_in_default), \"tokenTtl\": 3600,
		\"ignoreFilterBy\": false, \"validate\": true}"
}

# cp_count METHOD PATH-REGEX: how many such requests the control plane saw.
cp_count() {
	cp_status_of "$1" "$2" | wc -l
}

# bounded CMD...: CMD run with the time bound; exit 124 means it looped.
bounded() {
	timeout "$BOUND" "$@"
}

# the emulator's token answer as this release has it
expires_in_default() {
	[ "$CP_VERSION" = 2.24 ] && echo true || echo false
}

@test "a list that repeats itself: list projects, list jobs, top job, describe job and submit stop with one line" {
	cp_login
	runai submit rep1 -p team-a -i ubuntu -- sleep 300 >/dev/null
	cp_settings '{"paging": "repeat"}'
	local before cmd
	for cmd in "list projects" "list jobs -A" "top job -p team-a" \
		"describe job rep1 -p team-a" "submit rep2 -p team-a -i ubuntu"; do
		before=$(wc -l <"$CP_REQUESTS")
		# shellcheck disable=SC2086 # the command's words
		run -1 --separate-stderr bounded runai $cmd
		assert_equal "$output" ""
		[[ "$stderr" == "runai: error: the control plane's list /api/v1/"*" repeats itself (the page at offset 500 brought nothing new): stopped, the listing is incomplete" ]]
		# two pages: the second brought nothing new
		assert_equal "$(tail -n +"$((before + 1))" "$CP_REQUESTS" |
			jq -r 'select(.method == "GET") | .query' | grep -c 'offset=500&limit=500')" 1
	done
	cp_settings '{"paging": null}'
	# submit made nothing: it stopped at the project
	run -0 cp_count POST '^/api/v1/workloads/trainings$'
	assert_output 1
}

@test "a next that does not move on: list projects and list jobs stop with one line" {
	cp_login
	runai submit stk1 -p team-a -i ubuntu -- sleep 300 >/dev/null
	runai submit stk2 -p team-a -i ubuntu -- sleep 300 >/dev/null
	cp_settings '{"paging": "stuck"}'
	run -1 --separate-stderr bounded runai list projects
	assert_equal "$stderr" "runai: error: the control plane's list /api/v1/org-unit/projects does not move on (the page after offset 1 starts at 1): stopped, the listing is incomplete"
	run -1 --separate-stderr bounded runai list jobs -p team-a
	cp_settings '{"paging": null}'
	assert_equal "$stderr" "runai: error: the control plane's list /api/v1/workloads does not move on (the page after offset 1 starts at 1): stopped, the listing is incomplete"
}

@test "pages are asked for at the largest size the documents allow" {
	cp_login
	run -0 runai list jobs -A
	run -0 jq -r 'select(.path == "/api/v1/workloads") | .query' "$CP_REQUESTS"
	assert_line --regexp 'offset=0&limit=500$'
	refute_line --regexp 'limit=([0-9]|[0-9][0-9]|[0-4][0-9][0-9])$'
}

@test "submit: an answer with a null name, or none, still names the job runai sent" {
	cp_login
	cp_settings '{"createName": "null"}'
	run -0 runai submit nn1 -p team-a -i ubuntu -- sleep 300
	assert_output "The job 'nn1' has been submitted successfully
You can run \`runai describe job nn1 -p team-a\` to check the job status"
	cp_settings '{"createName": "absent"}'
	run -0 runai submit nn2 -p team-a -i ubuntu -- sleep 300
	assert_line "The job 'nn2' has been submitted successfully"
	# a name the control plane made from a prefix: asked for by the id
	local before
	before=$(cp_count GET '^/api/v1/workloads/[-0-9a-f]{36}$')
	run -0 runai submit --job-name-prefix pre -p team-a -i ubuntu -- sleep 300
	cp_settings '{"createName": null}'
	assert_line --regexp "^The job 'pre-[a-z0-9]{5}' has been submitted successfully$"
	refute_output --partial "''"
	assert_equal "$(cp_count GET '^/api/v1/workloads/[-0-9a-f]{36}$')" "$((before + 1))"
	run -0 runai list jobs -p team-a -o name
	assert_line job/nn1
	assert_line job/nn2
	assert_line --regexp '^job/pre-[a-z0-9]{5}$'
}

@test "an opaque access token with expiresIn: used as it is and renewed before it expires" {
	[ "$CP_VERSION" = 2.24 ] || skip "the $CP_VERSION document's token answer has no expiresIn"
	cp_settings '{"opaqueTokens": true, "expiresIn": true, "tokenTtl": 8}'
	cp_login
	cp_settings '{"tokenTtl": 3600}'
	local store before
	store=$(echo "$XDG_CONFIG_HOME"/runai/control-plane/*.json)
	run -0 jq -r '.accessToken | startswith("at-")' "$store"
	assert_output true
	run -0 jq -r '.expiresIn, (.expiresAt - now | . > 0 and . <= 8)' "$store"
	assert_output "8
true"
	# who: the id-token says, where the access token cannot
	run -0 runai whoami
	assert_line "User: $CP_USER"
	run -0 runai list jobs -p team-a
	before=$(wc -l <"$CP_REQUESTS")
	# renewed a fifth of its life (1.6 s) before it ends: never sent stale
	sleep 6.8
	run -0 runai list jobs -p team-a
	run -0 bash -c "tail -n +$((before + 1)) '$CP_REQUESTS' | jq -r '[.method, .path, (.grant // \"\"), (.status | tostring)] | join(\" \")'"
	assert_line --index 0 "POST /api/v1/token refresh_token 200"
	refute_line --regexp ' 401$'
	run -0 jq -r '.accessToken | startswith("at-")' "$store"
	assert_output true
	cp_settings '{"opaqueTokens": false, "expiresIn": true}'
}

@test "an opaque access token without expiresIn: sent until refused, then renewed once" {
	cp_settings '{"opaqueTokens": true, "expiresIn": false, "tokenTtl": 4}'
	cp_login
	cp_settings '{"tokenTtl": 3600}'
	run -0 jq -r 'has("expiresAt")' "$XDG_CONFIG_HOME"/runai/control-plane/*.json
	assert_output false
	local before
	before=$(wc -l <"$CP_REQUESTS")
	run -0 runai list projects
	sleep 4.5
	run -0 runai list jobs -p team-a
	cp_settings "{\"opaqueTokens\": false, \"expiresIn\": $(expires_in_default)}"
	run -0 bash -c "tail -n +$((before + 1)) '$CP_REQUESTS' | jq -r 'select(.status == 401 or .grant != null) | [.path, (.grant // \"\"), (.status | tostring)] | join(\" \")'"
	assert_output "/api/v1/workloads  401
/api/v1/token refresh_token 200"
}

@test "an access key login refused: the hint names 2.18's application" {
	local secret
	secret=$(cp_secret_file)
	if [ "$CP_VERSION" = 2.18 ]; then
		run -1 runai login --client-id "$(jq -r .clientId "$CP_CREDS")" --secret-file "$secret"
		assert_line --index 0 --partial "runai: error: login to $CP_URL failed"
		assert_output --partial "control planes 2.18 and 2.19 call an access key an application: if this is one, log in with --application"
		assert_equal "${#lines[@]}" 2
		run -0 runai login --client-id "$(jq -r .clientId "$CP_CREDS")" --secret-file "$secret" --application
	else
		run -0 runai login --client-id "$(jq -r .clientId "$CP_CREDS")" --secret-file "$secret"
		refute_output --partial "--application"
	fi
	assert_output "Logged in successfully to $CP_URL"
}

@test "a server that ignores filterBy: runai shows and acts on nothing of another project" {
	cp_login
	runai submit other1 -p team-b -i ubuntu -- sleep 300 >/dev/null
	runai submit mine1 -p team-a -i ubuntu -- sleep 300 >/dev/null
	cp_wait_status other1 Running
	cp_settings '{"ignoreFilterBy": true}'
	run -0 runai list jobs -p team-a -o name
	assert_line job/mine1
	refute_line job/other1
	run -1 runai describe job other1 -p team-a
	assert_output "runai: error: Job other1 does not exist in project team-a. If the job exists in a different project, use -p <project-name>."
	local n
	for n in delete suspend; do
		run -1 runai "$n" other1 -p team-a
		assert_line --index 0 --regexp "^runai: error: Job other1 (does not exist|not found) in project team-a"
	done
	run -0 cp_count DELETE '^/api/v1/workloads/'
	assert_output 0
	run -0 cp_count POST '/suspend$'
	assert_output 0
	# submit finds the project asked for, not the first one answered
	run -0 runai submit mine2 -p team-c -i ubuntu -- sleep 300
	cp_settings '{"ignoreFilterBy": false}'
	run -0 runai list jobs -A
	assert_line --regexp '^other1 .* team-b '
	assert_line --regexp '^mine2 .* team-c '

}

@test "list jobs asks for the pods of the cluster in use, not every pod of the tenant" {
	cp_login
	local cluster
	cluster=$(jq -r .cluster.id "$XDG_CONFIG_HOME"/runai/control-plane/*.json)
	run -0 runai list jobs -A
	run -0 jq -r 'select(.path == "/api/v1/workloads/pods") | .query' "$CP_REQUESTS"
	assert_line --regexp "^filterBy=clusterId==$cluster&offset=0&limit=500$"
	refute_line --regexp '^offset='
}

@test "runai sent nothing the document refuses in anything above" {
	# but the access key 2.18 has no grant for, sent on purpose above
	run -0 jq -r --arg v "$CP_VERSION" 'select(.direction == "request") |
		select($v != "2.18" or .path != "/api/v1/token") | .violation' "$CP_VIOLATIONS"
	assert_output ""
	run -0 cp_status_of POST '^/api/v1/workloads'
	refute_line 400
}

@test "the emulator refuses a request that breaks the document with 400, as a real server does" {
	cp_login
	local token cluster
	token=$(jq -r .accessToken "$XDG_CONFIG_HOME"/runai/control-plane/*.json)
	cluster=$(jq -r .cluster.id "$XDG_CONFIG_HOME"/runai/control-plane/*.json)
	run -0 curl -sS -w '\n%{http_code}' -H @<(printf 'Authorization: Bearer %s\n' "$token") \
		-H 'Content-Type: application/json' \
		--data "{\"name\":\"bad1\",\"projectId\":\"1\",\"clusterId\":\"$cluster\",\"spec\":{\"image\":\"ubuntu\",\"bogus\":1,\"compute\":{\"gpuDevicesRequest\":1,\"gpuRequestType\":\"banana\"}}}" \
		"$CP_URL/api/v1/workloads/trainings"
	assert_line --index 1 400
	assert_equal "$(jq -r .code <<<"${lines[0]}")" 400
	[[ "$(jq -r .message <<<"${lines[0]}")" == "the request does not fit the $CP_VERSION API: "* ]]
	[[ "$(jq -r .details <<<"${lines[0]}")" == *"'bogus' was unexpected"* ]]
	[[ "$(jq -r .details <<<"${lines[0]}")" == *banana* ]]
	run -0 curl -sS -o /dev/null -w '%{http_code}' -H @<(printf 'Authorization: Bearer %s\n' "$token") \
		"$CP_URL/api/v1/workloads?filterBy=bogus==x"
	assert_output 400
	# nothing was made of it
	run -1 runai describe job bad1 -p team-a
	# log-only, for a test that needs it: the same body is taken
	cp_settings '{"validate": false}'
	run -0 curl -sS -o /dev/null -w '%{http_code}' -H @<(printf 'Authorization: Bearer %s\n' "$token") \
		"$CP_URL/api/v1/workloads?filterBy=bogus==x"
	cp_settings '{"validate": true}'
	assert_output 200
}
