#!/usr/bin/env bats
# runai top node / top job against the emulator's Prometheus, reached
# through the API server's service proxy, with explicit metric values so
# every cell is known.

load lib/common

PROXY=/api/v1/namespaces/monitoring/services/http:kube-prometheus-stack-prometheus:9090/proxy

setup_file() {
	kubesim_start --demo
	sim POST /_sim/controller '{"paused": true}' >/dev/null
	sim POST /_sim/seed "$(cat "$BATS_TEST_DIRNAME/../fixtures/prom/prom-service.json")" >/dev/null
	sim POST /_sim/metrics "$(cat "$BATS_TEST_DIRNAME/../fixtures/prom/node-metrics.json")" >/dev/null
	# GPU 0 of node-1 was last busy two hours ago
	sim POST /_sim/metrics "{\"metric\": \"runai_node_gpu_last_not_idle_time\",
		\"labels\": {\"node\": \"node-1\", \"gpu\": \"0\"},
		\"value\": $(($(date +%s) - 7200))}" >/dev/null
	seed_running_job
}

teardown_file() {
	kubesim_stop
}

setup() {
	isolate_env
	use_sim_kubeconfig
	sed -i "s/namespace: .*/namespace: runai-team-a/" "$KUBECONFIG"
}

# A running RunaiJob (uid known, started three hours ago) and its pod on
# node-1, as the demo profile builds them, plus its workload metrics.
seed_running_job() {
	local uid=6b1f3c2e-0d4a-4e59-9a51-2f7c1d0b9e11
	PYTHONPATH="$TOP/contrib/kube-sim" "$PYTHON" - "$uid" >"$BATS_FILE_TMPDIR/job.json" <<'PY'
import json, sys, time
from kubesim import demo
job = demo.runaijob("train-a", "runai-team-a", user="alice", gpus=2)
job["metadata"]["uid"] = sys.argv[1]
job["metadata"]["creationTimestamp"] = time.strftime(
    "%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 3 * 3600 - 30))
pod = demo.running_pod(job, "node-1", "10.244.1.7")
pod["spec"]["containers"][0]["resources"]["requests"] = {"cpu": "4", "memory": "16Gi"}
print(json.dumps({"kind": "List", "items": [job, pod]}))
PY
	sim POST /_sim/seed "$(cat "$BATS_FILE_TMPDIR/job.json")" >/dev/null
	sim POST /_sim/metrics "[
	  {\"metric\": \"runai_pod_group_gpu_utilization\", \"labels\": {\"pod_group_uuid\": \"$uid\"}, \"value\": 87.5},
	  {\"metric\": \"runai_pod_group_gpu_memory_allocated_bytes\", \"labels\": {\"pod_group_uuid\": \"$uid\"}, \"value\": 171798691840},
	  {\"metric\": \"runai_pod_group_gpu_memory_used_bytes\", \"labels\": {\"pod_group_uuid\": \"$uid\"}, \"value\": 64424509440},
	  {\"metric\": \"runai_active_job_cpu_requested_cores\", \"labels\": {\"pod_group_uuid\": \"$uid\"}, \"value\": 4},
	  {\"metric\": \"runai_pod_group_cpu_usage_cores\", \"labels\": {\"pod_group_uuid\": \"$uid\"}, \"value\": 2.25},
	  {\"metric\": \"runai_active_job_memory_requested_bytes\", \"labels\": {\"pod_group_uuid\": \"$uid\"}, \"value\": 17179869184},
	  {\"metric\": \"runai_pod_group_memory_used_bytes\", \"labels\": {\"pod_group_uuid\": \"$uid\"}, \"value\": 6442450944}
	]" >/dev/null
}

NODE_TABLE='                │ CPU                    │ MEMORY                    │ GPU
NAME    STATUS  │ CAPACITY  UTILIZATION  │ CAPACITY  USAGE           │ CAPACITY  UTILIZATION
node-1  Ready   │ 64.00     12.5%        │ 512 GiB   64 GiB (12.5%)  │ 8         75.0%
node-2  Ready   │ 64.00     3.0%         │ 512 GiB   -               │ 8         -'

@test "top node prints capacity beside the metrics" {
	run -0 --separate-stderr runai top node
	assert_output "$NODE_TABLE"
	[ -z "$stderr" ]
}

@test "top node queries Prometheus through the service proxy" {
	mark_requests
	run -0 runai top node
	assert_request GET /api/v1/namespaces/monitoring/services \
		'.query.labelSelector == ["app=kube-prometheus-stack-prometheus"]'
	local m
	for m in runai_node_cpu_utilization runai_node_memory_used_bytes \
	    runai_node_gpu_utilization runai_node_gpu_used_memory \
	    runai_node_gpu_total_memory runai_node_gpu_last_not_idle_time; do
		assert_request GET "$PROXY/api/v1/query" \
			".query.query == [\"$m\"] and (.query.time[0] | test(\"^[0-9]+$\"))"
	done
	[ "$(count_requests GET "$PROXY/api/v1/query")" -eq 6 ]
}

@test "top node NODE -d prints a block and a row per GPU" {
	run -0 --separate-stderr runai top node node-1 -d
	assert_output 'NAME:              node-1
STATUS:            Ready
CPU CAPACITY:      64.00
CPU UTILIZATION:   12.5%
MEMORY CAPACITY:   512 GiB
MEMORY USAGE:      64 GiB (12.5%)
GPU CAPACITY:      8
GPU UTILIZATION:   75.0%

NODE GPUs INFO:
GPU  UTILIZATION  MEMORY  MEMORY USAGE    IDLE TIME
0    100.0%       80 GiB  40 GiB (50.0%)  2h
1    50.0%        80 GiB  20 GiB (25.0%)  -
2    -            -       -               -
3    -            -       -               -
4    -            -       -               -
5    -            -       -               -
6    -            -       -               -
7    -            -       -               -'
	[ -z "$stderr" ]
}

@test "top node -d: a GPU last busy after our clock reads (the exporter's ahead) is idle 0s" {
	local gpu1='"labels": {"node": "node-1", "gpu": "1"}'
	sim POST /_sim/metrics "{\"metric\": \"runai_node_gpu_last_not_idle_time\", $gpu1,
		\"value\": $(($(date +%s) + 120))}" >/dev/null
	run -0 --separate-stderr runai top node node-1 -d
	# (unknown again, as the other tests expect)
	sim POST /_sim/metrics "{\"metric\": \"runai_node_gpu_last_not_idle_time\", $gpu1, \"value\": 0}" >/dev/null
	assert_line --regexp '^1 +50\.0% +80 GiB +20 GiB \(25\.0%\) +0s$'
	refute_output --partial "<invalid>"
}

@test "top node with an unknown name fails and lists the nodes" {
	run -1 --separate-stderr runai top node nope
	[ -z "$output" ]
	assert_equal "$stderr" "runai: error: No match found for node(s) '[nope]'
hint: nodes in the cluster: node-1, node-2"
}

@test "top node: a failing query warns and still prints what is known" {
	sim POST /_sim/faults "{\"path_prefix\": \"$PROXY\", \"status\": 503, \"count\": 1}" >/dev/null
	RUNAI_MAX_RETRIES=0 run -0 --separate-stderr runai top node
	assert_output "$(sed 's/12\.5%      /-          /; s/3\.0%       /-          /' <<<"$NODE_TABLE")"
	assert_equal "$stderr" "Some metrics will not show, please contact customer support and attach the following error: the server is currently unable to handle the request"
}

@test "top node: a 503 that goes away is retried" {
	sim POST /_sim/faults "{\"path_prefix\": \"$PROXY\", \"status\": 503, \"count\": 1}" >/dev/null
	run -0 --separate-stderr runai top node
	assert_output "$NODE_TABLE"
	[ -z "$stderr" ]
}

@test "top job shows the running job with its metrics" {
	run -0 --separate-stderr runai top job
	assert_output '                                                  │ GPU               │ GPU MEMORY          │ CPU               │ CPU MEMORY
NAME     PROJECT  USER   TYPE   DURATION  NODE    │ Allocated  Util   │ Allocated   Usage   │ Allocated  Usage  │ Allocated   Usage
train-a  team-a   alice  Train  3h        node-1  │ 2          87.5%  │ 160 GiB     60 GiB  │ 4.00       2.25   │ 16 GiB      6 GiB'
	[ -z "$stderr" ]
}

@test "top job: other projects only with -A" {
	sed -i "s/namespace: .*/namespace: runai-team-b/" "$KUBECONFIG"
	run -0 runai top job
	assert_output "No running jobs found"
	run -0 runai top job -A
	assert_line --regexp '^train-a  team-a  '
}

@test "top job queries the workload metrics" {
	mark_requests
	run -0 runai top job
	local m
	for m in runai_pod_group_gpu_utilization runai_pod_group_gpu_memory_allocated_bytes \
	    runai_pod_group_gpu_memory_used_bytes runai_active_job_cpu_requested_cores \
	    runai_pod_group_cpu_usage_cores runai_active_job_memory_requested_bytes \
	    runai_pod_group_memory_used_bytes; do
		assert_request GET "$PROXY/api/v1/query" ".query.query == [\"$m\"]"
	done
}

@test "the emulated Prometheus answers queries like Prometheus" {
	run -0 curl -sS --cacert "$KUBESIM_CA" -H "Authorization: Bearer $KUBESIM_TOKEN" \
		"$KUBESIM_URL$PROXY/api/v1/query?query=runai_node_gpu_utilization%7Bgpu%3D%221%22%7D&time=1700000000"
	assert_output '{"status":"success","data":{"resultType":"vector","result":[{"metric":{"__name__":"runai_node_gpu_utilization","node":"node-1","gpu":"1"},"value":[1700000000.0,"50"]}]}}'
	run -0 curl -sS --cacert "$KUBESIM_CA" -H "Authorization: Bearer $KUBESIM_TOKEN" \
		"$KUBESIM_URL$PROXY/api/v1/query?query=rate(x%5B5m%5D)"
	run -0 jq -r '.status + " " + .errorType' <<<"$output"
	assert_output "error bad_data"
}

# Last: it removes the Service.
@test "top node and top job without Prometheus fail in one line" {
	curl -sS --fail --cacert "$KUBESIM_CA" -H "Authorization: Bearer $KUBESIM_TOKEN" -X DELETE \
		"$KUBESIM_URL/api/v1/namespaces/monitoring/services/kube-prometheus-stack-prometheus" >/dev/null
	local want="runai: error: Prometheus was not found: no kube-prometheus-stack Service (app=kube-prometheus-stack-prometheus) in namespace monitoring"
	run -1 --separate-stderr runai top node
	[ -z "$output" ]
	assert_equal "$stderr" "$want"
	run -1 --separate-stderr runai top job
	assert_equal "$stderr" "$want"
}
