#!/usr/bin/env bats
# runai-adm node drain|undrain against the emulator: the maintenance
# taint runai=drain:NoExecute added with the other taints kept (merge
# patch with the resourceVersion; a 409 is read again and retried), the
# DaemonSet warning, the wait for the Run:ai workload pods (the
# emulator's taint manager evicts them when its controller steps), the
# timeout, --cordon and undrain, idempotence; read back with curl and
# the real kubectl 1.32 where it is installed.

load lib/common

NS=runai-team-a
TAINT='{"key":"runai","value":"drain","effect":"NoExecute"}'
GPU_TAINT='{"key":"gpu","value":"a100","effect":"NoSchedule"}'

setup_file() {
	kubesim_start
	sim POST /_sim/controller '{"paused": true}' >/dev/null
}

teardown_file() {
	kubesim_stop
}

# node NAME TAINTS-JSON
node() {
	jq -n --arg n "$1" --argjson t "$2" '
	{"apiVersion": "v1", "kind": "Node",
	 "metadata": {"name": $n, "labels": {"kubernetes.io/hostname": $n,
	   "node-role.kubernetes.io/runai-gpu-worker": "true"}},
	 "spec": (if $t == [] then {} else {"taints": $t} end),
	 "status": {"allocatable": {"cpu": "16", "memory": "64Gi", "nvidia.com/gpu": "4"},
	   "capacity": {"cpu": "16", "memory": "64Gi", "nvidia.com/gpu": "4"},
	   "conditions": [{"type": "Ready", "status": "True"}],
	   "nodeInfo": {"kubeletVersion": "v1.32.5"}}}'
}

# pod NS NAME NODE SCHEDULER [OWNER-KIND] [TOLERATIONS-JSON]: a Running pod.
pod() {
	jq -n --arg ns "$1" --arg n "$2" --arg node "$3" --arg s "$4" \
		--arg kind "${5:-}" --argjson tol "${6:-[]}" '
	{"apiVersion": "v1", "kind": "Pod",
	 "metadata": ({"name": $n, "namespace": $ns} +
	   (if $kind == "" then {} else {"ownerReferences": [{"apiVersion": "apps/v1",
	     "kind": $kind, "name": "owner", "uid": "u-\($n)", "controller": true}]} end)),
	 "spec": {"nodeName": $node, "schedulerName": $s, "tolerations": $tol,
	   "containers": [{"name": "main", "image": "busybox"}]},
	 "status": {"phase": "Running"}}'
}

# Every test: n-1 (tainted gpu=a100:NoSchedule) and n-2 (no taints),
# no pods.
setup() {
	isolate_env
	use_sim_kubeconfig
	kube_api -X DELETE "$KUBESIM_URL/api/v1/nodes" >/dev/null
	for ns in $NS gpu-operator runai-backend kube-system; do
		kube_api -X DELETE "$KUBESIM_URL/api/v1/namespaces/$ns/pods" >/dev/null
	done
	{ node n-1 "[$GPU_TAINT]"; node n-2 '[]'; } | jq -s . | sim POST /_sim/seed - >/dev/null
	DRAIN_PID=
	mark_requests
}

teardown() {
	sim DELETE /_sim/faults >/dev/null || true
	if [ -n "${DRAIN_PID:-}" ]; then
		kill "$DRAIN_PID" 2>/dev/null || true
		wait "$DRAIN_PID" 2>/dev/null || true
	fi
}

kubectl() {
	"$KUBECTL_132" "$@"
}

seed() {
	jq -s . | sim POST /_sim/seed - >/dev/null
}

taints() {
	get_obj "/api/v1/nodes/$1" | jq -c '[.spec.taints // [] | .[] | del(.timeAdded)]'
}

patches() {
	requests_since_mark | jq -c --arg p "/api/v1/nodes/$1" \
		'select(.method == "PATCH" and .path == $p) | .body'
}

patch_count() {
	requests_since_mark | jq -s '[.[] | select(.method == "PATCH")] | length'
}

# wait_until CMD...: polls CMD every 0.1 s for at most 10 s (times
# TIME_SCALE).
wait_until() {
	local i
	for i in $(seq 1 $((100 * TIME_SCALE))); do
		"$@" && return 0
		sleep 0.1
	done
	echo "timed out waiting for: $*" >&2
	return 1
}

drained() {
	[ "$(get_obj "/api/v1/nodes/$1" | jq '[.spec.taints // [] | .[] | select(.key == "runai")] | length')" -eq 1 ]
}

gone() {
	! kill -0 "$1" 2>/dev/null
}

# drain_bg ARGS...: runai-adm node drain ARGS in the background; its
# output goes to $BATS_TEST_TMPDIR/out and err, its pid to DRAIN_PID.
drain_bg() {
	runai-adm node drain "$@" >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" 3>&- &
	DRAIN_PID=$!
}

# drain_wait: waits (bounded) for the background drain; its exit code
# in DRAIN_RC. Not through "run": only this shell can wait for it.
drain_wait() {
	wait_until gone "$DRAIN_PID" || return 1
	DRAIN_RC=0
	wait "$DRAIN_PID" || DRAIN_RC=$?
	DRAIN_PID=
}

@test "drain adds the taint with a merge patch that keeps the other taints" {
	run -0 --separate-stderr runai-adm node drain n-1 --no-wait
	assert_output "node/n-1 tainted runai=drain:NoExecute"
	[ "$(patch_count)" -eq 1 ]
	# the whole list (a merge patch replaces it), at the rv it was read at
	run -0 patches n-1
	jq -e --argjson g "$GPU_TAINT" --argjson t "$TAINT" '
	    (.spec | keys) == ["taints"] and
	    (.metadata | keys) == ["resourceVersion"] and
	    (.metadata.resourceVersion | test("^[0-9]+$")) and
	    .spec.taints[0] == $g and (.spec.taints[1] | del(.timeAdded)) == $t and
	    (.spec.taints[1].timeAdded | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$"))' <<<"$output"
	assert_request PATCH /api/v1/nodes/n-1 \
		'.headers["content-type"] == "application/merge-patch+json" and .status == 200'
	[ "$(taints n-1)" = "[$GPU_TAINT,$TAINT]" ]
	[ "$(get_obj /api/v1/nodes/n-1 | jq .spec.unschedulable)" = null ]
}

@test "kubectl sees the drain taint, and runai-adm sees one kubectl put on" {
	have_kubectl_132 || skip "kubectl 1.32 not installed at $KUBECTL_132"
	run -0 runai-adm node drain n-1 --no-wait
	run -0 kubectl get node n-1 -o json
	jq -e '[.spec.taints[] | {key, value, effect}] == [
	    {"key": "gpu", "value": "a100", "effect": "NoSchedule"},
	    {"key": "runai", "value": "drain", "effect": "NoExecute"}]' <<<"$output"
	run -0 kubectl describe node n-1
	assert_output --regexp $'Taints: +runai=drain:NoExecute\n +gpu=a100:NoSchedule\n'
	# the other way round: kubectl taints, runai-adm lists and undrains
	run -0 kubectl taint nodes n-2 runai=drain:NoExecute
	run -0 runai-adm node list n-2
	assert_line --index 1 --regexp '^n-2 +gpu-worker +Ready,Draining +4 +<none> +1$'
	run -0 runai-adm node undrain n-2
	assert_output "node/n-2 untainted runai=drain:NoExecute"
	run -0 kubectl get node n-2 -o json
	jq -e '.spec.taints == null' <<<"$output"
}

@test "drain warns about the DaemonSet pods the taint will evict" {
	{
		pod gpu-operator exporter-x n-1 default-scheduler DaemonSet
		pod gpu-operator plugin-x n-1 default-scheduler DaemonSet '[{"operator": "Exists"}]'
		pod gpu-operator other-node n-2 default-scheduler DaemonSet
		pod kube-system web-x n-1 default-scheduler ReplicaSet
	} | seed
	run -0 --separate-stderr runai-adm node drain n-1 --no-wait
	stderr_is "runai-adm: warning: DaemonSet pods on node 'n-1' do not tolerate runai=drain:NoExecute and will be evicted: gpu-operator/exporter-x"
	assert_request GET /api/v1/pods '.query.fieldSelector == ["spec.nodeName=n-1"]'
}

@test "drain waits until the workload pods have left, watching the node's pods" {
	{
		pod $NS train-0 n-1 runai-scheduler RunaiJob
		pod $NS other-node n-2 runai-scheduler RunaiJob
		pod gpu-operator exporter-x n-1 default-scheduler DaemonSet
	} | seed
	drain_bg n-1 --timeout 60s
	wait_until drained n-1
	wait_until grep -q "waiting for 1 Run:ai workload pod to leave node n-1: $NS/train-0" "$BATS_TEST_TMPDIR/out"
	# the controller is paused: nothing is evicted, drain keeps waiting
	sleep 0.3
	kill -0 "$DRAIN_PID"
	wait_until assert_request GET /api/v1/pods \
		'.query.watch == ["1"] and .query.fieldSelector == ["spec.nodeName=n-1"] and (.query.resourceVersion | length) == 1'
	# one controller step: the taint manager evicts the pods there
	sim POST /_sim/tick '{"steps": 1}' >/dev/null
	drain_wait
	[ "$DRAIN_RC" -eq 0 ]
	run cat "$BATS_TEST_TMPDIR/out"
	assert_line --index 0 "node/n-1 tainted runai=drain:NoExecute"
	assert_line --index 1 "node/n-1: the taint evicts 2 pods: gpu-operator/exporter-x, $NS/train-0"
	assert_line --index 2 "waiting for 1 Run:ai workload pod to leave node n-1: $NS/train-0"
	assert_line --index 3 "node/n-1 drained: 2 pods evicted (gpu-operator/exporter-x, $NS/train-0); no Run:ai workload pods left"
	! exists "/api/v1/namespaces/$NS/pods/train-0"
	! exists "/api/v1/namespaces/gpu-operator/pods/exporter-x"
	exists "/api/v1/namespaces/$NS/pods/other-node"
	get_obj "/api/v1/namespaces/$NS/events" | jq -e '[.items[] |
	    select(.reason == "TaintManagerEviction" and .involvedObject.name == "train-0")] | length == 1'
}

@test "drain times out naming the pods left (not the ones that tolerate the taint), and keeps the taint" {
	{
		pod $NS stuck-0 n-1 runai-scheduler
		pod $NS stuck-1 n-1 runai-scheduler "" '[{"key": "runai", "operator": "Exists", "effect": "NoExecute"}]'
		pod $NS done-0 n-1 runai-scheduler
	} | seed
	kube_api -X PATCH -H 'Content-Type: application/merge-patch+json' -d '{"status":{"phase":"Succeeded"}}' \
		"$KUBESIM_URL/api/v1/namespaces/$NS/pods/done-0/status" >/dev/null
	SECONDS=0
	run -1 --separate-stderr runai-adm node drain n-1 --timeout 2s
	[ "$SECONDS" -lt $((10 * TIME_SCALE)) ]
	stderr_has "runai-adm: warning: Run:ai workload pods on node 'n-1' tolerate runai=drain:NoExecute and will not be evicted: $NS/stuck-1"
	stderr_has "runai-adm: error: timed out after 2s waiting for Run:ai workload pods to leave node 'n-1'; still there: $NS/stuck-0"
	stderr_has "hint: the node keeps the drain taint"
	assert_line "node/n-1: the taint evicts 1 pod: $NS/stuck-0"
	assert_line "waiting for 1 Run:ai workload pod to leave node n-1: $NS/stuck-0"
	drained n-1
}

@test "a pod that tolerates the taint is named once and not waited for" {
	{
		pod $NS stays-0 n-1 runai-scheduler "" '[{"key": "runai", "operator": "Exists", "effect": "NoExecute"}]'
		pod $NS goes-0 n-1 runai-scheduler RunaiJob
	} | seed
	drain_bg n-1 --timeout 30s
	wait_until grep -q "waiting for 1 Run:ai workload pod to leave node n-1: $NS/goes-0" "$BATS_TEST_TMPDIR/out"
	sim POST /_sim/tick '{"steps": 1}' >/dev/null
	drain_wait
	[ "$DRAIN_RC" -eq 0 ]
	run cat "$BATS_TEST_TMPDIR/out"
	assert_line "node/n-1 drained: 1 pod evicted ($NS/goes-0); no Run:ai workload pods left"
	run cat "$BATS_TEST_TMPDIR/err"
	assert_output "runai-adm: warning: Run:ai workload pods on node 'n-1' tolerate runai=drain:NoExecute and will not be evicted: $NS/stays-0"
	exists "/api/v1/namespaces/$NS/pods/stays-0"
}

@test "a system node's control-plane pods are named among the evicted" {
	pod runai-backend runai-backend-api-x n-1 default-scheduler ReplicaSet | seed
	# no workload pod to wait for: drain ends at once, the eviction
	# (the taint manager's, at the controller's next step) still to come
	run -0 --separate-stderr runai-adm node drain n-1 --timeout 30s
	assert_line "node/n-1: the taint evicts 1 pod: runai-backend/runai-backend-api-x"
	assert_line "node/n-1 drained: no Run:ai workload pods left"
	assert_equal "$stderr" "runai-adm: warning: still on node 'n-1', being evicted: runai-backend/runai-backend-api-x"
}

@test "the last GPU node (or runai-system node) not drained: warned, refused without --yes or a terminal" {
	SYS=node-role.kubernetes.io/runai-system
	kube_api -X PATCH -H 'Content-Type: application/merge-patch+json' \
		-d "{\"metadata\":{\"labels\":{\"$SYS\":\"true\"}}}" "$KUBESIM_URL/api/v1/nodes/n-2" >/dev/null
	run -0 --separate-stderr runai-adm node drain n-1 --no-wait
	[ -z "$stderr" ]
	mark_requests
	# n-2 is now the last node with GPUs, and the only runai-system node
	run -2 --separate-stderr runai-adm node drain n-2 --no-wait </dev/null
	stderr_has "runai-adm: warning: node 'n-2' is the last runai-system node not drained: Run:ai's own services will have nowhere to run"
	stderr_has "runai-adm: warning: node 'n-2' is the last node with GPUs not drained: every GPU workload will be unschedulable until a node is undrained"
	stderr_has "runai-adm: error: not draining node 'n-2', the last of its kind, without --yes"
	[ "$(patch_count)" -eq 0 ]
	! drained n-2
	run -0 --separate-stderr runai-adm node drain n-2 --no-wait --yes
	stderr_has "is the last node with GPUs not drained"
	drained n-2
	# draining it again is no news
	run -0 --separate-stderr runai-adm node drain n-2 --no-wait
	[ -z "$stderr" ]
}

@test "the emulator evicts only untolerating pods and schedules none back" {
	sim POST /_sim/seed '{"apiVersion": "run.ai/v1", "kind": "RunaiJob",
	  "metadata": {"name": "mover", "namespace": "'$NS'"},
	  "spec": {"template": {"metadata": {"labels": {"app": "runaijob", "release": "mover"}},
	    "spec": {"schedulerName": "runai-scheduler", "restartPolicy": "Never",
	      "nodeSelector": {"kubernetes.io/hostname": "n-2"},
	      "containers": [{"name": "main", "image": "ubuntu",
	        "resources": {"limits": {"nvidia.com/gpu": 1}}}]}}}}' >/dev/null
	pod $NS tolerant n-2 runai-scheduler "" '[{"key": "runai", "operator": "Exists"}]' | seed
	sim POST /_sim/tick '{"steps": 2}' >/dev/null
	first=$(get_obj "/api/v1/namespaces/$NS/pods?labelSelector=release%3Dmover" | jq -r '.items[0].metadata.name')
	[ "$(get_obj "/api/v1/namespaces/$NS/pods/$first" | jq -r .spec.nodeName)" = n-2 ]
	run -0 runai-adm node drain n-2 --no-wait
	sim POST /_sim/tick '{"steps": 2}' >/dev/null
	! exists "/api/v1/namespaces/$NS/pods/$first"
	exists "/api/v1/namespaces/$NS/pods/tolerant"
	# the job's new pod cannot go to n-2 (taint) nor n-1 (selector)
	run -0 get_obj "/api/v1/namespaces/$NS/pods?labelSelector=release%3Dmover"
	jq -e '.items | length == 1 and .[0].spec.nodeName == null and .[0].status.phase == "Pending"' <<<"$output"
	get_obj "/api/v1/namespaces/$NS/events" | jq -e '[.items[] | select(.reason == "Unschedulable")
	    | .message | test("node\\(s\\) had untolerated taint \\{runai: drain\\}")] | any'
	# undrain: the pod is placed on n-2 again
	run -0 runai-adm node undrain n-2
	sim POST /_sim/tick '{"steps": 2}' >/dev/null
	run -0 get_obj "/api/v1/namespaces/$NS/pods?labelSelector=release%3Dmover"
	jq -e '.items | length == 1 and .[0].spec.nodeName == "n-2"' <<<"$output"
}

@test "drain --cordon cordons and marks the node; undrain restores it" {
	run -0 --separate-stderr runai-adm node drain n-2 --cordon --no-wait
	assert_output "node/n-2 tainted runai=drain:NoExecute
node/n-2 cordoned"
	run -0 patches n-2
	jq -e --argjson t "$TAINT" '.metadata.annotations == {"run.ai/cordoned-by-drain": "true"} and
	    .spec.unschedulable == true and ([.spec.taints[] | del(.timeAdded)] == [$t])' <<<"$output"
	run -0 runai-adm node list n-2
	assert_line --index 1 --regexp '^n-2 +gpu-worker +Ready,SchedulingDisabled,Draining +4 +<none> +1$'
	if have_kubectl_132; then
		run -0 kubectl get node n-2
		assert_line --index 1 --regexp '^n-2 +Ready,SchedulingDisabled +'
	fi
	mark_requests
	run -0 --separate-stderr runai-adm node undrain n-2
	assert_output "node/n-2 untainted runai=drain:NoExecute
node/n-2 uncordoned"
	run -0 patches n-2
	jq -e '.metadata.annotations == {"run.ai/cordoned-by-drain": null} and
	    .spec == {"taints": null, "unschedulable": null} and (.metadata.resourceVersion | length) > 0' <<<"$output"
	run -0 get_obj /api/v1/nodes/n-2
	jq -e '.spec.unschedulable == null and .spec.taints == null and
	    (.metadata.annotations // {} | has("run.ai/cordoned-by-drain") | not)' <<<"$output"
	run -0 runai-adm node list n-2
	assert_line --index 1 --regexp '^n-2 +gpu-worker +Ready +4 +<none> +0$'
}

@test "undrain keeps the other taints and a cordon drain did not make" {
	kube_api -X PATCH -H 'Content-Type: application/merge-patch+json' -d '{"spec":{"unschedulable":true}}' \
		"$KUBESIM_URL/api/v1/nodes/n-1" >/dev/null
	run -0 --separate-stderr runai-adm node drain n-1 --cordon --no-wait
	assert_output "node/n-1 tainted runai=drain:NoExecute"
	stderr_has "node 'n-1' was cordoned already; undrain leaves it cordoned"
	run -0 --separate-stderr runai-adm node undrain n-1
	assert_output "node/n-1 untainted runai=drain:NoExecute"
	stderr_has "node 'n-1' stays cordoned"
	[ "$(taints n-1)" = "[$GPU_TAINT]" ]
	[ "$(get_obj /api/v1/nodes/n-1 | jq .spec.unschedulable)" = true ]
}

@test "draining a drained node says so and writes nothing" {
	run -0 runai-adm node drain n-1 --no-wait
	mark_requests
	run -0 --separate-stderr runai-adm node drain n-1 --no-wait
	assert_output "node/n-1 is already drained"
	[ "$(patch_count)" -eq 0 ]
	# and waits all the same: no workload pods, done at once
	run -0 --separate-stderr runai-adm node drain n-1
	assert_output "node/n-1 is already drained
node/n-1 drained: no Run:ai workload pods left"
	[ "$(patch_count)" -eq 0 ]
	[ "$(taints n-1)" = "[$GPU_TAINT,$TAINT]" ]
	# --cordon on a drained node only cordons
	run -0 --separate-stderr runai-adm node drain n-1 --cordon --no-wait
	assert_output "node/n-1 already has the taint runai=drain:NoExecute
node/n-1 cordoned"
	run -0 patches n-1
	jq -e '(.spec | keys) == ["unschedulable"]' <<<"$output"
}

@test "undrain of a node that is not drained says so and writes nothing" {
	run -0 --separate-stderr runai-adm node undrain n-2
	assert_output "node/n-2 is not drained"
	[ "$(patch_count)" -eq 0 ]
}

@test "a concurrent change (409) makes drain read the node again and retry" {
	sim POST /_sim/faults '{"path_prefix": "/api/v1/nodes/n-1", "method": "PATCH", "count": 1, "status": 409}' >/dev/null
	run -0 --separate-stderr runai-adm node drain n-1 --no-wait
	assert_output "node/n-1 tainted runai=drain:NoExecute"
	[ "$(patch_count)" -eq 2 ]
	[ "$(count_requests GET /api/v1/nodes/n-1)" -ge 3 ]
	[ "$(taints n-1)" = "[$GPU_TAINT,$TAINT]" ]
}

@test "a stale resourceVersion is refused by the server, not lost" {
	# what the 409 protects: a taint added after drain read the node
	rv=$(get_obj /api/v1/nodes/n-1 | jq -r .metadata.resourceVersion)
	kube_api -X PATCH -H 'Content-Type: application/merge-patch+json' \
		-d '{"metadata":{"labels":{"x":"y"}}}' "$KUBESIM_URL/api/v1/nodes/n-1" >/dev/null
	code=$(kube_api -o /dev/null -w '%{http_code}' -X PATCH -H 'Content-Type: application/merge-patch+json' \
		-d "{\"metadata\":{\"resourceVersion\":\"$rv\"},\"spec\":{\"taints\":[$TAINT]}}" \
		"$KUBESIM_URL/api/v1/nodes/n-1")
	[ "$code" = 409 ]
	[ "$(taints n-1)" = "[$GPU_TAINT]" ]
}

@test "drain of an unknown node fails and writes nothing" {
	run -1 --separate-stderr runai-adm node drain ghost --no-wait
	stderr_has 'nodes "ghost" not found'
	[ "$(patch_count)" -eq 0 ]
	run -1 --separate-stderr runai-adm node undrain ghost
	stderr_has 'nodes "ghost" not found'
	run -2 --separate-stderr runai-adm node drain
	run -2 --separate-stderr runai-adm node drain n-1 --timeout soon
	run -2 --separate-stderr runai-adm node
	stderr_has "drain, list, roles, undrain"
}
