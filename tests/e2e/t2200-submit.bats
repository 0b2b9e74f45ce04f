#!/usr/bin/env bats
# runai submit against the emulator: the objects it renders (compared with
# the golden files the unit tests pin, which start from the contract's
# example), the name reservation, the whole loop submit -> list ->
# describe -> delete, and what happens under faults and interruptions.

load lib/common

NS=runai-team-a

setup_file() {
	kubesim_start --demo --tick 0.2
}

teardown_file() {
	kubesim_stop
}

setup() {
	isolate_env
	use_sim_kubeconfig
	sed -i "s/namespace: .*/namespace: $NS/" "$KUBECONFIG"
	sim DELETE /_sim/faults >/dev/null
}

cm_path() { echo "/api/v1/namespaces/$NS/configmaps/$1"; }
rj_path() { echo "/apis/run.ai/v1/namespaces/$NS/runaijobs/$1"; }

# nothing_left NAME: no object of job NAME remains.
nothing_left() {
	! exists "$(cm_path "$1")" && ! exists "$(rj_path "$1")" &&
		! exists "/api/v1/namespaces/$NS/services/$1" &&
		! exists "/apis/batch/v1/namespaces/$NS/jobs/$1"
}

# writes_since_mark: the write requests after the mark, one per line,
# but for the job counter's.
writes_since_mark() {
	requests_since_mark | jq -r 'select(.method != "GET") | "\(.method) \(.path)"' |
		grep -v /runai-cli-index || true
}

# wait_status NAME STATUS: polls "runai list" until the job shows STATUS.
wait_status() {
	wait_row "$1" " $2 "
}

# The user annotation is the local user here (no OIDC token): the golden
# files use john@acme.com, the unit tests' user.
normalize() {
	sed -e "s/^\(\( *\)user: \).*/\1john@acme.com/" -e 's/ --dry-run//'
}

@test "--dry-run prints the contract's example and writes nothing" {
	sim POST /_sim/seed '{"apiVersion":"v1","kind":"ConfigMap",
	    "metadata":{"name":"runai-cli-index","namespace":"runai"},
	    "data":{"index":"41"}}' >/dev/null
	mark_requests
	run -0 --separate-stderr runai submit --name train1 \
		-i gcr.io/run-ai-demo/quickstart -g 0.5 -p team-a --cpu 2 \
		--memory 4G -e A=1 -v /data:/data:ro --large-shm --dry-run
	diff -u "$TOP/tests/fixtures/golden/submit-contract-example.yaml" \
		<(printf '%s\n' "$output" | normalize)
	[ -z "$(writes_since_mark)" ]
	! exists "$(cm_path train1)"
	# the counter was read, not moved
	[ "$(get_obj /api/v1/namespaces/runai/configmaps/runai-cli-index |
		jq -r .data.index)" = 41 ]
}

@test "--dry-run -o json is a List: the ConfigMap, then what it lists" {
	run -0 --separate-stderr runai submit dj -i ubuntu --pvc :1Gi:/ckpt \
		--interactive --port 8888 -s ingress --dry-run -o json
	kinds=$(printf '%s\n' "$output" | jq -r '.items | map(.kind) | join(",")')
	[ "$kinds" = "ConfigMap,PersistentVolumeClaim,RunaiJob,Service,Ingress" ]
	app=$(printf '%s\n' "$output" | jq -r '.items[0].data.app')
	[ "$app" = "persistentvolumeclaim/pvc-dj-0
runaijob.run.ai/dj
service/dj
ingress.networking.k8s.io/dj" ]
	run -2 --separate-stderr runai submit -i ubuntu -o json
	stderr_has "-o/--output is for --dry-run"
}

@test "submit, list, describe and delete: training, interactive, fraction, multi-GPU" {
	run -0 runai submit tr1 -i ubuntu -g 1
	assert_line "The job 'tr1' has been submitted successfully"
	assert_line 'You can run `runai describe job tr1 -p team-a` to check the job status'
	runai submit in1 -i ubuntu --interactive -g 1 -- sleep infinity
	runai submit fr1 -i ubuntu -g 0.5
	runai submit mg1 -i ubuntu -g 4
	for j in tr1 in1 fr1 mg1; do wait_status $j Running; done
	[[ "$(job_row tr1)" =~ tr1\ +Running\ .*\ ubuntu\ +Train\ +team-a\ .*\ 1\ \(1\)\ +1\ \(0\) ]]
	[[ "$(job_row in1)" =~ \ Interactive\ +team-a\ .*\ 1\ \(1\)\  ]]
	[[ "$(job_row fr1)" =~ \ Train\ +team-a\ .*\ 0\.50\ \(0\.50\)\  ]]
	[[ "$(job_row mg1)" =~ \ Train\ +team-a\ .*\ 4\ \(4\)\  ]]

	run -0 runai describe job in1
	assert_line "NAME: in1"
	assert_line "TYPE: Interactive"
	assert_line "STATUS: Running"
	assert_line "CREATED BY CLI: true"
	assert_line "COMMAND LINE: runai submit in1 -i ubuntu --interactive -g 1 -- sleep infinity"
	get_obj "$(rj_path in1)" | jq -e '.spec.template.spec.containers[0].args ==
		["sleep", "infinity"] and .metadata.labels.priorityClassName == "build"'
	run -0 runai describe job mg1 -o json
	[ "$(printf '%s\n' "$output" | jq -r .status)" = Running ]

	run -0 runai delete tr1 in1 fr1 mg1
	for j in tr1 in1 fr1 mg1; do nothing_left $j; done
	run -0 runai list
	refute_output --partial tr1
}

@test "list shows Pending, Succeeded, Failed and Suspended for submitted jobs" {
	runai submit pend1 -i ubuntu -g 8
	runai submit pend2 -i ubuntu -g 8
	runai submit pend3 -i ubuntu -g 8
	runai submit ok1 -i ubuntu
	runai submit bad1 -i ubuntu
	runai submit sus1 -i ubuntu
	wait_status ok1 Running
	# two 8-GPU nodes: the third 8-GPU job waits
	run job_row pend3
	[[ "$output" =~ pend3\ +(Pending|Unschedulable)\  ]] || { echo "$output"; false; }
	[[ "$output" =~ \ 0\ \(8\)\ +0\ \(1\)\  ]]
	sim POST /_sim/phase "{\"namespace\":\"$NS\",\"workload\":\"ok1\",\"phase\":\"Succeeded\"}" >/dev/null
	sim POST /_sim/phase "{\"namespace\":\"$NS\",\"workload\":\"bad1\",\"phase\":\"Failed\",\"exit_code\":3}" >/dev/null
	runai suspend sus1
	wait_status ok1 Succeeded
	wait_status bad1 Failed
	wait_status sus1 Suspended
	runai delete pend1 pend2 pend3 ok1 bad1 sus1
}

@test "the ConfigMap reserves the name before anything else is created" {
	mark_requests
	runai submit order1 -i ubuntu --pvc :1Gi:/d --port 8888 -s nodeport
	run writes_since_mark
	assert_output "POST /api/v1/namespaces/$NS/configmaps
POST /api/v1/namespaces/$NS/persistentvolumeclaims
POST /apis/run.ai/v1/namespaces/$NS/runaijobs
POST /api/v1/namespaces/$NS/services"
	get_obj "$(cm_path order1)" | jq -e '.metadata.labels == {"createdBy": "arena",
		"base-name": "order1", "base-name-index": "0"} and .data.runai == "1.0.1"
		and (.data.values | contains("image: ubuntu"))'
	get_obj "/api/v1/namespaces/$NS/services/order1" | jq -e \
		'.spec.selector == {"release": "order1"} and .spec.type == "NodePort"'
	runai delete order1
	nothing_left order1
	! exists "/api/v1/namespaces/$NS/persistentvolumeclaims/pvc-order1-0"
}

@test "generated names take the smallest free number, also with a prefix" {
	run -0 runai submit -i ubuntu
	assert_line "The job 'job-0' has been submitted successfully"
	run -0 runai submit -i ubuntu
	assert_line "The job 'job-1' has been submitted successfully"
	# a ConfigMap without the labels holds job-2: it is skipped
	sim POST /_sim/seed "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",
	    \"metadata\":{\"name\":\"job-2\",\"namespace\":\"$NS\"}}" >/dev/null
	run -0 runai submit -i ubuntu
	assert_line "The job 'job-3' has been submitted successfully"
	runai delete job-0
	run -0 runai submit -i ubuntu
	assert_line "The job 'job-0' has been submitted successfully"
	run -0 runai submit -i ubuntu --job-name-prefix exp
	assert_line "The job 'exp-0' has been submitted successfully"
	get_obj "$(cm_path exp-0)" | jq -e '.metadata.labels["base-name"] == "exp"'
	run -2 --separate-stderr runai submit -i ubuntu --job-name-prefix Exp
	stderr_has "Job names must consist of lower case"
	runai delete job-0 job-1 job-3 exp-0
	kube_api -X DELETE "$KUBESIM_URL$(cm_path job-2)" >/dev/null
}

@test "a taken name fails and changes nothing" {
	runai submit dup1 -i ubuntu
	mark_requests
	run -1 --separate-stderr runai submit dup1 -i busybox
	stderr_has "the job dup1 already exists, please delete it first (use 'runai delete dup1')"
	[ -z "$(writes_since_mark | grep -v '^POST .*/configmaps$')" ]
	get_obj "$(rj_path dup1)" | jq -e '.spec.template.spec.containers[0].image == "ubuntu"'
	# a workload of that name without a reservation: the new ConfigMap goes again
	runai delete dup1
	sim POST /_sim/seed "{\"apiVersion\":\"run.ai/v1\",\"kind\":\"RunaiJob\",
	    \"metadata\":{\"name\":\"dup2\",\"namespace\":\"$NS\"},\"spec\":{}}" >/dev/null
	run -1 --separate-stderr runai submit dup2 -i ubuntu
	stderr_has "the job dup2 already exists"
	! exists "$(cm_path dup2)"
	kube_api -X DELETE "$KUBESIM_URL$(rj_path dup2)" >/dev/null
}

@test "a failure after the reservation removes what was created" {
	sim POST /_sim/faults "{\"path_prefix\":\"/api/v1/namespaces/$NS/services\",
	    \"method\":\"POST\",\"status\":500,\"message\":\"etcd is down\"}" >/dev/null
	run -1 --separate-stderr runai submit half1 -i ubuntu --pvc :1Gi:/d \
		--port 80 -s loadbalancer
	stderr_has "creating service/half1"
	stderr_has "etcd is down"
	nothing_left half1
	! exists "/api/v1/namespaces/$NS/persistentvolumeclaims/pvc-half1-0"
}

@test "the server's 422 is shown and nothing is left" {
	# PORT:TARGET with nodeport asks for node port 80, out of range
	run -1 --separate-stderr runai submit np1 -i ubuntu --port 80:8080 -s nodeport
	stderr_has "runai: error from server (Invalid)"
	stderr_has "nodePort"
	nothing_left np1
}

@test "429 and 503-with-Retry-After on create are retried" {
	sim POST /_sim/faults "{\"path_prefix\":\"/api/v1/namespaces/$NS/configmaps\",
	    \"method\":\"POST\",\"status\":429,\"retry_after\":1}" >/dev/null
	sim POST /_sim/faults "{\"path_prefix\":\"/apis/run.ai/v1/namespaces/$NS/runaijobs\",
	    \"method\":\"POST\",\"status\":503,\"retry_after\":1}" >/dev/null
	mark_requests
	run -0 --separate-stderr runai submit retry1 -i ubuntu
	[ "$(count_requests POST /api/v1/namespaces/$NS/configmaps)" = 2 ]
	[ "$(count_requests POST /apis/run.ai/v1/namespaces/$NS/runaijobs)" = 2 ]
	exists "$(rj_path retry1)"
	runai delete retry1
	# a 503 without Retry-After may have been acted on: not repeated
	sim POST /_sim/faults "{\"path_prefix\":\"/apis/run.ai/v1/namespaces/$NS/runaijobs\",
	    \"method\":\"POST\",\"status\":503}" >/dev/null
	run -1 --separate-stderr runai submit retry2 -i ubuntu
	nothing_left retry2
}

@test "an interrupted submit leaves no half-made job" {
	sim POST /_sim/faults "{\"path_prefix\":\"/apis/run.ai/v1/namespaces/$NS/runaijobs\",
	    \"method\":\"POST\",\"delay\":2}" >/dev/null
	"$RAI_BIN_DIR/runai" submit int1 -i ubuntu --port 80 -s nodeport \
		>"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
	pid=$!
	for i in $(seq 1 $((50 * TIME_SCALE))); do exists "$(cm_path int1)" && break; sleep 0.1; done
	exists "$(cm_path int1)"
	kill -INT "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" = 130 ]
	grep -q "submit interrupted" "$BATS_TEST_TMPDIR/err"
	nothing_left int1
}

@test "other projects: Access denied; unknown projects: a clear error" {
	sim POST /_sim/users '{"user":"bob","groups":["researchers"],"token":"t-bob"}' >/dev/null
	get_obj /apis/run.ai/v1/projects/team-b |
		jq '.metadata.annotations["kube-sim/users"] = "alice"' |
		sim POST /_sim/seed - >/dev/null
	sed -i 's/token: .*/token: t-bob/' "$KUBECONFIG"
	run -1 --separate-stderr runai submit -p team-b deny1 -i ubuntu
	stderr_has "Access denied. You are not authorized to perform this action."
	! exists "/api/v1/namespaces/runai-team-b/configmaps/deny1"
	use_sim_kubeconfig
	run -1 --separate-stderr runai submit -p no-such-project -i ubuntu
	stderr_has "project 'no-such-project' not found"
}

@test "the cluster's policy and job counter are honoured" {
	sim POST /_sim/seed '[{"apiVersion":"v1","kind":"ConfigMap",
	    "metadata":{"name":"runai-cluster-config","namespace":"runai",
	      "labels":{"runai/cluster-config":"true"}},
	    "data":{"config":"enforceRunAsUser: true\nenforcePreventPrivilegeEscalation: true\n"}},
	  {"apiVersion":"v1","kind":"ConfigMap",
	    "metadata":{"name":"runai-cli-index","namespace":"runai"},
	    "data":{"index":"7"}}]' >/dev/null
	runai submit pol1 -i ubuntu
	get_obj "$(rj_path pol1)" | jq -e --arg uid "$(id -u)" '
		.spec.template.spec.securityContext.runAsUser == ($uid | tonumber) and
		.spec.template.spec.containers[0].securityContext.allowPrivilegeEscalation == false and
		(.spec.template.spec.containers[0].env | any(.name == "HOME")) and
		.metadata.labels["runai/job-index"] == "8"'
	[ "$(get_obj /api/v1/namespaces/runai/configmaps/runai-cli-index | jq -r .data.index)" = 8 ]
	kube_api -X DELETE "$KUBESIM_URL/api/v1/namespaces/runai/configmaps/runai-cluster-config" >/dev/null
	runai delete pol1
}

@test "usage errors exit 2 before any request" {
	mark_requests
	run -2 --separate-stderr runai submit -i x -g 1.5
	stderr_has "a fraction of a GPU must be below 1"
	run -2 --separate-stderr runai submit -i x -g 1 --gpu-memory 4G
	stderr_has "unexpected to accept both gpu and gpu-memory flag"
	run -2 --separate-stderr runai submit -i x --gpu-memory 50M
	stderr_has "gpu memory must be greater than 100Mb"
	run -2 --separate-stderr runai submit a b -i x
	stderr_has "unexpected arguments [b]"
	run -2 --separate-stderr runai submit a --name b -i x
	stderr_has "unexpected arguments [a]"
	run -2 --separate-stderr runai submit a --job-name-prefix b -i x
	stderr_has "--job-name-prefix is for generated names"
	run -2 --separate-stderr runai submit Bad -i x
	stderr_has "Job names must consist of lower case alphanumeric characters"
	run -2 --separate-stderr runai submit -i x -v /only
	stderr_has "the -v parameter must be given in the form of"
	run -2 --separate-stderr runai submit -i x --pvc :1Gi:
	stderr_has "container mount path must be specified"
	run -2 --separate-stderr runai submit -i x -s nodeport
	stderr_has "Ports must be provided when exposing a service."
	run -2 --separate-stderr runai submit -i x --parallelism 2
	stderr_has "you must also set the number of successful pod completions"
	run -2 --separate-stderr runai submit -i x --image-pull-policy always
	stderr_has "invalid value 'always' for --image-pull-policy"
	run -2 --separate-stderr runai submit -i x --memory lots
	stderr_has "--memory 'lots' is not a quantity"
	run -2 --separate-stderr runai submit -i x -t
	stderr_has "--stdin is required for containers with -t/--tty=true"
	run -2 --separate-stderr runai submit -i x --completions -1
	[ "$(requests_since_mark | wc -l)" = 0 ]
}

@test "a missing image is an error once the templates are read (one may give it)" {
	mark_requests
	run -2 --separate-stderr runai submit
	stderr_has "-i, --image must be set"
	assert_request GET /api/v1/namespaces/runai/configmaps \
		'.query.labelSelector == ["runai/template=true"] or .query.labelSelector == "runai/template=true"'
	[ "$(requests_since_mark | jq -r 'select(.method != "GET") | .method' | wc -l)" = 0 ]
}

@test "without run.ai served the job is a batch/v1 Job that lists and deletes" {
	sim POST /_sim/crd '{"runai": false}' >/dev/null
	run -0 runai submit old1 -i ubuntu -g 1
	sim POST /_sim/crd '{"runai": true}' >/dev/null
	get_obj "/apis/batch/v1/namespaces/$NS/jobs/old1" | jq -e '
		.spec.template.spec.schedulerName == "runai-scheduler" and
		.metadata.labels.app == "runaijob"'
	[ "$(get_obj "$(cm_path old1)" | jq -r .data.app)" = job.batch/old1 ]
	wait_status old1 Running
	runai delete old1
	nothing_left old1
}

@test "a job written as the reference CLI writes it lists, describes and deletes" {
	# the objects of the contract's example, created directly (as helm
	# and kubectl would), not through runai submit
	jq -n --arg ns "$NS" '
	{"app": "runaijob", "chart": "runaijob-1.0.1", "release": "ref1",
	 "heritage": "Helm", "createdBy": "RunaiJob"} as $l |
	[{"apiVersion": "v1", "kind": "ConfigMap",
	  "metadata": {"name": "ref1", "namespace": $ns,
	    "labels": {"createdBy": "arena", "base-name": "ref1", "base-name-index": "0"}},
	  "data": {"runai": "1.0.1", "values": "name: ref1\n",
	    "app": "runaijob.run.ai/ref1\nservice/ref1"}},
	 {"apiVersion": "run.ai/v1", "kind": "RunaiJob",
	  "metadata": {"name": "ref1", "namespace": $ns, "labels": $l,
	    "annotations": {"runai-cli-command": "runai submit ref1 -i ubuntu -g 0.5",
	      "user": "john@acme.com"}},
	  "spec": {"template": {"metadata": {"labels": $l,
	      "annotations": {"gpu-fraction": "0.5", "user": "john@acme.com"}},
	    "spec": {"schedulerName": "runai-scheduler", "restartPolicy": "Never",
	      "hostIPC": false, "hostNetwork": false, "securityContext": {},
	      "containers": [{"name": "ref1", "image": "ubuntu",
	        "imagePullPolicy": "Always",
	        "securityContext": {"allowPrivilegeEscalation": true},
	        "resources": {"limits": {}, "requests": {}}}]}}}},
	 {"apiVersion": "v1", "kind": "Service",
	  "metadata": {"name": "ref1", "namespace": $ns, "labels": $l},
	  "spec": {"type": "ClusterIP", "selector": {"release": "ref1"},
	    "ports": [{"name": "8888-port", "port": 8888, "targetPort": 8888,
	      "protocol": "TCP"}]}}]' | sim POST /_sim/seed - >/dev/null
	wait_status ref1 Running
	[[ "$(job_row ref1)" =~ \ Train\ +team-a\ +john@acme.com\ +0\.50\ \(0\.50\)\  ]]
	run -0 runai describe job ref1
	assert_line "COMMAND LINE: runai submit ref1 -i ubuntu -g 0.5"
	run -0 runai delete ref1
	assert_output "Job ref1 deleted successfully."
	nothing_left ref1
}

@test "job names complete from the cluster for every job command" {
	# completion's own budget is 1.5 s; valgrind needs more
	[ "$TIME_SCALE" = 1 ] || export RUNAI_REQUEST_TIMEOUT=30s
	runai submit comp-a -i ubuntu
	runai submit comp-b -i ubuntu
	runai submit -p team-b comp-other -i ubuntu
	for cmd in "describe job" delete suspend resume; do
		# shellcheck disable=SC2086
		run -0 runai __complete $cmd comp-
		assert_output "comp-a
comp-b
:4"
	done
	run -0 runai __complete -p team-b delete comp
	assert_output "comp-other
:4"
	run -0 runai __complete submit -p team-
	assert_line team-a
	assert_line team-b
	runai delete comp-a comp-b
	runai delete -p team-b comp-other
}

@test "a GPU memory request runs on a shared GPU and lists by memory" {
	runai submit gm1 -i ubuntu --gpu-memory 20G
	get_obj "$(rj_path gm1)" | jq -e \
		'.spec.template.metadata.annotations["gpu-memory"] == "20000"'
	wait_status gm1 Running
	run job_row gm1
	[[ "$output" =~ \ Train\ +team-a\ .*\ 0\.[0-9]+\ \(20G\)\ +1\ \(0\) ]] || { echo "$output"; false; }
	runai delete gm1
}

@test "-v before the command is the log level (-v=8, -v 6); a secret-named variable's value never shows" {
	run -0 --separate-stderr runai -v=8 submit vlog1 -i ubuntu -e API_TOKEN=Sekr1t-value \
		-e EPOCHS=10 -- sleep 300
	assert_line "The job 'vlog1' has been submitted successfully"
	# the request bodies were logged: the variable's name, not its value
	[[ "$stderr" == *'"API_TOKEN"'* ]]
	[[ "$stderr" == *'"EPOCHS"'* ]]
	[[ "$stderr$output" != *Sekr1t-value* ]]
	run -0 get_obj "/apis/run.ai/v1/namespaces/$NS/runaijobs/vlog1"
	assert_output --partial Sekr1t-value
	# the command line the job records: the name, not the value
	run -0 jq -r '.metadata.annotations["runai-cli-command"]' <<<"$output"
	assert_output "runai -v=8 submit vlog1 -i ubuntu -e API_TOKEN=<redacted> -e EPOCHS=10 -- sleep 300"
	# after the command, -v is still submit's volume
	run -0 runai submit --dry-run -o json -i ubuntu -v /data:/mnt/data
	run -0 jq -r '.items[1].spec.template.spec.volumes[0].hostPath.path' <<<"$output"
	assert_output /data
	run -0 --separate-stderr runai -v 6 list jobs
	assert_line --regexp '^vlog1 '
	[[ "$stderr" == *"GET "* ]]
	runai delete vlog1 >/dev/null
}
