#!/usr/bin/env bats
# runai inference distributed: a model served by groups of a leader and
# its workers, against kube-sim's emulated control plane of release 2.24,
# which runs each group as a LeaderWorkerSet's pods. Every request and
# answer is judged against the release's OpenAPI document; the file ends
# by asserting the judge saw nothing wrong. The releases before 2.23 are
# refused in t_dist_inference (the unit test), as the request is made.

load lib/common
load lib/cp

CP_VERSION=2.24
NS=runai-team-a

setup_file() {
	cp_start
}

teardown_file() {
	kubesim_stop
}

setup() {
	cp_two_modes_setup
}

# pods NAME: the names of the LeaderWorkerSet NAME's pods, sorted.
pods() {
	kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/pods?labelSelector=leaderworkerset.sigs.k8s.io%2Fname%3D$1" |
		jq -r '.items[] | select(.metadata.deletionTimestamp == null) | .metadata.name' | sort
}

# wait_pods NAME COUNT: until NAME has COUNT pods (10 s, scaled).
wait_pods() {
	local _
	for _ in $(seq 1 $((50 * TIME_SCALE))); do
		[ "$(pods "$1" | grep -c .)" -eq "$2" ] && return 0
		sleep 0.2
	done
	pods "$1" >&2
	return 1
}

# wait_status NAME STATUS: until the control plane lists NAME in STATUS
# (10 s, scaled).
wait_status() {
	local _
	for _ in $(seq 1 $((50 * TIME_SCALE))); do
		c list jobs -A -o json | jq -e --arg n "$1" --arg s "$2" \
			'.items[] | select(.name == $n and .status == $s)' >/dev/null && return 0
		sleep 0.2
	done
	c list jobs -A >&2
	return 1
}

@test "a dry run prints the request: the leader, the workers' own values over its copy, the groups" {
	run -0 c inference distributed submit llm -p team-a -i vllm/vllm-openai -g 2 \
		--cpu-memory-request 8G --workers 2 --replicas 2 --startup-policy LeaderReady \
		--command 'vllm serve m' --arguments '--tp 2' -e MODEL=llama -e API_TOKEN=s3cret \
		--worker-image vllm/worker --worker-arguments '--role worker' --worker-gpu-devices-request 1 \
		--serving-port container=8000,authorization-type=authorizedUsers,authorized-users=ann:bob \
		--node-pools a --dry-run -o json
	refute_output --partial s3cret
	assert_equal "$(jq -c '[.name, .projectId != null, .spec.replicas, .spec.workers,
		.spec.startupPolicy, .spec.nodePools, .spec.servingPort]' <<<"$output")" \
		'["llm",true,2,2,"LeaderReady",["a"],{"port":8000,"authorizationType":"authorizedUsers","authorizedUsers":["ann","bob"]}]'
	assert_equal "$(jq -c '.spec.leader | [.image, .command, .args, .compute.gpuDevicesRequest,
		.compute.cpuMemoryRequest, [.environmentVariables[].name]]' <<<"$output")" \
		'["vllm/vllm-openai","vllm serve m","--tp 2",2,"8G",["MODEL","API_TOKEN"]]'
	assert_equal "$(jq -c '.spec.worker | [.image, .command, .args, .compute.gpuDevicesRequest,
		.compute.cpuMemoryRequest]' <<<"$output")" \
		'["vllm/worker","vllm serve m","--role worker",1,"8G"]'
	run -0 c inference distributed submit llm -p team-a -i img --dry-run
	assert_line --index 0 "# POST /api/v1/workloads/distributed-inferences"
	run -0 cp_status_of POST '^/api/v1/workloads/distributed-inferences$'
	assert_output ""
}

@test "submit: two groups of a leader and a worker run, each from its own image" {
	run -0 c inference distributed submit llm1 -p team-a -i busybox -g 1 --workers 1 \
		--replicas 2 --worker-image busybox:worker --serving-port 8000 --command 'sleep 300'
	assert_line --index 0 "The inference distributed 'llm1' has been submitted successfully"
	assert_line --index 1 "You can run \`runai inference distributed describe llm1 -p team-a\` to check its status"
	run -0 cp_status_of POST '^/api/v1/workloads/distributed-inferences$'
	assert_output 202
	wait_pods llm1 4
	run -0 pods llm1
	assert_output "$(printf '%s\n' llm1-0 llm1-0-1 llm1-1 llm1-1-1)"
	run -0 kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/pods/llm1-1-1"
	assert_equal "$(jq -r '.spec.containers[0].image' <<<"$output")" busybox:worker
	run -0 kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/pods/llm1-1"
	assert_equal "$(jq -r '.spec.containers[0].image' <<<"$output")" busybox
}

@test "list and describe: it is an inference, and the distributed group's own" {
	wait_status llm1 Running
	run -0 c inference distributed list -p team-a
	assert_line --regexp "^llm1 +Inference +Running +team-a "
	run -0 c inference list -p team-a
	assert_line --regexp "^llm1 +Inference +Running "
	run -0 c inference distributed describe llm1 -p team-a
	assert_line "TYPE: DistributedInference"
	assert_line "STATUS: Running"
	# -o json reads the distributed inference's own path: as submitted
	run -0 c inference distributed describe llm1 -p team-a -o json
	assert_equal "$(jq -c '.submitted.spec | [.replicas, .workers, .leader.image, .worker.image]' <<<"$output")" \
		'[2,1,"busybox","busybox:worker"]'
	run -0 cp_status_of GET '^/api/v1/workloads/distributed-inferences/[-0-9a-f]+$'
	assert_line 200
	# its pods are the cluster's, for kubectl: runai has no streams of it yet
	jq -nc --arg ns "$NS" '{namespace: $ns, pod: "llm1-1-1", container: null,
		lines: ["worker 1 of group 1 joined"]}' | sim POST /_sim/logs - >/dev/null
	run -0 kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/pods/llm1-1-1/log"
	assert_output --partial "worker 1 of group 1 joined"
	run -2 c inference distributed logs llm1 -p team-a
	assert_line --index 0 "runai inference distributed: 'logs' is not a runai inference distributed command"
	# a training is no distributed inference
	run -0 c training submit tr1 -p team-a -i busybox -- sleep 300
	run -1 c inference distributed describe tr1 -p team-a
	assert_line --index 0 "runai: error: 'tr1' is a standard training, not a distributed inference"
}

@test "scale: a group added or removed whole" {
	run -0 c inference distributed scale llm1 -p team-a --replicas 1 --dry-run
	assert_line --index 0 --regexp '^# PATCH /api/v1/workloads/distributed-inferences/[-0-9a-f]+$'
	assert_line "  replicas: 1"
	run -0 c inference distributed scale llm1 -p team-a --replicas 1
	assert_output "The distributed inference 'llm1' scales to 1 replica"
	run -0 cp_status_of PATCH '^/api/v1/workloads/distributed-inferences/[-0-9a-f]+$'
	assert_output 202
	wait_pods llm1 2
	run -0 pods llm1
	assert_output "$(printf '%s\n' llm1-0 llm1-0-1)"
	# what is not a distributed inference, or not there
	run -1 c inference distributed scale tr1 -p team-a --replicas 2
	assert_output "runai: error: 'tr1' in project team-a is of type Training, not a distributed inference"
	run -1 c inference distributed scale nosuch -p team-a --replicas 2
	assert_output --partial "nosuch"
	assert_equal "${#lines[@]}" 1
	run -2 c inference distributed scale llm1 -p team-a
	assert_output "runai: error: --replicas is required: the number of groups to run"
	run -2 c inference distributed scale llm1 -p team-a --replicas 1001
	assert_output "runai: error: --replicas must be from 0 to 1000"
}

@test "not suspended; delete goes to the distributed inferences' path and its pods go" {
	run -1 c suspend llm1 -p team-a
	assert_output "runai: error: Failed to suspend job llm1: an inference workload cannot be suspended or resumed, only deleted"
	run -0 c inference distributed delete llm1 -p team-a
	run -0 cp_status_of DELETE '^/api/v1/workloads/distributed-inferences/[-0-9a-f]+$'
	assert_output 202
	wait_pods llm1 0
}

@test "bad flags are one line before anything is sent; Kubernetes mode refuses" {
	local before
	before=$(wc -l <"$CP_REQUESTS")
	run -2 c inference distributed submit x -p team-a
	assert_output "runai: error: -i/--image is required: the image that serves the model"
	run -2 c inference distributed submit x -p team-a -i img --worker-image w
	assert_output "runai: error: the --worker-* flags are for the workers: give --workers (1 or more) too"
	run -2 c inference distributed submit x -p team-a -i img --workers -1
	assert_line --index 0 "runai inference distributed submit: invalid value '-1' for --workers: expected an integer of 0 or more"
	run -2 c inference distributed submit x -p team-a -i img --serving-port container=80,protocol=grpc
	assert_output "runai: error: --serving-port 'container=80,protocol=grpc': protocol= is http (a distributed inference serves nothing else)"
	run -2 c inference distributed submit x -p team-a -i img --startup-policy Sometimes
	assert_line --index 0 --partial "invalid value 'Sometimes' for --startup-policy"
	run -2 c inference distributed submit x y -p team-a -i img
	assert_output "runai: error: one name, please (got 'y' too); the command is --command and --arguments"
	run -2 c inference distributed submit x -p team-a -i img --cpu-core-request lots
	assert_output "runai: error: --cpu-core-request 'lots' is not a number of cores above 0 (for example 2 or 0.5)"
	assert_equal "$(wc -l <"$CP_REQUESTS")" "$before"
	run -1 k inference distributed submit x -p team-a -i img
	assert_line --index 0 "runai: error: inference workloads exist only with a Run:ai control plane, and this context is in Kubernetes mode ('runai config control-plane URL' sets one)"
	run -1 k inference distributed list -p team-a
	assert_line --index 0 "runai: error: inference workloads are served by a Run:ai control plane; this context is in Kubernetes mode"
}

@test "the judge saw no schema violation in anything above" {
	run -0 cat "$CP_VIOLATIONS"
	assert_output ""
}
