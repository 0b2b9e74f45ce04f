#!/usr/bin/env bats
# The emulator's runtime: the controller and GPU scheduler (pods for
# RunaiJobs, Pending -> Running -> Succeeded, fractions, quota, freeing
# GPUs), pod logs (plain, --tail/--timestamps, -f) and exec/attach over
# WebSocket, checked with the real kubectl 1.32 where it is installed.
#
# The controller is paused for the whole file: every test moves the
# cluster on with POST /_sim/tick, so nothing depends on timing.

load lib/common

setup_file() {
	kubesim_start --demo
	sim POST /_sim/controller '{"paused": true}' >/dev/null
}

teardown_file() {
	kubesim_stop
}

setup() {
	isolate_env
	use_sim_kubeconfig
}

# Each test starts from a cluster without workloads or pods.
teardown() {
	local ns
	for ns in runai-team-a runai-team-b runai-team-c runai-team-d; do
		api DELETE "/apis/run.ai/v1/namespaces/$ns/runaijobs" >/dev/null || true
		api DELETE "/api/v1/namespaces/$ns/pods" >/dev/null || true
	done
}

need_kubectl() {
	have_kubectl_132 || skip "kubectl 1.32 not installed at $KUBECTL_132"
}

# kubectl 1.32 itself, never the version dispatcher.
kubectl() {
	"$KUBECTL_132" "$@"
}

# api METHOD PATH [BODY]: the Kubernetes API as the admin, with curl.
api() {
	curl -sS --cacert "$KUBESIM_CA" -H "Authorization: Bearer $KUBESIM_TOKEN" \
		-H 'Content-Type: application/json' -X "$1" ${3:+--data-binary "$3"} \
		"$KUBESIM_URL$2"
}

merge_patch() {
	curl -sS --fail-with-body --cacert "$KUBESIM_CA" \
		-H "Authorization: Bearer $KUBESIM_TOKEN" -X PATCH \
		-H 'Content-Type: application/merge-patch+json' --data-binary "$2" \
		"$KUBESIM_URL$1" >/dev/null
}

tick() {
	sim POST /_sim/tick "{\"steps\": ${1:-1}}" >/dev/null
}

# runaijob NAME NAMESPACE GPUS [TEMPLATE-ANNOTATIONS] [WORKLOAD-LABELS] [SPEC]
# prints a RunaiJob as `runai submit` makes it; GPUS below 1 is a fraction.
runaijob() {
	local name=$1 ns=$2 gpus=$3 ann=${4:-'{}'} labels=${5:-'{}'} spec=${6:-'{}'}
	jq -nc --arg n "$name" --arg ns "$ns" --arg g "$gpus" --argjson ann "$ann" \
		--argjson labels "$labels" --argjson spec "$spec" '
	  ($g | tonumber) as $gn
	  | {app: "runaijob", chart: "runaijob-1.0.1", release: $n, heritage: "Helm",
	     createdBy: "RunaiJob"} as $l
	  | {apiVersion: "run.ai/v1", kind: "RunaiJob",
	     metadata: {name: $n, namespace: $ns, labels: ($l + $labels),
	                annotations: {user: "tester"}},
	     spec: ({template: {
	       metadata: {labels: $l,
	                  annotations: ($ann + (if $gn < 1 then {"gpu-fraction": $g} else {} end))},
	       spec: {schedulerName: "runai-scheduler", restartPolicy: "Never",
	              containers: [{name: $n, image: "gcr.io/run-ai-demo/quickstart",
	                            stdin: true, tty: true,
	                            env: [{name: "TEAM_VAR", value: "blue"}],
	                            resources: {limits: (if $gn >= 1
	                              then {"nvidia.com/gpu": $g} else {} end)}}]}}} + $spec)}'
}

submit() {
	sim POST /_sim/seed "$(runaijob "$@")" >/dev/null
}

# pod_of JOB NAMESPACE: the name of the job's (first) pod.
pod_of() {
	api GET "/api/v1/namespaces/$2/pods?labelSelector=job-name%3D$1" |
		jq -r '[.items[].metadata.name] | sort | .[0] // empty'
}

pod_json() {
	api GET "/api/v1/namespaces/$2/pods/$1"
}

job_json() {
	api GET "/apis/run.ai/v1/namespaces/$2/runaijobs/$1"
}

# annotation JOB NAMESPACE KEY
annotation() {
	job_json "$1" "$2" | jq -r --arg k "$3" '.metadata.annotations[$k] // "<none>"'
}

# until_true TRIES CMD...: runs CMD (after a tick each time) until it
# succeeds, at most TRIES times 0.1 s apart.
until_true() {
	local tries=$1 i
	shift
	for ((i = 0; i < tries; i++)); do
		"$@" && return 0
		sleep 0.1
		tick
	done
	"$@"
}

# A running pod of a fresh job; prints its name.
running_pod() {
	submit "$@"
	tick 2
	local pod
	pod=$(pod_of "$1" "$2")
	[ "$(pod_json "$pod" "$2" | jq -r .status.phase)" = Running ] || return 1
	echo "$pod"
}

# --- controller and scheduler -------------------------------------------------

@test "a RunaiJob gets a pod that is bound, then Running, with the scheduler annotations" {
	need_kubectl
	runaijob train1 runai-team-a 1 | kubectl apply -f -
	tick
	local pod
	pod=$(pod_of train1 runai-team-a)
	[[ $pod =~ ^train1-[a-z0-9]{5}$ ]]
	run -0 pod_json "$pod" runai-team-a
	run -0 jq -c '[.status.phase, .spec.nodeName,
	    (.status.conditions[] | select(.type == "PodScheduled") | .status),
	    .metadata.labels.project, .metadata.labels["job-name"],
	    .metadata.labels.release, .metadata.ownerReferences[0].kind,
	    .metadata.ownerReferences[0].controller,
	    (.metadata.annotations["pod-group-name"] | startswith("pg-train1-"))]' <<<"$output"
	assert_output '["Pending","node-1","True","team-a","train1","train1","RunaiJob",true,true]'
	[ "$(annotation train1 runai-team-a runai-calculated-status)" = Pending ]

	tick
	run -0 kubectl get pod "$pod" -n runai-team-a -o wide
	assert_line --index 1 --regexp "^$pod +1/1 +Running +0 +[0-9]+s +10\.244\.[0-9]+\.[0-9]+ +node-1 "
	run -0 job_json train1 runai-team-a
	run -0 jq -c '.metadata.annotations | [."runai-calculated-status",
	    ."runai-current-allocated-gpus", ."runai-running-pods", ."runai-pending-pods",
	    ."runai-used-nodes", ."runai-podgroup-requested-gpus", .unschedulable]' <<<"$output"
	assert_output '["Running","1","1","0","node-1","1",null]'
	run -0 kubectl get events -n runai-team-a --field-selector "involvedObject.name=$pod" \
		-o jsonpath='{range .items[*]}{.reason}: {.message}{"\n"}{end}'
	assert_line "Scheduled: Successfully assigned runai-team-a/$pod to node-1"
	assert_line "Started: Started container train1"
	run -0 kubectl get events -n runai-team-a --field-selector involvedObject.name=train1 \
		-o jsonpath='{range .items[*]}{.reason}: {.message}{"\n"}{end}'
	assert_line "SuccessfulCreate: Created pod: $pod"
}

@test "two 0.5 GPU jobs share one GPU of one node" {
	submit half1 runai-team-a 0.5
	submit half2 runai-team-a 0.5
	tick 2
	local p1 p2
	p1=$(pod_of half1 runai-team-a)
	p2=$(pod_of half2 runai-team-a)
	run -0 jq -sc 'map([.status.phase, .spec.nodeName, .metadata.annotations["runai-gpu"]])' \
		< <(pod_json "$p1" runai-team-a; pod_json "$p2" runai-team-a)
	assert_output '[["Running","node-1","0"],["Running","node-1","0"]]'
	[ "$(annotation half1 runai-team-a runai-current-allocated-gpus)" = 0.5 ]
	[ "$(annotation half2 runai-team-a runai-podgroup-requested-gpus)" = 0.5 ]
	# a third half gets a GPU of its own
	submit half3 runai-team-a 0.5
	tick
	run -0 pod_json "$(pod_of half3 runai-team-a)" runai-team-a
	run -0 jq -r '.metadata.annotations["runai-gpu"]' <<<"$output"
	assert_output 1
}

@test "an interactive job over its project's quota stays Pending as unschedulable; training may go over" {
	# team-b deserves 2 GPUs
	submit inter1 runai-team-b 2 '{}' '{"priorityClassName": "build"}'
	submit inter2 runai-team-b 1 '{}' '{"priorityClassName": "build"}'
	tick 2
	[ "$(annotation inter1 runai-team-b runai-calculated-status)" = Running ]
	[ "$(annotation inter2 runai-team-b runai-calculated-status)" = Pending ]
	[ "$(annotation inter2 runai-team-b unschedulable)" = true ]
	[ "$(annotation inter2 runai-team-b runai-current-allocated-gpus)" = 0 ]
	local pod
	pod=$(pod_of inter2 runai-team-b)
	run -0 pod_json "$pod" runai-team-b
	run -0 jq -c '[.spec.nodeName, (.status.conditions[] | select(.type == "PodScheduled")
	    | [.status, .reason, (.message | test("over quota"))])]' <<<"$output"
	assert_output '[null,["False","Unschedulable",true]]'
	run -0 api GET "/api/v1/namespaces/runai-team-b/events?fieldSelector=involvedObject.name%3D$pod"
	run -0 jq -r '.items[] | select(.reason == "Unschedulable") | .type' <<<"$output"
	assert_output Warning
	# training work borrows idle GPUs over quota
	submit train-over runai-team-b 1
	tick 2
	[ "$(annotation train-over runai-team-b runai-calculated-status)" = Running ]
}

@test "a job too big for any node says why in the kube wording" {
	submit huge runai-team-d 9
	tick
	run -0 pod_json "$(pod_of huge runai-team-d)" runai-team-d
	run -0 jq -r '.status.conditions[] | select(.type == "PodScheduled") | .message' <<<"$output"
	# and, as the nodes lack GPUs, the most one of them has free
	assert_output "0/2 nodes are available: 2 Insufficient nvidia.com/gpu. Most free GPUs on one node: 8 (node-1); a pod requests 9."
	[ "$(annotation huge runai-team-d unschedulable)" = true ]
}

@test "a workload's pods are placed all together or not at all, across nodes" {
	submit pair runai-team-d 5 '{}' '{}' '{"parallelism": 2, "completions": 2}'
	submit trio runai-team-d 6 '{}' '{}' '{"parallelism": 3, "completions": 3}'
	tick 2
	[ "$(annotation pair runai-team-d runai-used-nodes)" = "node-1, node-2" ]
	[ "$(annotation pair runai-team-d runai-current-allocated-gpus)" = 10 ]
	[ "$(annotation pair runai-team-d runai-running-pods)" = 2 ]
	# two of trio's pods would fit (3 + 3 GPUs free), but not all three
	[ "$(annotation trio runai-team-d runai-pending-pods)" = 3 ]
	[ "$(annotation trio runai-team-d runai-current-allocated-gpus)" = 0 ]
	[ "$(annotation trio runai-team-d unschedulable)" = true ]
}

@test "a cordoned node gets no new pods" {
	need_kubectl
	run -0 kubectl cordon node-1
	submit elsewhere runai-team-a 1
	tick
	run -0 pod_json "$(pod_of elsewhere runai-team-a)" runai-team-a
	run -0 jq -r .spec.nodeName <<<"$output"
	assert_output node-2
	run -0 kubectl uncordon node-1
}

@test "a batch/v1 Job with the default scheduler still gets a pod that runs" {
	need_kubectl
	kubectl apply -f - <<-EOF
	{"apiVersion": "batch/v1", "kind": "Job",
	 "metadata": {"name": "plain", "namespace": "runai-team-a"},
	 "spec": {"template": {"spec": {"restartPolicy": "Never",
	   "containers": [{"name": "plain", "image": "busybox"}]}}}}
	EOF
	tick 2
	run -0 kubectl get pods -n runai-team-a -l job-name=plain -o jsonpath='{.items[0].status.phase} {.items[0].spec.schedulerName} {.items[0].metadata.labels.batch\.kubernetes\.io/job-name}'
	assert_output "Running default-scheduler plain"
	run -0 kubectl get job plain -n runai-team-a -o json
	run -0 jq -c '[.status.active, (.metadata.annotations | keys | map(select(startswith("runai"))))]' <<<"$output"
	assert_output '[1,[]]'
	run -0 kubectl delete job plain -n runai-team-a
	[ -z "$(pod_of plain runai-team-a)" ]
}

@test "a job with kube-sim/duration 1 ends Succeeded and keeps its pod" {
	submit short runai-team-a 1 '{"kube-sim/duration": "1"}'
	tick 2
	local pod
	pod=$(pod_of short runai-team-a)
	job_done() { [ "$(annotation short runai-team-a runai-calculated-status)" = Succeeded ]; }
	until_true 50 job_done
	run -0 pod_json "$pod" runai-team-a
	run -0 jq -c '[.status.phase, .status.containerStatuses[0].state.terminated.reason,
	    .status.containerStatuses[0].state.terminated.exitCode,
	    .metadata.annotations["runai-calculated-status"]]' <<<"$output"
	assert_output '["Succeeded","Completed",0,"Succeeded"]'
	run -0 job_json short runai-team-a
	run -0 jq -c '[.status.succeeded, (.status.conditions[] | select(.type == "Complete")
	    | .status), (.status.completionTime != null),
	    .metadata.annotations["runai-current-allocated-gpus"]]' <<<"$output"
	assert_output '[1,"True",true,"0"]'
}

@test "a job whose container exits 2 with backoffLimit 0 ends Failed" {
	submit crash runai-team-a 1 '{"kube-sim/duration": "0", "kube-sim/exit-code": "2"}' \
		'{}' '{"backoffLimit": 0}'
	tick 3
	run -0 pod_json "$(pod_of crash runai-team-a)" runai-team-a
	run -0 jq -c '[.status.phase, .status.containerStatuses[0].state.terminated.reason,
	    .status.containerStatuses[0].state.terminated.exitCode]' <<<"$output"
	assert_output '["Failed","Error",2]'
	[ "$(annotation crash runai-team-a runai-calculated-status)" = Failed ]
	run -0 api GET "/api/v1/namespaces/runai-team-a/pods?labelSelector=job-name%3Dcrash"
	[ "$(jq '.items | length' <<<"$output")" -eq 1 ]
}

@test "suspending a RunaiJob deletes its pods; resuming brings a new one" {
	submit pausable runai-team-c 1
	tick 2
	local first
	first=$(pod_of pausable runai-team-c)
	merge_patch /apis/run.ai/v1/namespaces/runai-team-c/runaijobs/pausable \
		'{"spec": {"suspend": true}}'
	tick
	[ -z "$(pod_of pausable runai-team-c)" ]
	[ "$(annotation pausable runai-team-c runai-calculated-status)" = Suspended ]
	run -0 job_json pausable runai-team-c
	run -0 jq -r '.status.conditions[] | select(.type == "Suspended") | .status' <<<"$output"
	assert_output True
	merge_patch /apis/run.ai/v1/namespaces/runai-team-c/runaijobs/pausable \
		'{"spec": {"suspend": false}}'
	tick 2
	local second
	second=$(pod_of pausable runai-team-c)
	[ -n "$second" ] && [ "$second" != "$first" ]
	[ "$(annotation pausable runai-team-c runai-calculated-status)" = Running ]
}

@test "deleting a workload removes its pods and frees its GPUs for a waiting job" {
	need_kubectl
	submit full-1 runai-team-d 8
	submit full-2 runai-team-d 8
	tick
	submit waiter runai-team-d 8
	tick
	[ "$(annotation waiter runai-team-d unschedulable)" = true ]
	local gone
	gone=$(pod_of full-1 runai-team-d)
	run -0 kubectl delete runaijob full-1 -n runai-team-d
	run -1 kubectl get pod "$gone" -n runai-team-d
	assert_output --partial "\"$gone\" not found"
	tick
	run -0 pod_json "$(pod_of waiter runai-team-d)" runai-team-d
	run -0 jq -r '.spec.nodeName' <<<"$output"
	assert_output node-1
	[ "$(annotation waiter runai-team-d unschedulable)" = "<none>" ]
	tick
	[ "$(annotation waiter runai-team-d runai-calculated-status)" = Running ]
}

@test "/_sim/phase forces a pod's phase and a held Pending pod stays put" {
	local pod
	pod=$(running_pod forced runai-team-a 1)
	run -0 sim POST /_sim/phase "{\"namespace\": \"runai-team-a\", \"pod\": \"$pod\",
	    \"phase\": \"Pending\"}"
	tick 3
	run -0 pod_json "$pod" runai-team-a
	run -0 jq -c '[.status.phase, .spec.nodeName]' <<<"$output"
	assert_output '["Pending",null]'
	run -0 sim POST /_sim/phase '{"namespace": "runai-team-a", "workload": "forced",
	    "phase": "Failed", "exit_code": 9}'
	run -0 jq -c '.items[0].status.containerStatuses[0].state.terminated.exitCode' <<<"$output"
	assert_output 9
	[ "$(annotation forced runai-team-a runai-calculated-status)" = Failed ]
	run ! sim POST /_sim/phase '{"namespace": "runai-team-a", "pod": "nope", "phase": "Running"}'
	assert_output --partial '"reason":"NotFound"'
}

# --- logs ---------------------------------------------------------------------

@test "kubectl logs shows appended lines, with --tail and --timestamps" {
	need_kubectl
	local pod
	pod=$(running_pod logjob runai-team-a 1)
	sim POST /_sim/logs "{\"namespace\": \"runai-team-a\", \"pod\": \"$pod\",
	    \"lines\": [\"epoch 1\", \"epoch 2\", \"epoch 3\"]}" >/dev/null
	run -0 kubectl logs "$pod" -n runai-team-a
	assert_line --index 0 "step 1: loss=1.900"
	assert_line --index 1 "epoch 1"
	assert_line --index 3 "epoch 3"
	run -0 kubectl logs "$pod" -n runai-team-a --tail=2 --timestamps
	[ "${#lines[@]}" -eq 2 ]
	assert_line --index 0 --regexp '^20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{9}Z epoch 2$'
	assert_line --index 1 --regexp '^[-0-9T:.]{29}Z epoch 3$'
	run -0 kubectl logs "$pod" -n runai-team-a --limit-bytes=4
	assert_output "step"
	run -1 kubectl logs "$pod" -n runai-team-a --previous
	assert_output --partial "previous terminated container \"logjob\" in pod \"$pod\" not found"
	run -1 kubectl logs "$pod" -n runai-team-a -c nope
	assert_output --partial "container nope is not valid for pod $pod"
}

@test "kubectl logs on a pod that waits for its container is a BadRequest" {
	need_kubectl
	submit slowstart runai-team-a 1
	tick
	local pod
	pod=$(pod_of slowstart runai-team-a)
	run -1 kubectl logs "$pod" -n runai-team-a
	assert_output "Error from server (BadRequest): container \"slowstart\" in pod \"$pod\" is waiting to start: ContainerCreating"
}

@test "kubectl logs -f streams lines appended while following and exits 0 when the pod ends" {
	need_kubectl
	local pod out="$BATS_TEST_TMPDIR/follow.out"
	pod=$(running_pod follow runai-team-a 1)
	sim POST /_sim/logs "{\"namespace\": \"runai-team-a\", \"pod\": \"$pod\",
	    \"lines\": [\"before\"]}" >/dev/null
	"$KUBECTL_132" logs -f "$pod" -n runai-team-a >"$out" 2>&1 3>&- &
	local kpid=$!
	has_line() { grep -qx "$1" "$out"; }
	until_line() {
		local i
		for ((i = 0; i < 100; i++)); do has_line "$1" && return 0; sleep 0.1; done
		cat "$out" >&2
		return 1
	}
	until_line before
	sim POST /_sim/logs "{\"namespace\": \"runai-team-a\", \"pod\": \"$pod\",
	    \"lines\": [\"while following\"]}" >/dev/null
	until_line "while following"
	kill -0 "$kpid"   # still following
	sim POST /_sim/phase "{\"namespace\": \"runai-team-a\", \"pod\": \"$pod\",
	    \"phase\": \"Succeeded\"}" >/dev/null
	local i
	for ((i = 0; i < 100; i++)); do kill -0 "$kpid" 2>/dev/null || break; sleep 0.1; done
	run wait "$kpid"
	[ "$status" -eq 0 ]
	run cat "$out"
	assert_line --index 0 "step 1: loss=1.900"
	assert_line "while following"
}

# --- exec and attach ----------------------------------------------------------

@test "kubectl exec passes stdout, stderr and the remote exit code" {
	need_kubectl
	local pod
	pod=$(running_pod execjob runai-team-a 1)
	run -3 --separate-stderr kubectl exec "$pod" -n runai-team-a -- \
		sh -c 'echo to-out; echo to-err >&2; echo $TEAM_VAR $HOSTNAME; exit 3'
	assert_output "to-out
blue $pod"
	[ "$stderr" = "to-err
command terminated with exit code 3" ]
	run -0 kubectl exec "$pod" -n runai-team-a -- true
	run -0 bash -c "printf 'piped\n' | '$KUBECTL_132' exec -i '$pod' -n runai-team-a -- cat"
	assert_output piped
	run -1 kubectl exec "$pod" -n runai-team-a -- no-such-tool
	assert_output --partial 'exec: "no-such-tool": executable file not found in $PATH'
}

@test "kubectl exec -it through script echoes typed input and runs in the pod's home" {
	need_kubectl
	local pod
	pod=$(running_pod shell runai-team-a 1)
	run -0 bash -c "(sleep 1; printf 'echo hello-\$((6*7))\r'; sleep 0.5; printf 'pwd\r';
	    sleep 0.5; printf 'exit 0\r'; sleep 1) |
	    script -q -e -c \"'$KUBECTL_132' exec -it '$pod' -n runai-team-a -- sh\" /dev/null |
	    tr -d '\r'"
	assert_line --partial 'echo hello-$((6*7))'
	assert_line hello-42
	assert_line /root # the sandbox's home of the pod's root user (t0930)
}

@test "kubectl attach reaches the pod's console, which outlives the session" {
	need_kubectl
	local pod fifo="$BATS_TEST_TMPDIR/stdin" out="$BATS_TEST_TMPDIR/attach.out"
	pod=$(running_pod console runai-team-a 1)
	# first session: no tty; it is killed, so the shell never reads an EOF
	mkfifo "$fifo"
	"$KUBECTL_132" attach -i "$pod" -n runai-team-a <"$fifo" >"$out" 2>&1 3>&- &
	local kpid=$!
	exec 5>"$fifo"
	printf 'export MARK=kept; echo marked-$((1+1))\n' >&5
	local i
	for ((i = 0; i < 100; i++)); do grep -q '^marked-2' "$out" && break; sleep 0.1; done
	kill "$kpid"
	wait "$kpid" || true
	exec 5>&-
	grep -q '^marked-2' "$out"
	# second session, with a tty: the same shell, so the variable is still set
	run -0 bash -c "(sleep 1; printf 'echo mark=\$MARK\r'; sleep 1) |
	    timeout 20 script -q -e -c \"'$KUBECTL_132' attach -it '$pod' -n runai-team-a\" /dev/null |
	    tr -d '\r'"
	assert_line "If you don't see a command prompt, try pressing enter."
	assert_line mark=kept
	# what the console printed is the pod's log
	run -0 kubectl logs "$pod" -n runai-team-a
	assert_line marked-2
	assert_line mark=kept
}

@test "kubectl exec to a Pending pod fails clearly" {
	need_kubectl
	submit waiting runai-team-d 9
	tick
	local pod
	pod=$(pod_of waiting runai-team-d)
	run -1 kubectl exec "$pod" -n runai-team-d -- true
	assert_output "Error from server (BadRequest): pod $pod does not have a host assigned"
	# bound but not started yet: the kubelet's answer
	submit starting runai-team-d 1
	tick
	pod=$(pod_of starting runai-team-d)
	run -1 kubectl exec "$pod" -n runai-team-d -- true
	assert_output --partial "container not found (\"starting\")"
}

@test "the exec endpoint negotiates the channel subprotocol and wants an upgrade" {
	local pod path
	pod=$(running_pod proto runai-team-a 1)
	path="/api/v1/namespaces/runai-team-a/pods/$pod/exec?command=true&stdout=true"
	ws() {
		curl -sS -i --http1.1 --max-time 5 --cacert "$KUBESIM_CA" \
			-H "Authorization: Bearer $KUBESIM_TOKEN" -H 'Connection: Upgrade' \
			-H 'Upgrade: websocket' -H 'Sec-WebSocket-Version: 13' \
			-H 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==' "$@" "$KUBESIM_URL$path"
	}
	run ws -H 'Sec-WebSocket-Protocol: v4.channel.k8s.io, v5.channel.k8s.io'
	assert_line --index 0 --partial '101 Switching Protocols'
	assert_line --partial 'Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo='
	assert_line --partial 'Sec-WebSocket-Protocol: v5.channel.k8s.io'
	run ws -H 'Sec-WebSocket-Protocol: v4.channel.k8s.io'
	assert_line --partial 'Sec-WebSocket-Protocol: v4.channel.k8s.io'
	run -0 ws -H 'Sec-WebSocket-Protocol: v9.channel.k8s.io'
	assert_line --index 0 --partial ' 403 '
	assert_output --partial 'requested protocol(s) are not supported'
	run -0 curl -sS --cacert "$KUBESIM_CA" -H "Authorization: Bearer $KUBESIM_TOKEN" \
		-X POST "$KUBESIM_URL$path"
	run -0 jq -c '[.code, .reason, .message]' <<<"$output"
	assert_output '[400,"BadRequest","Upgrade request required"]'
}
