#!/usr/bin/env bats
# The emulator's pods are sandboxed: what `runai exec` runs sees a minimal
# root of its own (no host files, no /root, no checkout), its own PID and
# UTS namespaces (hostname = pod name), the pod's runAsUser; a job whose
# image the host can run runs its command for real; a GPU pod has an
# nvidia-smi that shows its share of the GPU (the demo's nodes have 80 GB
# A100s: 0.5 of one is 40960 MiB).

load lib/common

NS=runai-team-a

setup_file() {
	kubesim_start_sandboxed
}

teardown_file() {
	kubesim_stop
}

setup() {
	sim_test_setup "$NS"
}

teardown() {
	kube_api -X DELETE "$KUBESIM_URL/apis/run.ai/v1/namespaces/$NS/runaijobs" >/dev/null || true
	kube_api -X DELETE "$KUBESIM_URL/api/v1/namespaces/$NS/configmaps" >/dev/null || true
	kube_api -X DELETE "$KUBESIM_URL/api/v1/namespaces/$NS/pods" >/dev/null || true
}

# pod_of JOB: the job's pod once it runs (10 s at most).
pod_of() {
	local i name
	for i in $(seq 1 $((50 * TIME_SCALE))); do
		name=$(kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/pods?labelSelector=release%3D$1" |
			jq -r '.items[] | select(.status.phase == "Running") | .metadata.name' | head -1)
		[ -n "$name" ] && { echo "$name"; return 0; }
		sleep 0.2
	done
	echo "job $1 has no running pod" >&2
	return 1
}

submit_running() {
	runai submit "$@" >/dev/null
	pod_of "$1"
}

@test "a file made on the host outside the pod's root is invisible from runai exec" {
	submit_running box1 -i ubuntu -- sleep infinity >/dev/null
	local secret="$BATS_TEST_TMPDIR/host-secret"
	echo "host data" >"$secret"
	echo "sim data" >"$KUBESIM_DIR/host-secret-too"
	# the pod's own /tmp is writable and shared by its processes...
	run -0 runai exec box1 -- sh -c 'echo pod-data >/tmp/mine'
	run -0 runai exec box1 -- cat /tmp/mine
	assert_output pod-data
	# ...but the host's files are not there, by any path
	run -1 runai exec box1 -- cat "$secret"
	assert_output --partial "No such file or directory"
	refute_output --partial "host data"
	run -1 runai exec box1 -- cat "$KUBESIM_DIR/host-secret-too"
	refute_output --partial "sim data"
	run -0 runai exec box1 -- ls -A /tmp
	assert_output mine
	# and the pod's file did not land in the host's /tmp
	[ ! -e /tmp/mine ] || [ "$(cat /tmp/mine)" != pod-data ]
}

@test "/root, home directories and the checkout are invisible; system directories are read-only" {
	submit_running box2 -i ubuntu -- sleep infinity >/dev/null
	[ -n "$(ls -A /root)" ] # the host's /root has files...
	run -0 runai exec box2 -- ls -A /root
	assert_output ""        # ...the pod's has none of them
	run -1 runai exec box2 -- test -e "$TOP/Makefile"
	run -2 runai exec box2 -- ls "$TOP"
	run -1 runai exec box2 -- cat /etc/shadow
	run -0 runai exec box2 -- ls /
	refute_line home
	# the checkout's top directory is not there, unless the pod has its
	# own of that name (a checkout under /tmp: the pod's /tmp is private)
	local top
	top=$(echo "$TOP" | cut -d/ -f2)
	case $top in
	tmp | usr | root | etc | bin | sbin | lib* | dev | proc) ;;
	*) refute_line "$top" ;;
	esac
	assert_line usr
	run -1 runai exec box2 -- touch /usr/bin/planted
	assert_output --partial "Read-only file system"
	[ ! -e /usr/bin/planted ]
}

@test "hostname is the pod's name, and the pod has its own PID namespace" {
	local pod
	pod=$(submit_running box3 -i ubuntu -- sleep infinity)
	run -0 runai exec box3 -- hostname
	assert_output "$pod"
	[ "$pod" != "$(hostname)" ]
	run -0 runai exec box3 -- sh -c 'echo $$; cat /etc/hostname'
	assert_output "2
$pod"
	run -0 runai exec box3 -- ps -e -o pid=
	[ "${#lines[@]}" -le 3 ] # bwrap, ps (and nothing of the host's)
}

@test "a pod's runAsUser, runAsGroup, workingDir and memory limit (kubectl exec)" {
	sim POST /_sim/seed "$(jq -nc --arg ns "$NS" '{apiVersion: "v1", kind: "Pod",
	  metadata: {name: "user1", namespace: $ns},
	  spec: {nodeName: "node-2", securityContext: {runAsUser: 4321, runAsGroup: 4322},
	    containers: [{name: "main", image: "ubuntu", workingDir: "/data/work",
	      resources: {limits: {memory: "512Mi"}}}]},
	  status: {phase: "Running"}}')" >/dev/null
	[ -x "$KUBECTL_132" ] || skip "no kubectl 1.32 to exec into a bare pod"
	run -0 "$KUBECTL_132" exec user1 -n "$NS" -- sh -c 'id -u; id -g; pwd; echo $HOME; touch here && echo ok; ulimit -v'
	assert_output "4321
4322
/data/work
/home/user
ok
524288"
	# the pod's user cannot write where root put things
	run -1 "$KUBECTL_132" exec user1 -n "$NS" -- touch /tmp/../etc/x
}

@test "a job whose image the host can run runs its command for real: log and exit code" {
	runai submit real1 -i ubuntu -- sh -c 'echo "out-$((6*7)) on $(hostname)"; exit 3' >/dev/null
	local i pods
	for i in $(seq 1 $((50 * TIME_SCALE))); do
		pods=$(kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/pods?labelSelector=release%3Dreal1")
		jq -e '[.items[] | select(.status.phase == "Failed")] | length > 0' <<<"$pods" >/dev/null && break
		sleep 0.2
	done
	run -0 jq -r '[.items[] | select(.status.phase == "Failed")][0] |
		"\(.metadata.name) \(.status.containerStatuses[0].state.terminated.exitCode)"' <<<"$pods"
	local pod=${output% *}
	assert_output "$pod 3"
	run -0 kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/pods/$pod/log"
	assert_output "out-42 on $pod"
}

@test "a job's own server answers, in its sandbox" {
	submit_running srv1 -i python:3.11 --interactive -- \
		sh -c 'echo served-from-pod >/tmp/index.html; cd /tmp; exec python3 -m http.server 18931 --bind 127.0.0.1' >/dev/null
	local i
	for i in $(seq 1 $((50 * TIME_SCALE))); do
		curl -sf http://127.0.0.1:18931/index.html >/dev/null && break
		sleep 0.2
	done
	run -0 curl -sf http://127.0.0.1:18931/index.html
	assert_output served-from-pod
	runai delete srv1 >/dev/null
	for i in $(seq 1 $((50 * TIME_SCALE))); do
		curl -sf http://127.0.0.1:18931/ >/dev/null || break
		sleep 0.2
	done
	run -7 curl -sf http://127.0.0.1:18931/ # the server went with its job
}

@test "a 0.5-GPU pod's nvidia-smi sees half of an 80 GB A100" {
	submit_running half1 -i ubuntu -g 0.5 -- sleep infinity >/dev/null
	run -0 runai exec half1 -- nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits
	assert_output 40960
	run -0 runai exec half1 -- nvidia-smi -L
	assert_output --regexp '^GPU 0: NVIDIA A100-SXM4-80GB \(UUID: GPU-[0-9a-f-]{36}\)$'
	run -0 runai exec half1 -- nvidia-smi --query-gpu=utilization.gpu,memory.used,memory.total --format=csv
	assert_line --index 0 "utilization.gpu [%], memory.used [MiB], memory.total [MiB]"
	assert_line --index 1 --regexp '^[0-9]+ %, [0-9]+ MiB, 40960 MiB$'
	run -0 runai exec half1 -- nvidia-smi
	assert_line --regexp '^\| N/A +[0-9]+C +P0 +[0-9]+W / +400W \| +[0-9]+MiB /  40960MiB \| +[0-9]+% +Default \|$'
}

@test "nvidia-smi -lms loops; a whole-GPU job sees whole GPUs; a CPU job has none" {
	submit_running two1 -i ubuntu -g 2 -- sleep infinity >/dev/null
	run -124 runai exec two1 -- timeout 1.3 nvidia-smi --query-gpu=index,memory.total --format=csv,noheader,nounits -lms 500
	assert_line --index 0 "0, 81920"
	assert_line --index 1 "1, 81920"
	[ "${#lines[@]}" -ge 4 ]
	submit_running cpu1 -i ubuntu -- sleep infinity >/dev/null
	run -1 runai exec cpu1 -- nvidia-smi
	assert_output --partial 'exec: "nvidia-smi": executable file not found in $PATH'
}
