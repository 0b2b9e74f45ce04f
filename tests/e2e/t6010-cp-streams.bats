#!/usr/bin/env bats
# Streams in backend (control-plane) mode: exec, bash, attach and
# submit --attach find the job's pod and namespace through the control
# plane, then talk to the cluster's Kubernetes API as Kubernetes mode
# does. The stream path does not differ by release, so one profile
# (2.24) runs here; its requests are judged as in t6000.

load lib/common
load lib/cp

CP_VERSION=2.24

setup_file() {
	cp_start
}

teardown_file() {
	kubesim_stop
}

setup() {
	cp_setup
	cp_login
	runai config project team-a >/dev/null
	TMUX_SOCKET="$BATS_TEST_TMPDIR/tmux.sock"
}

teardown() {
	if [ -S "${TMUX_SOCKET:-}" ]; then
		tmux -S "$TMUX_SOCKET" kill-server 2>/dev/null || true
	fi
}

# tmux_start COLSxROWS COMMAND: a detached tmux session running COMMAND.
tmux_start() {
	local size=$1
	shift
	tmux -S "$TMUX_SOCKET" -f /dev/null new-session -d -s t -x "${size%x*}" -y "${size#*x}" \
		"env PATH='$PATH' HOME='$HOME' KUBECONFIG='$KUBECONFIG' PS1='local> ' bash --norc --noprofile"
	tmux -S "$TMUX_SOCKET" set-option -t t remain-on-exit on >/dev/null
	tmux -S "$TMUX_SOCKET" send-keys -t t "$*" Enter
}

# tmux_wait REGEX: until the screen shows a line matching REGEX (10 s).
tmux_wait() {
	local i
	for ((i = 0; i < 100; i++)); do
		tmux -S "$TMUX_SOCKET" capture-pane -p -t t | grep -qE "$1" && return 0
		sleep 0.1
	done
	echo "screen never showed /$1/:" >&2
	tmux -S "$TMUX_SOCKET" capture-pane -p -t t >&2
	return 1
}

@test "exec runs in the job's pod and gives back its exit code and stdin" {
	runai submit ex1 -i ubuntu -- sleep 300 >/dev/null
	cp_wait_status ex1 Running
	run -3 runai exec ex1 -- sh -c 'echo in-pod; exit 3'
	assert_output in-pod
	run -0 bash -c "printf 'piped\n' | runai exec -i ex1 -- cat"
	assert_output piped
	run -1 runai exec nosuch -- true
	# the pod is looked up in the cluster: Kubernetes mode's words
	assert_output "runai: error: The job nosuch does not exist in project team-a. If the job exists in a different project, use -p <project name>."
}

@test "bash without a terminal falls back to /bin/sh and says there is no TTY" {
	runai submit bb1 -i busybox --interactive >/dev/null
	cp_wait_status bb1 Running
	run -0 --separate-stderr bash -c "echo 'echo shell=\$0' | runai bash bb1"
	assert_output shell=/bin/sh
	assert_equal "$stderr" "Unable to use a TTY - input is not a terminal"
}

@test "bash in tmux: a shell in the pod" {
	runai submit sh1 -i ubuntu --interactive -- sleep 300 >/dev/null
	cp_wait_status sh1 Running
	tmux_start 100x30 "runai bash sh1; echo rc=\$?"
	tmux_wait '^root@sh1-'
	tmux -S "$TMUX_SOCKET" send-keys -t t 'echo bashed-$((3+4))' Enter
	tmux_wait '^bashed-7'
	tmux -S "$TMUX_SOCKET" send-keys -t t 'exit 4' Enter
	tmux_wait 'rc=4$'
}

@test "attach without a terminal streams the console" {
	runai submit con1 -i ubuntu --interactive --tty --stdin >/dev/null
	cp_wait_status con1 Running
	local fifo="$BATS_TEST_TMPDIR/in" out="$BATS_TEST_TMPDIR/out" pid i rc=0
	mkfifo "$fifo"
	env --default-signal=INT runai attach --no-tty con1 <"$fifo" >"$out" 2>&1 &
	pid=$!
	exec 5>"$fifo"
	printf 'echo piped-$((4*4))\n' >&5
	for ((i = 0; i < 300; i++)); do grep -q '^piped-16' "$out" && break; sleep 0.1; done
	kill -INT "$pid"
	wait "$pid" || rc=$?
	exec 5>&-
	assert_equal "$rc" 130
	run -0 grep '^piped-16' "$out"
}

@test "submit --attach: the control plane makes the job, the console is the pod's" {
	tmux_start 80x24 "runai submit att1 -i ubuntu --interactive --attach; echo rc=\$?"
	tmux_wait "^The job 'att1' has been submitted successfully"
	tmux_wait "If you don't see a command prompt, try pressing enter."
	tmux -S "$TMUX_SOCKET" send-keys -t t 'echo in-$((1+1))' Enter
	tmux_wait '^in-2'
	tmux -S "$TMUX_SOCKET" send-keys -t t 'exit' Enter
	tmux_wait 'rc=0$'
	# the console was asked for in the request, and the cluster has it
	run -0 kube_api "$KUBESIM_URL/apis/run.ai/v1/namespaces/runai-team-a/runaijobs/att1"
	run -0 jq -r '.spec.template.spec.containers[0] | "\(.stdin) \(.tty)"' <<<"$output"
	assert_output "true true"
	run -0 runai list jobs -o name
	assert_line job/att1
}

# no_kube COMMAND...: COMMAND with no kubeconfig at all, backend mode from
# the environment (the login is kept per control plane, not per context)
no_kube() {
	KUBECONFIG="$BATS_TEST_TMPDIR/no-kubeconfig" RUNAI_CONTROL_PLANE_URL="$CP_URL" "$@"
}

@test "logs with no kubeconfig: a training's log through the cluster's own endpoint" {
	runai submit lg1 -i busybox -- sh -c 'echo first-line; echo "second line"; sleep 300' >/dev/null
	cp_wait_status lg1 Running
	local i
	for ((i = 0; i < 100; i++)); do
		runai logs lg1 | grep -q 'second line' && break
		sleep 0.1
	done
	run -0 --separate-stderr no_kube runai logs lg1 -p team-a
	assert_output $'first-line\nsecond line'
	assert_equal "$stderr" ""
	# the status check, then the WebSocket, each with the bearer token
	run -0 cp_status_of GET '^/cluster-api/status$'
	assert_line 200
	run -0 cp_status_of GET '^/cluster-api/api/v1/team-a/workloads/training/runai/lg1/logs$'
	assert_output 101
	# -v says which way the log came
	run -0 --separate-stderr no_kube runai -v=1 logs lg1 -p team-a
	[[ "$stderr" == *"the log comes through the cluster's own endpoint"* ]]
	# the endpoint takes no options: each is refused, with what would give them
	run -2 --separate-stderr no_kube runai logs lg1 -p team-a -f
	assert_equal "$stderr" "runai: error: without a kubeconfig for the cluster, logs come through the cluster's own endpoint, which takes no options: not -f, --tail, --since, --since-time, --timestamps, --pod, -c or --all-pods
hint: a kubeconfig context that reaches the cluster's API server gives them all"
	run -2 no_kube runai logs lg1 -p team-a --tail 1
	# a job that is not there: the control plane's answer, in the usual words
	run -1 --separate-stderr no_kube runai logs nosuch -p team-a
	[[ "$stderr" == *"nosuch does not exist in project team-a"* ]]
}

@test "logs with no kubeconfig: a workspace's log is refused with what the cluster needs" {
	runai submit ws1 -i busybox --interactive -- sleep 300 >/dev/null
	cp_wait_status ws1 Running
	run -1 --separate-stderr no_kube runai logs ws1 -p team-a
	assert_equal "${stderr_lines[0]}" "runai: error: without a kubeconfig for the cluster only a training's log can be read (through the cluster's own endpoint); ws1 is a Workspace"
	# exec has no such way: the error names what the cluster needs
	run -1 --separate-stderr no_kube runai exec ws1 -p team-a -- true
	[[ "$stderr" == *"goes through the cluster's Kubernetes API"* ]]
}

@test "the judge saw no schema violation in the streams' requests" {
	run -0 cat "$CP_VIOLATIONS"
	assert_output ""
	assert [ "$(cp_status_of POST '^/api/v1/workloads/workspaces$' | wc -l)" -ge 4 ]
}
