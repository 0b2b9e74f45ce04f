#!/usr/bin/env bats
# runai list projects / list nodes against the emulator, with seeded
# objects so every cell of the output is known.

load lib/common

setup_file() {
	kubesim_start
	sim POST /_sim/controller '{"paused": true}' >/dev/null
	sim POST /_sim/seed "$(cat "$BATS_TEST_DIRNAME/../fixtures/e2e/list-seed.json")" >/dev/null
}

teardown_file() {
	kubesim_stop
}

setup() {
	isolate_env
	use_sim_kubeconfig
}

# Point the current context at namespace $1 (the default project).
use_namespace() {
	sed -i "s/namespace: .*/namespace: $1/" "$KUBECONFIG"
}

@test "list projects prints the reference table, sorted, default marked" {
	use_namespace runai-beta
	run -0 --separate-stderr runai list projects
	assert_output "$(printf '%-16s%-12s%-15s%-11s%-14s%s\n' \
		PROJECT DEPARTMENT 'DESERVED GPUs' 'INT LIMIT' 'INT AFFINITY' 'TRAIN AFFINITY' \
		alpha research 4 1h0m0s 'a100;h100' - \
		'beta (default)' - 0.50 - - gpu-pool \
		gamma - - - - -)"
	[ -z "$stderr" ]
}

@test "list projects reads the Project CRD after discovery" {
	mark_requests
	run -0 runai list projects
	assert_request GET /apis/run.ai/v1
	assert_request GET /apis/run.ai/v1/projects '.query.limit == ["500"]'
}

@test "list projects -o name and -o json" {
	use_namespace runai-alpha
	run -0 runai list projects -o name
	assert_output "project/alpha
project/beta
project/gamma"
	run -0 runai list projects -o json
	run -0 jq -c '[.[] | {name, deservedGpus, default}]' <<<"$output"
	assert_output '[{"name":"alpha","deservedGpus":4,"default":true},{"name":"beta","deservedGpus":0.5,"default":false},{"name":"gamma","deservedGpus":0,"default":false}]'
}

@test "list projects -o yaml is YAML of the same objects" {
	run -0 runai list projects -o yaml
	assert_line --regexp '^- name: alpha$'
	assert_line --regexp '^  department: research$'
	assert_line --regexp '^  interactiveJobTimeLimitSecs: 3600$'
}

@test "without the Project CRD, projects come from namespace labels" {
	sim POST /_sim/crd '{"runai": false}' >/dev/null
	run -0 runai list projects
	sim POST /_sim/crd '{"runai": true}' >/dev/null
	assert_line --regexp '^alpha +- +deleted +- +- +-$'
	assert_line --regexp '^gamma +- +deleted'
}

@test "list nodes shows capacity and use per node with grouped headers" {
	run -0 --separate-stderr runai list nodes
	assert_line --index 0 --regexp 'CPU.*MEMORY.*GPU'
	assert_line --index 1 --regexp '^NAME +STATUS +IP Address +ROLE +│ ALLOCATABLE +ALLOCATED +│ ALLOCATABLE +ALLOCATED +│ TYPE +ALLOCATABLE +FREE$'
	assert_line --regexp '^gpu-a +Ready +10\.1\.0\.1 +runai-gpu-worker +│ 31\.50 +2\.50 +│ 250 GiB +6 GiB +│ NVIDIA-H100 +8 +5\.50$'
	assert_line --regexp '^gpu-b +NotReady +unknown +<none> +│ 4\.00 +0\.00 +│ 8 GiB +0 B +│ - +0 +0$'
	[ "${#lines[@]}" -eq 4 ]
}

@test "list nodes -o wide adds allocated and unhealthy GPUs" {
	run -0 runai list nodes -o wide
	assert_line --index 1 --regexp 'FREE +ALLOCATED +UNHEALTHY$'
	assert_line --regexp '^gpu-a .* 5\.50 +2\.50 +0$'
}

@test "list nodes NAME filters, and an unknown name is an error" {
	run -0 runai list nodes gpu-b -o name
	assert_output "node/gpu-b"
	run -1 --separate-stderr runai list nodes gpu-x
	[[ "$stderr" == *"node 'gpu-x' not found"* ]]
	[[ "$stderr" == *"gpu-a, gpu-b"* ]]
}

@test "list nodes -o json has the documented fields" {
	run -0 runai list nodes -o json
	run -0 jq -c '.[0] | {name, gpu: .gpu | {allocatable, allocated, free}, cpu}' <<<"$output"
	assert_output '{"name":"gpu-a","gpu":{"allocatable":8,"allocated":2.5,"free":5.5},"cpu":{"allocatable":31.5,"allocated":2.5}}'
}

@test "list nodes asks only for non-terminated pods" {
	mark_requests
	run -0 runai list nodes
	assert_request GET /api/v1/pods '.query.fieldSelector == ["status.phase!=Succeeded,status.phase!=Failed"]'
	assert_request GET /api/v1/nodes
}

# Last in the file: it adds pods the tests above do not expect.
@test "list nodes counts pods from every page of a long pod list" {
	# 1,100 running pods on gpu-a, 1m CPU each: three pages of 500
	jq -n '{apiVersion: "v1", kind: "List", items: [
	  range(1100) | {apiVersion: "v1", kind: "Pod",
	    metadata: {name: "many-\(.)", namespace: "runai-alpha"},
	    spec: {nodeName: "gpu-a", containers: [{name: "c", image: "busybox",
	      resources: {requests: {cpu: "1m"}}}]},
	    status: {phase: "Running"}}]}' | sim POST /_sim/seed - >/dev/null
	mark_requests
	run -0 runai list nodes -o json
	run -0 jq -c '.[0] | [.name, .cpu.allocated]' <<<"$output"
	assert_output '["gpu-a",3.6]'
	assert_equal "$(count_requests GET /api/v1/pods)" 3
}
