#!/usr/bin/env bats
# kubectl 1.32's daily battery against the emulator, command by command:
# api-resources, get, patch (json and merge), run, logs, exec, wait, diff,
# label, describe, cascade delete, events, and the four that need more of
# a server than CRUD: apply --server-side (managedFields, conflicts,
# --force-conflicts), auth can-i (SelfSubjectAccessReview, sent as
# protobuf; --list: SelfSubjectRulesReview), explain (OpenAPI v3 schemas)
# and top (metrics.k8s.io). Then the same kinds of calls from the official
# Python client (Debian's python3-kubernetes). Skips without kubectl 1.32.

load lib/common

NS=runai-team-a

setup_file() {
	kubesim_start_sandboxed
}

teardown_file() {
	kubesim_stop
}

setup() {
	sim_test_setup "$NS"
	have_kubectl_132 || skip "kubectl 1.32 not installed at $KUBECTL_132"
}

kubectl() {
	"$KUBECTL_132" "$@"
}

# running POD: waits (10 s at most) until the pod runs.
running() {
	kubectl wait --for=jsonpath='{.status.phase}'=Running "pod/$1" --timeout=10s >/dev/null
}

cm_yaml() { # NAME KEY=VALUE...
	local name=$1
	shift
	printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\ndata:\n' "$name"
	local kv
	for kv in "$@"; do
		printf '  %s: "%s"\n' "${kv%%=*}" "${kv#*=}"
	done
}

@test "api-resources lists the review, metrics and core kinds" {
	run -0 kubectl api-resources
	assert_line --regexp '^pods +po +v1 +true +Pod$'
	assert_line --regexp '^selfsubjectrulesreviews +authorization\.k8s\.io/v1 +false +SelfSubjectRulesReview$'
	assert_line --regexp '^nodes +metrics\.k8s\.io/v1beta1 +false +NodeMetrics$'
}

@test "run, wait, get, logs, exec, label, describe, events: a pod's day" {
	run -0 kubectl run bat1 --image=busybox --restart=Never -- sh -c 'echo ready; sleep 600'
	running bat1
	run -0 kubectl get pod bat1
	assert_line --index 1 --regexp '^bat1 +1/1 +Running +0 +'
	run -0 kubectl logs bat1
	assert_output ready
	run -0 kubectl exec bat1 -- sh -c 'echo in-$HOSTNAME'
	assert_output in-bat1
	run -0 kubectl label pod bat1 tier=batch
	run -0 kubectl get pods -l tier=batch -o name
	assert_output pod/bat1
	run -0 kubectl describe pod bat1
	assert_line --regexp '^Labels: +run=bat1$'
	assert_line --regexp '^Status: +Running$'
	run -0 kubectl events --for pod/bat1
	assert_output --partial 'Scheduled'
}

@test "patch with a JSON patch and a merge patch; diff shows what apply would change" {
	run -0 kubectl create configmap p1 --from-literal=a=1
	run -0 kubectl patch configmap p1 --type=json -p '[{"op": "add", "path": "/data/b", "value": "2"}]'
	run -0 kubectl patch configmap p1 --type=merge -p '{"data": {"a": "10"}}'
	run -0 kubectl get configmap p1 -o jsonpath='{.data.a},{.data.b}'
	assert_output 10,2
	cm_yaml p1 a=11 b=2 >"$BATS_TEST_TMPDIR/p1.yaml"
	run -1 kubectl diff -f "$BATS_TEST_TMPDIR/p1.yaml"
	assert_line --regexp '^-  a: "10"$'
	assert_line --regexp '^\+  a: "11"$'
}

@test "apply --server-side creates, records its manager, and conflicts with another" {
	cm_yaml ssa1 a=1 b=2 >"$BATS_TEST_TMPDIR/a.yaml"
	run -0 kubectl apply --server-side -f "$BATS_TEST_TMPDIR/a.yaml"
	assert_output 'configmap/ssa1 serverside-applied'
	run -0 kubectl get configmap ssa1 -o json --show-managed-fields
	run -0 jq -c '.metadata.managedFields | map([.manager, .operation, (.fieldsV1["f:data"] | keys)])' <<<"$output"
	assert_output '[["kubectl","Apply",["f:a","f:b"]]]'
	# another manager that sets a to something else conflicts...
	cm_yaml ssa1 a=9 >"$BATS_TEST_TMPDIR/b.yaml"
	run -1 kubectl apply --server-side --field-manager=ops -f "$BATS_TEST_TMPDIR/b.yaml"
	assert_output --partial 'Apply failed with 1 conflict: conflict with "kubectl": .data.a'
	run -0 kubectl get configmap ssa1 -o jsonpath='{.data.a}'
	assert_output 1
	# ...until it forces: a moves to it
	run -0 kubectl apply --server-side --field-manager=ops --force-conflicts -f "$BATS_TEST_TMPDIR/b.yaml"
	run -0 kubectl get configmap ssa1 -o json --show-managed-fields
	run -0 jq -c '[.data, (.metadata.managedFields | map([.manager, (.fieldsV1["f:data"] | keys)]))]' <<<"$output"
	assert_output '[{"a":"9","b":"2"},[["kubectl",["f:b"]],["ops",["f:a"]]]]'
	# a field its manager no longer applies is removed
	cm_yaml ssa1 a=1 >"$BATS_TEST_TMPDIR/c.yaml"
	run -1 kubectl apply --server-side -f "$BATS_TEST_TMPDIR/c.yaml"
	cm_yaml ssa1 >"$BATS_TEST_TMPDIR/d.yaml"
	printf '  c: "3"\n' >>"$BATS_TEST_TMPDIR/d.yaml"
	run -0 kubectl apply --server-side -f "$BATS_TEST_TMPDIR/d.yaml"
	run -0 kubectl get configmap ssa1 -o jsonpath='{.data}'
	assert_output '{"a":"9","c":"3"}'
	# the request was the apply patch kubectl sends
	run -0 jq -sc '[.[] | select(.method == "PATCH" and .path == "/api/v1/namespaces/runai-team-a/configmaps/ssa1") | .headers["content-type"]] | unique' "$KUBESIM_DIR/requests.jsonl"
	assert_output '["application/apply-patch+yaml"]'
}

@test "auth can-i answers for the admin and for a researcher, also --list" {
	run -0 kubectl auth can-i create pods
	assert_output yes
	sim POST /_sim/users '{"user": "rita", "token": "t-rita-8100"}' >/dev/null
	sed -i 's/^\( *token:\).*/\1 t-rita-8100/' "$KUBECONFIG"
	run -0 kubectl auth can-i create pods -n runai-team-a
	assert_output yes
	run -1 kubectl auth can-i create pods -n default
	assert_output no
	run -0 kubectl auth can-i list nodes
	run -1 kubectl auth can-i delete nodes
	# kubectl sent its review as protobuf
	run -0 jq -sc '[.[] | select(.path == "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews") | .headers["content-type"]] | unique' "$KUBESIM_DIR/requests.jsonl"
	assert_output '["application/vnd.kubernetes.protobuf"]'
	run -0 kubectl auth can-i --list -n default
	assert_line --regexp '^\*\.\* +\[\] +\[\] +\[get list watch\]$'
	run -0 kubectl auth can-i --list -n runai-team-a
	assert_line --regexp '^\*\.\* +\[\] +\[\] +\[\*\]$'
}

@test "explain walks the pod's fields down to a volume's source" {
	run -0 kubectl explain pods.spec.containers
	assert_line --regexp '^FIELD: +containers <\[\]Container>$'
	assert_line --regexp '^  volumeMounts	<\[\]VolumeMount>$'
	run -0 kubectl explain pods.spec.volumes.persistentVolumeClaim.claimName
	assert_line --regexp '^FIELD: +claimName <string>$'
	run -0 kubectl explain services.spec.ports
	assert_line --regexp '^  nodePort	<integer>$'
	run -1 kubectl explain pods.spec.nosuchfield
	assert_output --partial 'field "nosuchfield" does not exist'
}

@test "top nodes and top pods read metrics.k8s.io, which follows the pods" {
	run -0 kubectl top nodes
	assert_line --index 0 --regexp '^NAME +CPU\(cores\) +CPU\(%\) +MEMORY\(bytes\) +MEMORY\(%\) *$'
	assert_line --regexp '^node-1 +[0-9]+m +[0-9]+% +[0-9]+Mi +[0-9]+% *$'
	run -0 kubectl run top1 --image=busybox --restart=Never -- sleep 600
	running top1
	run -0 kubectl top pod top1
	assert_line --index 1 --regexp '^top1 +[1-9][0-9]*m +[1-9][0-9]*Mi *$'
	run -0 kubectl get --raw /apis/metrics.k8s.io/v1beta1/namespaces/runai-team-a/pods/top1
	run -0 jq -c '[.kind, .containers[0].name, (.containers[0].usage | keys)]' <<<"$output"
	assert_output '["PodMetrics","top1",["cpu","memory"]]'
	run -1 kubectl top pod nosuchpod
}

@test "delete cascades from a Job to its pods" {
	run -0 kubectl create -f - <<-'EOF'
	{"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "casc1"},
	 "spec": {"template": {"spec": {"restartPolicy": "Never",
	   "containers": [{"name": "c", "image": "busybox", "command": ["sleep", "600"]}]}}}}
	EOF
	local _
	for _ in $(seq 1 $((50 * TIME_SCALE))); do
		[ -n "$(kubectl get pods -l job-name=casc1 -o name)" ] && break
		sleep 0.2
	done
	run -0 kubectl get pods -l job-name=casc1 -o name
	assert_output --regexp '^pod/casc1-'
	run -0 kubectl delete job casc1 --cascade=foreground
	for _ in $(seq 1 $((50 * TIME_SCALE))); do
		[ -z "$(kubectl get pods -l job-name=casc1 -o name)" ] && break
		sleep 0.2
	done
	run -0 kubectl get pods -l job-name=casc1 -o name
	assert_output ''
}

@test "the official Python client: list, create, server-side apply, access review, metrics" {
	"$PYTHON" -c 'import kubernetes' 2>/dev/null || skip "python3-kubernetes not installed"
	run -0 "$PYTHON" - <<-'EOF'
	import json
	from kubernetes import client, config
	config.load_kube_config()
	core = client.CoreV1Api()
	print("nodes", ",".join(n.metadata.name for n in core.list_node().items))
	core.create_namespaced_config_map("runai-team-a", client.V1ConfigMap(
	    metadata=client.V1ObjectMeta(name="py1"), data={"k": "v"}))
	print("cm", core.read_namespaced_config_map("py1", "runai-team-a").data)
	api = client.ApiClient()
	# an applied configuration is YAML, of which JSON text is a part
	body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "py2"},
	                   "data": {"x": "1"}})
	out = api.call_api("/api/v1/namespaces/{ns}/configmaps/{name}", "PATCH",
	                   path_params={"ns": "runai-team-a", "name": "py2"},
	                   query_params=[("fieldManager", "pyclient")], body=body,
	                   header_params={"Content-Type": "application/apply-patch+yaml"},
	                   auth_settings=["BearerToken"], response_type="object",
	                   _return_http_data_only=True)
	print("ssa", [m["manager"] for m in out["metadata"]["managedFields"]])
	review = client.AuthorizationV1Api().create_self_subject_access_review(
	    client.V1SelfSubjectAccessReview(spec=client.V1SelfSubjectAccessReviewSpec(
	        resource_attributes=client.V1ResourceAttributes(verb="delete", resource="nodes"))))
	print("allowed", review.status.allowed)
	m = client.CustomObjectsApi().get_cluster_custom_object("metrics.k8s.io", "v1beta1",
	                                                        "nodes", "node-2")
	print("metrics", m["metadata"]["name"], sorted(m["usage"]))
	EOF
	assert_line 'nodes node-1,node-2'
	assert_line "cm {'k': 'v'}"
	assert_line "ssa ['pyclient']"
	assert_line 'allowed True'
	assert_line "metrics node-2 ['cpu', 'memory']"
}
