#!/usr/bin/env bats
# runai in backend (control-plane) mode against kube-sim's emulated Run:ai
# control plane. One suite for every release profile: this file is 2.24,
# t6000-cp-2.18.bats and t6000-cp-2.21.bats are links to it, and the
# profile is the version in the name the file is run under. Every request
# runai sends and every answer the emulator gives is judged against that
# release's published OpenAPI document; the suite ends by asserting that
# the judge saw nothing wrong, and by proving that it would have.

load lib/common
load lib/cp

CP_VERSION=${BATS_TEST_FILENAME##*/t6000-cp-}
CP_VERSION=${CP_VERSION%.bats}

setup_file() {
	cp_start
}

teardown_file() {
	kubesim_stop
}

setup() {
	cp_setup
	NS=runai-team-a
}

@test "a context is in Kubernetes mode until a control plane is configured" {
	isolate_env
	use_sim_kubeconfig
	run -0 runai version
	assert_line "Mode: kubernetes"
	run -0 runai config control-plane "$CP_URL"
	run -0 runai version
	assert_line "Mode: control-plane"
	assert_line "ControlPlane: $CP_URL"
	assert_line "ControlPlaneVersion: unknown (not logged in)"
	# kept beside the context, where kubectl keeps it too
	run -0 yq -r '.contexts[0].context.extensions[0].extension.url' "$KUBECONFIG"
	assert_output "$CP_URL"
	run -0 runai config control-plane --unset
	run -0 runai version
	assert_line "Mode: kubernetes"
	# or for every context from the environment
	RUNAI_CONTROL_PLANE_URL=$CP_URL run -0 runai version
	assert_line "Mode: control-plane"
}

@test "plain http to a host that is not loopback is refused" {
	run -1 runai config control-plane http://runai.example.com
	assert_output --partial "plain http to a host that is not a loopback address"
	assert_equal "${#lines[@]}" 2	# the error and its hint
}

@test "not logged in: one clear line" {
	run -1 runai list jobs -p team-a
	assert_output "runai: error: not logged in to the control plane $CP_URL; run 'runai login'"
}

@test "login with a password from stdin; the tokens are private; whoami and version" {
	run -0 --separate-stderr bash -c "jq -r .password '$CP_CREDS' |
		runai login --username '$CP_USER' --password-stdin -v=8"
	assert_output "Logged in successfully to $CP_URL"
	# -v=8 traces the bodies: the password and the tokens are redacted
	refute [ -z "$stderr" ]
	[[ "$stderr" != *"$(jq -r .password "$CP_CREDS")"* ]]
	[[ "$stderr" != *eyJ* ]]
	local store
	store=$(find "$XDG_CONFIG_HOME/runai/control-plane" -name '*.json')
	run -0 stat -c %a "$store"
	assert_output 600
	run -0 runai whoami
	assert_line "User: $CP_USER"
	assert_line "Control plane: $CP_URL"
	run -0 runai version
	assert_line --regexp "^ControlPlaneVersion: ${CP_VERSION//./\\.}\.[0-9]+$"
	assert [ "$(cp_grants password)" -ge 1 ]
}

@test "logout forgets the login" {
	cp_login
	run -0 runai logout
	assert_output "Logged out"
	run -0 find "$XDG_CONFIG_HOME" -name '*.json'
	assert_output ""
	run -1 runai whoami
	assert_line --index 0 "runai: error: You are currently not logged in to Run:AI"
}

@test "browser login: the control plane's identity provider signs in, the loopback listener gets the code" {
	local url cb pid rc=0 pw
	pw=$(jq -r .password "$CP_CREDS")
	env -u DISPLAY -u WAYLAND_DISPLAY runai login --auth-flow browser \
		>"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
	pid=$!
	url=$(wait_for_match "$BATS_TEST_TMPDIR/err" 'http://[^[:space:]]+/auth\?[^[:space:]]+') ||
		{ kill "$pid"; false; }
	[[ $url == "$CP_URL/auth/realms/runai/protocol/openid-connect/auth?"* ]]
	[[ $url == *"redirect_uri=http%3A%2F%2F127.0.0.1%3A"* && $url == *"client_id=runai-cli"* ]]
	# the control plane's exchange carries no verifier: no challenge is sent
	[[ $url != *code_challenge* ]]
	# a wrong password is the sign-in page again
	run -0 curl -sS -o /dev/null -w '%{http_code}' "${url%%\?*}" -d "${url#*\?}" \
		-d username=nobody -d password=wrong
	assert_output 401
	cb=$(cp_signin "$url" "$CP_USER" "$pw")
	[[ $cb == http://127.0.0.1:*/callback\?code=*\&state=* ]] || { kill "$pid"; false; }
	run -0 curl -sS "$cb"
	assert_output --partial "runai is logged in"
	wait "$pid" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$BATS_TEST_TMPDIR/err"; false; }
	run -0 cat "$BATS_TEST_TMPDIR/out"
	assert_line "Logged in successfully to $CP_URL"
	run -0 jq -r .grant "$XDG_CONFIG_HOME"/runai/control-plane/*.json
	assert_output exchange_token
	run -0 runai whoami
	assert_line "User: $CP_USER"
	run -0 runai list projects
	assert_line --regexp "^team-a "
	# the code was exchanged at the control plane, once
	assert_equal "$(cp_grants exchange_token)" 1
}

@test "remote-browser login: the control plane's code page, the code pasted back; a code is good once" {
	local fifo="$BATS_TEST_TMPDIR/fifo" url loc code pid rc=0
	mkfifo "$fifo"
	runai login --auth-flow remote-browser <"$fifo" >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
	pid=$!
	exec 5>"$fifo"
	url=$(wait_for_match "$BATS_TEST_TMPDIR/err" 'http://[^[:space:]]+/auth\?[^[:space:]]+') ||
		{ exec 5>&-; kill "$pid"; false; }
	grep -q 'Enter verification code: ' "$BATS_TEST_TMPDIR/err"
	loc=$(cp_signin "$url" "$CP_USER" "$(jq -r .password "$CP_CREDS")")
	[[ $loc == "$CP_URL/oauth-code?code="* ]] || { exec 5>&-; kill "$pid"; false; }
	code=$(curl -sS "$loc" | sed -n 's/.*<pre id="code">\([^<]*\)<.*/\1/p')
	[ -n "$code" ]
	printf '%s\n' "$code" >&5
	exec 5>&-
	wait "$pid" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$BATS_TEST_TMPDIR/err"; false; }
	run -0 runai whoami
	assert_line "User: $CP_USER"
	# the same code again: the control plane refuses it, nothing is stored
	runai logout >/dev/null
	run -1 bash -c "printf '%s\n' '$code' | runai -v=8 login --auth-flow remote-browser"
	assert_line --partial "login to $CP_URL failed"
	# -v=8 traced the exchange, the code redacted
	assert_line --partial '"grantType":"exchange_token"'
	refute_output --partial "$code"
	run -0 find "$XDG_CONFIG_HOME" -name '*.json'
	assert_output ""
}

@test "the device flow is refused in backend mode, not ignored" {
	run -2 runai login --auth-flow device
	assert_output "runai: error: --auth-flow device is not supported in control-plane mode yet: log in with the browser or remote-browser flow, --username, or an access key with --client-id"
}

@test "a wrong password fails with one line and stores nothing" {
	run -1 bash -c "echo wrong | runai login --username '$CP_USER' --password-stdin"
	assert_output --partial "login to $CP_URL failed"
	assert_equal "${#lines[@]}" 1
	run -0 find "$XDG_CONFIG_HOME" -name '*.json'
	assert_output ""
}

@test "login with an access key, the secret from a file" {
	local -a flags
	mapfile -t flags < <(cp_access_key_flags)
	run -0 runai login "${flags[@]}"
	assert_output "Logged in successfully to $CP_URL"
	run -0 runai whoami -o json
	assert_equal "$(jq -r .subject <<<"$output")" "$(jq -r .clientId "$CP_CREDS")"
	# the secret from stdin instead of the file
	flags[2]=--secret-stdin
	unset 'flags[3]'
	run -0 bash -c 'creds=$1; shift; jq -r .clientSecret "$creds" | runai login "$@"' \
		_ "$CP_CREDS" "${flags[@]}"
	assert_output "Logged in successfully to $CP_URL"
}

@test "list projects: the control plane's projects in the Kubernetes-mode columns" {
	cp_login
	run -0 runai list projects
	assert_line --index 0 --regexp '^PROJECT +DEPARTMENT +DESERVED GPUs +INT LIMIT +INT AFFINITY +TRAIN AFFINITY$'
	assert_line --regexp '^team-a +- +4 '
	assert_line --regexp '^team-d +- +8 '
	run -0 runai config project team-b
	run -0 runai list projects
	assert_line --regexp '^team-b \(default\) '
}

@test "submit a training and a workspace; list shows them with the Kubernetes-mode columns" {
	cp_login
	run -0 runai submit train1 -p team-a -i ubuntu -g 1 -e EPOCHS=3 -- sleep 300
	assert_line "The job 'train1' has been submitted successfully"
	run -0 runai submit ws1 -p team-a -i ubuntu -g 0.5 --cpu 0.5 --memory 1G --interactive -- sleep 300
	cp_wait_status train1 Running
	cp_wait_status ws1 Running
	runai config project team-a >/dev/null
	run -0 runai list jobs
	assert_line --index 0 "Showing jobs for project team-a"
	assert_line --index 1 --regexp '^NAME +STATUS +AGE +NODE +IMAGE +TYPE +PROJECT +USER +GPUs Allocated \(Requested\) +PODs Running \(Pending\) +SERVICE URL\(S\)$'
	assert_line --regexp "^train1 +Running +[0-9]+s +node-[0-9] +ubuntu +Train +team-a +$CP_USER +1 \(1\) +1 \(0\)"
	assert_line --regexp "^ws1 +Running +[0-9]+s +node-[0-9] +ubuntu +Interactive +team-a +$CP_USER +0\.50 \(0\.50\) +1 \(0\)"
	# the workload is the emulator's own cluster object: kubectl sees its pod
	run -0 kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/pods?labelSelector=release%3Dtrain1"
	assert_equal "$(jq -r '.items[0].spec.containers[0].env[0].name' <<<"$output")" EPOCHS
	# 200 until 2.20, 202 (accepted) from 2.21
	run -0 cp_status_of POST '^/api/v1/workloads/trainings$'
	assert_output "$([ "$CP_VERSION" = 2.18 ] && echo 200 || echo 202)"
	run -0 runai list -A -o name
	assert_output "job/train1
job/ws1"
	# no name: the control plane names it after the prefix
	run -0 runai submit --job-name-prefix exp -p team-b -i ubuntu -- sleep 300
	assert_line --regexp "^The job 'exp-[a-z0-9]{5}' has been submitted successfully$"
}

@test "list nodes: the control plane's nodes and telemetry in the Kubernetes-mode columns" {
	cp_login
	# the jobs of the test above settled: both modes count the same pods
	local n
	for n in train1 ws1; do cp_wait_status "$n" Running; done
	cp_wait_status "$(runai list jobs -p team-b -o name | sed -n 's|^job/||p')" Running
	run -0 runai list nodes
	assert_line --index 1 --regexp '^NAME +STATUS +IP Address +ROLE +'
	if [ "$CP_VERSION" = 2.18 ]; then
		# 2.18's telemetry has GPUs only: the rest is unknown, not zero
		assert_line --regexp '^node-1 +Ready +- +- +│ - +- +│ - +- +│ NVIDIA-A100-SXM4-80GB +8 +[0-9.]+$'
	else
		assert_line --regexp '^node-1 +Ready +- +- +│ 64\.00 +[0-9.]+ +│ 512 GiB +[0-9.]+ [KMG]iB +│ NVIDIA-A100-SXM4-80GB +8 +[0-9.]+$'
	fi
	runai list nodes -o json >"$BATS_TEST_TMPDIR/cp.json"
	# the same numbers as Kubernetes mode reads from the cluster itself
	runai config control-plane --unset >/dev/null
	runai list nodes -o json >"$BATS_TEST_TMPDIR/kube.json"
	run -0 jq -c '[.[] | {name, gpu}]' "$BATS_TEST_TMPDIR/cp.json"
	assert_output "$(jq -c '[.[] | {name, gpu}]' "$BATS_TEST_TMPDIR/kube.json")"
	assert_equal "$(jq -r '.[0].gpu.allocated > 0' "$BATS_TEST_TMPDIR/cp.json")" true
	run -0 jq -c '[.[] | {cpu, memory}]' "$BATS_TEST_TMPDIR/cp.json"
	if [ "$CP_VERSION" = 2.18 ]; then
		assert_output '[{"cpu":{"allocatable":null,"allocated":null},"memory":{"allocatableBytes":null,"allocatedBytes":null}},{"cpu":{"allocatable":null,"allocated":null},"memory":{"allocatableBytes":null,"allocatedBytes":null}}]'
	else
		assert_output "$(jq -c '[.[] | {cpu, memory}]' "$BATS_TEST_TMPDIR/kube.json")"
	fi
	assert_equal "$(jq -r '[.[].nodePool] | join(",")' "$BATS_TEST_TMPDIR/cp.json")" default,default
	# nodes from /api/v1/nodes from 2.23, the cluster's own path before
	if [ "$CP_VERSION" = 2.24 ]; then
		run -0 cp_status_of GET '^/api/v1/nodes$'
	else
		run -0 cp_status_of GET '^/api/v1/clusters/[-0-9a-f]+/nodes$'
	fi
	assert_line 200
}

@test "describe node and list clusters in backend mode" {
	cp_login
	local alloc
	alloc=$(runai list nodes node-2 -o json | jq -r '.[0].gpu.allocated')
	run -0 runai describe node node-2
	assert_line --index 0 "NAME: node-2"
	assert_line "NODE POOL: default"
	assert_line "TOTAL GPUS: 8"
	assert_line "ALLOCATED GPUS: $alloc"
	if [ "$CP_VERSION" = 2.18 ]; then
		assert_line "TOTAL CPU CORES: -"
	else
		assert_line "TOTAL CPU CORES: 64.00"
	fi
	run -1 runai describe node node-2 nosuch
	assert_line --index 0 "runai: error: No match found for node(s) '[nosuch]'"
	assert_line --index 1 --partial "available nodes: node-1, node-2"
	runai config project team-a >/dev/null
	run -0 runai list clusters
	assert_line --index 0 "Clusters of the control plane $CP_URL:"
	assert_line --index 1 --regexp '^CLUSTER +CURRENT PROJECT +STATUS +VERSION$'
	assert_line --index 2 --regexp "^kube-sim \(current\) +team-a +Connected +${CP_VERSION//./\\.}\.[0-9]+$"
}

@test "top job and top node: the control plane's metrics in the Kubernetes-mode columns" {
	cp_login
	runai submit top1 -p team-c -i ubuntu -g 1 -- sleep 300 >/dev/null
	cp_wait_status top1 Running
	local uid g=1073741824
	uid=$(kube_api "$KUBESIM_URL/apis/run.ai/v1/namespaces/runai-team-c/runaijobs/top1" |
		jq -r .metadata.uid)
	# the emulator's Prometheus numbers, which its control plane reports too
	jq -nc --arg u "$uid" --argjson g "$g" '[
		{metric: "runai_pod_group_gpu_utilization", labels: {pod_group_uuid: $u}, value: 42},
		{metric: "runai_pod_group_gpu_memory_allocated_bytes", labels: {pod_group_uuid: $u}, value: (40 * $g)},
		{metric: "runai_pod_group_gpu_memory_used_bytes", labels: {pod_group_uuid: $u}, value: (10 * $g)},
		{metric: "runai_active_job_cpu_requested_cores", labels: {pod_group_uuid: $u}, value: 1.5},
		{metric: "runai_pod_group_cpu_usage_cores", labels: {pod_group_uuid: $u}, value: 0.25},
		{metric: "runai_active_job_memory_requested_bytes", labels: {pod_group_uuid: $u}, value: (2 * $g)},
		{metric: "runai_pod_group_memory_used_bytes", labels: {pod_group_uuid: $u}, value: $g},
		{metric: "runai_node_cpu_utilization", labels: {node: "node-1"}, value: 37.5},
		{metric: "runai_node_memory_used_bytes", labels: {node: "node-1"}, value: (2 * $g)},
		{metric: "runai_node_gpu_utilization", labels: {node: "node-1", gpu: "0"}, value: 80},
		{metric: "runai_node_gpu_utilization", labels: {node: "node-1", gpu: "1"}, value: 40},
		{metric: "runai_node_gpu_used_memory", labels: {node: "node-1", gpu: "0"}, value: $g}
	]' | sim POST /_sim/metrics - >/dev/null
	run -0 runai top job -p team-c
	assert_line --regexp "^top1 +team-c +$CP_USER +Train +[0-9]+s +node-[0-9] +│ 1 +42\.0% +│ 40 GiB +10 GiB +│ 1\.50 +0\.25 +│ 2 GiB +1 GiB$"
	run -0 cp_status_of GET '^/api/v1/workloads/[-0-9a-f]+/metrics$'
	assert_line 200
	# the metrics are optional: without them, a warning and what is known
	cp_settings '{"metricsDown": true}'
	run -0 --separate-stderr runai top job -p team-c
	cp_settings '{"metricsDown": false}'
	assert_equal "$stderr" "Some metrics will not show, please contact customer support and attach the following error: the metrics service is not available"
	assert_line --regexp "^top1 +team-c +$CP_USER +Train +[0-9]+s +node-[0-9] +│ 1 +- +│ - +- +│ - +- +│ - +-$"
	run -1 runai top node nosuch
	assert_line --index 0 "runai: error: No match found for node(s) '[nosuch]'"
	run -0 runai top node
	if [ "$CP_VERSION" = 2.18 ]; then
		# no node metrics (nor node ids) in 2.18: capacity only
		assert_line --regexp '^node-1 +Ready +│ - +- +│ - +- +│ 8 +-$'
		run -0 cp_status_of GET '^/api/v1/nodes/.*/metrics$'
		assert_output ""
	else
		assert_line --regexp '^node-1 +Ready +│ 64\.00 +37\.5% +│ 512 GiB +2 GiB \(0\.4%\) +│ 8 +60\.0%$'
		local line=${lines[2]}
		run -0 runai top node node-1 -d
		assert_line --regexp '^0 +80\.0% +- +1 GiB +-$'
		assert_line --regexp '^1 +40\.0% +- +- +-$'
		# the row Kubernetes mode prints from Prometheus itself
		runai config control-plane --unset >/dev/null
		run -0 runai top node
		assert_line "$line"
	fi
	sim DELETE /_sim/metrics >/dev/null
}

@test "describe job: the workload, its pods and events" {
	cp_login
	runai submit desc1 -p team-a -i ubuntu -- sleep 300 >/dev/null
	cp_wait_status desc1 Running
	run -0 runai describe job desc1 -p team-a
	assert_line "NAME: desc1"
	assert_line "STATUS: Running"
	assert_line "Pods:"
	assert_line --regexp '^desc1-[a-z0-9]+ +Running +node-[0-9] +ubuntu$'
	assert_line "Events:"
	assert_line --regexp '\[Scheduled\] Successfully assigned runai-team-a/desc1-'
	run -1 runai describe job nosuch -p team-a
	assert_output "runai: error: Job nosuch does not exist in project team-a. If the job exists in a different project, use -p <project-name>."
	# -o json|yaml: the control plane's own objects
	run -0 runai describe job desc1 -p team-a -o json
	assert_equal "$(jq -r '[.workload.name, .workload.phase, .submitted.spec.image,
		.submitted.workloadId == .workload.id, (.pods[0].name | startswith("desc1-")),
		(.events | length > 0)] | join(" ")' <<<"$output")" "desc1 Running ubuntu true true true"
	run -0 cp_status_of GET '^/api/v1/workloads/trainings/[-0-9a-f]+$'
	assert_line 200
	run -0 bash -c "runai describe job desc1 -p team-a -o yaml | yq -r .submitted.name"
	assert_output desc1
}

@test "suspend, resume and delete" {
	cp_login
	runai submit life1 -p team-a -i ubuntu -- sleep 300 >/dev/null
	cp_wait_status life1 Running
	runai config project team-a >/dev/null
	run -0 runai suspend life1
	assert_output "Job life1 suspended successfully."
	cp_wait_status life1 Suspended
	run -0 runai resume life1
	assert_output "Job life1 resumed successfully."
	cp_wait_status life1 Running
	run -1 runai delete life1 nosuch
	assert_line "Job life1 deleted successfully."
	assert_line "runai: error: Job nosuch does not exist in project team-a. If the job exists in a different project, use -p <project-name>."
	run -0 cp_status_of DELETE '^/api/v1/workloads/trainings/'
	assert_output "$([ "$CP_VERSION" = 2.18 ] && echo 204 || echo 202)"
	run -0 runai list jobs -o name
	refute_line job/life1
}

@test "a policy violation is shown per field and nothing is made" {
	cp_login
	run -1 --separate-stderr runai submit big1 -p team-a -i ubuntu -g 8
	assert_equal "$stderr" "runai: error from server (BadRequest): the workload does not comply with the policy
  compute.gpuDevicesRequest: value must be no greater than 4"
	run -0 kube_api "$KUBESIM_URL/apis/run.ai/v1/namespaces/$NS/runaijobs"
	refute_output --partial big1
}

@test "labels, annotations, --git-sync and -s ingress reach the cluster through the control plane" {
	cp_login
	runai config project team-a >/dev/null
	run -0 runai submit lb1 -i ubuntu --interactive -l team=vision -a billing=unit-7 \
		--git-sync source=https://example.com/r.git,branch=dev,target=/src \
		--port 8888 -s ingress -- sleep 300
	cp_wait_status lb1 Running
	run -0 kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/pods?labelSelector=release%3Dlb1"
	run -0 jq -c '.items[0] | [.metadata.labels.team, .metadata.annotations.billing,
		(.spec.containers[0].volumeMounts[] | .mountPath)]' <<<"$output"
	assert_output '["vision","unit-7","/src"]'
	# the exposed URL is an ingress to the workload's port
	run -0 kube_api "$KUBESIM_URL/apis/networking.k8s.io/v1/namespaces/$NS/ingresses/lb1"
	assert_equal "$(jq -r '.spec.rules[0].http.paths[0].backend.service.port.number' <<<"$output")" 8888
	# as the control plane keeps it
	run -0 runai describe job lb1 -o json
	run -0 jq -c '.submitted.spec | [.labels, .annotations, .storage.git, .exposedUrls]' <<<"$output"
	assert_output '[[{"name":"team","value":"vision"}],[{"name":"billing","value":"unit-7"}],[{"repository":"https://example.com/r.git","branch":"dev","path":"/src"}],[{"container":8888}]]'
	run -0 runai delete lb1
	run -0 kube_api -o /dev/null -w '%{http_code}' \
		"$KUBESIM_URL/apis/networking.k8s.io/v1/namespaces/$NS/ingresses/lb1"
	assert_output 404
}

@test "--template: the control plane's workload template, by name, under the command line (2.23+)" {
	cp_login
	cp_settings '{"templates": [
		{"name": "gpu", "workloadType": "Training", "scope": "tenant",
		 "spec": {"image": "ubuntu", "environmentVariables": [{"name": "FROM", "value": "template"}]}},
		{"name": "gpu", "workloadType": "Training", "scope": "project:team-b",
		 "spec": {"image": "busybox"}},
		{"name": "nb", "workloadType": "Workspace", "scope": "project:team-a",
		 "spec": {"image": "jupyter/base-notebook"}}]}'
	if [ "$CP_VERSION" != 2.24 ]; then
		run -2 runai submit tp1 -p team-a --template gpu -- sleep 300
		assert_output --regexp "^runai: error: --template needs a control plane of 2\.23 or later \(this is ${CP_VERSION//./\\.}\.[0-9]+\)$"
		return
	fi
	# the image and the variable come from the template
	run -0 runai submit tp1 -p team-a --template gpu -- sleep 300
	cp_wait_status tp1 Running
	run -0 kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/pods?labelSelector=release%3Dtp1"
	run -0 jq -c '.items[0].spec.containers[0] | [.image, .env]' <<<"$output"
	assert_output '["ubuntu",[{"name":"FROM","value":"template"}]]'
	# the command line wins over it; the request names the template by id
	run -0 runai submit tp2 -p team-a -i python --template gpu --dry-run -o json
	assert_equal "$(jq -r '[.spec.image, (.templateId | test("^[0-9a-f-]{36}$"))] | @tsv' <<<"$output")" \
		"$(printf 'python\ttrue')"
	run -0 runai submit tp3 -p team-a --interactive --template nb -- sleep 300
	run -0 runai describe job tp3 -p team-a -o json
	assert_equal "$(jq -r .submitted.spec.image <<<"$output")" jupyter/base-notebook
	# a template of another type, another project's, or two that apply
	run -1 runai submit tp4 -p team-a --template nb -- sleep 300
	assert_output "runai: error: no Training template 'nb' on the control plane for this project"
	run -1 runai submit tp5 -p team-b --interactive --template nb -- sleep 300
	assert_output "runai: error: no Workspace template 'nb' on the control plane for this project"
	run -1 runai submit tp6 -p team-b --template gpu -- sleep 300
	assert_output "runai: error: 2 Training templates called 'gpu' apply to this project; the control plane cannot tell which is meant"
	run -0 runai list jobs -A -o name
	refute_line job/tp4
	refute_line job/tp6
}

@test "what the control plane's API cannot carry is refused, not dropped" {
	cp_login
	run -2 runai submit gs1 -p team-a -i ubuntu \
		--git-sync source=https://example.com/r.git,username=u,password=hunter2
	# (after the warning that a password in argv is visible to others)
	assert_line --index 1 "runai: error: --git-sync username= and password= are not supported in control-plane mode: the control plane takes a repository's credentials only from a Secret in the cluster"
	run -2 runai submit gs2 -p team-a -i ubuntu --git-sync source=https://example.com/r.git,image=my/git:1
	assert_output "runai: error: --git-sync image= is not supported in control-plane mode: the control plane picks the image that clones"
	run -2 runai submit an1 -p team-a -i ubuntu -a "example.com/$(printf 'a%.0s' {1..60})=x"
	assert_output --regexp "^runai: error: --annotation 'example\.com/a+': the control plane takes names of at most 63 characters$"
	run -2 runai submit mps1 -p team-a -i ubuntu --mps
	assert_output "runai: error: --mps is not supported in control-plane mode yet"
	# MIG profiles are in the API until 2.24
	if [ "$CP_VERSION" = 2.24 ]; then
		run -2 runai submit mig1 -p team-a -i ubuntu --mig-profile 1g.5gb
		assert_output --regexp "^runai: error: --mig-profile has no field in the control plane's API from 2\.24 \(this is 2\.24\.[0-9]+\)$"
	else
		run -0 runai submit mig1 -p team-a -i ubuntu --mig-profile 1g.5gb -- sleep 300
		run -0 runai describe job mig1 -p team-a -o json
		assert_equal "$(jq -c '.submitted.spec.compute | [.gpuRequestType, .migProfile]' <<<"$output")" \
			'["migProfile","1g.5gb"]'
	fi
}

@test "node type, deletion after completion, host IPC and network, no privilege escalation" {
	cp_login
	run -0 runai submit sc1 -p team-a -i ubuntu --node-type a100 --ttl-after-finish 90s \
		--host-ipc --host-network --prevent-privilege-escalation -- sleep 300
	local _ pod=
	for _ in $(seq 1 $((50 * TIME_SCALE))); do
		pod=$(kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/pods?labelSelector=release%3Dsc1" |
			jq -c '.items[0] // empty')
		[ -n "$pod" ] && break
		sleep 0.2
	done
	run -0 jq -c '.spec | [.nodeSelector["run.ai/type"], .hostIPC, .hostNetwork,
		.containers[0].securityContext.allowPrivilegeEscalation]' <<<"$pod"
	assert_output '["a100",true,true,false]'
	run -0 runai describe job sc1 -p team-a -o json
	assert_equal "$(jq -r .submitted.spec.autoDeletionTimeAfterCompletionSeconds <<<"$output")" 90
	run -0 runai delete sc1 -p team-a
}

@test "submit --dry-run prints the request, secrets redacted, and sends nothing" {
	cp_login
	local before
	before=$(cp_status_of POST '^/api/v1/workloads/' | wc -l)
	run -0 --separate-stderr runai submit dry1 -p team-a -i ubuntu -e API_TOKEN=hunter2 \
		-e EPOCHS=2 --interactive --preemptible --dry-run --verbosity=8
	[[ "$output$stderr" != *hunter2* ]]
	assert_line --index 0 "# POST /api/v1/workloads/workspaces"
	assert_line "  - name: API_TOKEN"
	assert_line "    value: <redacted>"
	assert_line "    value: '2'"
	# how a preemptible workspace is asked for depends on the release
	if [ "$CP_VERSION" = 2.24 ]; then
		assert_line "  preemptibility: preemptible"
	else
		assert_line "  priorityClass: interactive-preemptible"
	fi
	run -0 runai submit dry1 -p team-a -i ubuntu --dry-run -o json
	assert_equal "$(jq -r '.spec.image + " " + .clusterId' <<<"$output")" \
		"ubuntu $(jq -r .cluster.id "$XDG_CONFIG_HOME"/runai/control-plane/*.json)"
	assert_equal "$(cp_status_of POST '^/api/v1/workloads/' | wc -l)" "$before"
	run -0 runai list jobs -A -o name
	refute_line job/dry1
}

@test "submit with claims, a host directory, ports and node pools" {
	cp_login
	runai config project team-a >/dev/null
	# an existing claim, and a new one the control plane makes
	jq -n '{apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: {name: "data"},
		spec: {accessModes: ["ReadWriteOnce"], resources: {requests: {storage: "1Gi"}}}}' |
		kube_api -X POST -H 'Content-Type: application/json' --data-binary @- \
			"$KUBESIM_URL/api/v1/namespaces/$NS/persistentvolumeclaims" >/dev/null
	run -0 runai submit st1 -i ubuntu --pvc data:/data:ro --pvc :2Gi:/ckpt -v /mnt/ds:/ds \
		--port 30088:8888 -s nodeport --node-pools default --interactive -- sleep 300
	cp_wait_status st1 Running
	run -0 kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/pods?labelSelector=release%3Dst1"
	run -0 jq -c '.items[0].spec | [(.volumes[] | .persistentVolumeClaim.claimName // .hostPath.path),
		(.containers[0].volumeMounts[] | "\(.mountPath):\(.readOnly)"),
		.containers[0].ports[0].containerPort]' <<<"$output"
	assert_output '["data","st1-pvc-1","/mnt/ds","/data:true","/ckpt:false","/ds:false",8888]'
	run -0 kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/persistentvolumeclaims/st1-pvc-1"
	assert_equal "$(jq -r .spec.resources.requests.storage <<<"$output")" 2Gi
	run -0 kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/services/st1"
	assert_equal "$(jq -c '[.spec.type, .spec.ports[0].nodePort, .spec.ports[0].targetPort]' <<<"$output")" \
		'["NodePort",30088,8888]'
	run -0 runai describe job st1 -o json
	assert_equal "$(jq -c .workload.requestedNodePools <<<"$output")" '["default"]'
	# a port's type without a port is the Kubernetes-mode error
	run -2 runai submit st2 -i ubuntu -s nodeport
	assert_output "runai: error: Ports must be provided when exposing a service."
}

@test "--non-preemptible: a training from 2.24; --node-pools is for control-plane mode" {
	cp_login
	if [ "$CP_VERSION" = 2.24 ]; then
		run -0 runai submit np1 -p team-b -i ubuntu --non-preemptible -- sleep 300
		run -0 runai describe job np1 -p team-b -o json
		assert_equal "$(jq -r .workload.preemptible <<<"$output")" false
	else
		run -2 runai submit np1 -p team-b -i ubuntu --non-preemptible -- sleep 300
		assert_output --regexp "^runai: error: --non-preemptible for a training needs a control plane of 2\.24 or later \(this is ${CP_VERSION//./\\.}\.[0-9]+\)$"
	fi
	run -2 runai submit np2 -p team-b -i ubuntu --preemptible --non-preemptible
	assert_output "runai: error: --preemptible and --non-preemptible exclude each other"
	runai config control-plane --unset >/dev/null
	run -2 runai submit np3 -p team-b -i ubuntu --node-pools a100
	assert_line --index 0 "runai: error: --node-pools is for control-plane mode"
}

@test "list jobs --watch polls and prints the list again when it changes" {
	cp_login
	runai list jobs -p team-c -w >"$BATS_TEST_TMPDIR/watch" 2>&1 &
	local pid=$! _
	# the first list printed, then the job comes: a later one shows it
	wait_for_match "$BATS_TEST_TMPDIR/watch" '^Showing jobs for project team-c' >/dev/null
	runai submit watched1 -p team-c -i ubuntu -- sleep 300 >/dev/null
	for _ in $(seq 1 $((50 * TIME_SCALE))); do
		grep -q '^watched1 ' "$BATS_TEST_TMPDIR/watch" && break
		sleep 0.2
	done
	kill "$pid"
	wait "$pid" || true
	run -0 grep -c '^Showing jobs for project team-c' "$BATS_TEST_TMPDIR/watch"
	assert [ "$output" -ge 2 ]
	run -0 grep '^watched1 ' "$BATS_TEST_TMPDIR/watch"
}

@test "an expired token is renewed once for 50 commands at once" {
	cp_login
	runai config project team-a >/dev/null
	cp_settings '{"tokenTtl": 12}'
	cp_login
	cp_settings '{"tokenTtl": 3600}'
	local before pids=() i rc=0
	before=$(cp_grants refresh_token)
	# the token is renewed 2 s before it ends (a fifth of its life)
	sleep 10.3
	for i in $(seq 1 50); do
		runai list jobs -o name >"$BATS_TEST_TMPDIR/out.$i" 2>"$BATS_TEST_TMPDIR/err.$i" &
		pids+=($!)
	done
	for i in $(seq 1 50); do
		wait "${pids[i - 1]}" || rc=$?
	done
	cat "$BATS_TEST_TMPDIR"/err.* >&2
	assert_equal "$rc" 0
	assert_equal "$(( $(cp_grants refresh_token) - before ))" 1
	run -0 find "$XDG_CONFIG_HOME" -name '*.lock'
	assert_output ""
}

@test "a command backend mode does not have yet says so, and how to leave it" {
	cp_login
	run -1 runai list templates
	assert_line --index 0 "runai: error: 'runai list templates' is not available in control-plane mode yet"
	assert_line --index 1 --partial "runai config control-plane --unset"
}

@test "logs go through the cluster's Kubernetes API, in the namespace the control plane names" {
	cp_login
	runai submit logs1 -p team-a -i busybox -- sleep 300 >/dev/null
	cp_wait_status logs1 Running
	local pod
	pod=$(kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/pods?labelSelector=release%3Dlogs1" |
		jq -r '.items[0].metadata.name')
	jq -nc --arg ns "$NS" --arg pod "$pod" \
		'{namespace: $ns, pod: $pod, container: null, lines: ["hello from the pod"]}' |
		sim POST /_sim/logs - >/dev/null
	run -0 runai logs logs1 -p team-a
	assert_output --partial "hello from the pod"
	# no kubeconfig at all: a training's log still comes, through the
	# cluster's own endpoint (t6010 has the rest); exec has no such way:
	# one clear line and a hint
	KUBECONFIG=$BATS_TEST_TMPDIR/none RUNAI_CONTROL_PLANE_URL=$CP_URL \
		run -0 runai logs logs1 -p team-a
	assert_output --partial "hello from the pod"
	KUBECONFIG=$BATS_TEST_TMPDIR/none RUNAI_CONTROL_PLANE_URL=$CP_URL \
		run -1 runai exec logs1 -p team-a -- true
	assert_line --index 0 --partial "in control-plane mode 'runai exec' goes through the cluster's Kubernetes API"
	assert_line --index 1 --partial "the kubeconfig context must reach the cluster's API server"
}

@test "the control plane down: one clear line" {
	cp_login
	# down long enough for a run under valgrind to start and ask
	cp_settings "{\"downSeconds\": $((3 * TIME_SCALE))}"
	run -1 runai list jobs -p team-a
	assert_equal "${#lines[@]}" 1
	assert_output --regexp "^runai: error: .*${CP_URL#http://}"
	sleep $((3 * TIME_SCALE))
	run -0 runai list jobs -p team-a
}

@test "submit-dist: the control plane's distributed workloads become training-operator jobs" {
	cp_login
	runai config project team-d >/dev/null
	run -0 runai submit-dist pytorch ddp1 -i pytorch/pytorch --workers 2 -g 1 -- sleep 300
	assert_line "The job 'ddp1' has been submitted successfully"
	cp_wait_status ddp1 Running
	# a PyTorchJob the emulator's operator runs: a master and two workers
	run -0 kube_api "$KUBESIM_URL/apis/kubeflow.org/v1/namespaces/runai-team-d/pytorchjobs/ddp1"
	assert_equal "$(jq -c '.spec.pytorchReplicaSpecs | [.Master.replicas, .Worker.replicas]' <<<"$output")" '[1,2]'
	run -0 runai list jobs
	assert_line --regexp "^ddp1 +Running +[0-9]+s +node-[0-9] +pytorch/pytorch +PyTorch +team-d +$CP_USER +3 \(3\) +3 \(0\)"
	run -0 runai describe job ddp1
	assert_line --regexp '^ddp1-worker-1 +Running +node-[0-9] +pytorch/pytorch$'
	run -0 runai describe job ddp1 -o json
	assert_equal "$(jq -r '.workload.distributedFramework + " " + .submitted.spec.distributedFramework' <<<"$output")" "PyTorch PyTorch"
	run -0 cp_status_of POST '^/api/v1/workloads/distributed$'
	assert_line "$([ "$CP_VERSION" = 2.18 ] && echo 200 || echo 202)"
	# no master: only workers; the clean-pod policy from 2.21
	if [ "$CP_VERSION" = 2.18 ]; then
		run -2 runai submit-dist tf tf1 -i tensorflow/tensorflow --workers 2 --no-master --clean-pod-policy All
		assert_output "runai: error: --clean-pod-policy needs a control plane of 2.21 or later (this is $(runai version | sed -n 's/^ControlPlaneVersion: //p'))"
		runai submit-dist tf tf1 -i tensorflow/tensorflow --workers 2 --no-master >/dev/null
	else
		runai submit-dist tf tf1 -i tensorflow/tensorflow --workers 2 --no-master --clean-pod-policy All >/dev/null
	fi
	cp_wait_status tf1 Running
	run -0 kube_api "$KUBESIM_URL/apis/kubeflow.org/v1/namespaces/runai-team-d/tfjobs/tf1"
	assert_equal "$(jq -c '[(.spec.tfReplicaSpecs | keys), .spec.runPolicy.cleanPodPolicy]' <<<"$output")" \
		"$([ "$CP_VERSION" = 2.18 ] && echo '[["Worker"],null]' || echo '[["Worker"],"All"]')"
	# MPI: the launcher runs the command; the workers what the operator gives
	run -0 runai submit-dist mpi mpi1 -i mpi-img --workers 2 --slots-per-worker 2 --dry-run -o json -- mpirun python train.py
	assert_equal "$(jq -c '[.spec.distributedFramework, .spec.numWorkers, .spec.slotsPerWorker, .spec.args, .masterSpec.args]' <<<"$output")" \
		'["MPI",2,2,null,"mpirun python train.py"]'
	# suspended and resumed from 2.20
	if [ "$CP_VERSION" = 2.18 ]; then
		run -1 runai suspend ddp1
		assert_output --regexp "^runai: error: Failed to suspend job ddp1: suspending or resuming a distributed workload needs a control plane of 2\.20 or later"
	else
		run -0 runai suspend ddp1
		cp_wait_status ddp1 Suspended
		run -0 runai resume ddp1
		cp_wait_status ddp1 Running
	fi
	run -0 runai delete ddp1 tf1
	run -0 cp_status_of DELETE '^/api/v1/workloads/distributed/'
	assert_line "$([ "$CP_VERSION" = 2.18 ] && echo 204 || echo 202)"
}

@test "several clusters: --cluster, or config control-plane --cluster, chooses one by name or id" {
	cp_settings '{"clusters": [{"name": "second"}, {"name": "dup"}, {"name": "dup"}]}'
	local names="kube-sim, second, dup, dup" id
	# a login sees several and says to choose; commands say so too
	run -0 cp_login_out
	assert_line "The control plane serves several clusters ($names): choose one with --cluster <name> or 'runai config control-plane --cluster <name>'"
	run -1 runai list jobs -p team-a
	assert_line --index 0 "runai: error: the control plane $CP_URL serves several clusters ($names): choose one"
	assert_line --index 1 "hint: use --cluster <name>, or 'runai config control-plane --cluster <name>'"
	run -0 runai version
	assert_line "ControlPlaneVersion: unknown (no cluster chosen)"
	# the list still shows them all, to choose from
	run -0 runai list clusters
	assert_line --regexp "^second +Connected +"
	# the global flag, for one command; the project is looked up on that cluster
	run -0 runai --cluster kube-sim list projects
	assert_line --regexp "^team-a "
	run -0 runai --cluster kube-sim list clusters
	assert_line --regexp "^kube-sim \(current\) "
	run -1 runai --cluster second submit c1 -p team-a -i ubuntu
	assert_output "runai: error: project 'team-a' not found on cluster 'second' of the control plane"
	run -0 runai --cluster second list projects
	refute_line --regexp "^team-a "
	# a name nobody has, and one that two clusters have
	run -1 runai --cluster nosuch list jobs -p team-a
	assert_output "runai: error: the control plane has no cluster 'nosuch' (it has: $names)"
	run -1 runai --cluster dup list jobs -p team-a
	assert_line --index 0 "runai: error: 2 clusters of the control plane are called 'dup'"
	# by its id instead
	id=$(curl -sf -H "Authorization: Bearer $(jq -r .accessToken "$XDG_CONFIG_HOME"/runai/control-plane/*.json)" \
		"$CP_URL/api/v1/clusters" | jq -r '[.[] | select(.name == "dup")][0].uuid')
	run -0 runai --cluster "$id" list clusters
	assert_line --regexp "^dup \(current\) "
	# kept beside the context
	run -1 runai config control-plane --cluster nosuch
	assert_output "runai: error: the control plane has no cluster 'nosuch' (it has: $names)"
	run -0 runai config control-plane --cluster kube-sim
	assert_output --regexp "^Context .+ uses the cluster kube-sim of its control plane$"
	run -0 yq -r '.contexts[0].context.extensions[0].extension.cluster' "$KUBECONFIG"
	assert_output kube-sim
	run -0 runai list jobs -p team-a
	run -0 runai version
	assert_line --regexp "^ControlPlaneVersion: ${CP_VERSION//./\\.}\.[0-9]+$"
	# Kubernetes mode has no such flag
	runai config control-plane --unset >/dev/null
	run -2 runai --cluster kube-sim list jobs
	assert_line --index 0 "runai: error: --cluster is for control-plane mode"
	cp_settings '{"clusters": []}'
}

@test "the Run:ai CLI's own config.json, when pointed at, gives the control plane, cluster and project" {
	cp_login
	local dir="$BATS_TEST_TMPDIR/runai-cli" id
	mkdir -p "$dir"
	id=$(curl -sf -H "Authorization: Bearer $(jq -r .accessToken "$XDG_CONFIG_HOME"/runai/control-plane/*.json)" \
		"$CP_URL/api/v1/clusters" | jq -r '.[0].uuid')
	jq -n --arg url "$CP_URL" --arg id "$id" \
		'{control_plane: {url: $url}, cluster: {uuid: $id, project: {name: "team-b"}}}' >"$dir/config.json"
	runai config control-plane --unset >/dev/null
	# read only when pointed at: a ~/.runai of the user's alone changes nothing
	mkdir -p "$HOME/.runai" && cp "$dir/config.json" "$HOME/.runai/"
	run -0 runai version
	assert_line "Mode: kubernetes"
	RUNAI_CLI_CONFIG_PATH=$dir run -0 runai version
	assert_line "Mode: control-plane"
	assert_line "ControlPlane: $CP_URL"
	# its project is the default one, its cluster the one in use
	RUNAI_CLI_CONFIG_PATH=$dir run -0 runai submit cli1 -i ubuntu -- sleep 300
	run -0 cp_status_of POST '^/api/v1/workloads/trainings$'
	RUNAI_CLI_CONFIG_PATH=$dir run -0 runai list jobs -o json
	assert_equal "$(jq -r '.items[] | select(.name == "cli1") | .project' <<<"$output")" team-b
	# the file name alone: under ~/.runai
	RUNAI_CLI_CONFIG_FILE=config.json run -0 runai version
	assert_line "Mode: control-plane"
	# the context's own setting wins over the file
	runai config control-plane "$CP_URL" >/dev/null
	runai config project team-a >/dev/null
	RUNAI_CLI_CONFIG_PATH=$dir run -0 runai list jobs -o json
	assert_equal "$(jq -r '[.items[] | select(.name == "cli1")] | length' <<<"$output")" 0
	RUNAI_CLI_CONFIG_PATH=$dir runai delete job cli1 -p team-b >/dev/null
	# a file it cannot read is one line, never a guess
	echo '{"control_plane": ' >"$dir/config.json"
	RUNAI_CLI_CONFIG_PATH=$dir run -1 runai list jobs
	assert_equal "${#lines[@]}" 1
	assert_output --regexp "^runai: error: the Run:ai CLI's settings \(\\\$RUNAI_CLI_CONFIG_PATH, \\\$RUNAI_CLI_CONFIG_FILE\): "
	RUNAI_CLI_CONFIG_PATH=$BATS_TEST_TMPDIR/none run -1 runai list jobs
	assert_output --partial "$BATS_TEST_TMPDIR/none/config.json"
}

@test "the judge saw no schema violation in anything above" {
	run -0 cat "$CP_VIOLATIONS"
	assert_output ""
	# and it did judge: the requests above were seen
	assert [ "$(wc -l <"$CP_REQUESTS")" -gt 50 ]
}

@test "the judge catches a wrong field (the control test)" {
	cp_login
	local token
	token=$(jq -r .accessToken "$XDG_CONFIG_HOME"/runai/control-plane/*.json)
	curl -sS -o /dev/null -H @<(printf 'Authorization: Bearer %s\n' "$token") \
		-H 'Content-Type: application/json' \
		--data '{"name":"bad1","projectId":"1","clusterId":"00000000-0000-4000-8000-000000000000","spec":{"image":"ubuntu","compute":{"gpuDeviceRequest":1}}}' \
		"$CP_URL/api/v1/workloads/trainings"
	run -0 jq -r .violation "$CP_VIOLATIONS"
	assert_output --partial "'gpuDeviceRequest' was unexpected"
}

@test "-v before the command is the log level (-v=8, -v 6); a secret-named variable's value never shows" {
	cp_login
	run -0 --separate-stderr runai -v=8 submit vlog1 -p team-a -i ubuntu \
		-e API_TOKEN=Sekr1t-value -e EPOCHS=10 -- sleep 300
	assert_line "The job 'vlog1' has been submitted successfully"
	[[ "$stderr" == *'"API_TOKEN"'* ]]
	[[ "$stderr" == *'"EPOCHS"'* ]]
	[[ "$stderr$output" != *Sekr1t-value* ]]
	run -0 --separate-stderr runai -v 6 list jobs -p team-a
	assert_line --regexp '^vlog1 '
	[[ "$stderr" == *"GET "* ]]
	runai delete vlog1 -p team-a >/dev/null
}
