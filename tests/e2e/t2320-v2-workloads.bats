#!/usr/bin/env bats
# The CLI v2 grammar's workload nouns (runai workload|workspace|training
# [standard|FRAMEWORK]|inference VERB, and runai pytorch ... for runai
# training pytorch ...) in both modes, against the emulator: the same
# jobs as the original grammar, the v2 columns, the requests sent, and
# no deprecation warning from either grammar.

load lib/common
load lib/cp

CP_VERSION=2.24
V2_HEADER='Workload  Type       Status   Project  Preemptible  Running/Requested Pods  GPU Allocation'

setup_file() {
	cp_start
}

teardown_file() {
	kubesim_stop
}

setup() {
	isolate_env
	use_sim_kubeconfig
}

# submit_three PROJECT: a workspace, a standard training and a PyTorch
# training, submitted with the original grammar.
submit_three() {
	runai submit ws-1 -i ubuntu -g 1 -p "$1" --interactive -- sleep 600 >/dev/null
	runai submit tr-1 -i ubuntu -g 0.5 -p "$1" -- sleep 600 >/dev/null
	runai submit-dist pytorch pt-1 --workers 1 -i ubuntu -g 1 -p "$1" -- sleep 600 >/dev/null
}

# names_of: the first column of a v2 table, header and rule left out.
names_of() {
	tail -n +3 | awk '{print $1}' | sort | xargs
}

wait_running() {
	local _
	for _ in $(seq 1 $((100 * TIME_SCALE))); do
		[ "$(runai workload list -p "$1" --json | jq '[.[] | select(.status == "Running")] | length')" -ge 3 ] && return 0
		sleep 0.1
	done
	runai workload list -p "$1" >&2
	return 1
}

@test "kubernetes mode: each noun lists its own jobs in the v2 columns, with no warning" {
	submit_three team-a
	wait_running team-a
	run --separate-stderr -0 runai workload list -p team-a
	assert_equal "$stderr" ""
	assert_line --index 0 "$V2_HEADER"
	[[ ${lines[1]} =~ ^─+$ ]]
	[ "${#lines[1]}" -eq "${#V2_HEADER}" ]
	assert_line --regexp '^ws-1 +Workspace +Running +team-a +No +1/1 +1\.00$'
	assert_line --regexp '^tr-1 +Training +Running +team-a +Yes +1/1 +0\.50$'
	assert_line --regexp '^pt-1 +Training +Running +team-a +Yes +2/2 +2\.00$'
	assert_equal "$(runai workspace list -p team-a | names_of)" "ws-1"
	assert_equal "$(runai training list -p team-a | names_of)" "pt-1 tr-1"
	assert_equal "$(runai training standard list -p team-a | names_of)" "tr-1"
	assert_equal "$(runai training pytorch list -p team-a | names_of)" "pt-1"
	# the root word stands for training pytorch
	assert_equal "$(runai pytorch list -p team-a | names_of)" "pt-1"
	assert_equal "$(runai mpi list -p team-a | names_of)" ""
	# both grammars give the same jobs: every job, and the interactive ones
	assert_equal "$(runai workload list -p team-a | names_of)" \
		"$(runai list jobs -p team-a -o json | jq -r '.items[].name' | sort | xargs)"
	assert_equal "$(runai workspace list -p team-a | names_of)" \
		"$(runai list jobs -p team-a -o json | jq -r '.items[] | select(.type | startswith("Interactive")) | .name' | xargs)"
	run --separate-stderr -0 runai list jobs -p team-a
	assert_equal "$stderr" ""
}

@test "v2 list output: --json, --yaml, --columns, --no-headers, --status, -A" {
	run -0 runai workload list -p team-a --json
	assert_equal "$(jq -r '[.[] | .name + ":" + .type + ":" + .preemptible + ":" + .pods + ":" + .gpu] | sort | join(" ")' <<<"$output")" \
		"pt-1:Training:Yes:2/2:2.00 tr-1:Training:Yes:1/1:0.50 ws-1:Workspace:No:1/1:1.00"
	assert_equal "$(jq -r '.[] | select(.name == "pt-1") | .framework' <<<"$output")" PyTorch
	run -0 runai workload list -p team-a --yaml
	assert_line --regexp '^- name: (ws-1|tr-1|pt-1)$'
	run -0 runai training list -p team-a --columns name,framework --no-headers
	# as wide as the cells alone (the header's width is not kept)
	assert_equal "$(sed 's/ *$//' <<<"$output")" "pt-1  PyTorch
tr-1"
	run -0 runai workload list -p team-a --columns id,name --json
	assert_equal "$(jq -r '.[0] | keys | join(",")' <<<"$output")" "id,name"
	run -0 runai workload list -A --status running --json
	[ "$(jq 'length' <<<"$output")" -ge 3 ]
	run -0 runai workload list -A --status Pending --json
	assert_equal "$(jq '[.[] | select(.project == "team-a")] | length' <<<"$output")" 0
	run -0 runai workload list -p team-a --type workspace --no-headers --columns name
	assert_output "ws-1"
	run -2 runai workload list -p team-a --columns name,bogus
	assert_output --partial "unknown column 'bogus' for --columns"
	assert_equal "${#lines[@]}" 1
	run -2 runai workload list -p team-a --json --yaml
	assert_output "runai: error: give one of --json, --yaml and --table"
	run -2 runai workload list -p team-a --type banana
	assert_output --partial "invalid value 'banana' for --type"
}

@test "describe: the same record as describe job; sections, limits, and the group checked" {
	run -0 runai workspace describe ws-1 -p team-a -o json
	assert_equal "$(jq -S . <<<"$output" | jq 'del(.duration, .instances[].age)')" \
		"$(runai describe job ws-1 -p team-a -o json | jq -S . | jq 'del(.duration, .instances[].age)')"
	run -0 runai workspace describe ws-1 -p team-a
	assert_line "NAME: ws-1"
	assert_line "Pods:"
	assert_line "Events:"
	run -0 runai workspace describe ws-1 -p team-a --pods=false --events=false
	assert_line "NAME: ws-1"
	refute_line "Pods:"
	refute_line "Events:"
	run -0 runai training pytorch describe pt-1 -p team-a --general=false --pod-limit 1
	refute_line "NAME: pt-1"
	assert_line "Pods:"
	# a header and one pod of the two
	assert_equal "$(sed -n '/^Pods:/,/^$/p' <<<"$output" | grep -c 'pt-1-')" 1
	run -0 runai workload describe ws-1 -p team-a --events=false -o yaml
	assert_line "name: ws-1"
	run -1 runai training describe ws-1 -p team-a
	assert_output "runai: error: 'ws-1' is a workspace, not a training
hint: run 'runai workspace ...' or 'runai workload ...'"
	run -1 runai mpi describe pt-1 -p team-a
	assert_line --index 0 "runai: error: 'pt-1' is a PyTorch training, not an MPI training"
	run -1 runai workspace describe nope -p team-a
	assert_output "runai: error: no workspace named 'nope' in project team-a"
	run -0 runai workload describe pt-1 -p team-a --framework pytorch --events=false
	assert_line "NAME: pt-1"
	run -0 runai workload describe ws-1 -p team-a --type Workspace --events=false
	run -1 runai workload describe ws-1 -p team-a --type training
	assert_line --index 0 "runai: error: 'ws-1' is a workspace, not a training"
	run -2 runai workspace describe ws-1 -p team-a -o wide
	assert_output --partial "invalid value 'wide' for --output"
}

@test "suspend, resume and delete act on the group's job only, with the original's requests" {
	mark_requests
	run -1 runai training suspend ws-1 -p team-a
	refute_request PATCH /apis/run.ai/v1/namespaces/runai-team-a/runaijobs/ws-1
	run -0 runai workspace suspend ws-1 -p team-a
	assert_output "Job ws-1 suspended successfully."
	assert_request PATCH /apis/run.ai/v1/namespaces/runai-team-a/runaijobs/ws-1
	run -0 runai workspace resume ws-1 -p team-a
	assert_output "Job ws-1 resumed successfully."
	run -1 runai workspace delete tr-1 -p team-a
	run -0 runai training standard delete tr-1 -p team-a
	assert_output "Job tr-1 deleted successfully."
	assert_request DELETE /apis/run.ai/v1/namespaces/runai-team-a/runaijobs/tr-1
	# workload delete asks first; with no terminal it needs -y
	run -2 runai workload delete ws-1 -p team-a </dev/null
	assert_output "runai: error: stdin is no terminal to confirm the delete on: add -y"
	run -0 runai workload delete ws-1 pt-1 -p team-a -y
	assert_line "Job ws-1 deleted successfully."
	assert_line "Job pt-1 deleted successfully."
	assert_request DELETE /apis/kubeflow.org/v1/namespaces/runai-team-a/pytorchjobs/pt-1
	run -0 runai workload list -p team-a --no-headers
	assert_output ""
}

@test "logs, exec and the other stream verbs are the original commands under each noun" {
	runai submit echo-1 -i ubuntu -p team-a --interactive -- sh -c 'echo hello-from-v2; sleep 600' >/dev/null
	local _
	for _ in $(seq 1 $((100 * TIME_SCALE))); do
		runai workspace logs echo-1 -p team-a 2>/dev/null | grep -q hello-from-v2 && break
		sleep 0.1
	done
	run -0 runai workspace logs echo-1 -p team-a
	assert_output "hello-from-v2"
	run -0 runai workload logs echo-1 -p team-a --tail 1
	assert_output "hello-from-v2"
	run -0 runai workspace exec echo-1 -p team-a --wait-timeout 5s -- echo in-pod
	assert_output "in-pod"
	# the CLI v2 grammar's logs options reach the API server
	mark_requests
	run -0 runai workspace logs echo-1 -p team-a --limit-bytes 5
	assert_output "hello"
	assert_request GET "$(requests_since_mark | jq -r 'select(.path | endswith("/log")) | .path' | head -1)" \
		'.query.limitBytes == ["5"]'
	run -2 runai workspace logs echo-1 -p team-a --limit-bytes -3
	assert_output "runai: error: --limit-bytes must be positive, not -3"
	run -0 runai workspace delete echo-1 -p team-a
}

@test "inference: a one-line refusal in Kubernetes mode" {
	run -1 runai inference list -p team-a
	assert_line --index 0 "runai: error: inference workloads are served by a Run:ai control plane; this context is in Kubernetes mode"
	run -1 runai inference describe x -p team-a
	assert_line --index 0 --partial "inference workloads are served by a Run:ai control plane"
}

@test "help: nouns, verbs and the root words, and 'runai help' of them" {
	run -0 runai -h
	assert_line --regexp '^    workspace +submit and manage workspaces'
	assert_line --regexp '^    training +'
	assert_line --regexp '^    pytorch +the same as .runai training pytorch.$'
	run -0 runai training -h
	assert_line --regexp '^    pytorch +'
	assert_line --regexp '^    standard +'
	run -0 runai help workspace list
	assert_output --partial "usage: runai workspace list"
	# another name is shown as typed, not as what it stands for
	run -0 runai tf list -h
	assert_line --index 0 --regexp '^usage: runai tf list( |$)'
	run -0 runai workspace bash -h
	assert_line --index 0 --regexp '^usage: runai workspace bash( |$)'
	run -0 runai __complete training ''
	assert_line standard
	assert_line pytorch
	assert_line describe
}

@test "control-plane mode: the same nouns over the control plane's workloads, and its requests" {
	cp_setup
	cp_login
	submit_three team-b
	local _
	for _ in $(seq 1 $((100 * TIME_SCALE))); do
		[ "$(runai workload list -p team-b --json | jq '[.[] | select(.status == "Running")] | length')" -ge 3 ] && break
		sleep 0.1
	done
	run --separate-stderr -0 runai workload list -p team-b
	assert_equal "$stderr" ""
	assert_line --index 0 "$V2_HEADER"
	assert_line --regexp '^ws-1 +Workspace +Running +team-b +No +1/1 +1\.00$'
	assert_line --regexp '^tr-1 +Training +Running +team-b +Yes +1/1 +0\.50$'
	assert_line --regexp '^pt-1 +Training +Running +team-b +Yes +2/2 +2\.00$'
	assert_equal "$(runai workspace list -p team-b | names_of)" "ws-1"
	assert_equal "$(runai pytorch list -p team-b | names_of)" "pt-1"
	assert_equal "$(runai workload list -p team-b | names_of)" \
		"$(runai list jobs -p team-b -o json | jq -r '.items[].name' | sort | xargs)"
	run -0 runai training describe tr-1 -p team-b -o json
	# completion names the control plane's workloads
	run -0 runai __complete workspace describe -p team-b ''
	assert_line ws-1
	assert_line tr-1
	run -1 runai workspace describe tr-1 -p team-b
	assert_line --index 0 "runai: error: 'tr-1' is a standard training, not a workspace"
	local before
	before=$(wc -l <"$CP_REQUESTS")
	run -0 runai workspace suspend ws-1 -p team-b
	# suspended: on no node any more
	run -0 runai workload list -p team-b --columns name,node --no-headers
	assert_line --regexp '^ws-1 +-$'
	run -0 runai training pytorch delete pt-1 -p team-b
	tail -n +"$((before + 1))" "$CP_REQUESTS" |
		jq -e -s 'map(select(.method == "POST" and (.path | test("^/api/v1/workloads/workspaces/[0-9a-f-]+/suspend$")))) | length == 1' >/dev/null
	tail -n +"$((before + 1))" "$CP_REQUESTS" |
		jq -e -s 'map(select(.method == "DELETE" and (.path | test("^/api/v1/workloads/distributed/[0-9a-f-]+$")))) | length == 1' >/dev/null
	# the judge saw nothing the published document rejects
	run -0 cat "$CP_VIOLATIONS"
	assert_output ""
}
