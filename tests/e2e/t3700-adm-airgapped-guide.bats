#!/usr/bin/env bats
# The air-gapped install as a published appliance guide has the admin do
# it, step by step and in its order, against the emulator and a real
# Debian docker-registry, with skopeo judging the pushed images: node
# roles (the guide's literal "set node-role --all <node>" included), the
# registry from REGISTRY_URL as the guide exports it, pre-install
# diagnostics, the values file, the release bundle pushed in one step
# and verified, a maintenance drain and back, and the roles saved. At
# the end the cluster is labelled, the values file and the preflight
# report are there, and every image is verified.

load lib/common
load lib/registry
load lib/pki

SYS=node-role.kubernetes.io/runai-system
GPU=node-role.kubernetes.io/runai-gpu-worker
MK="$TOP/tests/helper/mkimages.py"

setup_file() {
	have_registry_peers || return 0
	kubesim_start
	registry_start plain
	D="$BATS_FILE_TMPDIR"
	PKI="$D/pki"
	export PKI
	mkdir -p "$PKI"
	mkca ca
	newkey runai
	openssl req -new -key "$PKI/runai.key" -subj /CN=runai.example.com -out "$PKI/runai.csr" 2>/dev/null
	printf 'subjectAltName=DNS:runai.example.com\nbasicConstraints=CA:FALSE\n' >"$PKI/runai.ext"
	openssl x509 -req -in "$PKI/runai.csr" -CA "$PKI/ca.crt" -CAkey "$PKI/ca.key" -CAcreateserial \
		-days 400 -extfile "$PKI/runai.ext" -out "$PKI/runai.crt" 2>/dev/null
	# the release bundle: the image archives and the chart, gzip'd
	mkdir -p "$D/bundle/images"
	"$PYTHON" "$MK" legacy "$D/bundle/images/runai-images.tar" >"$D/legacy.json"
	"$PYTHON" "$MK" layers "$D/bundle/images/runai-big.tar" 3 300000 >"$D/big.json"
	mkdir -p "$D/chart/runai-backend"
	echo 'name: runai-backend' >"$D/chart/runai-backend/Chart.yaml"
	tar -czf "$D/bundle/runai-backend-2.18.0.tgz" -C "$D/chart" runai-backend
	tar -czf "$D/runai-2.18.0.tar.gz" -C "$D/bundle" runai-backend-2.18.0.tgz images
}

teardown_file() {
	registry_stop_all
	kubesim_stop
}

# node NAME GPUS: a Ready node as a kubelet registers it
node() {
	jq -n --arg n "$1" --arg g "$2" '
	{"apiVersion": "v1", "kind": "Node",
	 "metadata": {"name": $n, "labels": ({"kubernetes.io/hostname": $n} +
	   (if $g == "0" then {} else {"nvidia.com/gpu.present": "true"} end))},
	 "spec": {},
	 "status": {"allocatable": {"cpu": "32", "memory": "128Gi", "nvidia.com/gpu": $g},
	   "capacity": {"cpu": "32", "memory": "128Gi", "nvidia.com/gpu": $g},
	   "conditions": [{"type": "Ready", "status": "True"}],
	   "addresses": [{"type": "InternalIP", "address": "10.0.0.1"}],
	   "nodeInfo": {"kubeletVersion": "v1.32.5"}}}'
}

label() {
	get_obj "/api/v1/nodes/$1" | jq -r --arg k "$2" '.metadata.labels[$k] // "<absent>"'
}

@test "the admin's air-gapped journey, in the guide's order, ends with a cluster ready to install" {
	registry_test_setup
	use_sim_kubeconfig
	sim POST /_sim/controller '{"paused": true}' >/dev/null
	{ node sys-1 0; node sys-2 0; node gpu-1 8; node gpu-2 8; } | jq -s . | sim POST /_sim/seed - >/dev/null
	# the guide exports the registry once for every air-gapped step
	export REGISTRY_URL=$REG_plain

	# 1. node roles: the system nodes, then "all workers not running
	#    runai-system" as GPU workers, in the guide's own words
	run -0 --separate-stderr runai-adm set node-role --runai-system-worker sys-1 sys-2
	run -0 --separate-stderr runai-adm set node-role --all gpu-1
	stderr_has "setting --gpu-worker on every node with GPUs that is neither runai-system nor control plane"
	run -0 runai-adm node list
	assert_line --regexp '^gpu-1 +gpu-worker +Ready +8 '
	assert_line --regexp '^gpu-2 +gpu-worker +Ready +8 '
	assert_line --regexp '^sys-1 +runai-system +Ready +0 '

	# 2. pre-install diagnostics, air-gapped, the registry from the
	#    environment; the emulator has no GPU operator, so some checks
	#    fail, and the report is written all the same
	run -1 --separate-stderr runai-adm preflight --airgapped --domain runai.example.com \
		--tls-cert "$PKI/runai.crt" --tls-key "$PKI/runai.key" --ca-file "$PKI/ca.crt" --timeout 2
	stderr_has "probing REGISTRY_URL ($REG_plain)"
	assert_line --regexp "^runai.node-roles +PASS +runai-system: sys-1, sys-2; runai-gpu-worker: gpu-1, gpu-2$"
	assert_line --regexp "^net.registry +WARN +$REG_plain speaks plain HTTP"
	assert_line --regexp '^net.tls.files +PASS'
	[ -s runai-preinstall-diagnostics.txt ]
	! grep -q 'nvidia/gpu-operator' runai-preinstall-diagnostics.txt

	# 3. the values file, air-gapped, for the same registry
	run -0 --separate-stderr runai-adm generate-values --domain runai.example.com \
		--tls-cert "$PKI/runai.crt" --tls-key "$PKI/runai.key" --ca-file "$PKI/ca.crt" --airgapped
	stderr_has "using REGISTRY_URL ($REG_plain)"
	assert_output "wrote runai-backend-values.yaml (mode 0600)"
	grep -q "$REG_plain" runai-backend-values.yaml
	! grep -q 'gcr.io' runai-backend-values.yaml
	[ "$(stat -c %a runai-backend-values.yaml)" = 600 ]

	# 4. the release's images: the bundle as it came, in one step
	run -0 --separate-stderr runai-adm images push "$D/runai-2.18.0.tar.gz" --registry "$REGISTRY_URL" --plain-http
	assert_equal "$(wc -l <<<"$output")" 4
	stderr_has "pushed 4 references: "
	local one
	one=$(grep "^$REG_plain/run-ai/one:1.0@" <<<"$output")
	run -0 --separate-stderr runai-adm images verify "$D/runai-2.18.0.tar.gz" --registry "$REGISTRY_URL" --plain-http
	stderr_has "verified 4 references: "
	stderr_has "0 missing, 0 different"
	# skopeo, the judge, finds what push said it pushed
	run -0 skopeo_digest "$REG_plain/run-ai/one:1.0" --tls-verify=false
	assert_output "${one#*@}"

	# 5. maintenance of a GPU node and back, then the roles kept
	run -0 --separate-stderr runai-adm node drain gpu-2 --no-wait
	run -0 --separate-stderr runai-adm node undrain gpu-2
	run -0 --separate-stderr runai-adm node roles export
	printf '%s\n' "$output" >roles.yaml
	run -0 yq -c '.nodes' roles.yaml
	assert_output '{"gpu-1":["gpu-worker"],"gpu-2":["gpu-worker"],"sys-1":["runai-system"],"sys-2":["runai-system"]}'

	# the end state
	[ "$(label sys-2 "$SYS")" = true ]
	[ "$(label gpu-2 "$GPU")" = true ]
	[ "$(get_obj /api/v1/nodes/gpu-2 | jq '[.spec.taints // [] | .[] | select(.key == "runai")] | length')" = 0 ]
}
