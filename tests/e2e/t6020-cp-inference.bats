#!/usr/bin/env bats
# Inference workloads (runai inference submit) in control-plane mode
# against kube-sim's emulated Run:ai control plane, which runs an
# inference's replicas as a RunaiJob with a Service for its serving port.
# This file is release 2.24; t6020-cp-inference-2.18.bats and -2.21.bats
# are links to it, and the release is read from the name it runs under.
# Every request and answer is judged against that release's OpenAPI
# document; the suite ends by asserting the judge saw nothing wrong.

load lib/common
load lib/cp

CP_VERSION=${BATS_TEST_FILENAME##*/t6020-cp-inference}
CP_VERSION=${CP_VERSION%.bats}
CP_VERSION=${CP_VERSION#-}
CP_VERSION=${CP_VERSION:-2.24}

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

# since VERSION: whether the emulated release is VERSION or later.
since() {
	[ "$(printf '%s\n%s\n' "$1" "$CP_VERSION" | sort -V | head -n 1)" = "$1" ]
}

# release: the version the login found ("2.24.10").
release() {
	runai version | sed -n 's/^ControlPlaneVersion: //p'
}

# inference_id NAME: the workload's id, from the control plane's list.
inference_id() {
	runai list jobs -p team-a -o json | jq -r --arg n "$1" '.items[] | select(.name == $n) | .uid'
}

@test "submit with a serving port and autoscaling: the request carries them, the replicas run" {
	cp_login
	local -a more=()
	# the autoscaling flags 2.18 has no field for come with 2.21
	since 2.21 && more=(--initial-replicas 2 --concurrency-hard-limit 10
		--scale-down-delay-seconds 30 --metric-threshold-percentage 80)
	since 2.24 && more+=(--request-timeout-seconds 45 --initialization-timeout-seconds 120)
	run -0 runai inference submit inf1 -p team-a -i busybox -g 1 --cpu-memory-request 1G \
		--serving-port 8000 --min-replicas 2 --max-replicas 4 --metric concurrency \
		--metric-threshold 8 "${more[@]}" -e MODEL=llama -- sleep 300
	assert_line --index 0 "The inference 'inf1' has been submitted successfully"
	assert_line --index 1 "You can run \`runai inference describe inf1 -p team-a\` to check its status"
	run -0 cp_status_of POST '^/api/v1/workloads/inferences$'
	assert_output "$([ "$CP_VERSION" = 2.18 ] && echo 200 || echo 202)"
	# what was sent, as the control plane keeps it
	run -0 runai inference describe inf1 -p team-a -o json
	run -0 jq -c '.submitted.spec | [.image, .servingPort, .compute.gpuDevicesRequest,
		.compute.cpuMemoryRequest, .environmentVariables]' <<<"$output"
	assert_output '["busybox",{"container":8000},1,"1G",[{"name":"MODEL","value":"llama"}]]'
	run -0 runai inference describe inf1 -p team-a -o json
	if since 2.24; then
		assert_equal "$(jq -c '[.submitted.spec.autoscaling, .submitted.spec.servingConfiguration]' <<<"$output")" \
			'[{"minReplicas":2,"maxReplicas":4,"initialReplicas":2,"metric":"concurrency","metricThreshold":8,"metricThresholdPercentage":80,"concurrencyHardLimit":10,"scaleDownDelaySeconds":30},{"initializationTimeoutSeconds":120,"requestTimeoutSeconds":45}]'
	elif since 2.21; then
		assert_equal "$(jq -c '.submitted.spec.autoscaling' <<<"$output")" \
			'{"minReplicas":2,"maxReplicas":4,"initialReplicas":2,"metric":"concurrency","metricThreshold":8,"metricThresholdPercentage":80,"concurrencyHardLimit":10,"scaleDownDelaySeconds":30}'
	else
		assert_equal "$(jq -c '.submitted.spec.autoscaling' <<<"$output")" \
			'{"minReplicas":2,"maxReplicas":4,"metric":"concurrency","metricThreshold":8}'
	fi
	# the emulator runs the two replicas it starts with, behind a Service
	cp_wait_status inf1 Running
	run -0 kube_api "$KUBESIM_URL/apis/run.ai/v1/namespaces/$NS/runaijobs/inf1"
	assert_equal "$(jq -c '[.spec.parallelism, .spec.template.spec.containers[0].ports]' <<<"$output")" \
		'[2,[{"containerPort":8000}]]'
	run -0 kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/services/inf1"
	assert_equal "$(jq -r '.spec.ports[0].targetPort' <<<"$output")" 8000
}

@test "list and describe show it as an inference with its replicas" {
	cp_login
	cp_wait_status inf1 Running
	# the CLI v2 grammar's columns, and the original grammar's list too
	run -0 runai inference list -p team-a
	assert_line --regexp "^inf1 +Inference +Running +team-a +No +2/2 +2\.00$"
	run -0 runai list jobs -p team-a
	assert_line --regexp "^inf1 +Running +[0-9]+s +node-[0-9] +busybox +Inference +team-a +$CP_USER +2 \(2\) +2 \(0\)"
	run -0 runai inference describe inf1 -p team-a
	assert_line "TYPE: Inference"
	assert_line "STATUS: Running"
	assert_line "REPLICAS: 2 (min 2, max 4)"
	assert_equal "$(grep -cE '^inf1-[a-z0-9]+ +Running +node-[0-9] +busybox$' <<<"$output")" 2
	assert_line --regexp '\[SuccessfulCreate\] Created pod: inf1-'
	# describe -o json reads the inference's own path
	run -0 cp_status_of GET '^/api/v1/workloads/inferences/[-0-9a-f]+$'
	assert_line 200
}

@test "its log and exec come through the cluster's Kubernetes API" {
	cp_login
	cp_wait_status inf1 Running
	local pod
	pod=$(kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/pods?labelSelector=release%3Dinf1" |
		jq -r '.items[0].metadata.name')
	jq -nc --arg ns "$NS" --arg pod "$pod" \
		'{namespace: $ns, pod: $pod, container: null, lines: ["model loaded, serving on :8000"]}' |
		sim POST /_sim/logs - >/dev/null
	run -0 runai logs inf1 -p team-a --pod "$pod"
	assert_output --partial "model loaded, serving on :8000"
}

@test "an inference is not suspended; delete goes to the inferences path" {
	cp_login
	run -1 runai suspend inf1 -p team-a
	assert_output "runai: error: Failed to suspend job inf1: an inference workload cannot be suspended or resumed, only deleted"
	run -0 cp_status_of POST '/suspend$'
	assert_output ""
	local id
	id=$(inference_id inf1)
	run -0 runai inference delete inf1 -p team-a
	assert_output "Job inf1 deleted successfully."
	run -0 cp_status_of DELETE "^/api/v1/workloads/inferences/$id\$"
	assert_output "$([ "$CP_VERSION" = 2.18 ] && echo 204 || echo 202)"
	run -0 runai inference list -p team-a --no-headers --columns name
	refute_output --partial inf1
	run -0 kube_api -o /dev/null -w '%{http_code}' "$KUBESIM_URL/apis/run.ai/v1/namespaces/$NS/runaijobs/inf1"
	assert_output 404
	run -0 kube_api -o /dev/null -w '%{http_code}' "$KUBESIM_URL/api/v1/namespaces/$NS/services/inf1"
	assert_output 404
}

@test "no name: the control plane names it after the prefix; scale to zero needs no metric" {
	cp_login
	run -0 runai inference submit --name-prefix web -p team-b -i busybox \
		--serving-port container=80,protocol=http --min-replicas 0 --max-replicas 1 -- sleep 300
	assert_line --index 0 --regexp "^The inference 'web-[a-z0-9]{5}' has been submitted successfully$"
	local name=${lines[0]#*\'}
	name=${name%%\'*}
	run -0 runai inference describe "$name" -p team-b -o json
	assert_equal "$(jq -c '[.submitted.requestedName, .submitted.spec.autoscaling, .submitted.spec.servingPort]' <<<"$output")" \
		'["web",{"minReplicas":0,"maxReplicas":1},{"container":80,"protocol":"http"}]'
	runai inference delete "$name" -p team-b >/dev/null
}

@test "the serving port's access (2.21+), and a custom metric" {
	cp_login
	local -a flags=(--serving-port container=8080,authorization-type=authorizedUsersOrGroups,authorized-groups=ml:ops,cluster-local-access-only
		--min-replicas 1 --max-replicas 3 --metric vllm:num_requests_running --metric-threshold 4)
	if ! since 2.21; then
		run -2 runai inference submit acc1 -p team-a -i img "${flags[@]}"
		assert_output "runai: error: --metric vllm:num_requests_running: a control plane before 2.21 (this is $(release)) knows throughput, concurrency and latency only"
		run -2 runai inference submit acc1 -p team-a -i img "${flags[@]:0:2}"
		assert_output "runai: error: --serving-port's access settings needs a control plane of 2.21 or later (this is $(release))"
		return
	fi
	run -0 runai inference submit acc1 -p team-a -i busybox "${flags[@]}" -- sleep 300
	run -0 runai inference describe acc1 -p team-a -o json
	assert_equal "$(jq -c '[.submitted.spec.servingPort, .submitted.spec.autoscaling.metric]' <<<"$output")" \
		'[{"container":8080,"authorizationType":"authorizedUsersOrGroups","authorizedGroups":["ml","ops"],"clusterLocalAccessOnly":true},"vllm:num_requests_running"]'
	runai inference delete acc1 -p team-a >/dev/null
}

@test "what a release has no field for is refused in one line, naming it" {
	cp_login
	if since 2.24; then
		run -0 runai inference submit rel1 -p team-a -i img --serving-port 80 \
			--initial-replicas 1 --request-timeout-seconds 10 --dry-run
		assert_line "  servingConfiguration:"
	elif since 2.21; then
		run -2 runai inference submit rel1 -p team-a -i img --request-timeout-seconds 10
		assert_output "runai: error: --request-timeout-seconds needs a control plane of 2.22 or later (this is $(release))"
		# the initialization timeout is autoscaling's before 2.22
		run -0 runai inference submit rel1 -p team-a -i img --initialization-timeout-seconds 60 --dry-run -o json
		assert_equal "$(jq -c '[.spec.autoscaling, .spec.servingConfiguration]' <<<"$output")" \
			'[{"initializationTimeoutSeconds":60},null]'
	else
		local f
		for f in "--initial-replicas 2" "--activation-replicas 1" "--concurrency-hard-limit 5" \
			"--scale-down-delay-seconds 5" "--initialization-timeout-seconds 5"; do
			# shellcheck disable=SC2086 # the flag and its value
			run -2 runai inference submit rel1 -p team-a -i img $f
			assert_output "runai: error: ${f% *} needs a control plane of 2.21 or later (this is $(release))"
		done
	fi
}

@test "--dry-run prints the request and where it would go; nothing is sent" {
	cp_login
	local before
	before=$(grep -c '"method":"POST","path":"/api/v1/workloads/inferences"' "$CP_REQUESTS" || true)
	run -0 runai inference submit dry1 -p team-a -i img -g 1 --serving-port 9000 \
		-e API_TOKEN=s3cret -c --dry-run -- python serve.py --port 9000
	assert_line --index 0 "# POST /api/v1/workloads/inferences"
	assert_line "name: dry1"
	assert_line "  command: python"
	assert_line "  args: serve.py --port 9000"
	assert_line "    container: 9000"
	refute_output --partial s3cret
	run -0 runai inference submit dry1 -p team-a -i img --gpu-portion-request 0.5 --dry-run -o json
	assert_equal "$(jq -c '.spec.compute' <<<"$output")" \
		'{"gpuDevicesRequest":1,"gpuRequestType":"portion","gpuPortionRequest":0.5}'
	assert_equal "$(grep -c '"method":"POST","path":"/api/v1/workloads/inferences"' "$CP_REQUESTS" || true)" "$before"
}

@test "flag mistakes are one line, exit 2, before any request" {
	cp_login
	local before
	before=$(wc -l <"$CP_REQUESTS")
	run -2 runai inference submit bad1 -p team-a -i img --min-replicas 1 --max-replicas 3
	assert_output "runai: error: --metric is needed when --min-replicas (1) is below --max-replicas (3), but for 0 and 1"
	run -2 runai inference submit bad1 -p team-a -i img --min-replicas 3 --max-replicas 2 --metric latency --metric-threshold 5
	assert_output "runai: error: --max-replicas (2) is below --min-replicas (3)"
	run -2 runai inference submit bad1 -p team-a -i img --max-replicas 2 --metric throughput
	assert_output "runai: error: --metric-threshold is required with --metric"
	run -2 runai inference submit bad1 -p team-a -i img --metric-threshold 5
	assert_output "runai: error: --metric-threshold is for --metric"
	run -2 runai inference submit bad1 -p team-a -i img --min-replicas 0 --max-replicas 3 --metric latency --metric-threshold 5
	assert_output "runai: error: --min-replicas 0 scales to zero, which only the throughput and concurrency metrics do (not latency)"
	run -2 runai inference submit bad1 -p team-a -i img --scale-to-zero-retention-seconds 60
	assert_output "runai: error: --scale-to-zero-retention-seconds is for --min-replicas 0"
	run -2 runai inference submit bad1 -p team-a -i img --serving-port 70000
	assert_output "runai: error: --serving-port '70000': give a port from 1 to 65535, or container=PORT with its options"
	run -2 runai inference submit bad1 -p team-a -i img --serving-port container=80,authorized-users=ann
	assert_output "runai: error: --serving-port: authorized-users and authorized-groups are for authorization-type=authorizedUsersOrGroups"
	run -2 runai inference submit bad1 -p team-a -i img -g 2 --gpu-portion-request 0.5
	assert_output "runai: error: --gpu-portion-request is of one GPU: with it, -g/--gpu-devices-request is 1 or left out"
	run -2 runai inference submit bad1 -p team-a --serving-port 80
	assert_output "runai: error: -i/--image is required: the image that serves the model"
	run -2 runai inference submit bad1 -p team-a -i img --name-prefix x
	assert_output "runai: error: --name-prefix is for a name the control plane makes: give it or a name ('bad1'), not both"
	run -2 runai inference submit Bad1 -p team-a -i img
	assert_output --partial "runai: error: Job names must consist of lower case"
	assert_equal "${#lines[@]}" 1
	assert_equal "$(wc -l <"$CP_REQUESTS")" "$before"
}

@test "a policy violation is shown per field and nothing is made" {
	cp_login
	# the inferences path answers a plain error, the field in its message
	run -1 --separate-stderr runai inference submit big1 -p team-a -i img -g 8 --serving-port 80
	assert_equal "$stderr" "runai: error from server (BadRequest): the workload does not comply with the policy: compute.gpuDevicesRequest: value must be no greater than 4"
	run -0 kube_api "$KUBESIM_URL/apis/run.ai/v1/namespaces/$NS/runaijobs"
	refute_output --partial big1
}

@test "Kubernetes mode: inference workloads are the control plane's, in one line" {
	runai config control-plane --unset >/dev/null
	run -1 runai inference submit kube1 -p team-a -i img --serving-port 8000
	assert_output "runai: error: inference workloads exist only with a Run:ai control plane, and this context is in Kubernetes mode ('runai config control-plane URL' sets one)"
	run -1 runai inference submit kube1 -p team-a -i img --dry-run
	assert_equal "${#lines[@]}" 1
	run -0 kube_api -o /dev/null -w '%{http_code}' "$KUBESIM_URL/apis/run.ai/v1/namespaces/$NS/runaijobs/kube1"
	assert_output 404
	# the flags are checked first there too
	run -2 runai inference submit kube1 -p team-a -i img --max-replicas 3
	assert_output --partial "runai: error: --metric is needed"
	run -1 runai inference update kube1 -p team-a -i img
	assert_output "runai: error: updating an inference workload is not available in Kubernetes mode"
}

# patches PATH-REGEX: how many PATCHes the control plane got there.
patches() {
	grep -c "\"method\":\"PATCH\",\"path\":\"$1" "$CP_REQUESTS" || true
}

@test "update (2.21+): the image and one variable change; the others and the autoscaling stay" {
	cp_login
	local -a scaling=(--min-replicas 1 --max-replicas 3 --metric concurrency --metric-threshold 5)
	run -0 runai inference submit upd1 -p team-a -i busybox --serving-port 8000 \
		"${scaling[@]}" -e A=1 -e B=2 -- sleep 300
	if ! since 2.21; then
		run -2 runai inference update upd1 -p team-a -i busybox:1.36
		assert_output "runai: error: updating an inference needs a control plane of 2.21 or later (this is $(release))"
		assert_equal "$(patches /)" 0
		return
	fi
	local id
	id=$(inference_id upd1)
	run -0 runai inference update upd1 -p team-a -i busybox:1.36 -e B=3 -e C=4 --max-replicas 4
	assert_line --index 0 "The inference 'upd1' has been updated"
	assert_line --index 1 "You can run \`runai inference describe upd1 -p team-a\` to check its status"
	run -0 cp_status_of PATCH "^/api/v1/workloads/inferences/$id\$"
	assert_output "$([ "$CP_VERSION" = 2.21 ] && echo 200 || echo 202)"
	run -0 runai inference describe upd1 -p team-a -o json
	assert_equal "$(jq -c '.submitted.spec | [.image, .environmentVariables, .autoscaling]' <<<"$output")" \
		'["busybox:1.36",[{"name":"A","value":"1"},{"name":"B","value":"3"},{"name":"C","value":"4"}],{"minReplicas":1,"maxReplicas":4,"metric":"concurrency","metricThreshold":5}]'
	# the cluster object's pods are made from the new template
	run -0 kube_api "$KUBESIM_URL/apis/run.ai/v1/namespaces/$NS/runaijobs/upd1"
	assert_equal "$(jq -r '.spec.template.spec.containers[0].image' <<<"$output")" busybox:1.36
	# the "standard" name of CLI v2 from 2.23 is the same command
	run -0 runai inference standard update upd1 -p team-a --min-replicas 2
	assert_line --index 0 "The inference 'upd1' has been updated"
	run -0 runai inference describe upd1 -p team-a -o json
	assert_equal "$(jq -c '.submitted.spec.autoscaling | [.minReplicas, .maxReplicas]' <<<"$output")" '[2,4]'
}

@test "update judges the merged autoscaling, and a dry run sends nothing" {
	cp_login
	since 2.21 || skip "2.18 has no update (the test above checks its refusal)"
	local before
	before=$(patches /)
	# the workload's maximum is 4: a minimum of 5 alone is refused
	run -2 runai inference update upd1 -p team-a --min-replicas 5
	assert_output "runai: error: with the inference's other autoscaling settings: --max-replicas (4) is below --min-replicas (5)"
	run -0 runai inference update upd1 -p team-a -e API_TOKEN=s3cret -c --dry-run -- python serve.py
	assert_line --index 0 "# PATCH /api/v1/workloads/inferences/$(inference_id upd1)"
	assert_line "  command: python"
	assert_line "  args: serve.py"
	refute_output --partial s3cret
	run -0 runai inference update upd1 -p team-a --working-dir /srv --dry-run -o json
	assert_equal "$(jq -c '.spec' <<<"$output")" '{"workingDir":"/srv"}'
	assert_equal "$(patches /)" "$before"
}

@test "update: nothing given, no name, a training, a name not there: one line each, nothing sent" {
	cp_login
	local before
	before=$(wc -l <"$CP_REQUESTS")
	run -2 runai inference update upd1 -p team-a
	assert_output 'runai: error: nothing to update: give -i, the command after "--", -e, --working-dir or an autoscaling flag'
	run -2 runai inference update -p team-a -i img
	assert_output "runai: error: which inference? give its name"
	run -2 runai inference update upd1 -p team-a --scale-down-delay-seconds 7200
	assert_output "runai: error: --scale-down-delay-seconds must be from 0 to 3600"
	assert_equal "$(wc -l <"$CP_REQUESTS")" "$before"
	since 2.21 || return 0
	run -0 runai training submit trn1 -p team-a -i busybox -- sleep 300
	before=$(patches /)
	run -1 runai inference update trn1 -p team-a -i img
	assert_output "runai: error: 'trn1' in project team-a is of type Training, not an inference"
	run -1 runai inference update nosuch -p team-a -i img
	assert_output "runai: error: Job nosuch does not exist in project team-a. If the job exists in a different project, use -p <project-name>."
	assert_equal "$(patches /)" "$before"
}

@test "workload submit -f (a manifest) needs 2.24: earlier releases refuse it in one line" {
	cp_login
	since 2.24 && skip "2.24 takes it (t6025)"
	printf 'apiVersion: batch/v1\nkind: Job\nmetadata: {name: m1}\n' >"$BATS_TEST_TMPDIR/m.yaml"
	run -2 runai workload submit -f "$BATS_TEST_TMPDIR/m.yaml" -p team-a
	assert_output "runai: error: submitting a manifest needs a control plane of 2.24 or later (this is $(release))"
	run -1 grep -c '"/api/v2/' "$CP_REQUESTS"
	assert_output 0
}

@test "the judge saw no schema violation in anything above" {
	run -0 cat "$CP_VIOLATIONS"
	assert_output ""
	assert [ "$(grep -c '/api/v1/workloads/inferences' "$CP_REQUESTS")" -gt 3 ]
}
