#!/usr/bin/env bats
# Fidelity of the emulator for the objects `runai submit` creates: what a
# real API server and cluster do with Services (node port allocation, the
# 422s, load balancer ingress), PersistentVolumeClaims (default class,
# binding, WaitForFirstConsumer), Run:ai gpu-memory requests, and pod
# template validation (400 for an unparsable quantity, 422 causes), checked
# with curl and, where installed, the real kubectl 1.32.
#
# The controller is paused for the whole file: every test moves the cluster
# on with POST /_sim/tick, so nothing depends on timing.

load lib/common

NS=runai-team-a

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
	BODY_FILE="$BATS_TEST_TMPDIR/body.json"
}

# Each test starts without services, claims, workloads or pods of its own.
teardown() {
	local p
	for p in api/v1/namespaces/$NS/services api/v1/namespaces/$NS/persistentvolumeclaims \
	    apis/run.ai/v1/namespaces/$NS/runaijobs apis/batch/v1/namespaces/$NS/jobs \
	    api/v1/namespaces/$NS/pods; do
		api DELETE "/$p" >/dev/null || true
	done
	api DELETE "/apis/storage.k8s.io/v1/storageclasses?labelSelector=t0920" >/dev/null || true
	api PATCH /api/v1/nodes/node-1 '{"spec": {"unschedulable": null}}' >/dev/null || true
	api PATCH /api/v1/nodes/node-2 \
		'{"metadata": {"labels": {"nvidia.com/gpu.memory": null}}}' >/dev/null || true
}

need_kubectl() {
	have_kubectl_132 || skip "kubectl 1.32 not installed at $KUBECTL_132"
}

kubectl() {
	"$KUBECTL_132" "$@"
}

# api METHOD PATH [BODY]: the Kubernetes API as the admin; prints the body.
# PATCH bodies are merge patches.
api() {
	local ctype=application/json
	[ "$1" = PATCH ] && ctype=application/merge-patch+json
	curl -sS --cacert "$KUBESIM_CA" -H "Authorization: Bearer $KUBESIM_TOKEN" \
		-H "Content-Type: $ctype" -X "$1" ${3:+--data-binary "$3"} \
		"$KUBESIM_URL$2"
}

# call METHOD PATH [BODY]: like api, but prints the HTTP code and leaves
# the body in $BODY_FILE (set by setup: $(call ...) runs in a subshell).
call() {
	curl -sS -o "$BODY_FILE" -w '%{http_code}' --cacert "$KUBESIM_CA" \
		-H "Authorization: Bearer $KUBESIM_TOKEN" -H 'Content-Type: application/json' \
		-X "$1" ${3:+--data-binary "$3"} "$KUBESIM_URL$2"
}

body() {
	jq -r "$1" "$BODY_FILE"
}

# status_is CODE METHOD PATH [BODY]: call, and on another status say
# which, with the answer (a bare [ ... = CODE ] says only "failed").
status_is() {
	local code=$1 got
	shift
	got=$(call "$@")
	[ "$got" = "$code" ] || { echo "$1 $2: $got, not $code: $(cat "$BODY_FILE")"; false; }
}

tick() {
	sim POST /_sim/tick "{\"steps\": ${1:-1}}" >/dev/null
}

svc_path() { echo "/api/v1/namespaces/$NS/services/$1"; }
pvc_path() { echo "/api/v1/namespaces/$NS/persistentvolumeclaims/$1"; }
pod_path() { echo "/api/v1/namespaces/$NS/pods/$1"; }
rj_path() { echo "/apis/run.ai/v1/namespaces/$NS/runaijobs/$1"; }

# service NAME TYPE PORTS-JSON: a Service body.
service() {
	jq -nc --arg n "$1" --arg t "$2" --argjson p "$3" \
		'{"apiVersion": "v1", "kind": "Service", "metadata": {"name": $n},
		  "spec": {"type": $t, "selector": {"release": $n}, "ports": $p}}'
}

# free_node_port: the first port from 31000 up that no service of the
# cluster holds.
free_node_port() {
	api GET /api/v1/services | jq '[.items[].spec.ports[]?.nodePort // empty] as $used
		| first(range(31000; 32768) | select(. as $p | $used | index($p) | not))'
}

# claim NAME [CLASS]: a 2Gi ReadWriteOnce claim (no storageClassName without CLASS).
claim() {
	jq -nc --arg n "$1" --arg c "${2-}" --argjson has "$([ $# -ge 2 ] && echo true || echo false)" \
		'{"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": $n},
		  "spec": ({"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "2Gi"}}}
		           + (if $has then {"storageClassName": $c} else {} end))}'
}

# pod NAME SPEC-EXTRA-JSON [CONTAINER-EXTRA-JSON]: a one-container pod.
pod() {
	jq -nc --arg n "$1" --argjson s "${2:-{\}}" --argjson c "${3:-{\}}" \
		'{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": $n},
		  "spec": ({"containers": [({"name": "main", "image": "busybox"} + $c)]} + $s)}'
}

# runaijob NAME TEMPLATE-ANNOTATIONS-JSON [CONTAINER-EXTRA-JSON [SPEC-EXTRA-JSON]]
runaijob() {
	jq -nc --arg n "$1" --argjson a "${2:-{\}}" --argjson c "${3:-{\}}" --argjson s "${4:-{\}}" \
		'{"apiVersion": "run.ai/v1", "kind": "RunaiJob",
		  "metadata": {"name": $n, "labels": {"release": $n}},
		  "spec": {"template": {"metadata": {"labels": {"release": $n}, "annotations": $a},
		    "spec": ({"schedulerName": "runai-scheduler", "restartPolicy": "Never",
		      "containers": [({"name": $n, "image": "ubuntu"} + $c)]} + $s)}}}'
}

storageclass() {
	jq -nc --arg n "$1" --arg m "$2" \
		'{"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass",
		  "metadata": {"name": $n, "labels": {"t0920": "true"}},
		  "provisioner": "example.com/fast", "reclaimPolicy": "Delete",
		  "volumeBindingMode": $m}'
}

pods_of() {
	api GET "/api/v1/namespaces/$NS/pods?labelSelector=release%3D$1" | jq -r '.items[].metadata.name'
}

# events_of NAME: "type reason: message" of the events about an object.
events_of() {
	api GET "/api/v1/namespaces/$NS/events?fieldSelector=involvedObject.name%3D$1" |
		jq -r '.items[] | "\(.type) \(.reason): \(.message)"'
}

NOT_IN_RANGE='provided port is not in the valid range. The range of valid ports is 30000-32767'

# --- Services ------------------------------------------------------------------

@test "NodePort and LoadBalancer ports get unique node ports in 30000-32767; ClusterIP none" {
	local ports='[{"name": "a", "port": 80}, {"name": "b", "port": 443}]'
	[ "$(call POST "/api/v1/namespaces/$NS/services" "$(service np1 NodePort "$ports")")" = 201 ]
	[ "$(call POST "/api/v1/namespaces/$NS/services" "$(service np2 NodePort "$ports")")" = 201 ]
	[ "$(call POST "/api/v1/namespaces/$NS/services" "$(service lb1 LoadBalancer "$ports")")" = 201 ]
	[ "$(call POST "/api/v1/namespaces/$NS/services" "$(service cip ClusterIP "$ports")")" = 201 ]
	run -0 jq -c '[.spec.ports[] | has("nodePort")]' <<<"$(api GET "$(svc_path cip)")"
	assert_output '[false,false]'
	local all
	all=$(for s in np1 np2 lb1; do api GET "$(svc_path "$s")" | jq -c '.spec.ports[].nodePort'; done)
	run -0 jq -s 'length == 6 and all(.[]; type == "number" and . >= 30000 and . <= 32767)
	    and (unique | length) == 6' <<<"$all"
	assert_output true
	# the v1 defaults that come with the types
	run -0 jq -c '[.spec.externalTrafficPolicy, .spec.allocateLoadBalancerNodePorts,
	    .status.loadBalancer]' <<<"$(api GET "$(svc_path lb1)")"
	assert_output '["Cluster",true,{}]'
}

@test "a nodePort out of range or already taken is the API server's 422" {
	local body port
	# a port no service of the cluster holds (the demo's own services
	# get random ones, which could be any fixed number)
	port=$(free_node_port)
	status_is 201 POST "/api/v1/namespaces/$NS/services" \
	    "$(service np3 NodePort '[{"port": 80, "nodePort": '"$port"'}]')"
	[ "$(body '.spec.ports[0].nodePort')" = "$port" ]
	status_is 422 POST "/api/v1/namespaces/$NS/services" \
	    "$(service np4 NodePort '[{"port": 8080, "nodePort": '"$port"'}]')"
	run -0 body '[.reason, .message, .details.causes[0].field, .details.causes[0].reason] | join("|")'
	assert_output "Invalid|Service \"np4\" is invalid: spec.ports[0].nodePort: Invalid value: $port: provided port is already allocated|spec.ports[0].nodePort|FieldValueInvalid"
	status_is 422 POST "/api/v1/namespaces/$NS/services" \
	    "$(service np5 NodePort '[{"port": 81}, {"port": 80, "nodePort": 80}]')"
	run -0 body .message
	assert_output "Service \"np5\" is invalid: spec.ports[1].nodePort: Invalid value: 80: $NOT_IN_RANGE"
	# refused means not stored
	[ "$(call GET "$(svc_path np4)")" = 404 ]
	[ "$(call GET "$(svc_path np5)")" = 404 ]
	# an update may not take another service's port either
	status_is 201 POST "/api/v1/namespaces/$NS/services" \
	    "$(service np6 NodePort '[{"port": 80}]')"
	body=$(api GET "$(svc_path np6)" | jq -c '.spec.ports[0].nodePort = '"$port")
	[ "$(call PUT "$(svc_path np6)" "$body")" = 422 ]
	run -0 body .message
	assert_output "Service \"np6\" is invalid: spec.ports[0].nodePort: Invalid value: $port: provided port is already allocated"
}

@test "kubectl shows the allocated node port and the 422 in the real client's words" {
	need_kubectl
	service np7 NodePort '[{"port": 8888, "targetPort": 8888}]' |
		kubectl apply -n "$NS" -f -
	local port
	port=$(api GET "$(svc_path np7)" | jq .spec.ports[0].nodePort)
	run -0 kubectl get svc np7 -n "$NS" --no-headers
	assert_output --regexp "^np7 +NodePort +10\.96\.[0-9.]+ +<none> +8888:$port/TCP +"
	# apply with another port: the service port is replaced, its node port kept
	service np7 NodePort '[{"port": 8889, "targetPort": 8888}]' |
		kubectl apply -n "$NS" -f -
	run -0 kubectl get svc np7 -n "$NS" --no-headers
	assert_output --regexp "^np7 +NodePort +10\.96\.[0-9.]+ +<none> +8889:$port/TCP +"
	run -1 kubectl apply -n "$NS" -f - <<<"$(service np8 NodePort '[{"port": 80, "nodePort": 80}]')"
	assert_output --partial "The Service \"np8\" is invalid: spec.ports[0].nodePort: Invalid value: 80: $NOT_IN_RANGE"
}

@test "ClusterIP may not name a nodePort; switching to ClusterIP drops and frees them" {
	local port
	port=$(free_node_port)
	status_is 422 POST "/api/v1/namespaces/$NS/services" \
	    "$(service cip2 ClusterIP '[{"port": 80, "nodePort": '"$port"'}]')"
	run -0 body '[.message, .details.causes[0].reason] | join("|")'
	assert_output "Service \"cip2\" is invalid: spec.ports[0].nodePort: Forbidden: may not be used when \`type\` is 'ClusterIP'|FieldValueForbidden"
	status_is 201 POST "/api/v1/namespaces/$NS/services" \
	    "$(service np9 NodePort '[{"port": 80, "nodePort": '"$port"'}]')"
	api PATCH "$(svc_path np9)" '{"spec": {"type": "ClusterIP"}}' >/dev/null
	run -0 jq -c '[.spec.type, (.spec.ports[0] | has("nodePort")), (.spec | has("externalTrafficPolicy"))]' \
		<<<"$(api GET "$(svc_path np9)")"
	assert_output '["ClusterIP",false,false]'
	# the port is free again
	status_is 201 POST "/api/v1/namespaces/$NS/services" \
	    "$(service np10 NodePort '[{"port": 80, "nodePort": '"$port"'}]')"
}

@test "an update that leaves nodePort out keeps the allocated port" {
	[ "$(call POST "/api/v1/namespaces/$NS/services" \
	    "$(service np11 NodePort '[{"name": "web", "port": 80}]')")" = 201 ]
	local port body
	port=$(body '.spec.ports[0].nodePort')
	body=$(api GET "$(svc_path np11)" | jq -c 'del(.spec.ports[0].nodePort, .spec.clusterIP)
	    | .metadata.labels = {"x": "y"}')
	[ "$(call PUT "$(svc_path np11)" "$body")" = 200 ]
	[ "$(body '.spec.ports[0].nodePort')" = "$port" ]
	[ "$(body '.spec.clusterIP | test("^10\\.96\\.")')" = true ]
	[ "$(body .metadata.labels.x)" = y ]
}

@test "a LoadBalancer shows <pending> first, then a loopback ingress from the controller" {
	local ports='[{"port": 80, "targetPort": 8080}]' ip1 ip2
	api POST "/api/v1/namespaces/$NS/services" "$(service lb2 LoadBalancer "$ports")" >/dev/null
	api POST "/api/v1/namespaces/$NS/services" "$(service lb3 LoadBalancer "$ports")" >/dev/null
	[ "$(api GET "$(svc_path lb2)" | jq -c .status)" = '{"loadBalancer":{}}' ]
	tick
	# first seen: still pending
	[ "$(api GET "$(svc_path lb2)" | jq -c .status.loadBalancer)" = '{}' ]
	run -0 events_of lb2
	assert_output 'Normal EnsuringLoadBalancer: Ensuring load balancer'
	tick
	ip1=$(api GET "$(svc_path lb2)" | jq -r '.status.loadBalancer.ingress[0].ip')
	ip2=$(api GET "$(svc_path lb3)" | jq -r '.status.loadBalancer.ingress[0].ip')
	[[ "$ip1" =~ ^127\.0\.0\.[0-9]+$ ]]
	[[ "$ip2" =~ ^127\.0\.0\.[0-9]+$ ]]
	[ "$ip1" != "$ip2" ]
	[ "$(api GET "$(svc_path lb2)" | jq -r '.status.loadBalancer.ingress[0].ipMode')" = VIP ]
	run -0 events_of lb2
	assert_line 'Normal EnsuredLoadBalancer: Ensured load balancer'
	# no longer a load balancer: the API server clears the status
	api PATCH "$(svc_path lb2)" '{"spec": {"type": "NodePort"}}' >/dev/null
	[ "$(api GET "$(svc_path lb2)" | jq -c .status.loadBalancer)" = '{}' ]
	tick 2
	[ "$(api GET "$(svc_path lb2)" | jq -c .status.loadBalancer)" = '{}' ]
}

@test "kubectl get svc shows <pending>, then the load balancer's IP" {
	need_kubectl
	service lb4 LoadBalancer '[{"port": 80}]' | kubectl apply -n "$NS" -f -
	run -0 kubectl get svc lb4 -n "$NS" --no-headers
	assert_output --regexp '^lb4 +LoadBalancer +10\.96\.[0-9.]+ +<pending> +80:3[0-9]{4}/TCP +'
	tick 2
	run -0 kubectl get svc lb4 -n "$NS" --no-headers
	assert_output --regexp '^lb4 +LoadBalancer +10\.96\.[0-9.]+ +127\.0\.0\.[0-9]+ +80:3[0-9]{4}/TCP +'
}

# --- PersistentVolumeClaims -------------------------------------------------------

@test "start-up: namespace runai and a default StorageClass, but no cluster-config ConfigMap" {
	[ "$(call GET /api/v1/namespaces/runai)" = 200 ]
	run -0 jq -r '[.items[] | select(.metadata.annotations["storageclass.kubernetes.io/is-default-class"] == "true")
	    | .metadata.name] | join(",")' <<<"$(api GET /apis/storage.k8s.io/v1/storageclasses)"
	assert_output local-path
	[ "$(call GET /api/v1/namespaces/runai/configmaps/runai-cluster-config)" = 404 ]
}

@test "a claim without a class gets the default one; an Immediate class binds on the next step" {
	api POST /apis/storage.k8s.io/v1/storageclasses "$(storageclass fast Immediate)" >/dev/null
	[ "$(call POST "/api/v1/namespaces/$NS/persistentvolumeclaims" "$(claim c1)")" = 201 ]
	run -0 body '[.spec.storageClassName, .spec.volumeMode, .status.phase] | join(" ")'
	assert_output 'local-path Filesystem Pending'
	[ "$(call POST "/api/v1/namespaces/$NS/persistentvolumeclaims" "$(claim c2 fast)")" = 201 ]
	local uid
	uid=$(body .metadata.uid)
	[ "$(body .status.phase)" = Pending ]
	tick
	run -0 jq -c '[.status.phase, .spec.volumeName, .status.capacity.storage, .status.accessModes,
	    .metadata.annotations["volume.kubernetes.io/storage-provisioner"]]' <<<"$(api GET "$(pvc_path c2)")"
	assert_output "[\"Bound\",\"pvc-$uid\",\"2Gi\",[\"ReadWriteOnce\"],\"example.com/fast\"]"
	run -0 events_of c2
	assert_line "Normal ProvisioningSucceeded: Successfully provisioned volume pvc-$uid"
	# "" means no class: no default, no binding
	[ "$(call POST "/api/v1/namespaces/$NS/persistentvolumeclaims" "$(claim c3 '')")" = 201 ]
	[ "$(body .spec.storageClassName)" = "" ]
	tick
	[ "$(api GET "$(pvc_path c3)" | jq -r .status.phase)" = Pending ]
}

@test "a WaitForFirstConsumer claim binds when a pod that uses it is scheduled" {
	api POST "/api/v1/namespaces/$NS/persistentvolumeclaims" "$(claim c4)" >/dev/null
	tick 2
	[ "$(api GET "$(pvc_path c4)" | jq -r .status.phase)" = Pending ]
	run -0 events_of c4
	assert_output 'Normal WaitForFirstConsumer: waiting for first consumer to be created before binding'
	api POST "/api/v1/namespaces/$NS/pods" "$(pod user4 \
	    '{"volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "c4"}}]}' \
	    '{"volumeMounts": [{"name": "d", "mountPath": "/data"}]}')" >/dev/null
	tick
	local node
	node=$(api GET "$(pod_path user4)" | jq -r .spec.nodeName)
	[[ "$node" == node-[12] ]]
	run -0 jq -c '[.status.phase, .metadata.annotations["volume.kubernetes.io/selected-node"]]' \
		<<<"$(api GET "$(pvc_path c4)")"
	assert_output "[\"Bound\",\"$node\"]"
	tick
	[ "$(api GET "$(pod_path user4)" | jq -r .status.phase)" = Running ]
}

@test "a claim of a missing class stays Pending with a ProvisioningFailed warning" {
	api POST "/api/v1/namespaces/$NS/persistentvolumeclaims" "$(claim c5 nosuch)" >/dev/null
	tick 3
	[ "$(api GET "$(pvc_path c5)" | jq -r .status.phase)" = Pending ]
	run -0 events_of c5
	assert_output 'Warning ProvisioningFailed: storageclass.storage.k8s.io "nosuch" not found'
	# the class appears: the claim binds
	api POST /apis/storage.k8s.io/v1/storageclasses "$(storageclass nosuch Immediate)" >/dev/null
	tick
	[ "$(api GET "$(pvc_path c5)" | jq -r .status.phase)" = Bound ]
}

@test "pods whose claims are missing or unbound are unschedulable, in the scheduler's words" {
	api POST "/api/v1/namespaces/$NS/persistentvolumeclaims" "$(claim c6 nosuch2)" >/dev/null
	local vol='{"volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "%s"}}]}'
	# shellcheck disable=SC2059
	api POST "/api/v1/namespaces/$NS/pods" "$(pod ghost "$(printf "$vol" ghost)")" >/dev/null
	# shellcheck disable=SC2059
	api POST "/api/v1/namespaces/$NS/pods" "$(pod unbound "$(printf "$vol" c6)")" >/dev/null
	tick
	run -0 jq -r '[.spec.nodeName // "-", (.status.conditions[] | select(.type == "PodScheduled")
	    | .reason, .message)] | join("|")' <<<"$(api GET "$(pod_path ghost)")"
	assert_output '-|Unschedulable|0/2 nodes are available: persistentvolumeclaim "ghost" not found.'
	run -0 jq -r '(.status.conditions[] | select(.type == "PodScheduled") | .message)' \
		<<<"$(api GET "$(pod_path unbound)")"
	assert_output '0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims.'
	api POST "/api/v1/namespaces/$NS/persistentvolumeclaims" "$(claim ghost)" >/dev/null
	tick
	[ "$(api GET "$(pod_path ghost)" | jq -r '.spec.nodeName // "-"')" != - ]
}

@test "claims need access modes and a storage request; quantities are checked" {
	[ "$(call POST "/api/v1/namespaces/$NS/persistentvolumeclaims" \
	    '{"metadata": {"name": "c7"}, "spec": {}}')" = 422 ]
	run -0 body .message
	assert_output 'PersistentVolumeClaim "c7" is invalid: [spec.accessModes: Required value: at least 1 access mode is required, spec.resources[storage]: Required value]'
	[ "$(call POST "/api/v1/namespaces/$NS/persistentvolumeclaims" "$(claim c8 |
	    jq -c '.spec.resources.requests.storage = "10GG"')")" = 400 ]
	run -0 body '[.reason, .message] | join("|")'
	assert_output "BadRequest|PersistentVolumeClaim in version \"v1\" cannot be handled as a PersistentVolumeClaim: unable to parse quantity's suffix"
}

# --- GPU memory -------------------------------------------------------------------

@test "gpu-memory is a share of the GPU's memory: 20480 MB of 80 GiB is 0.25, packed with fractions" {
	api POST "/apis/run.ai/v1/namespaces/$NS/runaijobs" \
		"$(runaijob mem1 '{"gpu-memory": "20480"}')" >/dev/null
	api POST "/apis/run.ai/v1/namespaces/$NS/runaijobs" \
		"$(runaijob frac1 '{"gpu-fraction": "0.5"}')" >/dev/null
	tick 2
	local p1 p2
	p1=$(pods_of mem1)
	p2=$(pods_of frac1)
	run -0 jq -c '[.status.phase, .metadata.annotations["runai-gpu"]]' <<<"$(api GET "$(pod_path "$p1")")"
	assert_output '["Running","0"]'
	# the fraction packs onto the GPU the memory request shares
	[ "$(api GET "$(pod_path "$p2")" | jq -c '[.spec.nodeName, .metadata.annotations["runai-gpu"]]')" = \
	  "$(api GET "$(pod_path "$p1")" | jq -c '[.spec.nodeName, .metadata.annotations["runai-gpu"]]')" ]
	run -0 jq -c '.metadata.annotations | [.["runai-current-allocated-gpus"],
	    .["runai-current-requested-gpus"], .["runai-podgroup-requested-gpus"],
	    .["runai-current-allocated-gpus-memory"], .["runai-podgroup-requested-gpus-memory"],
	    .["runai-total-requested-gpus-memory"]]' <<<"$(api GET "$(rj_path mem1)")"
	assert_output '["0.25","0.25","0.25","20480","20480","20480"]'
	# a fraction job keeps no memory annotations
	run -0 jq -c '.metadata.annotations | [.["runai-current-allocated-gpus"],
	    has("runai-podgroup-requested-gpus-memory")]' <<<"$(api GET "$(rj_path frac1)")"
	assert_output '["0.5",false]'
}

@test "the node's nvidia.com/gpu.memory label (MiB) sets the GPU size" {
	api PATCH /api/v1/nodes/node-1 '{"spec": {"unschedulable": true}}' >/dev/null
	api PATCH /api/v1/nodes/node-2 '{"metadata": {"labels": {"nvidia.com/gpu.memory": "40960"}}}' >/dev/null
	api POST "/apis/run.ai/v1/namespaces/$NS/runaijobs" \
		"$(runaijob mem2 '{"gpu-memory": "20480"}')" >/dev/null
	api POST "/apis/run.ai/v1/namespaces/$NS/runaijobs" \
		"$(runaijob mem3 '{"gpu-memory": "30000"}')" >/dev/null
	tick 2
	run -0 jq -r '.metadata.annotations["runai-current-allocated-gpus"]' <<<"$(api GET "$(rj_path mem2)")"
	assert_output 0.5
	# 20480 + 30000 MiB do not fit one 40 GiB GPU: two GPUs
	[ "$(api GET "$(pod_path "$(pods_of mem2)")" | jq -r '.metadata.annotations["runai-gpu"]')" != \
	  "$(api GET "$(pod_path "$(pods_of mem3)")" | jq -r '.metadata.annotations["runai-gpu"]')" ]
	[ "$(api GET "$(pod_path "$(pods_of mem3)")" | jq -r .spec.nodeName)" = node-2 ]
}

@test "gpu-memory larger than one GPU is unschedulable and says why" {
	api POST "/apis/run.ai/v1/namespaces/$NS/runaijobs" \
		"$(runaijob big1 '{"gpu-memory": "100000"}')" >/dev/null
	tick 2
	local p
	p=$(pods_of big1)
	run -0 jq -r '[.status.phase, .spec.nodeName // "-", (.status.conditions[]
	    | select(.type == "PodScheduled") | .message)] | join("|")' <<<"$(api GET "$(pod_path "$p")")"
	assert_output 'Pending|-|0/2 nodes are available: 2 node(s) had GPUs with less memory than the 100000 MB requested (gpu-memory).'
	run -0 jq -c '.metadata.annotations | [.unschedulable, .["runai-current-allocated-gpus"],
	    .["runai-podgroup-requested-gpus-memory"]]' <<<"$(api GET "$(rj_path big1)")"
	assert_output '["true","0","100000"]'
}

# --- pod template validation --------------------------------------------------------

@test "an unparsable quantity in a Pod or a Job is the decoder's 400" {
	local q="quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)\$'"
	[ "$(call POST "/api/v1/namespaces/$NS/pods" \
	    "$(pod bad1 '{}' '{"resources": {"requests": {"cpu": "abc"}}}')")" = 400 ]
	run -0 body '[.reason, .code, .message] | join("|")'
	assert_output "BadRequest|400|Pod in version \"v1\" cannot be handled as a Pod: $q"
	[ "$(call POST "/apis/batch/v1/namespaces/$NS/jobs" '{"metadata": {"name": "bad2"},
	    "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "m",
	    "image": "x", "resources": {"limits": {"memory": "1MMi"}}}]}}}}')" = 400 ]
	run -0 body .message
	assert_output "Job in version \"v1\" cannot be handled as a Job: unable to parse quantity's suffix"
	[ "$(call GET "/apis/batch/v1/namespaces/$NS/jobs/bad2")" = 404 ]
	# numbers are quantities too
	[ "$(call POST "/api/v1/namespaces/$NS/pods" \
	    "$(pod ok1 '{}' '{"resources": {"requests": {"cpu": 0.5, "memory": "1Gi"}}}')")" = 201 ]
}

@test "kubectl gets the 400 for cpu: abc as from a real server" {
	need_kubectl
	run -1 kubectl create -n "$NS" -f - <<<"$(pod bad3 '{}' '{"resources": {"limits": {"cpu": "abc"}}}')"
	assert_output --partial 'Error from server (BadRequest): error when creating "STDIN": Pod in version "v1" cannot be handled as a Pod: quantities must match the regular expression'
}

@test "env names, mounts of no volume and requests over limits are 422 with every cause" {
	[ "$(call POST "/api/v1/namespaces/$NS/pods" "$(pod bad4 '{}' '{
	    "env": [{"name": "A=B", "value": "1"}, {"name": "1.ok-relaxed", "value": "2"}],
	    "volumeMounts": [{"name": "data", "mountPath": "/data"}],
	    "resources": {"requests": {"cpu": "2"}, "limits": {"cpu": "1", "nvidia.com/gpu": "0.5"}}}')")" = 422 ]
	run -0 body .message
	assert_output "Pod \"bad4\" is invalid: [spec.containers[0].env[0].name: Invalid value: \"A=B\": a valid environment variable name must consist only of printable ASCII characters other than '=', spec.containers[0].volumeMounts[0].name: Not found: \"data\", spec.containers[0].resources.limits[nvidia.com/gpu]: Invalid value: \"500m\": must be an integer, spec.containers[0].resources.requests: Invalid value: \"2\": must be less than or equal to cpu limit of 1]"
	run -0 body '[.details.causes[] | "\(.field) \(.reason)"] | join(",")'
	assert_output 'spec.containers[0].env[0].name FieldValueInvalid,spec.containers[0].volumeMounts[0].name FieldValueNotFound,spec.containers[0].resources.limits[nvidia.com/gpu] FieldValueInvalid,spec.containers[0].resources.requests FieldValueInvalid'
	# the same in a Job's template, plus the Job's own restartPolicy rule
	[ "$(call POST "/apis/batch/v1/namespaces/$NS/jobs" '{"metadata": {"name": "bad5"},
	    "spec": {"template": {"spec": {"containers": [{"name": "m", "image": "x",
	    "volumeMounts": [{"name": "nope", "mountPath": "/x"}]}]}}}}')" = 422 ]
	run -0 body .message
	assert_output 'Job.batch "bad5" is invalid: [spec.template.spec.containers[0].volumeMounts[0].name: Not found: "nope", spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"]'
	# relaxed names (1.32) and a mount of a declared volume are fine
	[ "$(call POST "/api/v1/namespaces/$NS/pods" "$(pod ok2 \
	    '{"volumes": [{"name": "data", "emptyDir": {}}]}' \
	    '{"env": [{"name": "1.ok-relaxed", "value": "2"}],
	      "volumeMounts": [{"name": "data", "mountPath": "/data"}]}')")" = 201 ]
}

@test "a RunaiJob with a bad quantity is stored, but its pod fails: FailedCreate, once" {
	[ "$(call POST "/apis/run.ai/v1/namespaces/$NS/runaijobs" \
	    "$(runaijob rjbad '{}' '{"resources": {"requests": {"cpu": "abc"}}}')")" = 201 ]
	tick 3
	[ -z "$(pods_of rjbad)" ]
	run -0 events_of rjbad
	assert_output "Warning FailedCreate: Error creating: Pod in version \"v1\" cannot be handled as a Pod: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)\$'"
	# and a 422 one names the cause too
	api POST "/apis/run.ai/v1/namespaces/$NS/runaijobs" \
		"$(runaijob rjbad2 '{}' '{"volumeMounts": [{"name": "gone", "mountPath": "/g"}]}')" >/dev/null
	tick 3
	[ -z "$(pods_of rjbad2)" ]
	run -0 events_of rjbad2
	assert_output --regexp '^Warning FailedCreate: Error creating: Pod "rjbad2-[a-z0-9]{5}" is invalid: spec.containers\[0\].volumeMounts\[0\].name: Not found: "gone"$'
}
