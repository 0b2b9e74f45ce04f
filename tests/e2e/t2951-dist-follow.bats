#!/usr/bin/env bats
# The reading commands that follow a distributed job as it runs, on the
# emulator's training operator: list --watch redraws when a worker pod
# changes (no job object changing with it), logs --all-pods -f follows
# every pod at once with prefixed lines, and attach reaches a worker's
# console and the lead's, in real sandboxed pods.

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
	TMUX_SOCKET="$BATS_TEST_TMPDIR/tmux.sock"
	BG_PID=
}

teardown() {
	if [ -n "$BG_PID" ]; then
		kill "$BG_PID" 2>/dev/null || true
		wait "$BG_PID" 2>/dev/null || true
	fi
	if [ -S "${TMUX_SOCKET:-}" ]; then
		tmux -S "$TMUX_SOCKET" kill-server 2>/dev/null || true
	fi
	sim POST /_sim/controller '{"paused": false}' >/dev/null
}

# wait_file FILE ERE: waits (10 s at most) until a line of FILE matches.
wait_file() {
	local _
	for _ in $(seq 1 $((100 * TIME_SCALE))); do
		grep -Eq -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "$1 never showed /$2/:" >&2
	cat "$1" >&2
	return 1
}

# all_running JOB N: waits (10 s at most) until the job has N Running pods.
all_running() {
	local _
	for _ in $(seq 1 $((50 * TIME_SCALE))); do
		kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/pods?labelSelector=training.kubeflow.org%2Fjob-name%3D$1" |
			jq -e --argjson n "$2" '[.items[] | select(.status.phase == "Running")] | length == $n' \
			>/dev/null && return 0
		sleep 0.2
	done
	return 1
}

# pod_json NAME ROLE PHASE: a pod of the seeded job "wp" (uid wp-uid-1).
pod_json() {
	jq -nc --arg n "$1" --arg r "$2" --arg p "$3" '{apiVersion: "v1", kind: "Pod",
		metadata: {name: $n, namespace: "runai-team-a", uid: ("uid-" + $n),
			labels: {"training.kubeflow.org/job-name": "wp", "training.kubeflow.org/replica-type": $r},
			ownerReferences: [{apiVersion: "kubeflow.org/v1", kind: "PyTorchJob", name: "wp",
				uid: "wp-uid-1", controller: true}]},
		spec: {schedulerName: "runai-scheduler", nodeName: "node-1",
			containers: [{name: "pytorch", image: "img:wp"}]},
		status: {phase: $p}}'
}

@test "list --watch redraws when a worker pod of a distributed job changes, its job unchanged" {
	# the controller is paused: nothing but the pod changes, and the job
	# has no scheduler annotations, so its row is counted from its pods
	sim POST /_sim/controller '{"paused": true}' >/dev/null
	jq -nc '{apiVersion: "kubeflow.org/v1", kind: "PyTorchJob",
		metadata: {name: "wp", namespace: "runai-team-a", uid: "wp-uid-1"},
		spec: {pytorchReplicaSpecs: {
			Master: {replicas: 1, template: {spec: {schedulerName: "runai-scheduler",
				containers: [{name: "pytorch", image: "img:wp"}]}}},
			Worker: {replicas: 1, template: {spec: {schedulerName: "runai-scheduler",
				containers: [{name: "pytorch", image: "img:wp"}]}}}}}}' |
		sim POST /_sim/seed - >/dev/null
	pod_json wp-master-0 master Running | sim POST /_sim/seed - >/dev/null
	pod_json wp-worker-0 worker Running | sim POST /_sim/seed - >/dev/null
	local out="$BATS_TEST_TMPDIR/watch"
	runai list --watch >"$out" 2>&1 &
	BG_PID=$!
	wait_file "$out" '^wp +Running .* PyTorch .* 2 \(0\)'
	mark_requests
	pod_json wp-worker-0 worker Pending | sim POST /_sim/seed - >/dev/null
	wait_file "$out" '^wp +.* PyTorch .* 1 \(1\)'
	kill "$BG_PID"
	wait "$BG_PID" || true
	BG_PID=
	# two lists in all: the first and the one after the pod's change
	[ "$(grep -c '^wp ' "$out")" = 2 ]
	# the redraw came from the pods watch (the emulator logs a watch when
	# it ends): the job itself was not written. Up to 15 s: in a whole
	# suite's run on two loaded cores the end was once logged after 5 s
	local _ w=
	for _ in $(seq 1 $((150 * TIME_SCALE))); do
		w=$(requests_since_mark | jq -rs '[.[] | select(.query.watch != null) | .path] | unique | join(" ")')
		[[ " $w " == *" /api/v1/namespaces/$NS/pods "* ]] && break
		sleep 0.1
	done
	[[ " $w " == *" /api/v1/namespaces/$NS/pods "* ]]
	[[ " $w " == *" /apis/kubeflow.org/v1/namespaces/$NS/pytorchjobs "* ]]
	[ -z "$(requests_since_mark | jq -r 'select(.method != "GET") | .path')" ]
	kube_api -X DELETE "$KUBESIM_URL/apis/kubeflow.org/v1/namespaces/$NS/pytorchjobs/wp" >/dev/null
	kube_api -X DELETE "$KUBESIM_URL/api/v1/namespaces/$NS/pods" >/dev/null
}

@test "logs --all-pods -f follows every pod at once, each line once after its pod's name" {
	# each pod prints a line, then one more each time it is told to
	runai submit-dist pytorch lf -i busybox --workers 1 -- sh -c \
		'echo first $RANK; while [ ! -e /tmp/go ]; do sleep 0.1; done; echo second $RANK
		 while [ ! -e /tmp/end ]; do sleep 0.1; done; echo last $RANK' >/dev/null
	all_running lf 2
	local out="$BATS_TEST_TMPDIR/logs" rc=0
	runai logs lf --all-pods -f >"$out" 2>"$BATS_TEST_TMPDIR/err" &
	BG_PID=$!
	wait_file "$out" '^\[lf-master-0\] first 0$'
	wait_file "$out" '^\[lf-worker-0\] first 1$'
	# the worker's new line shows while the command runs on
	runai exec lf --pod lf-worker-0 -- touch /tmp/go
	wait_file "$out" '^\[lf-worker-0\] second 1$'
	runai exec lf --pod lf-master-0 -- touch /tmp/go
	wait_file "$out" '^\[lf-master-0\] second 0$'
	runai exec lf --pod lf-worker-0 -- touch /tmp/end
	wait_file "$out" '^\[lf-worker-0\] last 1$'
	kill -0 "$BG_PID"
	# the master's end ends the job, and with every pod done, the command
	runai exec lf --pod lf-master-0 -- touch /tmp/end
	local _
	for _ in $(seq 1 $((100 * TIME_SCALE))); do
		kill -0 "$BG_PID" 2>/dev/null || break
		sleep 0.1
	done
	wait "$BG_PID" || rc=$?
	BG_PID=
	[ "$rc" = 0 ]
	run cat "$out"
	assert_output "[lf-master-0] first 0
[lf-worker-0] first 1
[lf-worker-0] second 1
[lf-master-0] second 0
[lf-worker-0] last 1
[lf-master-0] last 0"
	runai delete lf >/dev/null
}

@test "logs --all-pods -f takes in a pod that replaces a deleted one, and ends at Ctrl-C, quietly" {
	runai submit-dist pytorch lc -i busybox --workers 1 -- sh -c 'echo up $RANK $(cat /proc/sys/kernel/random/uuid); sleep 600' >/dev/null
	all_running lc 2
	local out="$BATS_TEST_TMPDIR/logs" rc=0 _ uid
	env --default-signal=INT runai logs lc --all-pods -f --tail 1 >"$out" 2>"$BATS_TEST_TMPDIR/err" &
	BG_PID=$!
	wait_file "$out" '^\[lc-worker-0\] up 1 '
	wait_file "$out" '^\[lc-master-0\] up 0 '
	# the operator replaces a deleted worker: its new pod's log follows
	uid=$(get_obj "/api/v1/namespaces/$NS/pods/lc-worker-0" | jq -r .metadata.uid)
	kube_api -X DELETE "$KUBESIM_URL/api/v1/namespaces/$NS/pods/lc-worker-0" >/dev/null
	for _ in $(seq 1 $((100 * TIME_SCALE))); do
		[ "$(grep -c '^\[lc-worker-0\] up 1 ' "$out")" = 2 ] && break
		sleep 0.1
	done
	[ "$(grep -c '^\[lc-worker-0\] up 1 ' "$out")" = 2 ]
	[ "$(get_obj "/api/v1/namespaces/$NS/pods/lc-worker-0" | jq -r .metadata.uid)" != "$uid" ]
	[ "$(grep -c '^\[lc-master-0\] up 0 ' "$out")" = 1 ]
	kill -INT "$BG_PID"
	wait "$BG_PID" || rc=$?
	BG_PID=
	[ "$rc" = 130 ]
	[ ! -s "$BATS_TEST_TMPDIR/err" ]
	# --pod still picks one pod, not all of them
	run -2 --separate-stderr runai logs lc --all-pods --pod lc-worker-0
	stderr_has "not with --pod"
	runai delete lc >/dev/null
}

@test "logs --all-pods -f reads each pod through one follow stream, not a request a second" {
	# each pod counts, a line every 0.2 s: ten lines take two seconds,
	# which a poller (a GET per pod per round) could not bring in one ask
	runai submit-dist pytorch ls -i busybox --workers 2 -- sh -c \
		'i=0; while :; do i=$((i + 1)); echo tick $RANK $i; sleep 0.2; done' >/dev/null
	all_running ls 3
	local out="$BATS_TEST_TMPDIR/logs" pod n
	mark_requests
	runai logs ls --all-pods -f --tail 0 >"$out" 2>"$BATS_TEST_TMPDIR/err" &
	BG_PID=$!
	local first
	for pod in ls-master-0 ls-worker-0 ls-worker-1; do
		wait_file "$out" "^\\[$pod\\] tick [0-9] [0-9]+\$"
		first=$(grep -m1 "^\\[$pod\\] " "$out" | awk '{print $4}')
		wait_file "$out" "^\\[$pod\\] tick [0-9] $((first + 10))\$"
	done
	kill "$BG_PID"
	wait "$BG_PID" || true
	BG_PID=
	# per pod: one read of the log so far, then one follow stream
	for pod in ls-master-0 ls-worker-0 ls-worker-1; do
		n=$(requests_since_mark | jq -s --arg p "/api/v1/namespaces/$NS/pods/$pod/log" \
			'[.[] | select(.method == "GET" and .path == $p and .query.follow == ["true"])] | length')
		[ "$n" = 1 ] || { echo "$pod: $n follow streams" >&2; false; }
		n=$(requests_since_mark | jq -s --arg p "/api/v1/namespaces/$NS/pods/$pod/log" \
			'[.[] | select(.method == "GET" and .path == $p and .query.follow == null)] | length')
		[ "$n" = 1 ] || { echo "$pod: $n plain reads" >&2; false; }
	done
	# and every line came once, in order per pod
	for pod in ls-master-0 ls-worker-0 ls-worker-1; do
		run -0 bash -c "grep '^\[$pod\] ' '$out' | awk '{print \$4}' | awk 'NR > 1 && \$1 != p + 1 {exit 1} {p = \$1}'"
	done
	runai delete ls >/dev/null
}

@test "logs --all-pods -f through cuts of a worker's log: each line once, the others untouched" {
	# the worker's follow streams are cut three times, each after a few
	# lines; a cut stream starts again from the last line printed. The
	# pods count only once both streams are open, so every cut falls on
	# a stream however slow the run.
	runai submit-dist pytorch lx -i busybox --workers 1 -- sh -c \
		'while [ ! -e /tmp/go ]; do sleep 0.1; done
		 i=0; while [ $i -lt 60 ]; do i=$((i + 1)); echo tick $RANK $i; sleep 0.05; done; sleep 600' >/dev/null
	all_running lx 2
	sim POST /_sim/faults "{\"path_prefix\":\"/api/v1/namespaces/$NS/pods/lx-worker-0/log\",\"query\":{\"follow\":\"true\"},\"count\":3,\"cut_after_bytes\":200}" >/dev/null
	local out="$BATS_TEST_TMPDIR/logs" pod _ n
	mark_requests
	runai logs lx --all-pods -f >"$out" 2>"$BATS_TEST_TMPDIR/err" &
	BG_PID=$!
	follows() {
		requests_since_mark | jq -s --arg p "/api/v1/namespaces/$NS/pods/$1/log" \
			'[.[] | select(.path == $p and .query.follow == ["true"])] | length'
	}
	for pod in lx-master-0 lx-worker-0; do
		for _ in $(seq 1 $((100 * TIME_SCALE))); do
			[ "$(follows "$pod")" -ge 1 ] && break
			sleep 0.1
		done
		[ "$(follows "$pod")" -ge 1 ]
	done
	runai exec lx --pod lx-worker-0 -- touch /tmp/go
	runai exec lx --pod lx-master-0 -- touch /tmp/go
	wait_file "$out" '^\[lx-master-0\] tick 0 60$'
	wait_file "$out" '^\[lx-worker-0\] tick 1 60$'
	[ "$(sim GET /_sim/faults | jq length)" -eq 0 ]
	# the first stream and one more after each cut; the master's one
	n=$(follows lx-worker-0)
	[ "$n" -ge 4 ] || { echo "worker: $n follow streams" >&2; false; }
	[ "$(follows lx-master-0)" = 1 ]
	kill "$BG_PID"
	wait "$BG_PID" || true
	BG_PID=
	for pod in lx-master-0 lx-worker-0; do
		run -0 bash -c "grep '^\[$pod\] ' '$out' | awk '{print \$4}'"
		[ "$output" = "$(seq 1 60)" ]
	done
	runai delete lx >/dev/null
}

tmux_start() {
	tmux -S "$TMUX_SOCKET" -f /dev/null new-session -d -s t -x 80 -y 24 \
		"env PATH='$PATH' HOME='$HOME' KUBECONFIG='$KUBECONFIG' PS1='local> ' bash --norc --noprofile"
	tmux -S "$TMUX_SOCKET" send-keys -t t "$*" Enter
}

# tmux_wait ERE: waits (10 s at most) until the screen shows a matching line.
tmux_wait() {
	local _
	for _ in $(seq 1 $((100 * TIME_SCALE))); do
		tmux -S "$TMUX_SOCKET" capture-pane -p -t t | grep -qE -- "$1" && return 0
		sleep 0.1
	done
	tmux -S "$TMUX_SOCKET" capture-pane -p -t t >&2
	return 1
}

@test "attach reaches a worker's console with --pod, and the master's by default" {
	runai submit-dist pytorch at -i busybox --workers 2 --tty --stdin -- sleep 600 >/dev/null
	all_running at 3
	run -0 jq -r '[.spec.pytorchReplicaSpecs[].template.spec.containers[0] | "\(.stdin) \(.tty)"] | unique | join(",")' \
		< <(get_obj "/apis/kubeflow.org/v1/namespaces/$NS/pytorchjobs/at")
	assert_output "true true"
	tmux_start "runai attach at --pod at-worker-1; echo rc=\$?"
	tmux_wait "If you don't see a command prompt, try pressing enter."
	tmux -S "$TMUX_SOCKET" send-keys -t t 'echo in-$HOSTNAME-$RANK' Enter
	tmux_wait '^in-at-worker-1-2$'
	tmux -S "$TMUX_SOCKET" send-keys -t t 'exit' Enter
	tmux_wait 'rc=0$'
	# typed ahead, before runai even starts: the line waits in the
	# terminal's queue and reaches the master's shell (entering raw mode
	# must not flush it)
	tmux -S "$TMUX_SOCKET" send-keys -t t 'clear; runai attach at; echo rc=$?' Enter \
		'echo in-$HOSTNAME-$RANK' Enter
	tmux_wait '^in-at-master-0-0$'
	tmux -S "$TMUX_SOCKET" send-keys -t t 'exit' Enter
	tmux_wait 'rc=0$'
	run -1 --separate-stderr runai attach at --pod at-worker-9 --no-tty --no-stdin
	stderr_has "pod at-worker-9 is not a pod of job at"
	runai delete at >/dev/null
}
