#!/usr/bin/env bats
# Fidelity of the emulator: the real kubectl 1.32 against kube-sim. If
# kubectl accepts what kube-sim answers (discovery, Tables, watch, Status
# errors, auth), the C client is tested against something API-shaped.
# Skips where kubectl 1.32 is not installed.

load lib/common

setup_file() {
	kubesim_start --demo
	# keep the runtime (when present) from touching the seeded pods
	sim POST /_sim/controller '{"paused": true}' >/dev/null 2>&1 || true
	sim POST /_sim/seed '{"apiVersion": "v1", "kind": "List", "items": [
	 {"apiVersion": "v1", "kind": "Pod",
	  "metadata": {"name": "fid-run", "namespace": "runai-team-a", "labels": {"app": "fid"}},
	  "spec": {"nodeName": "node-1", "containers": [{"name": "main", "image": "busybox"}]},
	  "status": {"phase": "Running", "podIP": "10.244.0.7",
	    "containerStatuses": [{"name": "main", "ready": true, "restartCount": 2,
	                           "state": {"running": {}}}]}},
	 {"apiVersion": "v1", "kind": "Pod",
	  "metadata": {"name": "fid-wait", "namespace": "runai-team-b"},
	  "spec": {"containers": [{"name": "main", "image": "busybox"}]},
	  "status": {"phase": "Pending"}}]}' >/dev/null
}

teardown_file() {
	kubesim_stop
}

setup() {
	isolate_env
	have_kubectl_132 || skip "kubectl 1.32 not installed at $KUBECTL_132"
	use_sim_kubeconfig
}

teardown() {
	sim DELETE /_sim/faults >/dev/null || true
}

# kubectl 1.32 itself, never the version dispatcher; the per-test
# KUBECACHEDIR from isolate_env keeps discovery caches apart.
kubectl() {
	"$KUBECTL_132" "$@"
}

AGE='[0-9]+[smhd]'

@test "get nodes prints the Table columns and both nodes" {
	run -0 kubectl get nodes
	assert_line --index 0 --regexp '^NAME +STATUS +ROLES +AGE +VERSION$'
	assert_line --index 1 --regexp "^node-1 +Ready +runai-gpu-worker +$AGE +v1\.32\.5$"
	assert_line --index 2 --regexp "^node-2 +Ready +runai-gpu-worker +$AGE +v1\.32\.5$"
	[ "${#lines[@]}" -eq 3 ]
}

@test "get nodes -o wide adds the priority-1 columns" {
	run -0 kubectl get nodes -o wide
	assert_line --index 0 --regexp '^NAME +STATUS +ROLES +AGE +VERSION +INTERNAL-IP +EXTERNAL-IP +OS-IMAGE +KERNEL-VERSION +CONTAINER-RUNTIME$'
	assert_line --index 2 --regexp '^node-2 .* 10\.0\.0\.12 +<none> +'
}

@test "get pods -A has the namespace column from the row objects" {
	run -0 kubectl get pods -A
	assert_line --index 0 --regexp '^NAMESPACE +NAME +READY +STATUS +RESTARTS +AGE$'
	assert_line --index 1 --regexp "^runai-team-a +fid-run +1/1 +Running +2 +$AGE$"
	assert_line --index 2 --regexp "^runai-team-b +fid-wait +0/1 +Pending +0 +$AGE$"
	[ "${#lines[@]}" -eq 3 ]
}

@test "get pods -o wide shows IP and node" {
	run -0 kubectl get pods -n runai-team-a -o wide
	assert_line --index 0 --regexp '^NAME +READY +STATUS +RESTARTS +AGE +IP +NODE +NOMINATED NODE +READINESS GATES$'
	assert_line --index 1 --regexp "^fid-run +1/1 +Running +2 +$AGE +10\.244\.0\.7 +node-1 +<none> +<none>$"
}

@test "get projects.run.ai and its short name rp show deserved GPUs" {
	run -0 kubectl get projects.run.ai
	assert_line --index 0 --regexp '^NAME +DESERVED GPUS +DEPARTMENT +AGE$'
	assert_line --index 1 --regexp "^team-a +4 +default +$AGE$"
	assert_line --index 4 --regexp "^team-d +8 +default +$AGE$"
	[ "${#lines[@]}" -eq 5 ]
	# same table by short name; AGE may tick between the two calls
	local table
	table=$(sed -E 's/ +[0-9]+[smhd]$//' <<<"$output")
	run -0 kubectl get rp
	run -0 sed -E 's/ +[0-9]+[smhd]$//' <<<"$output"
	assert_output "$table"
}

@test "get nodes -o json is a list of the two Node objects" {
	run -0 kubectl get nodes -o json
	run -0 jq -c '[.kind, (.items | length), [.items[] | .kind + "/" + .metadata.name]]' <<<"$output"
	assert_output '["List",2,["Node/node-1","Node/node-2"]]'
}

@test "get --raw on a collection returns the typed NodeList" {
	run -0 kubectl get --raw /api/v1/nodes
	run -0 jq -c '[.kind, .apiVersion, (.items | length), (.metadata.resourceVersion | test("^[0-9]+$"))]' <<<"$output"
	assert_output '["NodeList","v1",2,true]'
}

@test "label a node, see it with --show-labels, remove it" {
	mark_requests
	run -0 kubectl label node node-2 fidelity=yes
	assert_output "node/node-2 labeled"
	assert_request PATCH /api/v1/nodes/node-2 \
		'.headers["content-type"] == "application/merge-patch+json" and .body == {"metadata":{"labels":{"fidelity":"yes"}}}'
	run -0 kubectl get node node-2 --show-labels
	assert_line --index 0 --regexp '^NAME +STATUS +ROLES +AGE +VERSION +LABELS$'
	assert_line --index 1 --regexp '^node-2 .*[ ,]fidelity=yes,'
	run -0 kubectl label node node-2 fidelity-
	assert_output "node/node-2 unlabeled"
	run -0 kubectl get node node-2 --show-labels
	refute_output --partial fidelity
}

@test "create a configmap, read it back, delete it" {
	run -0 kubectl create configmap fid-cm --from-literal=k=v -n runai-team-a
	assert_output "configmap/fid-cm created"
	run -0 kubectl get configmap fid-cm -n runai-team-a -o jsonpath='{.data.k}'
	assert_output "v"
	run -0 kubectl delete configmap fid-cm -n runai-team-a
	assert_output 'configmap "fid-cm" deleted'
	run -1 kubectl get configmap fid-cm -n runai-team-a
	assert_output 'Error from server (NotFound): configmaps "fid-cm" not found'
}

@test "get ns lists the system and project namespaces" {
	run -0 kubectl get ns
	assert_line --index 0 --regexp '^NAME +STATUS +AGE$'
	local i=1 ns
	for ns in default kube-system monitoring runai runai-team-a runai-team-b runai-team-c \
	    runai-team-d; do
		assert_line --index "$i" --regexp "^$ns +Active +$AGE$"
		i=$((i + 1))
	done
	[ "${#lines[@]}" -eq 9 ]
}

@test "a token gone bad after discovery is Unauthorized, exit 1" {
	run -0 kubectl get nodes -o name # fills the discovery cache
	sed -i "s/token: .*/token: wrong-token/" "$KUBECONFIG"
	run -1 kubectl get nodes
	assert_output "error: You must be logged in to the server (Unauthorized)"
}

@test "a wrong token on a cold cache fails in discovery, exit 1" {
	# client-go's discovery client does not decode the Status body, so it
	# shows its generic 401 text, as against a real API server
	sed -i "s/token: .*/token: wrong-token/" "$KUBECONFIG"
	run -1 --separate-stderr kubectl get nodes
	[ -z "$output" ]
	[ "${stderr_lines[-1]}" = "error: You must be logged in to the server (the server has asked for the client to provide credentials)" ]
}

@test "the client-certificate kubeconfig authenticates as kube-sim-admin" {
	cp "$KUBESIM_DIR/kubeconfig-cert" "$KUBECONFIG"
	mark_requests
	run -0 kubectl get ns default -o name
	assert_output "namespace/default"
	assert_request GET /api/v1/namespaces/default '.auth == "cert" and .user == "kube-sim-admin"'
}

@test "get --raw /version reports Kubernetes 1.32" {
	run -0 kubectl get --raw /version
	run -0 jq -r '"\(.major) \(.minor) \(.gitVersion)"' <<<"$output"
	assert_output "1 32 v1.32.5"
}

@test "api-resources lists the Run:ai kinds from aggregated discovery" {
	mark_requests
	run -0 kubectl api-resources
	assert_line --regexp '^runaijobs +rj +run\.ai/v1 +true +RunaiJob$'
	assert_line --regexp '^projects +rp +run\.ai/v1 +false +Project$'
	assert_line --regexp '^pods +po +v1 +true +Pod$'
	# one round trip: the aggregated answer was accepted, no per-group walk
	refute_request GET /apis/run.ai/v1
}

@test "get -w shows a configmap created while watching" {
	(sleep 1; "$KUBECTL_132" create configmap fid-watch -n runai-team-c >/dev/null 2>&1) &
	local bg=$!
	run -124 timeout 4 "$KUBECTL_132" get configmaps -n runai-team-c -w
	wait "$bg"
	assert_line --regexp '^NAME +DATA +AGE$'
	assert_line --regexp "^fid-watch +0 +$AGE$"
}

@test "an injected 503 is reported as ServiceUnavailable, exit 1" {
	sim POST /_sim/faults '{"path_prefix": "/api/v1/namespaces/default/configmaps", "count": 5, "status": 503}' >/dev/null
	run -1 kubectl get configmaps
	assert_output "Error from server (ServiceUnavailable): the server is currently unable to handle the request"
}
