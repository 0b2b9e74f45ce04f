#!/usr/bin/env bats
# The CLI v2 grammar's object groups - cluster, project, node, nodepool,
# pvc, template, environment, compute, datasource, credential - in
# Kubernetes mode and in control-plane mode, against one emulator with
# its control plane (2.24; the last tests start 2.21 and 2.18 for the
# node pools' older path). Each test checks the output's columns and
# JSON and the requests sent (the API server's log, the control plane's
# control-plane-requests.jsonl); the control plane's judge must have
# seen no violation.

load lib/common
load lib/cp

CP_VERSION=2.24

setup_file() {
	cp_start
	# a node pool of node-2 beside the default one
	sim POST /_sim/seed '{"apiVersion": "run.ai/v1alpha1", "kind": "NodePool",
		"metadata": {"name": "a100"},
		"spec": {"labelKey": "pool", "labelValue": "a100"}}' >/dev/null
	kube_api -X PATCH -H 'Content-Type: application/merge-patch+json' \
		-d '{"metadata": {"labels": {"pool": "a100"}}}' \
		"$KUBESIM_URL/api/v1/nodes/node-2" >/dev/null
	# claims of team-a, one bound
	sim POST /_sim/seed '[
		{"apiVersion": "v1", "kind": "PersistentVolumeClaim",
		 "metadata": {"name": "ckpt", "namespace": "runai-team-a"},
		 "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "local-path",
			  "volumeName": "pvc-ckpt", "resources": {"requests": {"storage": "10Gi"}}},
		 "status": {"phase": "Bound", "capacity": {"storage": "10Gi"}}},
		{"apiVersion": "v1", "kind": "PersistentVolumeClaim",
		 "metadata": {"name": "data", "namespace": "runai-team-a"},
		 "spec": {"accessModes": ["ReadOnlyMany", "ReadWriteMany"],
			  "storageClassName": "slow",
			  "resources": {"requests": {"storage": "1Ti"}}},
		 "status": {"phase": "Pending"}}]' >/dev/null
	# a submit template on the cluster
	kube_api -X POST -H 'Content-Type: application/json' \
		"$KUBESIM_URL/api/v1/namespaces/runai/configmaps" -d '{
		"metadata": {"name": "tpl-half", "labels": {"runai/template": "true"}},
		"data": {"name": "gpu-half", "description": "half a GPU",
			"values": "gpu: {value: \"0.5\"}\nimage: {value: ubuntu}\n"}}' >/dev/null
	# the control plane's assets (served in this order: runai sorts them,
	# the project's pytorch before the tenant's) and workload templates
	cp_settings '{"assets": [
		{"kind": "environment", "name": "pytorch", "scope": "tenant", "description": "PyTorch 2",
		 "spec": {"image": "pytorch/pytorch:2.3", "imagePullPolicy": "IfNotPresent"}},
		{"kind": "environment", "name": "jupyter", "scope": "project:team-a",
		 "spec": {"image": "jupyter/base-notebook"}},
		{"kind": "environment", "name": "tboard", "scope": "project:team-b",
		 "spec": {"image": "tensorflow/tensorflow"}},
		{"kind": "environment", "name": "pytorch", "scope": "project:team-a",
		 "spec": {"image": "pytorch/pytorch:nightly"}},
		{"kind": "compute", "name": "half-gpu", "scope": "tenant",
		 "spec": {"gpuDevicesRequest": 1, "gpuRequestType": "portion", "gpuPortionRequest": 0.5,
			  "cpuCoreRequest": 2, "cpuMemoryRequest": "4G"}},
		{"kind": "compute", "name": "two-gpus", "scope": "cluster",
		 "spec": {"gpuDevicesRequest": 2, "cpuCoreRequest": 8, "cpuMemoryRequest": "32G"}},
		{"kind": "pvc", "name": "datasets", "scope": "project:team-a",
		 "spec": {"claimName": "datasets-claim", "path": "/data", "existingPvc": true,
			  "claimInfo": {"size": "10Gi", "storageClass": "local-path",
					"accessModes": {"readWriteOnce": true}}}},
		{"kind": "nfs", "name": "shared", "scope": "cluster",
		 "spec": {"server": "nfs.example.com", "path": "/export", "mountPath": "/shared"}},
		{"kind": "git", "name": "code", "scope": "project:team-b",
		 "spec": {"repository": "https://example.com/r.git", "branch": "main", "path": "/code"}},
		{"kind": "dockerRegistry", "name": "regcred", "scope": "tenant",
		 "spec": {"url": "https://registry.example.com", "keyId": 1}},
		{"kind": "password", "name": "gitpass", "scope": "project:team-b", "spec": {"keyId": 2}}],
		"templates": [{"name": "train-small", "workloadType": "Training", "scope": "tenant",
			"spec": {"image": "ubuntu", "compute": {"gpuDevicesRequest": 1}}}]}'
}

teardown_file() {
	kubesim_stop
}

setup() {
	isolate_env
	use_sim_kubeconfig
}

teardown() {
	[ -z "${OTHER_SIM_PID:-}" ] || kill "$OTHER_SIM_PID" 2>/dev/null || true
	# a test that planted more clusters takes them away, pass or fail
	[ -z "${MORE_CLUSTERS:-}" ] || cp_settings '{"clusters": []}'
}

# cp_mode: this test's context in control-plane mode, logged in, team-a
# the default project.
cp_mode() {
	runai config control-plane "$CP_URL" >/dev/null
	cp_login
	runai config project team-a >/dev/null
}

# cp_requests_since N: the control plane's requests after the first N.
cp_mark() {
	CP_MARK=$(wc -l <"$CP_REQUESTS")
}
cp_requests() {
	tail -n +"$((CP_MARK + 1))" "$CP_REQUESTS"
}

# names: the "name" of each row of a --json list, one line.
names() {
	jq -c '[.[].name]'
}

@test "cluster list and cluster set (Kubernetes mode): the kubeconfig's contexts, no request, no note" {
	# a second context for the same cluster
	yq -yi '.contexts += [{"name": "other", "context": .contexts[0].context}]' "$KUBECONFIG"
	mark_requests
	run -0 --separate-stderr runai cluster list
	[ -z "$stderr" ]
	assert_line --index 0 --regexp '^Cluster +Current +Default Project +Status +Version$'
	assert_line --index 1 --regexp '^─+$'
	assert_line --index 2 --regexp '^kube-sim +true +$'
	assert_line --index 3 --regexp '^other +false +$'
	[ -z "$(requests_since_mark)" ]
	# the same clusters as the original grammar's list
	run -0 runai list clusters
	assert_line --index 2 --regexp '^kube-sim \(current\) '
	assert_line --index 3 --regexp '^other '
	run -0 --separate-stderr runai cluster set other
	assert_output "cluster other configured successfully"
	[ -z "$stderr" ]
	run -0 yq -r '.["current-context"]' "$KUBECONFIG"
	assert_output other
	run -0 runai cluster list --json
	run -0 jq -c '[.[] | {name, current}]' <<<"$output"
	assert_output '[{"name":"kube-sim","current":false},{"name":"other","current":true}]'
	# the older --name, and config cluster, take it too
	run -0 runai cluster set --name kube-sim
	run -0 runai config cluster other
	assert_output "Set current cluster to other"
	run -1 runai cluster set nope
	assert_line --index 0 "runai: error: cluster 'nope' does not exist"
	run -2 runai cluster set --id 0b5e
	assert_output "runai: error: --id is for control-plane mode: a kubeconfig context has a name only"
	run -2 runai cluster set
	assert_output --partial "give the cluster: NAME, --name NAME or --id ID"
}

@test "cluster set and config cluster take every cluster list clusters shows (control-plane mode)" {
	cp_mode
	MORE_CLUSTERS=1
	cp_settings '{"clusters": [{"name": "second"}]}'
	run -0 runai list clusters
	assert_line --regexp '^second +Connected '
	# was: "cluster 'second' does not exist" (a kubeconfig context was looked for)
	run -0 --separate-stderr runai cluster set second
	assert_output "cluster second configured successfully"
	[ -z "$stderr" ]
	run -0 yq -r '.contexts[0].context.extensions[0].extension.cluster' "$KUBECONFIG"
	assert_output second
	run -0 runai cluster list --json --columns name,current,id
	assert_equal "$(jq -r '.[] | select(.current) | .name' <<<"$output")" second
	local id
	id=$(jq -r '.[] | select(.name == "kube-sim") | .id' <<<"$output")
	[[ $id =~ ^[0-9a-f-]{36}$ ]]
	run -0 runai config cluster kube-sim
	assert_output "Set current cluster to kube-sim"
	run -0 runai list clusters
	assert_line --regexp '^kube-sim \(current\) +team-a '
	run -0 runai cluster set --id "$id"
	run -0 yq -r '.contexts[0].context.extensions[0].extension.cluster' "$KUBECONFIG"
	assert_output "$id"
	run -1 runai cluster set nosuch
	assert_output "runai: error: the control plane has no cluster 'nosuch' (it has: kube-sim, second)"
	run -2 runai cluster set kube-sim --id "$id"
	assert_output "runai: error: give the cluster's name or its --id, not both"
}

@test "project list and list projects show the same projects in both modes; project set" {
	run -0 --separate-stderr runai project list
	[ -z "$stderr" ]
	assert_line --index 0 --regexp '^Project +GPU Quota +Allocated GPUs +Allocation Ratio +Queued GPUs +Default$'
	assert_line --index 1 --regexp '^─+$'
	assert_line --regexp '^team-a +4 +0 +0 +0 +false$'
	local v2 v1
	v2=$(runai project list --json | names)
	v1=$(runai list projects -o json | jq -c '[.[].name]')
	assert_equal "$v2" "$v1"
	assert_equal "$v2" '["team-a","team-b","team-c","team-d"]'
	run -0 --separate-stderr runai project set team-b
	assert_output "project team-b configured successfully"
	[ -z "$stderr" ]
	run -0 runai list projects
	assert_line --regexp '^team-b \(default\) '
	run -0 runai project list --json
	assert_equal "$(jq -r '.[] | select(.default) | .name' <<<"$output")" team-b
	run -1 runai project set nope
	assert_line --index 0 "runai: error: project 'nope' not found"

	cp_mode
	cp_mark
	v2=$(runai project list --json | names)
	v1=$(runai list projects -o json | jq -c '[.[].name]')
	assert_equal "$v2" "$v1"
	assert_equal "$v2" '["team-a","team-b","team-c","team-d"]'
	# both read the control plane's list of this cluster's projects
	run -0 jq -r 'select(.path == "/api/v1/org-unit/projects") | .query' <(cp_requests)
	assert_line --regexp '^filterBy=clusterId==[-0-9a-f]+&sortBy=name&offset=0&limit=100$'
	assert_line --regexp '^filterBy=clusterId==[-0-9a-f]+&offset=0&limit=500$'
	run -0 runai project list --json
	run -0 jq -c '.[0] | {name, gpuQuota, allocatedGpus, allocationRatio, queuedGpus, default}' <<<"$output"
	assert_output '{"name":"team-a","gpuQuota":4,"allocatedGpus":0,"allocationRatio":0,"queuedGpus":0,"default":true}'
	run -0 --separate-stderr runai project set team-c
	assert_output "project team-c configured successfully"
	[ -z "$stderr" ]
	run -0 yq -r '.contexts[0].context.extensions[0].extension.project' "$KUBECONFIG"
	assert_output team-c
	run -1 runai project set nope
	assert_output --partial "project 'nope' not found"
}

@test "project list pages: --page-size, --max-items, --next-token, --no-pagination" {
	cp_mode
	cp_mark
	run -0 --separate-stderr runai project list --page-size 3 --json
	assert_equal "$(names <<<"$output")" '["team-a","team-b","team-c","team-d"]'
	[ -z "$stderr" ]
	run -0 jq -r 'select(.path == "/api/v1/org-unit/projects") | .query | sub(".*&offset="; "offset=")' <(cp_requests)
	assert_output "offset=0&limit=3
offset=3&limit=3"
	# three at most: the second page asks for one; the next token on stderr
	cp_mark
	run -0 --separate-stderr runai project list --page-size 2 --max-items 3 --json
	assert_equal "$(names <<<"$output")" '["team-a","team-b","team-c"]'
	assert_equal "$stderr" "Next token: 3"
	run -0 jq -r 'select(.path == "/api/v1/org-unit/projects") | .query | sub(".*&offset="; "offset=")' <(cp_requests)
	assert_output "offset=0&limit=2
offset=2&limit=1"
	# one page, then on from its token
	run -0 --separate-stderr runai project list --page-size 2 --no-pagination --no-headers
	assert_equal "${#lines[@]}" 2
	assert_line --index 0 --regexp '^team-a '
	assert_equal "$stderr" "Next token: 2"
	run -0 --separate-stderr runai project list --page-size 2 --next-token 2 --json
	assert_equal "$(names <<<"$output")" '["team-c","team-d"]'
	[ -z "$stderr" ]
	# the limits
	run -2 runai project list --page-size 501
	assert_output "runai: error: --page-size must be 1 to 500, not 501"
	run -2 runai project list --page-size 0
	run -2 runai project list --max-items 0
	assert_output --partial "--max-items must be 1 or more, or -1 for every project"
	run -2 runai project list --next-token x
	assert_output "runai: error: 'x' is no next token of the control plane's project list"
	# Kubernetes mode reads the list whole and cuts it the same way
	runai config control-plane --unset >/dev/null
	run -0 --separate-stderr runai project list --max-items 2 --json
	assert_equal "$(names <<<"$output")" '["team-a","team-b"]'
	assert_equal "$stderr" "Next token: 2"
	run -0 runai project list --next-token 2 --json
	assert_equal "$(names <<<"$output")" '["team-c","team-d"]'
	run -0 --separate-stderr runai project list --no-pagination --page-size 3 --json
	assert_equal "$(names <<<"$output")" '["team-a","team-b","team-c"]'
	assert_equal "$stderr" "Next token: 3"
}

@test "a control plane whose next page does not move on ends the list with an error, not a loop" {
	cp_mode
	cp_settings '{"stuckPaging": true}'
	cp_mark
	run -1 runai project list --page-size 1 --next-token 1
	cp_settings '{"stuckPaging": false}'
	# one guard for every list (cp_pager): the same words as list jobs'
	assert_output "runai: error: the control plane's list /api/v1/org-unit/projects does not move on (the page after offset 1 starts at 1): stopped, the listing is incomplete"
	assert_equal "$(cp_requests | jq -s '[.[] | select(.path == "/api/v1/org-unit/projects")] | length')" 1
}

@test "node list and nodepool list: the same pools and nodes in both modes" {
	mark_requests
	run -0 --separate-stderr runai nodepool list
	[ -z "$stderr" ]
	assert_line --index 0 --regexp '^Node Pool +Label +Nodes +Phase +Default$'
	assert_line --index 2 --regexp '^a100 +pool=a100 +1 +false$'
	assert_line --index 3 --regexp '^default +1 +true$'
	assert_request GET /apis/run.ai/v1alpha1/nodepools
	assert_request GET /api/v1/nodes
	run -0 runai nodepool list --json
	local kube_pools kube_nodes
	kube_pools=$(jq -c '[.[] | {name, nodeNames, default}]' <<<"$output")
	assert_equal "$kube_pools" '[{"name":"a100","nodeNames":["node-2"],"default":false},{"name":"default","nodeNames":["node-1"],"default":true}]'
	run -0 --separate-stderr runai node list
	[ -z "$stderr" ]
	assert_line --index 0 --regexp '^Node +Status +Node Pool +GPU Type +GPUs +Allocated GPUs +Free GPUs$'
	assert_line --regexp '^node-1 +Ready +default +NVIDIA-A100-SXM4-80GB +8 +[0-9.]+ +[0-9.]+$'
	assert_line --regexp '^node-2 +Ready +a100 +NVIDIA-A100-SXM4-80GB +8 '
	kube_nodes=$(runai node list --json | jq -c '[.[] | {name, nodePool, gpus}]')
	assert_equal "$kube_nodes" '[{"name":"node-1","nodePool":"default","gpus":8},{"name":"node-2","nodePool":"a100","gpus":8}]'
	# a cluster without Run:ai's NodePool kind: one default pool of every node
	sim POST /_sim/crd '{"runai": false}' >/dev/null
	run -0 runai nodepool list --json
	sim POST /_sim/crd '{"runai": true}' >/dev/null
	assert_equal "$(jq -c '[.[] | {name, nodeNames}]' <<<"$output")" '[{"name":"default","nodeNames":["node-1","node-2"]}]'

	cp_mode
	cp_mark
	run -0 runai nodepool list --json
	assert_equal "$(jq -c '[.[] | {name, nodeNames, default}]' <<<"$output")" "$kube_pools"
	assert_equal "$(jq -r '.[0] | "\(.label) \(.phase) \(.id)"' <<<"$output")" "pool=a100 Ready 2"
	run -0 jq -r 'select(.path == "/api/v1/node-pools") | "\(.status) \(.query)"' <(cp_requests)
	assert_output --regexp '^200 filterBy=clusterId==[-0-9a-f]+&offset=0&limit=500$'
	run -0 runai node list --json
	assert_equal "$(jq -c '[.[] | {name, nodePool, gpus}]' <<<"$output")" "$kube_nodes"
}

@test "pvc list: the namespace's claims (Kubernetes mode), the project's PVC data sources (control-plane mode)" {
	mark_requests
	run -0 --separate-stderr runai pvc list -p team-a
	[ -z "$stderr" ]
	assert_line --index 0 --regexp '^Name +Status +Size +Access Modes +Storage Class +Created$'
	assert_line --index 2 --regexp '^ckpt +Bound +10Gi +RWO +local-path +[0-9T:Z-]+$'
	assert_line --index 3 --regexp '^data +Pending +1Ti +ROX,RWX +slow +[0-9T:Z-]+$'
	assert_request GET /api/v1/namespaces/runai-team-a/persistentvolumeclaims
	# the default project's (none in team-b)
	runai config project team-b >/dev/null
	run -0 runai pvc list --json
	assert_output "[]"

	cp_mode
	cp_mark
	run -0 runai pvc list --json --columns name,status,size,accessModes,storageClass,dataSource,scope
	assert_output '[
    {
        "name": "datasets-claim",
        "status": "No issues found",
        "size": "10Gi",
        "accessModes": "RWO",
        "storageClass": "local-path",
        "dataSource": "datasets",
        "scope": "project"
    }
]'
	run -0 jq -r 'select(.path == "/api/v1/asset/datasource") | .query' <(cp_requests)
	assert_output "projectId=1&statusInfo=true"
	run -0 runai pvc list -p team-b --json
	assert_output "[]"
}

@test "template list and describe: the cluster's submit templates, the control plane's workload templates" {
	run -0 --separate-stderr runai template list
	[ -z "$stderr" ]
	assert_line --index 0 --regexp '^Template +Scope +Workload Type +Description +Created$'
	assert_line --index 2 --regexp '^gpu-half +cluster +half a GPU +[0-9T:Z-]+$'
	run -0 runai template describe gpu-half
	assert_line "Template: gpu-half"
	assert_line "Description: half a GPU"
	assert_line "Values:"
	assert_line '  gpu: {value: "0.5"}'
	run -0 runai template describe gpu-half -o json
	assert_equal "$(jq -c '{name, admin}' <<<"$output")" '{"name":"gpu-half","admin":false}'
	run -1 runai template describe nope
	assert_line --index 0 "runai: error: no template called 'nope'"
	# the original grammar's keep their own output
	run -0 runai list templates
	assert_line --index 0 --regexp '^NAME +DESCRIPTION$'
	run -0 runai describe template gpu-half
	assert_line "Name: gpu-half"
	assert_line "---------------------------"

	cp_mode
	cp_mark
	run -0 runai template list
	assert_line --index 2 --regexp '^train-small +tenant +Training +[0-9T:Z-]+$'
	run -0 runai template describe train-small -o yaml
	assert_line "  name: train-small"
	run -0 runai template describe train-small
	assert_line "Workload Type: Training"
	assert_line "Spec:"
	assert_line "  image: ubuntu"
	run -0 jq -r 'select(.path == "/api/v1/workload-templates") | "\(.status) \(.query)"' <(cp_requests)
	assert_line "200 offset=0&limit=500"
	# the original grammar's has no control-plane half
	run -1 runai list templates
	assert_line --index 0 "runai: error: 'runai list templates' is not available in control-plane mode yet"
}

@test "environment, compute, datasource, credential: list and describe through the control plane" {
	cp_mode
	cp_mark
	run -0 --separate-stderr runai environment list
	[ -z "$stderr" ]
	assert_line --index 0 --regexp '^Environment +Scope +Project +Image +Description +Created$'
	assert_line --index 2 --regexp '^jupyter +project +team-a +jupyter/base-notebook +[0-9T:Z-]+$'
	assert_line --index 3 --regexp '^pytorch +project +team-a +pytorch/pytorch:nightly +'
	assert_line --index 4 --regexp '^pytorch +tenant +pytorch/pytorch:2\.3 +PyTorch 2 +'
	assert_equal "${#lines[@]}" 5
	# the project's and those above it; -A every scope's; -p another project's
	run -0 jq -r 'select(.path == "/api/v1/asset/environment") | .query' <(cp_requests)
	assert_output "projectId=1"
	run -0 runai environment list -A --json
	assert_equal "$(names <<<"$output")" '["jupyter","pytorch","pytorch","tboard"]'
	run -0 runai environment list -p team-b --json
	assert_equal "$(names <<<"$output")" '["pytorch","tboard"]'
	run -2 runai environment list -A -p team-b
	assert_output "runai: error: give -p <project> or -A, not both"
	# describe: the narrowest scope's where a name is taken twice
	run -0 runai environment describe pytorch
	assert_line "Environment: pytorch"
	assert_line "Scope: project"
	assert_line "Image: pytorch/pytorch:nightly"
	assert_line "Spec:"
	assert_line "  image: pytorch/pytorch:nightly"
	run -0 runai environment describe pytorch -p team-b -o json
	assert_equal "$(jq -r '"\(.meta.scope) \(.spec.image)"' <<<"$output")" "tenant pytorch/pytorch:2.3"
	run -1 runai environment describe nope
	assert_line --index 0 "runai: error: no environment called 'nope'"
	assert_line --index 1 "hint: run 'runai environment list' to see them (-A: in every scope)"
	run -2 runai environment describe pytorch -o wide

	run -0 runai compute list
	assert_line --index 0 --regexp '^Compute Resource +Scope +Project +GPU +CPU +Memory +Description +Created$'
	assert_line --regexp '^half-gpu +tenant +0\.5 +2 +4G +'
	assert_line --regexp '^two-gpus +cluster +2 +8 +32G +'
	run -0 runai compute describe half-gpu -o yaml
	assert_line "  gpuPortionRequest: 0.5"

	run -0 runai datasource list
	assert_line --index 0 --regexp '^Data Source +Scope +Project +Type +Target +Mount Path +Description +Created$'
	assert_line --regexp '^datasets +project +team-a +pvc +datasets-claim +/data +'
	assert_line --regexp '^shared +cluster +nfs +nfs\.example\.com:/export +/shared +'
	run -0 runai datasource list --type nfs --json
	assert_equal "$(names <<<"$output")" '["shared"]'
	run -0 runai datasource list -A --type git --json
	assert_equal "$(jq -c '[.[] | {name, kind, target, mountPath}]' <<<"$output")" '[{"name":"code","kind":"git","target":"https://example.com/r.git@main","mountPath":"/code"}]'
	run -2 runai datasource list --type ftp
	run -0 runai datasource describe shared
	assert_line "Target: nfs.example.com:/export"
	assert_line "  nfs:"

	run -0 runai credential list -A
	assert_line --index 0 --regexp '^Credential +Scope +Project +Type +Registry +Description +Created$'
	assert_line --regexp '^gitpass +project +team-b +password +'
	assert_line --regexp '^regcred +tenant +dockerRegistry +https://registry\.example\.com +'
	run -0 runai credential list --type dockerRegistry --json --columns name,kind
	assert_output '[
    {
        "name": "regcred",
        "kind": "dockerRegistry"
    }
]'
	run -0 runai credential describe regcred -o json
	assert_equal "$(jq -r '.meta.kind' <<<"$output")" dockerRegistry
	# each list read the project's view once
	run -0 jq -r 'select(.path | startswith("/api/v1/asset/")) | "\(.path) \(.status)"' <(cp_requests)
	refute_output --regexp ' [^2][0-9][0-9]$'
}

@test "the asset groups in Kubernetes mode say in one line that assets are a control plane's" {
	local g
	mark_requests
	for g in environment compute datasource credential; do
		run -1 --separate-stderr runai "$g" list
		[ -z "$output" ]
		[[ $stderr == "runai: error: "*" are assets of a Run:ai control plane, and Kubernetes mode uses none (see 'runai config control-plane')" ]]
		assert_equal "$(wc -l <<<"$stderr")" 1
	done
	run -1 --separate-stderr runai environment describe pytorch
	stderr_is "runai: error: environments are assets of a Run:ai control plane, and Kubernetes mode uses none (see 'runai config control-plane')"
	[ -z "$(requests_since_mark)" ]
}

@test "the v2 list output: --json, --yaml, --no-headers, --columns; the original lists keep theirs" {
	run -0 runai node list --no-headers --columns name,nodePool
	assert_output "node-1  default
node-2  a100"
	run -0 runai node list --yaml --columns name,gpus
	assert_output "- name: node-1
  gpus: 8
- name: node-2
  gpus: 8"
	run -0 runai cluster list --columns name --table
	assert_line --index 0 "Cluster"
	run -2 runai node list --columns name,nope
	assert_output --partial "unknown column 'nope' for --columns"
	run -2 runai pvc list --json --yaml
	assert_output "runai: error: give one of --json, --yaml and --table"
	# the original grammar's lists: their own columns and -o
	run -0 runai list nodes
	assert_line --index 1 --regexp '^NAME +STATUS +IP Address +ROLE +'
	run -0 runai list projects
	assert_line --index 0 --regexp '^PROJECT +DEPARTMENT +DESERVED GPUs +INT LIMIT +INT AFFINITY +TRAIN AFFINITY$'
	run -0 runai list clusters
	assert_line --index 1 --regexp '^CLUSTER +CURRENT PROJECT$'
	run -2 runai node list -o json
}

@test "no deprecation note on stderr for either grammar" {
	local cmd
	runai config project team-a >/dev/null
	for cmd in "cluster list" "list clusters" "project list" "list projects" \
		"node list" "list nodes" "nodepool list" "pvc list" \
		"template list" "list templates" "template describe gpu-half" \
		"describe template gpu-half"; do
		# shellcheck disable=SC2086 # the words of the command
		run -0 --separate-stderr runai $cmd
		[ -z "$stderr" ] || { echo "runai $cmd: $stderr"; false; }
	done
	cp_mode
	for cmd in "cluster list" "list clusters" "project list" "list projects" \
		"node list" "list nodes" "nodepool list" "pvc list" "template list" \
		"environment list" "compute list" "datasource list" "credential list"; do
		# shellcheck disable=SC2086
		run -0 --separate-stderr runai $cmd
		[ -z "$stderr" ] || { echo "runai $cmd: $stderr"; false; }
	done
}

@test "completion: the nouns and verbs from the tables, live names in both modes" {
	run -0 runai __complete ''
	assert_line nodepool
	assert_line datasource
	run -0 runai __complete environment ''
	assert_line list
	assert_line describe
	yq -yi '.contexts += [{"name": "other", "context": .contexts[0].context}]' "$KUBECONFIG"
	run -0 runai __complete cluster set ''
	assert_output "kube-sim
other
:4"
	run -0 runai __complete project set team-
	assert_line team-a
	assert_line team-d
	run -0 runai __complete template describe g
	assert_output "gpu-half
:4"
	run -0 runai __complete datasource list --type ''
	assert_line secretVolume

	cp_mode
	MORE_CLUSTERS=1
	cp_settings '{"clusters": [{"name": "second"}]}'
	run -0 runai __complete cluster set ''
	assert_output "kube-sim
second
:4"
	run -0 runai __complete config cluster s
	assert_output "second
:4"
	run -0 runai __complete environment describe ''
	assert_output "jupyter
pytorch
tboard
:4"
	run -0 runai __complete -p team-a compute describe ''
	assert_output "half-gpu
two-gpus
:4"
	run -0 runai __complete template describe ''
	assert_output "train-small
:4"
	run -0 runai __complete project set team-b
	assert_output "team-b
:4"
}

@test "the judge saw no schema violation in anything above" {
	run -0 cat "$CP_VIOLATIONS"
	assert_output ""
	assert [ "$(grep -c '"path":"/api/v1/asset/' "$CP_REQUESTS")" -gt 5 ]
}

# other_release VERSION: this test's own emulator of that release, with
# the node pool and an asset; CP_URL and the logs point at it.
other_release() {
	local dir="$BATS_TEST_TMPDIR/sim-$1"
	mkdir -p "$dir"
	"$PYTHON" "$TOP/contrib/kube-sim/kube-sim" --state-dir "$dir" --port 0 \
		--demo --control-plane "$1" >"$dir/server.log" 2>&1 &
	OTHER_SIM_PID=$!
	local _
	for _ in $(seq 1 $((200 * TIME_SCALE))); do
		[ -s "$dir/ready.json" ] && break
		sleep 0.05
	done
	KUBESIM_DIR=$dir
	KUBESIM_URL=$(jq -r .url "$dir/ready.json")
	KUBESIM_CA=$(jq -r .ca "$dir/ready.json")
	KUBESIM_TOKEN=$(jq -r .token "$dir/ready.json")
	KUBESIM_KUBECONFIG=$(jq -r .kubeconfig "$dir/ready.json")
	KUBESIM_SIM_TOKEN_FILE=$(jq -r .sim_token_file "$dir/ready.json")
	CP_URL=$(jq -r .control_plane_url "$dir/ready.json")
	CP_CREDS=$(jq -r .control_plane_credentials "$dir/ready.json")
	CP_USER=$(jq -r .username "$CP_CREDS")
	CP_REQUESTS="$dir/control-plane-requests.jsonl"
	CP_VIOLATIONS="$dir/control-plane-violations.jsonl"
	sim POST /_sim/seed '{"apiVersion": "run.ai/v1alpha1", "kind": "NodePool",
		"metadata": {"name": "a100"},
		"spec": {"labelKey": "pool", "labelValue": "a100"}}' >/dev/null
	kube_api -X PATCH -H 'Content-Type: application/merge-patch+json' \
		-d '{"metadata": {"labels": {"pool": "a100"}}}' \
		"$KUBESIM_URL/api/v1/nodes/node-2" >/dev/null
	cp_settings '{"assets": [{"kind": "compute", "name": "one-gpu", "scope": "tenant",
		"spec": {"gpuDevicesRequest": 1}}]}'
	use_sim_kubeconfig
	cp_mode
}

@test "2.21: node pools from /api/v1/node-pools, projects a page at a time, assets; no template list before 2.23" {
	other_release 2.21
	run -0 runai nodepool list --json
	assert_equal "$(jq -c '[.[] | {name, nodeNames}]' <<<"$output")" '[{"name":"a100","nodeNames":["node-2"]},{"name":"default","nodeNames":["node-1"]}]'
	run -0 cp_status_of GET '^/api/v1/node-pools$'
	assert_output 200
	run -0 --separate-stderr runai project list --max-items 1 --json
	assert_equal "$(names <<<"$output")" '["team-a"]'
	assert_equal "$stderr" "Next token: 1"
	run -0 runai compute list --json
	assert_equal "$(jq -c '[.[] | {name, gpu}]' <<<"$output")" '[{"name":"one-gpu","gpu":"1"}]'
	run -1 runai template list
	assert_output "runai: error: the control plane's workload templates are listed from 2.23 on (this is 2.21.12)"
	run -0 cat "$CP_VIOLATIONS"
	assert_output ""
}

@test "2.18: node pools from the cluster's own path (the document has no /api/v1/node-pools)" {
	other_release 2.18
	run -0 runai nodepool list --json
	assert_equal "$(jq -c '[.[] | {name, "label": .label, nodeNames, phase, id}]' <<<"$output")" '[{"name":"a100","label":"pool=a100","nodeNames":["node-2"],"phase":"Ready","id":"2"},{"name":"default","label":null,"nodeNames":["node-1"],"phase":"Ready","id":"1"}]'
	run -0 cp_status_of GET '^/v1/k8s/clusters/[-0-9a-f]+/node-pools$'
	assert_output 200
	run -0 cp_status_of GET '^/api/v1/node-pools$'
	assert_output ""
	# the endpoint 2.18's document lacks answers 404 there
	local token
	token=$(jq -r .accessToken "$XDG_CONFIG_HOME"/runai/control-plane/*.json)
	run -0 curl -sS -o /dev/null -w '%{http_code}' -H @<(printf 'Authorization: Bearer %s\n' "$token") \
		"$CP_URL/api/v1/node-pools"
	assert_output 404
	run -0 runai node list --json
	assert_equal "$(jq -c '[.[] | {name, nodePool}]' <<<"$output")" '[{"name":"node-1","nodePool":"default"},{"name":"node-2","nodePool":"a100"}]'
	run -0 runai project list --page-size 2 --json
	assert_equal "$(names <<<"$output")" '["team-a","team-b","team-c","team-d"]'
	# the 404 above is the only thing the judge may have said: not in 2.18's document
	run -0 jq -r .violation "$CP_VIOLATIONS"
	assert_output "GET /api/v1/node-pools is not in the 2.18 document"
}
