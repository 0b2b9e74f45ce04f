#!/usr/bin/env bats
# runai submit-dist against the emulator's training operator: the objects
# of each framework (the unit tests' golden files), every framework's
# life (all pods Running -> list, describe, logs of the lead and of a
# worker -> exec and bash in worker 1 -> delete leaves nothing), the gang
# (a job too big waits Pending whole, then starts when GPUs free up), a
# worker's failure failing the job, suspend/resume, the old submit-mpi,
# bad input, rollback, and the real kubectl on the operator's kinds.

load lib/common

NS=runai-team-a

setup_file() {
	kubesim_start --demo --tick 0.2
}

teardown_file() {
	kubesim_stop
}

setup() {
	sim_test_setup "$NS"
	sim DELETE /_sim/faults >/dev/null
}

# pods_of JOB: the job's pods (training.kubeflow.org/job-name), as JSON.
pods_of() {
	kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/pods?labelSelector=training.kubeflow.org%2Fjob-name%3D$1"
}

# all_running JOB N: waits (10 s at most) until the job has N pods, all Running.
all_running() {
	local _
	for _ in $(seq 1 $((50 * TIME_SCALE))); do
		pods_of "$1" | jq -e --argjson n "$2" '(.items | length) == $n and
		    ([.items[] | select(.status.phase == "Running")] | length) == $n' \
			>/dev/null && return 0
		sleep 0.2
	done
	echo "job $1: $(pods_of "$1" | jq -c '[.items[] | [.metadata.name, .status.phase]]')" >&2
	return 1
}

# nothing_left JOB: no pod, service or ConfigMap of the job remains, nor the job.
nothing_left() {
	local _ left
	for _ in $(seq 1 $((50 * TIME_SCALE))); do
		left=$( (pods_of "$1"
			kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/services?labelSelector=training.kubeflow.org%2Fjob-name%3D$1"
			kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/configmaps") |
			jq -r --arg j "$1" '.items[].metadata.name | select(. == $j or startswith($j + "-"))')
		[ -z "$left" ] && return 0
		sleep 0.2
	done
	echo "left of $1: $left" >&2
	return 1
}

# The user annotation is the local user here: the golden files use
# john@acme.com, the unit tests' user.
normalize() {
	sed -e "s/^\(\( *\)user: \).*/\1john@acme.com/" -e 's/ --dry-run//'
}

@test "--dry-run prints each framework's objects as the golden files, writing nothing" {
	mark_requests
	run -0 --separate-stderr runai submit-dist pytorch ddp -i pytorch/pytorch \
		--workers 2 -g 1 -e EPOCHS=3 --clean-pod-policy All --dry-run -- python train.py
	diff -u "$TOP/tests/fixtures/golden/dist-pytorch.yaml" <(printf '%s\n' "$output" | normalize)
	run -0 --separate-stderr runai submit-dist mpi hvd -i horovod/horovod \
		--workers 2 -g 2 --slots-per-worker 2 --dry-run -- mpirun python train.py
	diff -u "$TOP/tests/fixtures/golden/dist-mpi.yaml" <(printf '%s\n' "$output" | normalize)
	run -0 --separate-stderr runai submit-dist tf tfd -i tensorflow/tensorflow \
		--workers 2 --no-master -g 1 --large-shm --dry-run
	diff -u "$TOP/tests/fixtures/golden/dist-tf.yaml" <(printf '%s\n' "$output" | normalize)
	run -0 --separate-stderr runai submit-dist xgboost xgb -i kubeflow/xgboost \
		--workers 1 --cpu 2 --memory 4G --dry-run
	diff -u "$TOP/tests/fixtures/golden/dist-xgboost.yaml" <(printf '%s\n' "$output" | normalize)
	[ -z "$(requests_since_mark | jq -r 'select(.method != "GET") | .path' |
		grep -v /runai-cli-index)" ]
	run -0 --separate-stderr runai submit-dist tf tfj -i img --dry-run -o json
	[ "$(printf '%s\n' "$output" | jq -r '.items | map(.kind) | join(",")')" = ConfigMap,TFJob ]
}

@test "pytorch: all pods run; list, describe, logs of master and worker; exec and bash in worker 1; delete leaves nothing" {
	run -0 runai submit-dist pytorch pt -i busybox --workers 2 -g 4 \
		-- sh -c 'echo rank $RANK of $WORLD_SIZE via $MASTER_ADDR:$MASTER_PORT; sleep 600'
	assert_line "The job 'pt' has been submitted successfully"
	all_running pt 3
	# 12 GPUs: the gang spans both 8-GPU nodes
	wait_row pt '^pt +Running +[0-9]+s +<multiple> +busybox +PyTorch +team-a +[^ ]+ +12 \(12\) +3 \(0\)'
	run -0 runai describe job pt
	assert_line --regexp '^TYPE: PyTorch$'
	assert_line --regexp '^IS DISTRIBUTED WORKLOAD: true$'
	assert_line --regexp '^pt-master-0 +RUNNING +MASTER +'
	assert_line --regexp '^pt-worker-0 +RUNNING +WORKER +'
	assert_line --regexp '^pt-worker-1 +RUNNING +WORKER +'
	assert_line --regexp '^Created +True +[0-9]+s +PyTorchJobCreated +'
	assert_line --regexp '^Running +True +[0-9]+s +PyTorchJobRunning +PyTorchJob runai-team-a/pt is running\.$'
	# the lead's log by default, a worker's with --pod, all of them prefixed
	run -0 runai logs pt
	[ "$output" = "rank 0 of 3 via pt-master-0:23456" ]
	run -0 runai logs pt --pod pt-worker-1
	[ "$output" = "rank 2 of 3 via pt-master-0:23456" ]
	run -0 runai logs pt --all-pods
	[ "${lines[0]}" = "[pt-master-0] rank 0 of 3 via pt-master-0:23456" ]
	assert_line "[pt-worker-0] rank 1 of 3 via pt-master-0:23456"
	assert_line "[pt-worker-1] rank 2 of 3 via pt-master-0:23456"
	run -0 runai exec pt --pod pt-worker-1 -- sh -c 'echo $HOSTNAME $RANK $WORLD_SIZE'
	[ "$output" = "pt-worker-1 2 3" ]
	run -0 --separate-stderr runai bash pt --pod pt-worker-1 <<<'echo in $HOSTNAME'
	[ "$output" = "in pt-worker-1" ]
	run -1 --separate-stderr runai exec pt --pod pt-worker-7 -- true
	stderr_has "pod pt-worker-7 is not a pod of job pt"
	# completion offers the job's pods for --pod (its budget is 1.5 s)
	[ "$TIME_SCALE" = 1 ] || export RUNAI_REQUEST_TIMEOUT=30s
	run -0 runai __complete logs pt --pod pt-w
	[ "$output" = "pt-worker-0
pt-worker-1
:4" ]
	run -0 runai __complete bash pt --pod=pt-m
	assert_line -- "--pod=pt-master-0"
	# the headless services are there, then everything goes
	[ "$(kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/services?labelSelector=training.kubeflow.org%2Fjob-name%3Dpt" |
		jq -r '[.items[] | .metadata.name + "/" + .spec.clusterIP] | sort | join(",")')" = \
		"pt-master-0/None,pt-worker-0/None,pt-worker-1/None" ]
	run -0 runai delete pt
	nothing_left pt
	! exists "/apis/kubeflow.org/v1/namespaces/$NS/pytorchjobs/pt"
	[ -z "$(job_row pt)" ]
}

# life FRAMEWORK JOB IMAGE LEAD WORKER1 ENV-COMMAND EXPECTED PODS [SUBMIT-ARGS...]:
# submit, all PODS Running, list TYPE, describe roles, logs of the lead and
# of worker 1, the operator's env in worker 1 (exec), bash in worker 1,
# delete leaves nothing.
life() {
	local fw=$1 job=$2 image=$3 lead=$4 w1=$5 envcmd=$6 expect=$7 n=$8 type
	shift 8
	runai submit-dist "$fw" "$job" -i "$image" --workers 2 -g 1 "$@" >/dev/null
	all_running "$job" "$n"
	type=$(runai list | awk -v n="$job" '$1 == n {print $6}')
	case $fw in
	mpi) [ "$type" = MPI ] ;;
	tf) [ "$type" = TensorFlow ] ;;
	xgboost) [ "$type" = XGBoost ] ;;
	esac
	run -0 runai describe job "$job"
	assert_line --regexp "^$lead +RUNNING +(MASTER|CHIEF|LAUNCHER) +"
	assert_line --regexp "^$w1 +RUNNING +WORKER +"
	# the emulator's simulated training prints one line a step per pod;
	# --all-pods names each pod once. Wait (10 s times TIME_SCALE) until
	# both pods have logged a step: a loaded machine may be slow to start
	local _ logs=
	for _ in $(seq 1 $((50 * TIME_SCALE))); do
		logs=$(runai logs "$job" --all-pods --tail 1)
		grep -q "^\[$w1\] step" <<<"$logs" &&
			grep -q "^\[$lead\] step" <<<"$logs" && break
		sleep 0.2
	done
	runai logs "$job" --tail 1 | grep -q "^step [0-9]*: loss="
	runai logs "$job" --pod "$w1" --tail 1 | grep -q "^step [0-9]*: loss="
	runai logs "$job" --all-pods --tail 1 | grep -q "^\[$lead\] step [0-9]*: loss="
	runai logs "$job" --all-pods --tail 1 | grep -q "^\[$w1\] step [0-9]*: loss="
	run -0 runai exec "$job" --pod "$w1" -- sh -c "$envcmd"
	[ "$output" = "$expect" ]
	run -0 --separate-stderr runai bash "$job" --pod "$w1" <<<'echo in $HOSTNAME'
	[ "$output" = "in $w1" ]
	run -0 runai delete "$job"
	nothing_left "$job"
}

@test "mpi: the launcher leads; workers get the hostfile's service; delete leaves nothing" {
	life mpi hv horovod/horovod hv-launcher hv-worker-1 'echo $K_MPI_JOB_ROLE' worker 3 \
		--slots-per-worker 4
	run -0 runai submit-dist mpi hv2 -i horovod/horovod --workers 2 --slots-per-worker 4
	all_running hv2 3
	[ "$(get_obj "/api/v1/namespaces/$NS/configmaps/hv2-config" | jq -r .data.hostfile)" = \
"hv2-worker-0.hv2-worker.$NS.svc slots=4
hv2-worker-1.hv2-worker.$NS.svc slots=4" ]
	run -0 runai exec hv2 --pod hv2-launcher -- sh -c 'echo $OMPI_MCA_orte_default_hostfile'
	[ "$output" = /etc/mpi/hostfile ]
	runai delete hv2
	nothing_left hv2
}

@test "tf: the chief leads; TF_CONFIG names worker 1's task" {
	life tf tfa tensorflow/tensorflow tfa-chief-0 tfa-worker-1 \
		'echo $TF_CONFIG' \
		'{"cluster":{"chief":["tfa-chief-0.runai-team-a.svc:2222"],"worker":["tfa-worker-0.runai-team-a.svc:2222","tfa-worker-1.runai-team-a.svc:2222"]},"environment":"cloud","task":{"index":1,"type":"worker"}}' 3
}

@test "xgboost: the master leads; the workers' addresses are in every pod" {
	life xgboost xg kubeflow/xgboost xg-master-0 xg-worker-1 \
		'echo $RANK $WORKER_ADDRS' '2 xg-worker-0,xg-worker-1' 3
}

@test "a gang too big for the free GPUs waits Pending whole, and starts when they free up" {
	runai submit-dist pytorch big1 -i pytorch/pytorch --workers 1 -g 8 >/dev/null
	all_running big1 2
	runai submit-dist pytorch big2 -i pytorch/pytorch --workers 2 -g 2 >/dev/null
	wait_row big2 ' 0 \(3\) +$'
	# a while later still no pod of it is placed: no partial start
	sleep 1
	[ "$(pods_of big2 | jq '[.items[] | select(.spec.nodeName // "" != "")] | length')" = 0 ]
	[ "$(pods_of big2 | jq '[.items[] | select(.status.phase == "Pending")] | length')" = 3 ]
	runai delete big1 >/dev/null
	all_running big2 3
	wait_row big2 ' Running .* 6 \(6\) +3 \(0\)'
	runai delete big2 >/dev/null
}

@test "a worker that fails fails the job; the Running pods are cleaned, as cleanPodPolicy Running says" {
	runai submit-dist pytorch wf -i pytorch/pytorch --workers 2 >/dev/null
	all_running wf 3
	sim POST /_sim/phase "{\"namespace\": \"$NS\", \"pod\": \"wf-worker-1\",
	    \"phase\": \"Failed\", \"exit_code\": 3}" >/dev/null
	wait_row wf '^wf +Failed '
	run -0 runai describe job wf
	assert_line --regexp '^Failed +True +[0-9]+s +PyTorchJobFailed +PyTorchJob runai-team-a/wf has failed because 1 Worker replica\(s\) failed\.$'
	assert_line --regexp '^Running +False +'
	local _
	for _ in $(seq 1 $((25 * TIME_SCALE))); do
		[ "$(pods_of wf | jq -r '[.items[].metadata.name] | join(",")')" = wf-worker-1 ] && break
		sleep 0.2
	done
	[ "$(pods_of wf | jq -r '[.items[].metadata.name] | join(",")')" = wf-worker-1 ]
	runai delete wf >/dev/null
	nothing_left wf
}

@test "suspend and resume act on the whole job" {
	runai submit-dist xgboost sr -i kubeflow/xgboost --workers 2 >/dev/null
	all_running sr 3
	run -0 runai suspend sr
	[ "$(get_obj "/apis/kubeflow.org/v1/namespaces/$NS/xgboostjobs/sr" | jq -r .spec.runPolicy.suspend)" = true ]
	wait_row sr '^sr +Suspended '
	[ "$(pods_of sr | jq '.items | length')" = 0 ]
	run -0 runai resume sr
	all_running sr 3
	wait_row sr '^sr +Running '
	runai delete sr >/dev/null
	nothing_left sr
}

@test "submit-mpi is the old name of submit-dist mpi; --processes of --workers" {
	run -0 --separate-stderr runai submit-mpi om -i horovod/horovod --processes 3 --dry-run
	stderr_has "'runai submit-mpi' is deprecated; use 'runai submit-dist mpi'"
	stderr_has "option '--processes' is deprecated; use --workers"
	[ "$(printf '%s\n' "$output" | awk '/^kind: MPIJob/,0' | grep -c 'replicas: 3')" = 1 ]
}

@test "bad input: one line on stderr, exit 2, nothing sent" {
	mark_requests
	run -2 --separate-stderr runai submit-dist mpi x -i img --no-master
	stderr_is "runai: error: --no-master: an MPIJob always has its launcher"
	run -2 --separate-stderr runai submit-dist pytorch x -i img --slots-per-worker 2
	stderr_is "runai: error: --slots-per-worker is for MPI jobs"
	run -2 --separate-stderr runai submit-dist tf x -i img --workers -1
	stderr_is "runai: error: --workers must be 0 or more, not -1"
	run -2 --separate-stderr runai submit-dist pytorch x
	stderr_has "image"
	run -2 --separate-stderr runai submit-dist pytorch a b -i img
	stderr_has "name the job once"
	run -2 --separate-stderr runai submit-dist jax x
	stderr_has "'jax' is not a runai submit-dist command"
	run -2 --separate-stderr runai submit-dist pytorch x -i img --clean-pod-policy Some
	[ "$(requests_since_mark | jq -r 'select(.method != "GET") | .path')" = "" ]
}

@test "a refused job rolls back its name reservation" {
	sim POST /_sim/faults "{\"path_prefix\":\"/apis/kubeflow.org/v1/namespaces/$NS/tfjobs\",
	    \"method\":\"POST\",\"status\":500,\"message\":\"etcd is down\"}" >/dev/null
	run -1 --separate-stderr runai submit-dist tf rb -i img
	stderr_has "etcd is down"
	! exists "/api/v1/namespaces/$NS/configmaps/rb"
	! exists "/apis/kubeflow.org/v1/namespaces/$NS/tfjobs/rb"
}

@test "an interrupted submit-dist leaves nothing; a claim and a volume reach every pod" {
	sim POST /_sim/faults "{\"path_prefix\":\"/apis/kubeflow.org/v2beta1/namespaces/$NS/mpijobs\",
	    \"method\":\"POST\",\"delay\":2}" >/dev/null
	"$RAI_BIN_DIR/runai" submit-dist mpi int1 -i img --pvc :1Gi:/ckpt \
		>"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
	pid=$!
	for _ in $(seq 1 $((50 * TIME_SCALE))); do
		exists "/api/v1/namespaces/$NS/persistentvolumeclaims/pvc-int1-0" && break
		sleep 0.1
	done
	kill -INT "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" = 130 ]
	grep -q "submit interrupted" "$BATS_TEST_TMPDIR/err"
	! exists "/api/v1/namespaces/$NS/configmaps/int1"
	! exists "/api/v1/namespaces/$NS/persistentvolumeclaims/pvc-int1-0"
	sim DELETE /_sim/faults >/dev/null
	# one claim for the job, mounted by the master and both workers
	runai submit-dist pytorch vol -i busybox --workers 2 --pvc :1Gi:/ckpt \
		-v /tmp:/host:ro -e STAGE=two -- sh -c 'echo $STAGE; sleep 600' >/dev/null
	all_running vol 3
	[ "$(pods_of vol | jq -r '[.items[] | .spec.volumes[] | select(.persistentVolumeClaim) |
		.persistentVolumeClaim.claimName] | unique | join(",")')" = pvc-vol-0 ]
	[ "$(pods_of vol | jq '[.items[] | .spec.containers[0].volumeMounts[] |
		select(.mountPath == "/ckpt" or .mountPath == "/host")] | length')" = 6 ]
	run -0 runai logs vol --pod vol-worker-1
	[ "$output" = two ]
	runai delete vol >/dev/null
	nothing_left vol
	! exists "/api/v1/namespaces/$NS/persistentvolumeclaims/pvc-vol-0"
}

@test "list leaves out a framework it may not read, and fails on one that errs" {
	runai submit-dist tf seen -i img --workers 1 >/dev/null
	runai submit seen2 -i ubuntu >/dev/null
	sim POST /_sim/faults "{\"path_prefix\":\"/apis/kubeflow.org/v1/namespaces/$NS/tfjobs\",
	    \"method\":\"GET\",\"status\":403,\"message\":\"tfjobs is forbidden\"}" >/dev/null
	run -0 --separate-stderr runai list
	assert_line --regexp '^seen2 '
	refute_line --regexp '^seen '
	sim DELETE /_sim/faults >/dev/null
	sim POST /_sim/faults "{\"path_prefix\":\"/apis/kubeflow.org/v1/namespaces/$NS/tfjobs\",
	    \"method\":\"GET\",\"status\":500,\"message\":\"etcd is down\",\"count\":50}" >/dev/null
	run -1 --separate-stderr env RUNAI_MAX_RETRIES=0 runai list
	stderr_has "etcd is down"
	sim DELETE /_sim/faults >/dev/null
	run -0 runai list
	assert_line --regexp '^seen +[A-Za-z]+ .* TensorFlow '
	runai delete seen seen2 >/dev/null
}

@test "kubectl 1.32 gets, describes and deletes pytorchjobs on the emulator" {
	have_kubectl_132 || skip "kubectl 1.32 not installed at $KUBECTL_132"
	runai submit-dist pytorch kc -i pytorch/pytorch --workers 1 >/dev/null
	all_running kc 2
	run -0 "$KUBECTL_132" get pytorchjobs
	assert_line --index 0 --regexp '^NAME +STATE +AGE$'
	assert_line --regexp '^kc +Running +[0-9]+s$'
	run -0 "$KUBECTL_132" get pytorchjobs -A
	assert_line --regexp "^$NS +kc +Running +[0-9]+s$"
	run -0 "$KUBECTL_132" get mpijobs.v2beta1.kubeflow.org,tfjobs,xgboostjobs
	run -0 "$KUBECTL_132" describe pytorchjob kc
	assert_line --regexp '^Kind: +PyTorchJob$'
	assert_line --regexp '^ +Reason: +PyTorchJobRunning$'
	assert_line --regexp 'SuccessfulCreatePod +.*Created pod: kc-worker-0$'
	run -0 "$KUBECTL_132" delete pytorchjob kc
	assert_output 'pytorchjob.kubeflow.org "kc" deleted'
	nothing_left_but_configmap() {
		[ "$(pods_of kc | jq '.items | length')" = 0 ] &&
			[ "$(kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/services?labelSelector=training.kubeflow.org%2Fjob-name%3Dkc" |
				jq '.items | length')" = 0 ]
	}
	nothing_left_but_configmap
	runai delete kc >/dev/null
}

@test "OnFailure workers restart in place, as the kubelet does, until the backoff limit fails the job (kubectl 1.32 judges)" {
	have_kubectl_132 || skip "kubectl 1.32 not installed at $KUBECTL_132"
	# each run and each back-off TIME_SCALE times longer on a slow
	# machine: the pod must still be there when kubectl reads it after
	# its first restart (four runs end the job, and the operator then
	# removes its pods)
	local tmpl
	tmpl=$(jq -nc --arg d "$((2 * TIME_SCALE))" --arg b "$(awk -v s="$TIME_SCALE" 'BEGIN { print 0.5 * s }')" \
		'{"metadata": {"annotations": {"kube-sim/duration": $d, "kube-sim/exit-code": "3",
		    "kube-sim/restart-backoff": $b}},
		  "spec": {"schedulerName": "runai-scheduler",
		    "containers": [{"name": "pytorch", "image": "pytorch/pytorch"}]}}')
	jq -n --argjson t "$tmpl" '{apiVersion: "kubeflow.org/v1", kind: "PyTorchJob",
	    metadata: {name: "ip"},
	    spec: {runPolicy: {backoffLimit: 3},
	      pytorchReplicaSpecs: {
	        Master: {replicas: 1, restartPolicy: "Never", template: ($t | del(.metadata))},
	        Worker: {replicas: 1, restartPolicy: "OnFailure", template: $t}}}}' >"$BATS_TEST_TMPDIR/ip.json"
	run -0 "$KUBECTL_132" -n "$NS" create -f "$BATS_TEST_TMPDIR/ip.json"
	all_running ip 2
	uid=$("$KUBECTL_132" -n "$NS" get pod ip-worker-0 -o jsonpath='{.metadata.uid}')
	# the same pod restarts: restartCount climbs, the last exit is kept
	local _ n=0
	for _ in $(seq 1 $((50 * TIME_SCALE))); do
		n=$("$KUBECTL_132" -n "$NS" get pod ip-worker-0 -o jsonpath='{.status.containerStatuses[0].restartCount}' 2>/dev/null) || break
		[ "${n:-0}" -ge 1 ] && break
		sleep 0.2
	done
	[ "$n" -ge 1 ]
	run -0 "$KUBECTL_132" -n "$NS" get pod ip-worker-0 -o jsonpath='{.metadata.uid} {.status.phase} {.status.containerStatuses[0].lastState.terminated.exitCode}'
	assert_output "$uid Running 3"
	run -0 "$KUBECTL_132" -n "$NS" get pod ip-worker-0
	# RESTARTS as kubectl prints it: the count and how long ago
	assert_line --index 1 --regexp '^ip-worker-0 +[01]/1 +[A-Za-z]+ +[1-9][0-9]* \([0-9]+s ago\) +[0-9]+s$'
	# three restarts reach the limit: the job fails as the operator says it
	for _ in $(seq 1 $((100 * TIME_SCALE))); do
		"$KUBECTL_132" -n "$NS" get pytorchjob ip -o jsonpath='{.status.conditions[?(@.type=="Failed")].status}' |
			grep -qx True && break
		sleep 0.2
	done
	run -0 "$KUBECTL_132" -n "$NS" get pytorchjob ip
	assert_line --index 1 --regexp '^ip +Failed +[0-9]+s$'
	run -0 "$KUBECTL_132" -n "$NS" get pytorchjob ip -o jsonpath='{.status.conditions[?(@.type=="Failed")].message}'
	assert_output "Job ip has failed because it has reached the specified backoff limit"
	run -0 "$KUBECTL_132" -n "$NS" get events --field-selector involvedObject.name=ip-worker-0
	assert_line --regexp 'Warning +BackOff +pod/ip-worker-0 +Back-off restarting failed container pytorch in pod ip-worker-0_'"$NS"'\('"$uid"'\)$'
	run -0 runai list
	assert_line --regexp '^ip +Failed '
	"$KUBECTL_132" -n "$NS" delete pytorchjob ip >/dev/null
	nothing_left ip
}
