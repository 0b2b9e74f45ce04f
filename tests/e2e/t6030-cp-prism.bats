#!/usr/bin/env bats
# A second judge of control-plane mode, written by others: Stoplight
# Prism (`prism mock --errors`) serving each release's document, 2.18,
# 2.21 and 2.24. Prism refuses a request the document does not allow
# (its 400/422, 401, 404) and answers the rest with the document's
# examples or data it makes up from the schemas: answers our emulator
# never gives (opaque tokens, null names, negative counts, lists whose
# next never ends). The backend-mode researcher commands run against
# each, through tests/peers/prism/proxy.py (which keeps lists finite and
# answers consistent with the filters asked; see its text), and once more
# against Prism's own paging. Counted and asserted over all of it: no
# request Prism calls invalid, no command that does not end within a
# bound, no empty name printed, no crash (exit 0, or 1 with a one-line
# error, never a signal). Skipped only where Prism is not installed.

load lib/common
load lib/prism

RELEASES="2.18 2.21 2.24"
# a command that loops would run past this, or send more requests than
# this; one that stops, far below either
BOUND=60
REQUESTS_BOUND=40

setup_file() {
	local v
	# without node or Prism every test skips (setup)
	prism_missing >/dev/null && return 0
	# the three start at once: reading a document takes Prism long
	for v in $RELEASES; do
		prism_launch "$v" "$BATS_FILE_TMPDIR/prism-$v"
	done
	for v in $RELEASES; do
		prism_wait "$BATS_FILE_TMPDIR/prism-$v"
		prism_proxy "$v" "$BATS_FILE_TMPDIR/prism-$v" finite >"$BATS_FILE_TMPDIR/prism-$v/url"
		prism_proxy "$v" "$BATS_FILE_TMPDIR/prism-$v" raw --keep-next \
			>"$BATS_FILE_TMPDIR/prism-$v/raw-url"
	done
}

teardown_file() {
	local v
	for v in $RELEASES; do
		prism_stop "$BATS_FILE_TMPDIR/prism-$v"
	done
}

setup() {
	local reason
	if reason=$(prism_missing); then
		skip "$reason"
	fi
	isolate_env
	# a context whose cluster is never asked: these commands go to the
	# control plane only
	export KUBECONFIG="$HOME/.kube/config"
	cat >"$KUBECONFIG" <<-'EOF'
		apiVersion: v1
		kind: Config
		clusters: [{name: c, cluster: {server: "https://127.0.0.1:9"}}]
		users: [{name: u, user: {token: unused}}]
		contexts: [{name: ctx, context: {cluster: c, user: u, namespace: runai-team-a}}]
		current-context: ctx
	EOF
	RESULTS="$BATS_FILE_TMPDIR/results.jsonl"
}

# record RELEASE NAME REQUESTS: one command's result (out, err, rc, secs
# in the files of the test) as a line of $RESULTS.
record() {
	jq -nc --arg release "$1" --arg name "$2" --argjson reqs "$3" \
		--argjson rc "$(cat "$BATS_TEST_TMPDIR/rc")" \
		--argjson secs "$(cat "$BATS_TEST_TMPDIR/secs")" \
		--rawfile out "$BATS_TEST_TMPDIR/out" --rawfile err "$BATS_TEST_TMPDIR/err" \
		'{release: $release, name: $name, rc: $rc, secs: $secs, requests: $reqs,
		  out: $out, err: $err}' >>"$RESULTS"
}

# requests_seen RELEASE: how many requests the release's proxies relayed.
requests_seen() {
	cat "$BATS_FILE_TMPDIR/prism-$1"/{finite,raw}.jsonl | grep -c '' || true
}

# suite RELEASE INPUT CMD...: runai CMD with INPUT on stdin ("" for none),
# bounded in time, its result recorded under the words of CMD.
suite() {
	local release=$1 input=$2 start before rc=0
	shift 2
	before=$(requests_seen "$release")
	start=$(date +%s.%N)
	printf '%s' "$input" | timeout "$BOUND" runai "$@" \
		>"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" || rc=$?
	echo "$rc" >"$BATS_TEST_TMPDIR/rc"
	awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.3f\n", e - s }' \
		>"$BATS_TEST_TMPDIR/secs"
	record "$release" "$*" "$(($(requests_seen "$release") - before))"
}

# login_flags RELEASE: an access key as the release's document has it:
# 2.18 knows it only as an application (app_token).
login_flags() {
	echo --client-id
	echo ak-prism
	echo --secret-stdin
	[ "$1" != 2.18 ] || echo --application
}

# researcher_commands RELEASE URL: backend mode's commands against URL.
researcher_commands() {
	local v=$1 url=$2
	local -a key
	mapfile -t key < <(login_flags "$v")
	suite "$v" "" config control-plane "$url"
	suite "$v" $'secret-pw\n' login --username alice@example.com --password-stdin
	suite "$v" "" whoami
	suite "$v" "" version
	suite "$v" "" list clusters
	suite "$v" "" list projects
	suite "$v" "" config project team-a
	suite "$v" "" list jobs
	suite "$v" "" list jobs -A
	suite "$v" "" describe job job1 -p team-a
	suite "$v" "" describe job job1 -p team-a -o json
	suite "$v" "" submit job1 -p team-a -i ubuntu -g 1 -e EPOCHS=3 -e API_TOKEN=x --dry-run -- python train.py
	suite "$v" "" submit job1 -p team-a -i ubuntu -g 1 -e EPOCHS=3 -- python train.py
	suite "$v" "" submit --job-name-prefix exp -p team-a -i ubuntu -- sleep 60
	suite "$v" "" submit ws1 -p team-a -i jupyter/base --interactive -g 0.5 --cpu 0.5 --memory 1G
	suite "$v" "" submit-dist pytorch dist1 -p team-a -i pytorch/pytorch --workers 2 -g 1
	# what a release has (earlier ones refuse before sending: exit 2)
	if [ "$v" != 2.18 ]; then
		suite "$v" "" inference update inf1 -p team-a -i vllm:2 --max-replicas 3 -e A=1
	fi
	if [ "$v" = 2.24 ]; then
		printf 'apiVersion: batch/v1\nkind: Job\nmetadata: {name: m1}\nspec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}}}\n' \
			>"$BATS_FILE_TMPDIR/m1.yaml"
		suite "$v" "" workload submit -f "$BATS_FILE_TMPDIR/m1.yaml" -p team-a --priority high
		must_pass "$v" "workload submit -f $BATS_FILE_TMPDIR/m1.yaml -p team-a --priority high"
		suite "$v" "" inference distributed submit di1 -p team-a -i vllm -g 2 --workers 1 \
			--worker-image vllm-w --replicas 2 --command 'vllm serve m' \
			--serving-port container=8000,authorization-type=authorizedGroups,authorized-groups=ml
		must_pass "$v" "inference distributed submit di1 -p team-a -i vllm -g 2 --workers 1 --worker-image vllm-w --replicas 2 --command vllm serve m --serving-port container=8000,authorization-type=authorizedGroups,authorized-groups=ml"
		suite "$v" "" inference distributed scale di1 -p team-a --replicas 1
	fi
	suite "$v" "" suspend job1 -p team-a
	suite "$v" "" resume job1 -p team-a
	suite "$v" "" delete job1 -p team-a
	suite "$v" "" top job -p team-a
	suite "$v" "" top node
	suite "$v" "" list nodes
	suite "$v" "" describe node
	suite "$v" $'ak-secret\n' login "${key[@]}"
	suite "$v" "" whoami
	suite "$v" "" list projects
	suite "$v" "" logout
}

# paging_commands RELEASE URL: the lists again, Prism's own next kept.
paging_commands() {
	local v=$1 url=$2
	suite "$v" "" config control-plane "$url"
	suite "$v" $'secret-pw\n' login --username alice@example.com --password-stdin
	suite "$v" "" list projects
	suite "$v" "" list jobs -A
	suite "$v" "" describe job job1 -p team-a
	suite "$v" "" top job -p team-a
	suite "$v" "" submit job2 -p team-a -i ubuntu
}

# verdicts RELEASE: one line per command of the release that broke a
# rule, with the rule ("loop", "crash", "empty name").
verdicts() {
	jq -r --arg v "$1" --argjson bound "$BOUND" --argjson max "$REQUESTS_BOUND" \
		-f /dev/stdin "$RESULTS" <<-'EOF'
		select(.release == $v) |
		(.err | split("\n") | map(select(length > 0))) as $err |
		(.out | split("\n")) as $out |
		if .rc == 124 or .rc == 137 or .secs >= $bound or .requests > $max
			then "loop: \(.name) (\(.requests) requests, \(.secs) s)"
		elif .rc > 1 then "crash (exit \(.rc)): \(.name): \(.err)"
		elif .rc == 1 and (($err | length) == 0 or ($err[0] | startswith("runai: error: ") | not)
			or ($err[1:] | map(select(startswith("hint: ") | not)) | length) > 0)
			then "crash (not a one-line error): \(.name): \(.err)"
		elif (.out | test("The job ''|describe job +-p |^NAME: *$|^User: *$"; "m"))
			then "empty name: \(.name): \(.out)"
		elif (.name | test("^list (jobs|projects)")) and
			($out[1:] | map(select(test("^ +[^ ]"))) | length) > 0
			then "empty name: \(.name): \(.out)"
		else empty end
	EOF
}

# must_pass RELEASE NAME: the command NAME of the release exited 0.
must_pass() {
	run -0 jq -r --arg v "$1" --arg n "$2" \
		'select(.release == $v and .name == $n) | "\(.rc) \(.err)"' "$RESULTS"
	[[ "${lines[0]}" == "0 "* ]] || { echo "$1: runai $2: ${lines[*]}" >&2; false; }
}

check_release() {
	local v=$1 dir="$BATS_FILE_TMPDIR/prism-$1"
	researcher_commands "$v" "$(cat "$dir/url")"
	paging_commands "$v" "$(cat "$dir/raw-url")"
	# what the document and Prism's examples always allow: these work
	local n
	for n in "login --username alice@example.com --password-stdin" whoami version \
		"list clusters" "list projects" "list jobs" \
		"submit job1 -p team-a -i ubuntu -g 1 -e EPOCHS=3 -e API_TOKEN=x --dry-run -- python train.py" \
		"submit job1 -p team-a -i ubuntu -g 1 -e EPOCHS=3 -- python train.py" logout; do
		must_pass "$v" "$n"
	done
	# submit names the job it sent, whatever the answer's name
	run -0 jq -r --arg v "$v" 'select(.release == $v and (.name | startswith("submit job1 -p")) and
		(.name | contains("--dry-run") | not)) | .out' "$RESULTS"
	assert_line "The job 'job1' has been submitted successfully"
	# the dry run's secret is redacted
	run -0 jq -r --arg v "$v" 'select(.release == $v and (.name | contains("--dry-run"))) | .out' "$RESULTS"
	assert_output --partial "API_TOKEN"
	refute_output --regexp 'value: x$'
	# every verdict: none
	run -0 verdicts "$v"
	assert_output ""
	# Prism saw nothing it calls invalid, through either proxy
	run -0 prism_request_violations "$dir/finite.jsonl"
	assert_output ""
	run -0 prism_request_violations "$dir/raw.jsonl"
	assert_output ""
	# and was asked: each command reached it
	assert [ "$(grep -c '' "$dir/finite.jsonl")" -gt 25 ]
}

@test "2.18: the researcher commands against Prism's 2.18 document" {
	check_release 2.18
}

@test "2.21: the researcher commands against Prism's 2.21 document" {
	check_release 2.21
}

@test "2.24: the researcher commands against Prism's 2.24 document" {
	check_release 2.24
}

@test "the counts over the three releases: 0 request violations, 0 loops, 0 empty names, 0 crashes" {
	local v commands=0 requests=0 violations=0 loops=0 empty=0 crashes=0 verdict
	for v in $RELEASES; do
		commands=$((commands + $(jq -r --arg v "$v" 'select(.release == $v) | .name' "$RESULTS" | grep -c '')))
		requests=$((requests + $(cat "$BATS_FILE_TMPDIR/prism-$v"/{finite,raw}.jsonl | grep -c '')))
		violations=$((violations + $(cat "$BATS_FILE_TMPDIR/prism-$v"/{finite,raw}.jsonl |
			jq -c 'select(.violations | length > 0)' | grep -c '' || true)))
		verdict=$(verdicts "$v")
		loops=$((loops + $(grep -c '^loop: ' <<<"$verdict" || true)))
		empty=$((empty + $(grep -c '^empty name: ' <<<"$verdict" || true)))
		crashes=$((crashes + $(grep -c '^crash' <<<"$verdict" || true)))
	done
	echo "# prism: $commands commands, $requests requests over 2.18/2.21/2.24:" \
		"$violations request violations, $loops loops, $empty empty names, $crashes crashes" >&3
	assert [ "$commands" -ge 100 ]
	# and they got far: every release's commands reached Prism
	assert [ "$requests" -ge 150 ]
	assert_equal "$violations $loops $empty $crashes" "0 0 0 0"
}

@test "the judge judges: Prism refuses what the document does not allow (the control test)" {
	local url
	url=$(cat "$BATS_FILE_TMPDIR/prism-2.24/url")
	run -0 curl -sS -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer x' \
		"$url/api/v1/workloads?filterBy=bogus==x"
	assert_output 422
	run -0 curl -sS -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer x' \
		-H 'Content-Type: application/json' --data '{"grantType":"banana"}' "$url/api/v1/token"
	assert_output 400
	run -0 prism_request_violations "$BATS_FILE_TMPDIR/prism-2.24/finite.jsonl"
	assert_line --partial "filterby"
	assert_line --partial "grantType"
}
