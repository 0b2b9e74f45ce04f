#!/usr/bin/env bats
# runai-adm set|remove node-role and node list against the emulator
# (the runai-system, runai-gpu-worker and runai-cpu-worker label keys):
# the exact merge patches in the request log, the labels read back with
# curl and with the real kubectl 1.32 (skipped where it is absent),
# --all and its exclusions, --selector, --dry-run, the plan, -o json,
# unknown nodes, RunaiConfig's restrictScheduling.

load lib/common

GPU=node-role.kubernetes.io/runai-gpu-worker
CPU=node-role.kubernetes.io/runai-cpu-worker
SYS=node-role.kubernetes.io/runai-system
CP=node-role.kubernetes.io/control-plane
CFG=/apis/run.ai/v1/namespaces/runai/runaiconfigs/runai

setup_file() {
	kubesim_start
	sim POST /_sim/controller '{"paused": true}' >/dev/null
}

teardown_file() {
	kubesim_stop
}

# node NAME LABELS-JSON [GPUS]: a Ready node as a kubelet registers it.
node() {
	jq -n --arg n "$1" --argjson l "$2" --arg g "${3:-0}" '
	{"apiVersion": "v1", "kind": "Node",
	 "metadata": {"name": $n, "labels": ({"kubernetes.io/hostname": $n} + $l)},
	 "spec": {},
	 "status": {"allocatable": {"cpu": "16", "memory": "64Gi", "nvidia.com/gpu": $g},
	   "capacity": {"cpu": "16", "memory": "64Gi", "nvidia.com/gpu": $g},
	   "conditions": [{"type": "Ready", "status": "True"}],
	   "addresses": [{"type": "InternalIP", "address": "10.0.1.1"}],
	   "nodeInfo": {"kubeletVersion": "v1.32.5"}}}'
}

# Every test starts from the same cluster: cp-1 (control plane), sys-1
# (runai-system), w-1 (no role), w-2 (gpu-worker "" as runai-adm 2021
# wrote it), w-3 (gpu-worker=false), and RunaiConfig runai/runai with
# restrictScheduling off.
setup() {
	isolate_env
	use_sim_kubeconfig
	kube_api -X DELETE "$KUBESIM_URL/api/v1/nodes" >/dev/null
	{
		node cp-1 "{\"$CP\": \"\", \"pool\": \"a\"}"
		node sys-1 "{\"$SYS\": \"true\"}"
		node w-1 '{"pool": "a", "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}' 8
		node w-2 "{\"$GPU\": \"\", \"pool\": \"b\"}" 4
		node w-3 "{\"$GPU\": \"false\", \"pool\": \"b\"}"
		jq -n '{"apiVersion": "run.ai/v1", "kind": "RunaiConfig",
		  "metadata": {"name": "runai", "namespace": "runai"},
		  "spec": {"global": {"nodeAffinity": {"restrictScheduling": false}}}}'
	} | jq -s . | sim POST /_sim/seed - >/dev/null
	mark_requests
}

kubectl() {
	"$KUBECTL_132" "$@"
}

# label NODE KEY: the label's value read with curl, or "<absent>".
label() {
	get_obj "/api/v1/nodes/$1" | jq -r --arg k "$2" '.metadata.labels[$k] // "<absent>"'
}

# patches_of PATH: the bodies of the PATCH requests to PATH since the mark.
patches_of() {
	requests_since_mark | jq -c --arg p "$1" 'select(.method == "PATCH" and .path == $p) | .body'
}

patch_count() {
	requests_since_mark | jq -s '[.[] | select(.method == "PATCH")] | length'
}

restrict() {
	get_obj "$CFG" | jq -r .spec.global.nodeAffinity.restrictScheduling
}

@test "set node-role --gpu-worker patches only the nodes that lack the key" {
	run -0 --separate-stderr runai-adm set node-role --gpu-worker w-1 w-2
	assert_line --index 0 --regexp '^NODE +KEY +OLD +NEW$'
	assert_line --index 1 --regexp "^w-1 +$GPU +<none> +true$"
	assert_line --index 2 "RunaiConfig runai/runai: spec.global.nodeAffinity.restrictScheduling false -> true"
	assert_line --index 3 "node/w-1 updated"
	assert_line --index 4 "runaiconfig/runai updated"
	[ "${#lines[@]}" -eq 5 ]
	# one merge patch, of w-1's labels only; w-2's "" already counts
	[ "$(patches_of /api/v1/nodes/w-1)" = "{\"metadata\":{\"labels\":{\"$GPU\":\"true\"}}}" ]
	assert_request PATCH /api/v1/nodes/w-1 \
		'.headers["content-type"] == "application/merge-patch+json" and .query == {} and .status == 200'
	refute_request PATCH /api/v1/nodes/w-2
	[ "$(patches_of "$CFG")" = '{"spec":{"global":{"nodeAffinity":{"restrictScheduling":true}}}}' ]
	[ "$(label w-1 "$GPU")" = true ]
	[ "$(label w-2 "$GPU")" = "" ]
	[ "$(restrict)" = true ]
}

@test "kubectl sees the roles that set and remove node-role write" {
	have_kubectl_132 || skip "kubectl 1.32 not installed at $KUBECTL_132"
	run -0 kubectl get node w-1
	assert_line --index 1 --regexp '^w-1 +Ready +<none> +'
	run -0 runai-adm set node-role --runai-system-worker --cpu-worker w-1
	[ "$(patches_of /api/v1/nodes/w-1)" = "{\"metadata\":{\"labels\":{\"$SYS\":\"true\",\"$CPU\":\"true\"}}}" ]
	run -0 kubectl get node w-1
	assert_line --index 1 --regexp '^w-1 +Ready +runai-cpu-worker,runai-system +'
	run -0 kubectl get node w-1 -o json
	[ "$(jq -r --arg k "$CPU" '.metadata.labels[$k]' <<<"$output")" = true ]
	run -0 runai-adm remove node-role --runai-system-worker --cpu-worker w-1
	run -0 kubectl get node w-1 -o json
	[ "$(jq --arg a "$CPU" --arg b "$SYS" '.metadata.labels | has($a) or has($b)' <<<"$output")" = false ]
	run -0 kubectl get node w-1
	assert_line --index 1 --regexp '^w-1 +Ready +<none> +'
}

@test "remove node-role deletes the key with a null merge patch" {
	run -0 --separate-stderr runai-adm remove node-role --gpu-worker w-1 w-2 w-3
	assert_line --index 0 --regexp '^NODE +KEY +OLD +NEW$'
	assert_line --index 1 --regexp "^w-2 +$GPU +\"\" +<none>$"
	assert_line --index 2 --regexp "^w-3 +$GPU +false +<none>$"
	assert_line "node/w-2 updated"
	assert_line "node/w-3 updated"
	[ "$(patches_of /api/v1/nodes/w-2)" = "{\"metadata\":{\"labels\":{\"$GPU\":null}}}" ]
	[ "$(patches_of /api/v1/nodes/w-3)" = "{\"metadata\":{\"labels\":{\"$GPU\":null}}}" ]
	refute_request PATCH /api/v1/nodes/w-1
	[ "$(label w-2 "$GPU")" = "<absent>" ]
	[ "$(label w-3 "$GPU")" = "<absent>" ]
	# no node keeps a worker role: restrictScheduling stays (was) off
	refute_request PATCH "$CFG"
	[ "$(restrict)" = false ]
}

@test "remove node-role --runai-system-worker deletes the system key" {
	run -0 runai-adm remove node-role --runai-system-worker sys-1
	[ "$(patches_of /api/v1/nodes/sys-1)" = "{\"metadata\":{\"labels\":{\"$SYS\":null}}}" ]
	[ "$(label sys-1 "$SYS")" = "<absent>" ]
	# the system role does not touch restrictScheduling
	refute_request GET "$CFG"
}

@test "removing the last worker role turns restrictScheduling off" {
	kube_api -X PATCH -H 'Content-Type: application/merge-patch+json' \
		-d '{"spec":{"global":{"nodeAffinity":{"restrictScheduling":true}}}}' \
		"$KUBESIM_URL$CFG" >/dev/null
	mark_requests
	run -0 --separate-stderr runai-adm remove node-role --gpu-worker w-2
	refute_line --partial RunaiConfig
	refute_request PATCH "$CFG"	# w-3's false still marks it a worker
	mark_requests
	run -0 --separate-stderr runai-adm remove node-role --gpu-worker w-3
	assert_line "RunaiConfig runai/runai: spec.global.nodeAffinity.restrictScheduling true -> false"
	[ "$(patches_of "$CFG")" = '{"spec":{"global":{"nodeAffinity":{"restrictScheduling":false}}}}' ]
	[ "$(restrict)" = false ]
}

@test "--all skips control-plane nodes and, for worker roles, runai-system nodes" {
	run -0 --separate-stderr runai-adm set node-role --all --gpu-worker --no-configure
	assert_line --index 1 --regexp "^w-1 +$GPU +<none> +true$"
	stderr_has "skipping node 'cp-1': control-plane node (add --include-control-plane to include it)"
	stderr_has "skipping node 'sys-1': runai-system node"
	# nor the GPU role on a node without GPUs, which preflight fails
	stderr_has "skipping node 'w-3': no GPUs (no allocatable nvidia.com/gpu; name the node to make it a GPU worker anyway, or give it --cpu-worker)"
	[ "$(patch_count)" -eq 1 ]
	refute_request PATCH /api/v1/nodes/cp-1
	refute_request PATCH /api/v1/nodes/sys-1
	refute_request PATCH /api/v1/nodes/w-3
	refute_request PATCH "$CFG"
	[ "$(label cp-1 "$GPU")" = "<absent>" ]
	[ "$(label sys-1 "$GPU")" = "<absent>" ]
	[ "$(label w-3 "$GPU")" = false ]
}

@test "--all --include-control-plane includes control-plane nodes" {
	run -0 --separate-stderr runai-adm set node-role --all --include-control-plane --cpu-worker --no-configure
	[[ "$stderr" != *"skipping node 'cp-1'"* ]]
	stderr_has "skipping node 'sys-1'"
	[ "$(patches_of /api/v1/nodes/cp-1)" = "{\"metadata\":{\"labels\":{\"$CPU\":\"true\"}}}" ]
	for n in cp-1 w-1 w-2 w-3; do
		[ "$(label $n "$CPU")" = true ]
	done
	[ "$(label sys-1 "$CPU")" = "<absent>" ]
}

@test "--all --runai-system-worker marks every worker but not the control plane" {
	run -0 --separate-stderr runai-adm set node-role --all --runai-system-worker
	[ "$(patch_count)" -eq 3 ]
	for n in w-1 w-2 w-3; do
		[ "$(patches_of /api/v1/nodes/$n)" = "{\"metadata\":{\"labels\":{\"$SYS\":\"true\"}}}" ]
	done
	refute_request PATCH /api/v1/nodes/cp-1
	refute_request GET "$CFG"
}

@test "--selector lists the matching nodes with labelSelector and keeps the exclusions" {
	run -0 --separate-stderr runai-adm set node-role --cpu-worker --selector pool=a --no-configure
	assert_request GET /api/v1/nodes '.query.labelSelector == ["pool=a"]'
	stderr_has "skipping node 'cp-1': control-plane node"
	[ "$(patch_count)" -eq 1 ]
	[ "$(patches_of /api/v1/nodes/w-1)" = "{\"metadata\":{\"labels\":{\"$CPU\":\"true\"}}}" ]
	[ "$(label w-2 "$CPU")" = "<absent>" ]
}

@test "--selector that matches nothing is an error" {
	run -1 --separate-stderr runai-adm set node-role --cpu-worker -l pool=zzz
	stderr_has "no node matches the selector 'pool=zzz'"
	[ "$(patch_count)" -eq 0 ]
}

@test "--dry-run sends dryRun=All and changes nothing" {
	run -0 --separate-stderr runai-adm set node-role --gpu-worker --cpu-worker w-1 --dry-run
	assert_line --regexp "^w-1 +$GPU +<none> +true$"
	assert_line --regexp "^w-1 +$CPU +<none> +true$"
	assert_line "node/w-1 updated (server dry run)"
	assert_line "Dry run: the server accepted the changes; nothing was changed."
	assert_request PATCH /api/v1/nodes/w-1 '.query.dryRun == ["All"] and .status == 200'
	assert_request PATCH "$CFG" '.query.dryRun == ["All"]'
	[ "$(patches_of /api/v1/nodes/w-1)" = "{\"metadata\":{\"labels\":{\"$GPU\":\"true\",\"$CPU\":\"true\"}}}" ]
	[ "$(label w-1 "$GPU")" = "<absent>" ]
	[ "$(label w-1 "$CPU")" = "<absent>" ]
	[ "$(restrict)" = false ]
	if have_kubectl_132; then
		run -0 kubectl get node w-1 -o json
		[ "$(jq --arg k "$GPU" '.metadata.labels | has($k)' <<<"$output")" = false ]
	fi
}

@test "nothing to change exits 0, says so and writes nothing" {
	run -0 --separate-stderr runai-adm set node-role --gpu-worker w-2 --no-configure
	assert_output "Nothing to change: the selected nodes already have these roles."
	[ "$(patch_count)" -eq 0 ]
	run -0 --separate-stderr runai-adm remove node-role --cpu-worker w-1 w-2
	assert_output "Nothing to change: the selected nodes have none of these roles."
	[ "$(patch_count)" -eq 0 ]
}

@test "an unknown node fails naming it, before anything is written" {
	run -1 --separate-stderr runai-adm set node-role --gpu-worker w-1 ghost w-3 spook
	stderr_is "runai-adm: error: nodes 'ghost', 'spook' not found; nothing was changed"
	[ "$output" = "" ]
	[ "$(patch_count)" -eq 0 ]
	[ "$(label w-1 "$GPU")" = "<absent>" ]
	[ "$(label w-3 "$GPU")" = false ]
}

@test "a role key set to false is warned about and set to true" {
	run -0 --separate-stderr runai-adm set node-role --gpu-worker w-3 --no-configure
	stderr_has "runai-adm: warning: node 'w-3' has $GPU=false: the key alone marks the role"
	assert_line --index 1 --regexp "^w-3 +$GPU +false +true$"
	[ "$(patches_of /api/v1/nodes/w-3)" = "{\"metadata\":{\"labels\":{\"$GPU\":\"true\"}}}" ]
	[ "$(label w-3 "$GPU")" = true ]
}

@test "-o json prints the plan and its outcome" {
	run -0 --separate-stderr runai-adm set node-role --gpu-worker --all -o json
	jq -e '.operation == "set" and .roles == ["gpu-worker"] and .dryRun == false and .applied == true' <<<"$output"
	jq -e --arg k "$GPU" '.changes == [{"node": "w-1", "key": $k, "old": null, "new": "true"}]' <<<"$output"
	jq -e '[.skipped[].node] == ["cp-1", "sys-1", "w-3"]' <<<"$output"
	jq -e '.runaiConfig == {"namespace": "runai", "name": "runai",
	    "field": "spec.global.nodeAffinity.restrictScheduling", "old": false, "new": true}' <<<"$output"
	# w-3: its gpu-worker=false (it is skipped: no GPUs)
	jq -e '.warnings | length == 1' <<<"$output"
	[ "$(label w-1 "$GPU")" = true ]
}

@test "the install guide's 'set node-role --all <node>': GPU workers of every non-system node, said so" {
	run -0 --separate-stderr runai-adm set node-role --all w-1 --no-configure
	stderr_has "runai-adm: warning: --all without a role: setting --gpu-worker on every node with GPUs that is neither runai-system nor control plane"
	stderr_has "runai-adm: warning: node name 'w-1' ignored: --all selects the nodes"
	stderr_has "skipping node 'sys-1': runai-system node"
	# a node with no GPU is no GPU worker: skipped and said so, not warned
	stderr_has "skipping node 'w-3': no GPUs"
	assert_line --index 1 --regexp "^w-1 +$GPU +<none> +true$"
	[ "$(patch_count)" -eq 1 ]
	[ "$(label w-3 "$GPU")" = false ]
	[ "$(label sys-1 "$GPU")" = "<absent>" ]
	[ "$(label cp-1 "$GPU")" = "<absent>" ]
	# without a node name the same; remove never guesses a role
	run -0 --separate-stderr runai-adm set node-role --all --no-configure --dry-run
	stderr_has "setting --gpu-worker on every node"
	run -2 --separate-stderr runai-adm remove node-role --all
	stderr_has "no role given"
	# two names are not the guide's form
	run -2 --separate-stderr runai-adm set node-role --all w-1 w-2
	stderr_has "no role given"
}

@test "a GPU worker made a runai-system node (and back) is warned about: system nodes should be dedicated" {
	run -0 --separate-stderr runai-adm set node-role --runai-system-worker w-2 --no-configure
	stderr_has "runai-adm: warning: node 'w-2' is both a runai-system node and a GPU worker: system nodes should be dedicated to Run:ai's services (remove one role with 'runai-adm remove node-role')"
	[ "$(label w-2 "$SYS")" = true ]
	# the other way round too
	run -0 --separate-stderr runai-adm set node-role --gpu-worker sys-1 --no-configure
	stderr_has "node 'sys-1' is both a runai-system node and a GPU worker"
	# a plain GPU worker, or a system node alone, says nothing of it
	run -0 --separate-stderr runai-adm set node-role --gpu-worker w-1 --no-configure
	[[ "$stderr" != *"both a runai-system node"* ]]
}

@test "a control-plane node given a role: its NoSchedule taint is named, with the command that lifts it" {
	kube_api -X PATCH -H 'Content-Type: application/merge-patch+json' \
		-d "{\"spec\":{\"taints\":[{\"key\":\"$CP\",\"effect\":\"NoSchedule\"},{\"key\":\"x\",\"effect\":\"PreferNoSchedule\"}]}}" \
		"$KUBESIM_URL/api/v1/nodes/cp-1" >/dev/null
	run -0 --separate-stderr runai-adm set node-role --runai-system-worker cp-1
	stderr_has "runai-adm: warning: node 'cp-1' is a control-plane node: Run:ai advises against making it a runai-system node"
	stderr_has "runai-adm: warning: node 'cp-1' has the taint $CP:NoSchedule: pods that do not tolerate it will not run there (lift it with 'kubectl taint nodes cp-1 $CP:NoSchedule-')"
	# a soft taint is no reason to warn
	[[ "$stderr" != *"taint x:"* ]]
	# a worker role too; a worker without taints: nothing of the kind
	run -0 --separate-stderr runai-adm set node-role --cpu-worker cp-1 w-1 --no-configure
	stderr_has "node 'cp-1' has the taint $CP:NoSchedule"
	[[ "$stderr" != *"node 'w-1' has the taint"* ]]
}

@test "a GPU worker role on a node without GPUs is warned about" {
	run -0 --separate-stderr runai-adm set node-role --gpu-worker w-1 w-3 --no-configure
	stderr_has "runai-adm: warning: node 'w-3' has no GPUs (no allocatable nvidia.com/gpu): as a GPU worker it runs no GPU work"
	! grep -q "node 'w-1' has no GPUs" <<<"$stderr"
	[ "$(label w-3 "$GPU")" = true ]
	# a CPU worker role there is what it is for: no warning
	run -0 --separate-stderr runai-adm set node-role --cpu-worker w-3 --no-configure
	! grep -q "no GPUs" <<<"$stderr"
}

@test "-o json with nothing to change is an empty plan, not applied" {
	run -0 --separate-stderr runai-adm remove node-role --cpu-worker w-1 -o json
	jq -e '.applied == false and .changes == [] and .runaiConfig == null' <<<"$output"
	[ "$(patch_count)" -eq 0 ]
}

@test "without RunaiConfig the labels are set with a warning" {
	kube_api -X DELETE "$KUBESIM_URL$CFG" >/dev/null
	mark_requests
	run -0 --separate-stderr runai-adm set node-role --gpu-worker w-1
	stderr_has "warning: RunaiConfig runai/runai not found (is Run:ai installed?)"
	[ "$(label w-1 "$GPU")" = true ]
	refute_request PATCH "$CFG"
}

@test "usage errors exit 2 and write nothing" {
	run -2 --separate-stderr runai-adm set node-role w-1
	stderr_has "no role given"
	run -2 --separate-stderr runai-adm set node-role --gpu-worker
	stderr_has "no nodes selected"
	run -2 --separate-stderr runai-adm remove node-role --gpu-worker --all w-1
	stderr_has "node names cannot be used with --all"
	run -2 --separate-stderr runai-adm set node-role --gpu-worker --include-control-plane w-1
	stderr_has "--include-control-plane needs --all or --selector"
	run -2 --separate-stderr runai-adm set
	stderr_has "node-role"
	[ "$(requests_since_mark | wc -l)" -eq 0 ]
}

@test "node roles export, then apply after the nodes lost them: the same roles, the exact patches" {
	run -0 --separate-stderr runai-adm node roles export
	[ -z "$stderr" ]
	local exported=$output
	printf '%s\n' "$exported" >"$BATS_TEST_TMPDIR/roles.yaml"
	# every node by name; a "false" key still counts, as the scheduler reads it
	run -0 yq -c '.' "$BATS_TEST_TMPDIR/roles.yaml"
	assert_output '{"apiVersion":"runai-adm/v1","kind":"NodeRoles","nodes":{"cp-1":[],"sys-1":["runai-system"],"w-1":[],"w-2":["gpu-worker"],"w-3":["gpu-worker"]}}'
	# w-2 re-imaged: its labels gone; w-1 picked up a role by hand
	kube_api -X PATCH -H 'Content-Type: application/merge-patch+json' \
		-d "{\"metadata\":{\"labels\":{\"$GPU\":null}}}" "$KUBESIM_URL/api/v1/nodes/w-2" >/dev/null
	kube_api -X PATCH -H 'Content-Type: application/merge-patch+json' \
		-d "{\"metadata\":{\"labels\":{\"$CPU\":\"true\"}}}" "$KUBESIM_URL/api/v1/nodes/w-1" >/dev/null
	mark_requests
	run -0 --separate-stderr runai-adm node roles apply -f "$BATS_TEST_TMPDIR/roles.yaml" --dry-run --no-configure
	assert_line --regexp "^w-1 +$CPU +true +<none>$"
	assert_line --regexp "^w-2 +$GPU +<none> +true$"
	assert_line "Dry run: the server accepted the changes; nothing was changed."
	[ "$(label w-2 "$GPU")" = "<absent>" ]
	run -0 --separate-stderr runai-adm node roles apply -f "$BATS_TEST_TMPDIR/roles.yaml" --no-configure
	# the same merge patch twice: --dry-run's (dryRun=All) and the real one
	[ "$(patches_of /api/v1/nodes/w-1)" = "{\"metadata\":{\"labels\":{\"$CPU\":null}}}
{\"metadata\":{\"labels\":{\"$CPU\":null}}}" ]
	[ "$(label w-2 "$GPU")" = true ]
	[ "$(label w-1 "$CPU")" = "<absent>" ]
	# the cluster says what the file says again; a second apply changes nothing
	run -0 runai-adm node roles export
	assert_output "$exported"
	run -0 --separate-stderr runai-adm node roles apply -f "$BATS_TEST_TMPDIR/roles.yaml" --no-configure
	assert_output "Nothing to change: the nodes already carry the file's roles."
	# w-3's gpu-worker key (kept, as exported) on a node without GPUs is said
	assert_equal "$stderr" "runai-adm: warning: node 'w-3' has no GPUs (no allocatable nvidia.com/gpu): as a GPU worker it runs no GPU work"
}

@test "node roles apply: a node not in the cluster is passed over; bad files are clear errors" {
	printf 'apiVersion: runai-adm/v1\nkind: NodeRoles\nnodes:\n  w-1: [gpu-worker]\n  gone-9: [cpu-worker]\n' \
		>"$BATS_TEST_TMPDIR/r.yaml"
	run -0 --separate-stderr runai-adm node roles apply -f "$BATS_TEST_TMPDIR/r.yaml" --no-configure
	assert_equal "$stderr" "runai-adm: warning: node 'gone-9' is not in the cluster: left for a later apply"
	[ "$(label w-1 "$GPU")" = true ]
	printf 'nodes:\n  gone-9: []\n' >"$BATS_TEST_TMPDIR/none.yaml"
	run -1 --separate-stderr runai-adm node roles apply -f "$BATS_TEST_TMPDIR/none.yaml"
	stderr_has "runai-adm: error: none of the nodes in '$BATS_TEST_TMPDIR/none.yaml' is in the cluster; nothing was changed"
	printf 'nodes:\n  w-1: [gpu]\n' >"$BATS_TEST_TMPDIR/bad.yaml"
	run -1 --separate-stderr runai-adm node roles apply -f "$BATS_TEST_TMPDIR/bad.yaml"
	assert_equal "$stderr" "runai-adm: error: $BATS_TEST_TMPDIR/bad.yaml: node 'w-1': unknown role 'gpu' (runai-system, gpu-worker, cpu-worker)"
	printf 'kind: Pod\n' >"$BATS_TEST_TMPDIR/pod.yaml"
	run -1 --separate-stderr runai-adm node roles apply -f "$BATS_TEST_TMPDIR/pod.yaml"
	stderr_has "no 'nodes' map"
	run -2 --separate-stderr runai-adm node roles apply
	stderr_has "--filename"
}

@test "node-roles is an alias, and -h shows the options" {
	run -0 runai-adm set node-roles --gpu-worker w-1 --no-configure
	[ "$(label w-1 "$GPU")" = true ]
	run -0 runai-adm remove node-role -h
	assert_output --partial "--runai-system-worker"
	assert_output --partial "--include-control-plane"
	assert_output --partial "--dry-run"
}

@test "node list shows roles, status, GPUs, GPU model and the number of taints" {
	kube_api -X PATCH -H 'Content-Type: application/merge-patch+json' \
		-d '{"spec":{"unschedulable":true,"taints":[{"key":"gpu","value":"h100","effect":"NoSchedule"}]}}' \
		"$KUBESIM_URL/api/v1/nodes/w-1" >/dev/null
	run -0 runai-adm node list
	assert_line --index 0 --regexp '^NODE +ROLES +STATUS +GPUS +GPU MODEL +TAINTS$'
	assert_line --index 1 --regexp '^cp-1 +control-plane +Ready +0 +<none> +0$'
	assert_line --index 2 --regexp '^sys-1 +runai-system +Ready +0 +<none> +0$'
	assert_line --index 3 --regexp '^w-1 +<none> +Ready,SchedulingDisabled +8 +NVIDIA-H100-80GB-HBM3 +1$'
	assert_line --index 4 --regexp '^w-2 +gpu-worker +Ready +4 +<none> +0$'
	assert_line --index 5 --regexp '^w-3 +gpu-worker\(false\) +Ready +0 +<none> +0$'
	[ "${#lines[@]}" -eq 6 ]
	run -0 runai-adm node list -o wide w-1
	assert_line --index 0 --regexp '^NODE +ROLES +STATUS +GPUS +GPU MODEL +TAINTS +MIG STRATEGY +INTERNAL-IP$'
	assert_line --index 1 --regexp '^w-1 +<none> +Ready,SchedulingDisabled +8 +NVIDIA-H100-80GB-HBM3 +gpu=h100:NoSchedule +<none> +10\.0\.1\.1$'
	[ "${#lines[@]}" -eq 2 ]
}

@test "node list -o json|yaml|name and unknown names" {
	run -0 runai-adm node list w-2 w-3 -o json
	jq -e 'length == 2 and .[0].name == "w-2" and .[0].roles == ["gpu-worker"]
	    and .[0].gpus == 4 and .[0].ready == true and .[0].draining == false
	    and .[1].roles == ["gpu-worker"] and .[1].taintCount == 0' <<<"$output"
	run -0 runai-adm node list sys-1 -o yaml
	assert_line "- name: sys-1"
	run -0 runai-adm node list -o name
	assert_output "node/cp-1
node/sys-1
node/w-1
node/w-2
node/w-3"
	run -1 --separate-stderr runai-adm node ls w-1 nope
	stderr_is "runai-adm: error: node 'nope' not found"
}

@test "runai-adm takes its log level from RUNAI_VERBOSITY, as runai does; a -v given wins" {
	RUNAI_VERBOSITY=6 run -0 --separate-stderr runai-adm node list
	[[ "$stderr" == *"GET $KUBESIM_URL/api/v1/nodes"* ]]
	RUNAI_VERBOSITY=6 run -0 --separate-stderr runai-adm -v=1 node list
	[[ "$stderr" != *"GET "* ]]
	RUNAI_VERBOSITY=junk run -0 --separate-stderr runai-adm node list
	[ -z "$stderr" ]
}
