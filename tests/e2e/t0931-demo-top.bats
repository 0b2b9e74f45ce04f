#!/usr/bin/env bats
# `runai top node` and `runai top job` on the demo cluster (kube-sim
# --demo), with nothing seeded by hand: the demo has its Prometheus
# Service, and the series come from the emulator's GPU load model, the
# same one the pods' nvidia-smi shows.

load lib/common

NS=runai-team-a

setup_file() {
	kubesim_start --demo --tick 0.2
}

teardown_file() {
	kubesim_stop
}

setup() {
	sim_test_setup "$NS"
}

# shows CMD... -- ERE: runs CMD every 0.2 s (10 s at most, times
# TIME_SCALE) until a line of its output matches ERE.
shows() {
	local cmd=() _
	while [ "$1" != -- ]; do cmd+=("$1"); shift; done
	for _ in $(seq 1 $((50 * TIME_SCALE))); do
		"${cmd[@]}" 2>/dev/null | grep -qE -- "$2" && return 0
		sleep 0.2
	done
	echo "'${cmd[*]}' never showed '$2'" >&2
	return 1
}

@test "top node and top job print real rows on the demo" {
	run -0 runai submit train1 -i pytorch/pytorch -g 2 -- python3 train.py
	run -0 runai submit -i jupyter/base-notebook -g 0.5 --interactive --name nb1
	pod_running train1
	pod_running nb1
	# a little load: the model ramps up from the pods' start, a tick or
	# more after it
	shows runai top node -- '│ 8 +[1-9][0-9]*\.[0-9]%'
	shows runai top job -- '^train1 .*│ 2 +[1-9][0-9.]*% '
	run -0 --separate-stderr runai top node
	[ -z "$stderr" ]
	assert_line --index 1 --regexp '^NAME +STATUS +│ CAPACITY +UTILIZATION +│ CAPACITY +USAGE +│ CAPACITY +UTILIZATION$'
	# a row per node; the GPUs the jobs hold are busy
	assert_line --index 2 --regexp '^node-1 +Ready +│ 64\.00 +[0-9.]+% +│ 512 GiB .*│ 8 +[0-9.]+%$'
	assert_line --index 3 --regexp '^node-2 +Ready +│ 64\.00 +[0-9.]+% +│ 512 GiB .*│ 8 +[0-9.]+%$'
	assert_output --regexp '│ 8 +[1-9][0-9]*\.[0-9]%'
	run -0 --separate-stderr runai top job
	[ -z "$stderr" ]
	assert_line --regexp '^nb1 +team-a +[^ ]+ +Interactive +[0-9]+s +node-[12] +│ 0\.50 +[0-9.]+% +│ 40 GiB +[0-9.]+ GiB +│'
	assert_line --regexp '^train1 +team-a +[^ ]+ +Train +[0-9]+s +node-[12] +│ 2 +[1-9][0-9.]*% +│ 160 GiB +[0-9.]+ GiB +│'
}

@test "top node -d shows each GPU's use from the load model" {
	run -0 runai submit train2 -i pytorch/pytorch -g 1 -- python3 train.py
	pod_running train2
	# the load model gives a GPU its use a tick or more after its pod runs
	shows runai top node -d -- '^[0-7] +[1-9][0-9]*\.[0-9]% +80 GiB '
	run -0 runai top node -d
	assert_line --regexp '^GPU +UTILIZATION +MEMORY +MEMORY USAGE +IDLE TIME$'
	# 16 GPU rows of 80 GiB each; those the jobs hold are in use
	[ "$(grep -cE '^[0-7] +[0-9.]+% +80 GiB ' <<<"$output")" -eq 16 ]
	assert_output --regexp $'\n[0-7] +[1-9][0-9]*\.[0-9]% +80 GiB +[0-9.]+ GiB \([0-9.]+%\) +0s'
	assert_output --regexp $'\n[0-7] +0\.0% +80 GiB +0 B \(0\.0%\)'
	# asked for an earlier moment, Prometheus has no sample from after it:
	# a busy GPU was last busy then
	local at=$(($(date +%s) - 100)) q=runai_node_gpu_last_not_idle_time
	run -0 kube_api "$KUBESIM_URL/api/v1/namespaces/monitoring/services/http:kube-prometheus-stack-prometheus:9090/proxy/api/v1/query?query=$q&time=$at"
	jq -e --argjson at "$at" '[.data.result[].value[1] | tonumber] | max | . > 0 and . <= $at' <<<"$output"
}
