#!/usr/bin/env bats
# runai-adm preflight: every check reaches PASS, WARN and FAIL (or SKIP)
# against the emulator (objects seeded through /_sim/seed), the real
# Debian docker-registry (plain HTTP, and TLS with htpasswd), openssl
# s_server serving the test's own certificates, a loopback DNS server
# behind a private mount namespace (unshare: /etc/resolv.conf is
# replaced for that process only), and plain TCP listeners. Every
# process a test starts is stopped by its PID; all traffic is loopback.

load lib/common
load lib/registry	# free_port, wait_port, stop_pid
load lib/pki		# newkey, mkca

# ---- certificates (made here, relative to now) ----

# mkleaf NAME ISSUER DAYS SAN
mkleaf() {
	newkey "$1"
	openssl req -new -key "$PKI/$1.key" -subj "/CN=$1" -out "$PKI/$1.csr" 2>/dev/null
	printf 'subjectAltName=%s\nbasicConstraints=CA:FALSE\n' "$4" >"$PKI/$1.ext"
	openssl x509 -req -in "$PKI/$1.csr" -CA "$PKI/$2.crt" -CAkey "$PKI/$2.key" \
		-CAcreateserial -days "$3" -extfile "$PKI/$1.ext" -out "$PKI/$1.crt" 2>/dev/null
}

# ---- the docker registry (Debian's docker-registry, minimal config) ----

# start_registry NAME [tls]: a registry on a free port; exports REG_<NAME>
start_registry() {
	local name=$1 mode=${2:-} dir="$BATS_FILE_TMPDIR/reg-$1" port pid
	port=$(free_port)
	mkdir -p "$dir/data"
	{
		echo 'version: 0.1'
		echo 'log: {level: error, accesslog: {disabled: true}}'
		echo "storage: {filesystem: {rootdirectory: $dir/data}, delete: {enabled: true}}"
		if [ "$mode" = tls ]; then
			htpasswd -Bbn tester testpw >"$dir/htpasswd"
			echo "auth: {htpasswd: {realm: test-realm, path: $dir/htpasswd}}"
		fi
		echo 'http:'
		echo "  addr: 127.0.0.1:$port"
		echo '  secret: not-a-secret-test-only'
		[ "$mode" != tls ] || echo "  tls: {certificate: $PKI/reg.crt, key: $PKI/reg.key}"
	} >"$dir/config.yml"
	docker-registry serve "$dir/config.yml" >"$dir/log" 2>&1 &
	pid=$!
	echo "$pid" >"$BATS_FILE_TMPDIR/reg-$name.pid"
	wait_port "$port" "$pid" || { cat "$dir/log" >&2; return 1; }
	eval "REG_$name=127.0.0.1:$port"
	export "REG_$name"
}

# ---- the emulated cluster ----

crd() {	# crd PLURAL GROUP KIND SCOPE
	printf '{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"%s.%s"},"spec":{"group":"%s","names":{"plural":"%s","singular":"%s","kind":"%s","listKind":"%sList"},"scope":"%s","versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}' \
		"$1" "$2" "$2" "$1" "$(echo "$3" | tr A-Z a-z)" "$3" "$3" "$4"
}

# A healthy cluster: every API check passes on it.
baseline() {
	cat <<EOF
[
$(crd clusterpolicies nvidia.com ClusterPolicy Cluster),
$(crd prometheuses monitoring.coreos.com Prometheus Namespaced),
$(crd servicemonitors monitoring.coreos.com ServiceMonitor Namespaced),
$(crd podmonitors monitoring.coreos.com PodMonitor Namespaced),
{"apiVersion":"v1","kind":"Node","metadata":{"name":"gpu-1","labels":{
  "kubernetes.io/hostname":"gpu-1","nvidia.com/gpu.present":"true",
  "nvidia.com/gpu.product":"NVIDIA-H100-80GB-HBM3","nvidia.com/gpu.count":"8",
  "node-role.kubernetes.io/runai-gpu-worker":""}},
 "status":{"conditions":[{"type":"Ready","status":"True"}],
  "addresses":[{"type":"InternalIP","address":"10.0.0.11"}],
  "capacity":{"nvidia.com/gpu":"8","cpu":"64","memory":"512Gi"},
  "allocatable":{"nvidia.com/gpu":"8","cpu":"64","memory":"512Gi"}}},
{"apiVersion":"v1","kind":"Node","metadata":{"name":"cpu-1","labels":{
  "kubernetes.io/hostname":"cpu-1","node-role.kubernetes.io/control-plane":""}},
 "status":{"conditions":[{"type":"Ready","status":"True"}],
  "addresses":[{"type":"InternalIP","address":"10.0.0.12"}],
  "allocatable":{"cpu":"16","memory":"64Gi"}}},
{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"local-path",
  "annotations":{"storageclass.kubernetes.io/is-default-class":"true"}},
 "provisioner":"rancher.io/local-path"},
{"apiVersion":"networking.k8s.io/v1","kind":"IngressClass","metadata":{"name":"nginx",
  "annotations":{"ingressclass.kubernetes.io/is-default-class":"true"}},
 "spec":{"controller":"k8s.io/ingress-nginx"}},
{"apiVersion":"nvidia.com/v1","kind":"ClusterPolicy","metadata":{"name":"cluster-policy"},
 "spec":{},"status":{"state":"ready"}},
{"apiVersion":"monitoring.coreos.com/v1","kind":"Prometheus",
 "metadata":{"name":"kube-prometheus","namespace":"monitoring"},"spec":{}},
{"apiVersion":"apps/v1","kind":"DaemonSet",
 "metadata":{"name":"nvidia-device-plugin-daemonset","namespace":"gpu-operator"},
 "spec":{},"status":{"desiredNumberScheduled":1,"numberReady":1}},
{"apiVersion":"apps/v1","kind":"DaemonSet",
 "metadata":{"name":"nvidia-dcgm-exporter","namespace":"gpu-operator"},
 "spec":{},"status":{"desiredNumberScheduled":1,"numberReady":1}}
]
EOF
}

api_delete() {	# api_delete PATH: ignore 404
	kube_api -o /dev/null -X DELETE "$KUBESIM_URL$1"
}

seed() {
	sim POST /_sim/seed - >/dev/null
}

reset_cluster() {
	local p
	for p in /api/v1/nodes /apis/storage.k8s.io/v1/storageclasses \
		/apis/networking.k8s.io/v1/ingressclasses \
		/api/v1/namespaces/gpu-operator /api/v1/namespaces/monitoring \
		/api/v1/namespaces/runai-backend /api/v1/namespaces/runai/secrets \
		/api/v1/namespaces/runai/pods /api/v1/namespaces/default/services \
		/apis/apiextensions.k8s.io/v1/customresourcedefinitions/clusterpolicies.nvidia.com \
		/apis/apiextensions.k8s.io/v1/customresourcedefinitions/prometheuses.monitoring.coreos.com \
		/apis/apiextensions.k8s.io/v1/customresourcedefinitions/servicemonitors.monitoring.coreos.com \
		/apis/apiextensions.k8s.io/v1/customresourcedefinitions/podmonitors.monitoring.coreos.com; do
		api_delete "$p"
	done
	baseline | seed
}

setup_file() {
	PKI="$BATS_FILE_TMPDIR/pki"
	export PKI
	mkdir -p "$PKI"
	mkca ca
	mkca inter ca
	mkleaf good inter 400 DNS:runai.example.com
	cat "$PKI/good.crt" "$PKI/inter.crt" >"$PKI/good-chain.crt"
	mkleaf soon inter 10 DNS:runai.example.com
	mkleaf expired inter -1 DNS:runai.example.com
	mkleaf wrongsan inter 400 DNS:other.example.com
	mkleaf reg ca 400 DNS:localhost,IP:127.0.0.1
	mkleaf direct ca 400 DNS:runai.example.com
	newkey self
	openssl req -x509 -new -key "$PKI/self.key" -subj /CN=runai.example.com -days 400 \
		-addext subjectAltName=DNS:runai.example.com -out "$PKI/self.crt" 2>/dev/null
	newkey stranger
	[ -s "$PKI/good.crt" ] && [ -s "$PKI/reg.crt" ] && [ -s "$PKI/self.crt" ]

	kubesim_start
	sim POST /_sim/controller '{"paused": true}' >/dev/null
	sim POST /_sim/users '{"user":"bob","groups":["researchers"],"token":"t-bob"}' >/dev/null
	if command -v docker-registry >/dev/null && command -v htpasswd >/dev/null; then
		start_registry plain
		start_registry tls tls
	fi
}

teardown_file() {
	local f
	for f in "$BATS_FILE_TMPDIR"/reg-*.pid; do
		[ -f "$f" ] && stop_pid "$(cat "$f")"
	done
	kubesim_stop
}

setup() {
	isolate_env
	use_sim_kubeconfig
	mkdir "$BATS_TEST_TMPDIR/work"
	cd "$BATS_TEST_TMPDIR/work"
	reset_cluster
	PIDS=()
}

teardown() {
	local p
	for p in "${PIDS[@]}"; do
		stop_pid "$p"
	done
}

# check ID ARGS...: runs one check as JSON; sets STATUS, MSG, HINT, RC
check() {
	local id=$1
	shift
	# a check's own time limit: 2 s, times TIME_SCALE (a loaded machine
	# took longer than 2 s to get a registry's answer)
	run --separate-stderr runai-adm preflight --no-report --timeout $((2 * TIME_SCALE)) \
		--only "$id" -o json "$@"
	RC=$status
	[ -z "$stderr" ] || { echo "stderr: $stderr" >&2; return 1; }
	[ "$(jq '.checks | length' <<<"$output")" -eq 1 ] || { echo "$output" >&2; return 1; }
	STATUS=$(jq -r '.checks[0].status' <<<"$output")
	MSG=$(jq -r '.checks[0].message' <<<"$output")
	HINT=$(jq -r '.checks[0].hint // ""' <<<"$output")
}

# expect ID STATUS MESSAGE-PART ARGS...: the check's result and exit code
expect() {
	local id=$1 want=$2 part=$3
	shift 3
	check "$id" "$@" || return 1
	if [ "$STATUS" != "$want" ] || [[ "$MSG" != *"$part"* ]]; then
		echo "$id: want $want with '$part'; got $STATUS: $MSG" >&2
		return 1
	fi
	case $want in
	FAIL) [ "$RC" -eq 1 ] ;;
	*) [ "$RC" -eq 0 ] ;;
	esac || { echo "exit status $RC for $want" >&2; return 1; }
	case $want in
	WARN|FAIL) [ -n "$HINT" ] || { echo "no hint" >&2; return 1; } ;;
	esac
}

# ---- k8s.version (the support matrix) ----

matrix() {	# matrix MIN MAX > m.yaml
	printf 'kubernetes:\n  minimum: "%s"\n  maximumTested: "%s"\n' "$1" "$2" >m.yaml
}

@test "k8s.version: PASS within the built-in matrix" {
	expect k8s.version PASS "Kubernetes v1.32.5 (supported: 1.21 to 1.32)"
	[ "$(jq -r '.checks[0].title' <<<"$output")" = "Kubernetes version" ]
}

@test "k8s.version: WARN above the newest tested version" {
	matrix 1.21 1.31
	expect k8s.version WARN "Kubernetes v1.32.5 is newer than the newest tested version 1.31" --matrix m.yaml
}

@test "k8s.version: FAIL below the minimum" {
	matrix 1.33 1.35
	expect k8s.version FAIL "Kubernetes v1.32.5 is older than the oldest supported version 1.33" --matrix m.yaml
}

@test "k8s.version: a bad matrix file is a tool error (exit 2)" {
	printf 'kubernetes:\n  minimum: 1.30\n  maximumTested: "1.32"\n' >m.yaml
	run -2 --separate-stderr runai-adm preflight --no-report --matrix m.yaml
	stderr_is "runai-adm: error: support matrix 'm.yaml': kubernetes.minimum must be a quoted string such as \"1.30\""
	[ -z "$output" ]
}

# ---- k8s.nodes.ready ----

@test "k8s.nodes.ready: PASS when every node is Ready" {
	expect k8s.nodes.ready PASS "2 nodes, all Ready"
}

@test "k8s.nodes.ready: WARN for a cordoned node under pressure" {
	seed <<'EOF'
{"apiVersion":"v1","kind":"Node","metadata":{"name":"cpu-1"},"spec":{"unschedulable":true},
 "status":{"conditions":[{"type":"Ready","status":"True"},{"type":"DiskPressure","status":"True"}]}}
EOF
	expect k8s.nodes.ready WARN "2 nodes, cordoned: cpu-1; under pressure: cpu-1 (DiskPressure)"
}

@test "k8s.nodes.ready: FAIL when a GPU node is NotReady" {
	seed <<'EOF'
{"apiVersion":"v1","kind":"Node","metadata":{"name":"gpu-1","labels":{"nvidia.com/gpu.present":"true"}},
 "status":{"conditions":[{"type":"Ready","status":"Unknown"}],"allocatable":{"nvidia.com/gpu":"8"}}}
EOF
	expect k8s.nodes.ready FAIL "1 of 2 nodes not Ready: gpu-1"
}

@test "k8s.nodes.ready: FAIL with no nodes" {
	api_delete /api/v1/nodes
	expect k8s.nodes.ready FAIL "the cluster has no nodes"
}

# ---- k8s.rbac ----

@test "k8s.rbac: PASS for a cluster admin, asked through SelfSubjectAccessReviews" {
	mark_requests
	expect k8s.rbac PASS "the current identity has the rights the installation needs (9 access reviews)"
	assert_request POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews \
		'.body.spec.resourceAttributes == {"verb":"create","group":"apiextensions.k8s.io","resource":"customresourcedefinitions"}'
	assert_request POST /apis/authorization.k8s.io/v1/selfsubjectaccessreviews \
		'.body.spec.resourceAttributes.namespace == "runai-backend"'
}

@test "k8s.rbac: FAIL for an identity without cluster-admin rights" {
	sed -i 's/token: .*/token: t-bob/' "$KUBECONFIG"
	expect k8s.rbac FAIL "the current identity may not: create namespaces, create customresourcedefinitions.apiextensions.k8s.io"
	[[ "$HINT" == *"cluster-admin"* ]]
}

@test "k8s.rbac: WARN when the access reviews cannot be asked" {
	sim POST /_sim/faults '{"path_prefix":"/apis/authorization.k8s.io/v1/selfsubjectaccessreviews","count":1,"status":500}' >/dev/null
	expect k8s.rbac WARN "cannot check the rights (SelfSubjectAccessReview)"
	sim DELETE /_sim/faults >/dev/null
}

# ---- nvidia.gpu-nodes ----

@test "nvidia.gpu-nodes: PASS with GFD labels and allocatable GPUs" {
	expect nvidia.gpu-nodes PASS "1 GPU node: gpu-1 (8x NVIDIA-H100-80GB-HBM3)"
}

@test "nvidia.gpu-nodes: WARN for allocatable GPUs without GPU feature discovery labels" {
	seed <<'EOF'
{"apiVersion":"v1","kind":"Node","metadata":{"name":"gpu-2"},
 "status":{"conditions":[{"type":"Ready","status":"True"}],"allocatable":{"nvidia.com/gpu":"4"}}}
EOF
	expect nvidia.gpu-nodes WARN "GPU nodes without GPU feature discovery labels: gpu-2"
}

@test "nvidia.gpu-nodes: FAIL for NVIDIA labels without allocatable GPUs" {
	seed <<'EOF'
{"apiVersion":"v1","kind":"Node","metadata":{"name":"gpu-3","labels":{"feature.node.kubernetes.io/pci-10de.present":"true"}},
 "status":{"conditions":[{"type":"Ready","status":"True"}],"allocatable":{"nvidia.com/gpu":"0"}}}
EOF
	expect nvidia.gpu-nodes FAIL "nodes with NVIDIA GPUs but no allocatable nvidia.com/gpu: gpu-3"
}

@test "nvidia.gpu-nodes: FAIL with no GPU node" {
	api_delete /api/v1/nodes/gpu-1
	expect nvidia.gpu-nodes FAIL "no GPU nodes"
}

# ---- nvidia.gpu-operator ----

@test "nvidia.gpu-operator: PASS when the ClusterPolicy is ready" {
	expect nvidia.gpu-operator PASS "ClusterPolicy cluster-policy is ready"
}

@test "nvidia.gpu-operator: WARN when the ClusterPolicy is not ready" {
	seed <<'EOF'
{"apiVersion":"nvidia.com/v1","kind":"ClusterPolicy","metadata":{"name":"cluster-policy"},"spec":{},"status":{"state":"notReady"}}
EOF
	expect nvidia.gpu-operator WARN "ClusterPolicy cluster-policy is 'notReady'"
}

@test "nvidia.gpu-operator: FAIL without the operator's CRD" {
	api_delete /apis/apiextensions.k8s.io/v1/customresourcedefinitions/clusterpolicies.nvidia.com
	expect nvidia.gpu-operator FAIL "the NVIDIA GPU Operator is not installed (no CustomResourceDefinition clusterpolicies.nvidia.com)"
}

# ---- nvidia.device-plugin ----

@test "nvidia.device-plugin: PASS when the device plugin and dcgm-exporter are ready" {
	expect nvidia.device-plugin PASS "gpu-operator/nvidia-device-plugin-daemonset 1/1 ready; gpu-operator/nvidia-dcgm-exporter 1/1 ready"
}

@test "nvidia.device-plugin: WARN without dcgm-exporter" {
	api_delete /apis/apps/v1/namespaces/gpu-operator/daemonsets/nvidia-dcgm-exporter
	expect nvidia.device-plugin WARN "no dcgm-exporter DaemonSet"
}

@test "nvidia.device-plugin: FAIL when no device plugin pod is ready" {
	seed <<'EOF'
{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"nvidia-device-plugin-daemonset","namespace":"gpu-operator"},
 "spec":{},"status":{"desiredNumberScheduled":2,"numberReady":0}}
EOF
	expect nvidia.device-plugin FAIL "gpu-operator/nvidia-device-plugin-daemonset 0/2 ready"
}

@test "nvidia.device-plugin: FAIL without a device plugin" {
	api_delete /api/v1/namespaces/gpu-operator
	expect nvidia.device-plugin FAIL "no NVIDIA device plugin DaemonSet"
}

# ---- storage.default-class ----

@test "storage.default-class: PASS with one default" {
	expect storage.default-class PASS "default StorageClass local-path (rancher.io/local-path)"
}

@test "storage.default-class: WARN with two defaults (the beta annotation counts)" {
	seed <<'EOF'
{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"nfs",
 "annotations":{"storageclass.beta.kubernetes.io/is-default-class":"true"}},"provisioner":"nfs.csi.k8s.io"}
EOF
	expect storage.default-class WARN "2 default StorageClasses: local-path, nfs"
}

@test "storage.default-class: FAIL when no class is the default" {
	seed <<'EOF'
{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"local-path","annotations":{}},
 "provisioner":"rancher.io/local-path"}
EOF
	expect storage.default-class FAIL "no default StorageClass among: local-path"
}

@test "storage.default-class: FAIL with no StorageClass" {
	api_delete /apis/storage.k8s.io/v1/storageclasses
	expect storage.default-class FAIL "no StorageClass at all"
}

# ---- net.ingress ----

@test "net.ingress: PASS with a default IngressClass" {
	expect net.ingress PASS "default IngressClass nginx (controller k8s.io/ingress-nginx)"
}

@test "net.ingress: WARN without a default IngressClass" {
	seed <<'EOF'
{"apiVersion":"networking.k8s.io/v1","kind":"IngressClass","metadata":{"name":"nginx"},"spec":{"controller":"k8s.io/ingress-nginx"}}
EOF
	expect net.ingress WARN "no default IngressClass among: nginx"
}

@test "net.ingress: FAIL without an IngressClass" {
	api_delete /apis/networking.k8s.io/v1/ingressclasses
	expect net.ingress FAIL "no IngressClass: no ingress controller is installed"
}

# ---- runai.prometheus ----

@test "runai.prometheus: PASS with the CRDs and an instance" {
	expect runai.prometheus PASS "Prometheus Operator CRDs present; Prometheus monitoring/kube-prometheus"
}

@test "runai.prometheus: WARN without a Prometheus instance" {
	api_delete /apis/monitoring.coreos.com/v1/namespaces/monitoring/prometheuses/kube-prometheus
	expect runai.prometheus WARN "no Prometheus instance exists"
}

@test "runai.prometheus: WARN when some of the operator's CRDs are missing" {
	api_delete /apis/apiextensions.k8s.io/v1/customresourcedefinitions/podmonitors.monitoring.coreos.com
	expect runai.prometheus WARN "Prometheus Operator CRDs missing: podmonitors.monitoring.coreos.com"
}

@test "runai.prometheus: FAIL without the Prometheus CRD" {
	api_delete /apis/apiextensions.k8s.io/v1/customresourcedefinitions/prometheuses.monitoring.coreos.com
	expect runai.prometheus FAIL "the Prometheus Operator is not installed"
}

@test "air-gapped runs get hints without online chart repositories" {
	api_delete /apis/apiextensions.k8s.io/v1/customresourcedefinitions/prometheuses.monitoring.coreos.com
	expect runai.prometheus FAIL "the Prometheus Operator is not installed" --airgapped --registry 127.0.0.1:5
	[[ "$HINT" == *"chart archive brought in"* ]]
	api_delete /apis/apiextensions.k8s.io/v1/customresourcedefinitions/clusterpolicies.nvidia.com
	expect nvidia.gpu-operator FAIL "the NVIDIA GPU Operator is not" --airgapped --registry 127.0.0.1:5
	[[ "$HINT" == *"./gpu-operator-VERSION.tgz"* && "$HINT" != *"nvidia/gpu-operator"* ]]
	expect nvidia.gpu-operator FAIL "the NVIDIA GPU Operator is not"
	[[ "$HINT" == *"helm install gpu-operator nvidia/gpu-operator"* ]]
}

@test "k8s.version: --runai-version picks that release's row of the matrix" {
	expect k8s.version PASS "Kubernetes v1.32.5 (supported: 1.21 to 1.32)"
	expect k8s.version WARN "Kubernetes v1.32.5 is newer than the newest tested version for Run:ai 2.9 1.26" --runai-version 2.9.3
	expect k8s.version WARN "for Run:ai 2.4 1.24" --runai-version 2.8
	expect k8s.version PASS "Kubernetes v1.32.5 (supported for Run:ai 2.10: 1.21 to 1.32)" --runai-version 2.18
	run -2 --separate-stderr runai-adm preflight --no-report --only k8s.version --runai-version 2.3
	assert_equal "$stderr" "runai-adm: error: support matrix 'support-matrix.yaml (built in)' has no row for Run:ai 2.3"
	run -2 --separate-stderr runai-adm preflight --no-report --only k8s.version --runai-version latest
	assert_equal "$stderr" "runai-adm: error: invalid --runai-version 'latest': give it as MAJOR.MINOR, e.g. 2.9"
}

# ---- runai.node-roles ----

@test "runai.node-roles: WARN with fewer than two runai-system nodes; PASS lists the roles set" {
	expect runai.node-roles WARN "no runai-system node: Run:ai recommends dedicated runai-system nodes, two or more"
	[[ "$HINT" == "runai-adm set node-role --runai-system-worker NODE NODE" ]]
	seed <<'EOF'
{"apiVersion":"v1","kind":"Node","metadata":{"name":"sys-1","labels":{"node-role.kubernetes.io/runai-system":"true"}},
 "status":{"conditions":[{"type":"Ready","status":"True"}]}}
EOF
	expect runai.node-roles WARN "one runai-system node: "
	seed <<'EOF'
{"apiVersion":"v1","kind":"Node","metadata":{"name":"sys-2","labels":{"node-role.kubernetes.io/runai-system":"true"}},
 "status":{"conditions":[{"type":"Ready","status":"True"}]}}
EOF
	expect runai.node-roles PASS "runai-system: sys-1, sys-2; runai-gpu-worker: gpu-1"
}

@test "runai.node-roles: WARN for a role set to false and for the control plane as a system node" {
	seed <<'EOF'
{"apiVersion":"v1","kind":"Node","metadata":{"name":"cpu-1","labels":{
  "node-role.kubernetes.io/control-plane":"","node-role.kubernetes.io/runai-system":"false"}},
 "status":{"conditions":[{"type":"Ready","status":"True"}]}}
EOF
	expect runai.node-roles WARN 'role labels set to "false" still mark the node: cpu-1 (runai-system); control-plane nodes labelled runai-system: cpu-1'
}

@test "runai.node-roles: FAIL for a GPU-worker role on a node without GPUs" {
	seed <<'EOF'
{"apiVersion":"v1","kind":"Node","metadata":{"name":"cpu-1","labels":{"node-role.kubernetes.io/runai-gpu-worker":""}},
 "status":{"conditions":[{"type":"Ready","status":"True"}],"allocatable":{"cpu":"16"}}}
EOF
	expect runai.node-roles FAIL "runai-gpu-worker nodes without allocatable GPUs: cpu-1"
}

@test "runai.node-roles: WARN, not PASS, for a runai-system node that is also a GPU worker" {
	seed <<'EOF'
[{"apiVersion":"v1","kind":"Node","metadata":{"name":"sys-1","labels":{"node-role.kubernetes.io/runai-system":"true"}},
  "status":{"conditions":[{"type":"Ready","status":"True"}]}},
 {"apiVersion":"v1","kind":"Node","metadata":{"name":"sys-2","labels":{"node-role.kubernetes.io/runai-system":"true",
   "node-role.kubernetes.io/runai-gpu-worker":"true"}},
  "status":{"conditions":[{"type":"Ready","status":"True"}],"allocatable":{"nvidia.com/gpu":"4"}}}]
EOF
	expect runai.node-roles WARN "runai-system nodes that are also GPU workers (system nodes should be dedicated): sys-2"
	[[ "$HINT" == *"runai-adm remove node-role"* ]]
}

@test "runai.node-roles: WARN naming a control-plane node's NoSchedule taint under a Run:ai role" {
	seed <<'EOF'
[{"apiVersion":"v1","kind":"Node","metadata":{"name":"sys-1","labels":{"node-role.kubernetes.io/runai-system":"true"}},
  "status":{"conditions":[{"type":"Ready","status":"True"}]}},
 {"apiVersion":"v1","kind":"Node","metadata":{"name":"cp-1","labels":{"node-role.kubernetes.io/control-plane":"",
   "node-role.kubernetes.io/runai-cpu-worker":"true"}},
  "spec":{"taints":[{"key":"node-role.kubernetes.io/control-plane","effect":"NoSchedule"}]},
  "status":{"conditions":[{"type":"Ready","status":"True"}]}}]
EOF
	expect runai.node-roles WARN "control-plane nodes with a Run:ai role keep taints its pods do not tolerate: cp-1 (node-role.kubernetes.io/control-plane:NoSchedule)"
	[[ "$HINT" == *"kubectl taint nodes NODE KEY:EFFECT-"* ]]
}

# ---- runai.existing-install ----

@test "runai.existing-install: PASS on a fresh cluster (an empty runai namespace)" {
	expect runai.existing-install PASS "no earlier Run:ai installation"
}

@test "runai.existing-install: WARN for a Helm release and pods left behind" {
	seed <<'EOF'
[{"apiVersion":"v1","kind":"Secret","type":"helm.sh/release.v1",
  "metadata":{"name":"sh.helm.release.v1.runai-backend.v3","namespace":"runai-backend",
   "labels":{"owner":"helm","name":"runai-backend","status":"deployed","version":"3"}}},
 {"apiVersion":"v1","kind":"Pod","metadata":{"name":"runai-agent-0","namespace":"runai"},
  "spec":{"containers":[{"name":"a","image":"x"}]}}]
EOF
	expect runai.existing-install WARN "Run:ai is (or was) installed: Helm release runai-backend (runai-backend, deployed), 1 pod in runai"
}

@test "runai.existing-install: FAIL while a namespace is being deleted" {
	seed <<'EOF'
{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"runai-backend"},"status":{"phase":"Terminating"}}
EOF
	expect runai.existing-install FAIL "namespaces being deleted: runai-backend"
}

# ---- the API server down ----

@test "an API server that refuses the credentials (401) is said to, not to be down" {
	sed -i 's#token: .*#token: not-the-token#' "$KUBECONFIG"
	grep -q 'token: not-the-token' "$KUBECONFIG"
	run -2 --separate-stderr runai-adm preflight --no-report --timeout 2 -o json --only 'k8s.*'
	local json=$output
	run -0 jq -r '.checks[0] | "\(.id) \(.status) \(.message)"' <<<"$json"
	assert_output --partial "k8s.version FAIL the Kubernetes API server refused the credentials (HTTP 401)"
	refute_output --partial "does not answer"
	run -0 jq -r '.checks[1].message' <<<"$json"
	assert_output "not checked: the Kubernetes API server refused the credentials"
}


@test "an unreachable API server: the first API check FAILs, the others SKIP, host checks run, exit 2" {
	sed -i "s#server: .*#server: https://127.0.0.1:$(free_port)#" "$KUBECONFIG"
	SECONDS=0
	# preflight could not run its cluster checks: 2, as for no kubeconfig
	run -2 --separate-stderr runai-adm preflight --no-report --timeout 2 -o json \
		--only 'k8s.*' --only storage.nfs
	[ "$SECONDS" -lt $((5 * TIME_SCALE)) ]
	[ "$(jq -r .exitCode <<<"$output")" = 2 ]
	run -0 jq -r '.checks[] | "\(.id) \(.status)"' <<<"$output"
	assert_output 'k8s.version FAIL
k8s.nodes.ready SKIP
k8s.rbac SKIP
storage.nfs SKIP'
	# the table and the report of what ran still come out
	run -2 --separate-stderr runai-adm preflight --report "$BATS_TEST_TMPDIR/report.txt" \
		--timeout 2 --only 'k8s.*'
	assert_line --regexp '^k8s.version +FAIL'
	grep -qE '^k8s.version +FAIL' "$BATS_TEST_TMPDIR/report.txt"
}

@test "a stalled API server costs the request timeout, not minutes" {
	sim POST /_sim/faults '{"path_prefix":"/version","count":5,"delay":30}' >/dev/null
	SECONDS=0
	run -2 --separate-stderr runai-adm --request-timeout 1s preflight --no-report \
		--timeout 1 --only k8s.version -o json
	[ "$SECONDS" -lt $((8 * TIME_SCALE)) ]
	sim DELETE /_sim/faults >/dev/null
	[ "$(jq -r '.checks[0].status' <<<"$output")" = FAIL ]
	[[ "$(jq -r '.checks[0].message' <<<"$output")" == *"timed out"* ]]
}

# ---- net.dns.host ----

@test "net.dns.host: PASS when the domain resolves to a node address" {
	seed <<'EOF'
{"apiVersion":"v1","kind":"Node","metadata":{"name":"cpu-1"},
 "status":{"conditions":[{"type":"Ready","status":"True"}],"addresses":[{"type":"InternalIP","address":"127.0.0.1"}]}}
EOF
	expect net.dns.host PASS "localhost resolves to 127.0.0.1" --domain localhost
	[[ "$MSG" == *"(a node or load-balancer address)"* ]]
}

@test "net.dns.host: PASS when the domain resolves to a load balancer's address" {
	seed <<'EOF'
{"apiVersion":"v1","kind":"Service","metadata":{"name":"ingress-nginx","namespace":"default"},
 "spec":{"type":"LoadBalancer","ports":[{"port":443}]},
 "status":{"loadBalancer":{"ingress":[{"ip":"127.0.0.1"}]}}}
EOF
	expect net.dns.host PASS "(a node or load-balancer address)" --domain localhost
}

@test "net.dns.host: WARN when it resolves to no node or load-balancer address" {
	expect net.dns.host WARN "localhost resolves to 127.0.0.1" --domain localhost
	[[ "$MSG" == *"which is no node or load-balancer address"* ]]
}

@test "net.dns.host: SKIP without --domain" {
	expect net.dns.host SKIP "no --domain given"
}

# start_dns MODE: a loopback DNS server on a random 127.x address that
# answers A 127.0.0.1, says NXDOMAIN, or never answers ("dead"), and a
# resolv.conf naming it. Stopped by its PID in teardown.
start_dns() {
	local mode=$1 ip pid i
	ip="127.$((RANDOM % 200 + 20)).$((RANDOM % 250 + 1)).$((RANDOM % 250 + 1))"
	cat >dns.py <<'EOF'
import socket, struct, sys
mode, ip, ready = sys.argv[1], sys.argv[2], sys.argv[3]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind((ip, 53))
open(ready, "w").write("ready\n")
while True:
    data, peer = s.recvfrom(512)
    if mode == "dead" or len(data) < 17:
        continue
    i = 12
    while i < len(data) and data[i] != 0:
        i += data[i] + 1
    q, qtype = data[12:i + 5], struct.unpack(">H", data[i + 1:i + 3])[0]
    an = 1 if mode == "answer" and qtype == 1 else 0
    hdr = data[:2] + struct.pack(">HHHHH", 0x8180 | (3 if mode == "nxdomain" else 0), 1, an, 0, 0)
    rr = b"\xc0\x0c" + struct.pack(">HHIH", 1, 1, 60, 4) + socket.inet_aton("127.0.0.1") if an else b""
    s.sendto(hdr + q + rr, peer)
EOF
	"$PYTHON" dns.py "$mode" "$ip" dns.ready </dev/null >dns.log 2>&1 &
	pid=$!
	PIDS+=("$pid")
	for i in $(seq 1 $((100 * TIME_SCALE))); do
		[ -s dns.ready ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	[ -s dns.ready ] || { cat dns.log >&2; echo "the DNS server did not start" >&2; return 1; }
	printf 'nameserver %s\noptions timeout:5 attempts:3\n' "$ip" >resolv.conf
}

# in_dns CMD...: CMD in a private mount namespace whose /etc/resolv.conf
# is the one start_dns wrote.
in_dns() {
	unshare --mount sh -c 'mount --bind "$1" /etc/resolv.conf && shift && exec "$@"' \
		sh "$PWD/resolv.conf" "$@"
}

needs_unshare() {
	unshare --mount sh -c 'mount --bind /dev/null /etc/hostname' 2>/dev/null ||
		skip "no private mount namespaces here (needs root)"
}

@test "net.dns.host: PASS through a DNS server (in a private mount namespace)" {
	needs_unshare
	seed <<'EOF'
{"apiVersion":"v1","kind":"Node","metadata":{"name":"cpu-1"},
 "status":{"conditions":[{"type":"Ready","status":"True"}],"addresses":[{"type":"InternalIP","address":"127.0.0.1"}]}}
EOF
	start_dns answer
	run -0 in_dns runai-adm preflight --no-report --timeout 2 --only net.dns.host \
		--domain runai.example.com -o json
	[ "$(jq -r '.checks[0].status' <<<"$output")" = PASS ]
	[[ "$(jq -r '.checks[0].message' <<<"$output")" == "runai.example.com resolves to 127.0.0.1"* ]]
}

@test "net.dns.host: FAIL when the name does not exist" {
	needs_unshare
	start_dns nxdomain
	run -1 in_dns runai-adm preflight --no-report --timeout 2 --only net.dns.host \
		--domain runai.example.com -o json
	[ "$(jq -r '.checks[0].status' <<<"$output")" = FAIL ]
	[ "$(jq -r '.checks[0].message' <<<"$output")" = "cannot resolve 'runai.example.com': Name or service not known" ]
}

@test "net.dns.host: a dead resolver costs the timeout (FAIL), not the resolver's 15 s" {
	needs_unshare
	start_dns dead
	SECONDS=0
	run -1 in_dns runai-adm preflight --no-report --timeout 1 --only net.dns.host \
		--domain runai.example.com -o json
	# a loaded machine's or valgrind's start-up alone can take seconds;
	# 10 still ends well before the resolver's own 15
	[ "$SECONDS" -lt 10 ]
	[ "$(jq -r '.checks[0].status' <<<"$output")" = FAIL ]
	[ "$(jq -r '.checks[0].message' <<<"$output")" = "cannot resolve 'runai.example.com': no answer within 1s" ]
}

# ---- net.tls.files ----

@test "net.tls.files: PASS for a matching key, the name and a verified chain" {
	expect net.tls.files PASS "key matches, valid until" --domain runai.example.com \
		--tls-cert "$PKI/good-chain.crt" --tls-key "$PKI/good.key" --ca-file "$PKI/ca.crt"
}

@test "net.tls.files: FAIL for --ca-file given the leaf itself (no CA)" {
	expect net.tls.files FAIL "the CA file holds a certificate that is no CA" --domain runai.example.com \
		--tls-cert "$PKI/good-chain.crt" --tls-key "$PKI/good.key" --ca-file "$PKI/good.crt"
}

@test "net.tls.files: WARN for a certificate that expires soon" {
	expect net.tls.files WARN "the certificate expires in" --domain runai.example.com \
		--tls-cert "$PKI/soon.crt" --tls-key "$PKI/soon.key"
}

@test "net.tls.files: FAIL for a key that does not match (wrong key)" {
	expect net.tls.files FAIL "the private key does not match the certificate" \
		--domain runai.example.com --tls-cert "$PKI/good.crt" --tls-key "$PKI/stranger.key"
}

@test "net.tls.files: SKIP without --tls-cert" {
	expect net.tls.files SKIP "no --tls-cert given"
}

# ---- net.tls.live (openssl s_server on loopback; --tls-endpoint) ----

# serve CERT KEY [s_server options...]: TLS on a free port; sets EP
serve() {
	local cert=$1 key=$2 port pid
	shift 2
	port=$(free_port)
	openssl s_server -quiet -www -accept "127.0.0.1:$port" -cert "$PKI/$cert" \
		-key "$PKI/$key" "$@" </dev/null >s_server.log 2>&1 &
	pid=$!
	PIDS+=("$pid")
	wait_port "$port" "$pid" || { cat s_server.log >&2; return 1; }
	EP="127.0.0.1:$port"
}

live() {	# live STATUS MESSAGE-PART ARGS...
	local want=$1 part=$2
	shift 2
	expect net.tls.live "$want" "$part" --domain runai.example.com --tls-endpoint "$EP" "$@"
}

@test "net.tls.live: PASS for the full chain, the name and the CA" {
	serve good.crt good.key -cert_chain "$PKI/inter.crt"
	live PASS "runai.example.com (127.0.0.1 port ${EP#*:}) serves a certificate that verifies" \
		--ca-file "$PKI/ca.crt"
}

@test "net.tls.live: the SNI is the domain (s_server picks the certificate by it)" {
	serve wrongsan.crt wrongsan.key -servername runai.example.com \
		-cert2 "$PKI/direct.crt" -key2 "$PKI/direct.key"
	live PASS "serves a certificate that verifies" --ca-file "$PKI/ca.crt"
}

@test "net.tls.live: WARN for a certificate that expires within 30 days" {
	serve soon.crt soon.key -cert_chain "$PKI/inter.crt"
	live WARN "the certificate expires in" --ca-file "$PKI/ca.crt"
}

@test "net.tls.live: FAIL for an expired certificate" {
	serve expired.crt expired.key -cert_chain "$PKI/inter.crt"
	live FAIL "the certificate expired on" --ca-file "$PKI/ca.crt"
}

@test "net.tls.live: FAIL for a certificate without the domain in its SAN" {
	serve wrongsan.crt wrongsan.key -cert_chain "$PKI/inter.crt"
	live FAIL "the certificate does not cover 'runai.example.com' (subject alternative names: DNS:other.example.com)" \
		--ca-file "$PKI/ca.crt"
}

@test "net.tls.live: FAIL for a self-signed certificate" {
	serve self.crt self.key
	live FAIL "the certificate is self-signed and not trusted by the CA file" --ca-file "$PKI/ca.crt"
	[[ "$HINT" == *"--ca-file"* ]]
}

@test "net.tls.live: FAIL when the server sends the leaf without its chain" {
	serve good.crt good.key
	live FAIL "only the leaf certificate is there, and its issuer (/CN=inter) is not in the CA file; include the intermediate certificates" \
		--ca-file "$PKI/ca.crt"
}

@test "net.tls.live: FAIL for a chain the system store does not trust (no --ca-file)" {
	serve good.crt good.key -cert_chain "$PKI/inter.crt"
	live FAIL "the chain does not verify against the system's CA store"
}

@test "net.tls.live: WARN when nothing listens yet" {
	EP="127.0.0.1:$(free_port)"
	live WARN "Connection refused"
}

@test "net.tls.live: a silent endpoint costs the timeout (FAIL: it accepted, never spoke TLS)" {
	local port
	port=$(free_port)
	"$PYTHON" -c 'import socket,sys,time
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(5)
c=[]
while True: c.append(s.accept()[0])' "$port" </dev/null >/dev/null 2>&1 &
	PIDS+=("$!")
	wait_port "$port" "$!"
	EP="127.0.0.1:$port"
	SECONDS=0
	check net.tls.live --domain runai.example.com --tls-endpoint "$EP" --timeout 1
	[ "$SECONDS" -lt $((5 * TIME_SCALE)) ]
	[ "$STATUS" = FAIL ]
	[[ "$MSG" == *"TLS handshake with 127.0.0.1 port $port: no answer within 1s"* ]]
}

@test "net.tls.live: both names are checked, the worst result wins" {
	serve good.crt good.key -cert_chain "$PKI/inter.crt"
	# the cluster domain is localhost:443, where nothing listens
	live WARN "serves a certificate that verifies" --ca-file "$PKI/ca.crt" \
		--cluster-domain localhost
	[[ "$MSG" == *"; localhost: cannot connect to localhost port 443"* ]]
}

@test "net.tls.live: SKIP without --domain" {
	expect net.tls.live SKIP "no --domain given"
}

# ---- net.registry (the real docker-registry) ----

needs_registry() {
	[ -n "${REG_plain:-}" ] || skip "docker-registry (or htpasswd) is not installed"
}

@test "net.registry: PASS for TLS with authentication (401 and WWW-Authenticate)" {
	needs_registry
	mark_requests
	expect net.registry PASS "$REG_tls answers GET /v2/ over HTTPS and asks for credentials (Basic realm=\"test-realm\")" \
		--registry "$REG_tls" --ca-file "$PKI/ca.crt"
	# the Secret it names is the one generate-values references
	[[ "$MSG" == *": the nodes pull with Secret runai-reg-creds (see net.registry.secret)" ]]
}

@test "net.registry: a path after the address is not part of the probe" {
	needs_registry
	expect net.registry PASS "asks for credentials" --registry "$REG_tls/run-ai/prod" \
		--ca-file "$PKI/ca.crt"
}

@test "net.registry: WARN for a registry that speaks plain HTTP" {
	needs_registry
	expect net.registry WARN "$REG_plain speaks plain HTTP, not HTTPS (GET /v2/ gave 200)" \
		--registry "$REG_plain"
}

@test "net.registry: FAIL for a certificate that is not trusted" {
	needs_registry
	expect net.registry FAIL "the registry's certificate is not trusted" --registry "$REG_tls"
	[[ "$HINT" == *"--ca-file"* ]]
}

@test "net.registry: FAIL for a server that is no registry (401 without WWW-Authenticate)" {
	expect net.registry FAIL "answered 401 without WWW-Authenticate to GET /v2/: not a registry" \
		--registry "127.0.0.1:$KUBESIM_PORT" --ca-file "$KUBESIM_CA"
}

@test "net.registry: FAIL, fast, when nothing listens" {
	SECONDS=0
	expect net.registry FAIL "GET https://127.0.0.1:" --registry "127.0.0.1:$(free_port)"
	[ "$SECONDS" -lt $((4 * TIME_SCALE)) ]
}

@test "net.registry: SKIP without --registry; WARN for --airgapped without one" {
	unset REGISTRY_URL
	expect net.registry SKIP "no --registry given"
	expect net.registry WARN "an air-gapped installation pulls every image from one" --airgapped
}

@test "net.registry: --airgapped probes REGISTRY_URL when --registry is not given, and says so" {
	needs_registry
	run -0 --separate-stderr env REGISTRY_URL="$REG_tls" runai-adm preflight --no-report \
		--only net.registry --airgapped --ca-file "$PKI/ca.crt" -o json
	assert_equal "$stderr" "runai-adm: warning: --registry not given: probing REGISTRY_URL ($REG_tls)"
	run -0 jq -r '.checks[0] | "\(.status) \(.message)"' <<<"$output"
	assert_output --partial "PASS $REG_tls answers GET /v2/ over HTTPS"
	# a connected installation leaves it alone; a bad one is a usage error
	REGISTRY_URL=$REG_tls expect net.registry SKIP "no --registry given"
	run -2 --separate-stderr env REGISTRY_URL=https://x:5000 runai-adm preflight --no-report \
		--only net.registry --airgapped
	assert_equal "$stderr" "runai-adm: error: invalid REGISTRY_URL 'https://x:5000': give it as NAME:PORT, without a scheme"
}

# ---- storage.nfs ----

@test "storage.nfs: PASS when the port answers" {
	expect storage.nfs PASS "127.0.0.1 answers on TCP port $KUBESIM_PORT from this host" \
		--nfs-server "127.0.0.1:$KUBESIM_PORT"
}

@test "storage.nfs: FAIL when nothing answers" {
	local port
	port=$(free_port)
	expect storage.nfs FAIL "cannot connect to 127.0.0.1 port $port: Connection refused" \
		--nfs-server "127.0.0.1:$port"
	# the hint names the port given, not NFS's usual 2049
	[[ "$HINT" == *"blocks TCP port $port (from the nodes as well)"* ]] || { echo "hint: $HINT"; false; }
}

@test "storage.nfs: SKIP without --nfs-server" {
	expect storage.nfs SKIP "no --nfs-server given"
}

# ---- the whole run: table, report file, JSON, colour, exit status ----

ALL=(--domain localhost --tls-endpoint "127.0.0.1:1" --timeout 2)

@test "the table has every check, the hints and a summary; no colour when piped" {
	run -0 --separate-stderr runai-adm preflight "${ALL[@]}"
	[ -z "$stderr" ]
	assert_line --index 0 --regexp '^CHECK +RESULT +MESSAGE$'
	assert_line --regexp '^k8s\.version +PASS +Kubernetes v1\.32\.5'
	assert_line --regexp '^net\.dns\.host +WARN +localhost resolves to 127\.0\.0\.1'
	assert_line --regexp '^storage\.nfs +SKIP +no --nfs-server given$'
	assert_line 'What to do:'
	assert_line --regexp '^  net\.dns\.host: point the record'
	assert_line '17 checks: 10 passed, 3 warnings, 0 failed, 4 skipped'
	assert_line 'report written to runai-preinstall-diagnostics.txt'
	[[ "$output" != *$'\033'* ]]
}

@test "exit 0 when nothing fails, 1 with --strict on a warning, 1 on a failure" {
	run -0 runai-adm preflight --no-report --only k8s.version --only net.dns.host --domain localhost
	assert_line --regexp '^net\.dns\.host +WARN'
	run -1 runai-adm preflight --no-report --only k8s.version --only net.dns.host --domain localhost --strict
	run -0 runai-adm preflight --no-report --only k8s.version
	api_delete /apis/networking.k8s.io/v1/ingressclasses
	run -1 runai-adm preflight --no-report --only 'k8s.*' --only net.ingress
	assert_line --regexp '^net\.ingress +FAIL'
}

@test "the report file: the table without colour under a header, written atomically" {
	run -0 script -qec "runai-adm preflight ${ALL[*]} --only 'k8s.*' --only 'storage.*'" /dev/null
	[[ "$output" == *$'\033[32mPASS\033[0m'* ]]
	run -0 ls -A
	assert_output runai-preinstall-diagnostics.txt
	run -0 cat runai-preinstall-diagnostics.txt
	assert_line --index 0 'runai-adm preflight: pre-install diagnostics'
	assert_line --index 1 --regexp '^runai-adm version: [0-9]+\.[0-9]+\.[0-9]+$'
	assert_line --index 2 --regexp '^date: [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$'
	assert_line --index 3 'context: kube-sim'
	assert_line --index 4 "server: $KUBESIM_URL"
	assert_line --index 5 'domain: localhost'
	assert_line --regexp '^storage\.nfs +SKIP'
	[[ "$output" != *$'\033'* ]]
	# the table part is what stdout showed without colour
	run -0 runai-adm preflight "${ALL[@]}" --only 'k8s.*' --only 'storage.*' --report other.txt
	[ "$(tail -n +8 other.txt)" = "$(printf '%s\n' "$output" | sed '$d')" ]
}

@test "colour only on a terminal, and not with NO_COLOR" {
	run -0 script -qec "runai-adm preflight --no-report --only k8s.version" /dev/null
	[[ "$output" == *$'\033[32mPASS\033[0m'* ]]
	run -0 script -qec "NO_COLOR=1 runai-adm preflight --no-report --only k8s.version" /dev/null
	[[ "$output" != *$'\033'* ]]
	assert_output --partial 'PASS'
}

@test "-o json: every check with id, title, status, message; summary and exit code" {
	run -0 --separate-stderr runai-adm preflight "${ALL[@]}" -o json
	[ -z "$stderr" ]
	run -0 jq -r '[.checks[].id] | join(" ")' <<<"$output"
	assert_output 'k8s.version k8s.nodes.ready k8s.rbac nvidia.gpu-nodes nvidia.gpu-operator nvidia.device-plugin storage.default-class net.ingress runai.prometheus runai.node-roles runai.existing-install net.dns.host net.tls.files net.tls.live net.registry net.registry.secret storage.nfs'
	run --separate-stderr runai-adm preflight "${ALL[@]}" -o json
	[ "$(jq .exitCode <<<"$output")" -eq "$status" ]
	[ "$(jq -c .summary <<<"$output")" = '{"pass":10,"warn":3,"fail":0,"skip":4}' ]
	[ "$(jq -r '.checks[] | select(.status=="WARN" or .status=="FAIL") | has("hint")' <<<"$output" | sort -u)" = true ]
	[ "$(jq -r .reportFile <<<"$output")" = runai-preinstall-diagnostics.txt ]
	[ "$(jq -r .kind <<<"$output")" = PreflightReport ]
}

@test "host checks run without a kubeconfig" {
	rm -f "$KUBECONFIG"
	unset KUBECONFIG
	run -0 --separate-stderr runai-adm preflight --no-report --only 'storage.nfs' \
		--nfs-server "127.0.0.1:$KUBESIM_PORT"
	assert_line --regexp '^storage\.nfs +PASS'
}

@test "usage and tool errors exit 2" {
	run -2 --separate-stderr runai-adm preflight --only net.bogus
	stderr_has "runai-adm: error: --only 'net.bogus' matches no check (checks: k8s.version, "
	run -2 --separate-stderr runai-adm preflight --domain 'Bad_Name'
	stderr_has "invalid --domain 'Bad_Name': must be lower case"
	run -2 --separate-stderr runai-adm preflight --registry https://reg:5000
	stderr_has "without a scheme"
	run -2 --separate-stderr runai-adm preflight --tls-key "$PKI/good.key"
	stderr_has "--tls-key needs --tls-cert"
	run -2 --separate-stderr runai-adm preflight --tls-endpoint 127.0.0.1:443
	stderr_has "--tls-endpoint needs --domain"
	run -2 --separate-stderr runai-adm preflight --nfs-server 'nfs:x'
	stderr_has "invalid --nfs-server"
	run -2 --separate-stderr runai-adm preflight --report no/such/dir/r.txt --only k8s.version
	stderr_has "runai-adm: error: cannot create a temporary file next to 'no/such/dir/r.txt'"
	rm -f "$KUBECONFIG"
	run -2 --separate-stderr runai-adm --kubeconfig "$BATS_TEST_TMPDIR/none" preflight --only k8s.version
	stderr_has "runai-adm: error: "
	[ -z "$output" ]
	run -0 ls -A
	[ -z "$output" ]
}
