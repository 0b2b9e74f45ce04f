#!/usr/bin/env bats
# Streams in backend (control-plane) mode: exec, bash, attach,
# port-forward, submit --attach and submit -s portforward find the job's
# pod and namespace through the control plane, then talk to the
# cluster's Kubernetes API as Kubernetes mode does (with the control
# plane's token where the context's user has no credentials). The stream path does not differ by release, so one profile
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
	BG_PID=
}

free_port() {
	"$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# web_cmd JOB PORT: a pod command serving "hello from JOB" on PORT.
web_cmd() {
	echo "echo hello from $1 >index.txt && exec python3 -m http.server $2 --bind 127.0.0.1"
}

# fetch_local PORT FILE: GET index.txt from 127.0.0.1:PORT into FILE,
# retrying while the forwarder and the pod's server start (20 s).
fetch_local() {
	local _
	for _ in $(seq 1 $((100 * TIME_SCALE))); do
		curl -sf -m 5 "http://127.0.0.1:$1/index.txt" >"$2" && return 0
		sleep 0.2
	done
	return 1
}

teardown() {
	[ -z "${BG_PID:-}" ] || kill "$BG_PID" 2>/dev/null || true
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

@test "port-forward reaches the job's pod through the cluster" {
	local port
	port=$(free_port)
	runai submit pf1 -i python -- sh -c "$(web_cmd pf1 "$port")" >/dev/null
	cp_wait_status pf1 Running
	runai port-forward pf1 --port ":$port" >"$BATS_TEST_TMPDIR/pf.out" 2>&1 3>&- &
	BG_PID=$!
	local _ lport=
	for _ in $(seq 1 $((100 * TIME_SCALE))); do
		lport=$(sed -n 's/^Forwarding from [^ ]*:\([0-9]*\) -> .*/\1/p' "$BATS_TEST_TMPDIR/pf.out")
		[ -n "$lport" ] && break
		sleep 0.1
	done
	[ -n "$lport" ] || { cat "$BATS_TEST_TMPDIR/pf.out" >&2; return 1; }
	fetch_local "$lport" "$BATS_TEST_TMPDIR/got"
	assert_equal "$(cat "$BATS_TEST_TMPDIR/got")" "hello from pf1"
	kill -INT "$BG_PID"
	wait "$BG_PID"
	BG_PID=
	run -1 runai port-forward nosuch --port 8080
	assert_output "runai: error: The job nosuch does not exist in project team-a. If the job exists in a different project, use -p <project name>."
}

@test "submit --interactive -s portforward: the control plane makes the job, then its port is forwarded" {
	local lport remote
	lport=$(free_port)
	remote=$(free_port)
	runai submit pf2 -i python --interactive -s portforward --port "$lport:$remote" -- \
		sh -c "$(web_cmd pf2 "$remote")" >"$BATS_TEST_TMPDIR/out" 2>&1 3>&- &
	BG_PID=$!
	fetch_local "$lport" "$BATS_TEST_TMPDIR/got"
	assert_equal "$(cat "$BATS_TEST_TMPDIR/got")" "hello from pf2"
	run cat "$BATS_TEST_TMPDIR/out"
	assert_line "The job 'pf2' has been submitted successfully"
	assert_line "Forwarding from 127.0.0.1:$lport -> $remote"
	kill -INT "$BG_PID"
	wait "$BG_PID"
	BG_PID=
	# the port as the control plane was asked for it
	run -0 runai describe job pf2 -o json
	assert_equal "$(jq -c '.submitted.spec.ports' <<<"$output")" \
		"[{\"container\":$remote,\"serviceType\":\"ClusterIP\",\"external\":$lport}]"
}

@test "a context without credentials of its own: the cluster takes the control plane's token" {
	runai submit tk1 -i ubuntu -- sleep 300 >/dev/null
	cp_wait_status tk1 Running
	run -0 yq -r '.users[0].user | keys | join(",")' "$KUBECONFIG"
	assert_output token
	yq -yi 'del(.users[0].user.token)' "$KUBECONFIG"
	mark_requests
	run -0 runai exec tk1 -- echo via-the-control-plane
	assert_output via-the-control-plane
	# the API server saw the control plane's user, with its token
	requests_since_mark >"$BATS_TEST_TMPDIR/requests"
	run -0 jq -r 'select(.path | endswith("/exec")) | .user' "$BATS_TEST_TMPDIR/requests"
	assert_output "$CP_USER"
	# logged out, the control plane says so before anything is sent
	runai logout >/dev/null
	run -1 runai exec tk1 -- true
	assert_output "runai: error: not logged in to the control plane $CP_URL; run 'runai login'"
}

@test "the judge saw no schema violation in the streams' requests" {
	run -0 cat "$CP_VIOLATIONS"
	assert_output ""
	assert [ "$(cp_status_of POST '^/api/v1/workloads/workspaces$' | wc -l)" -ge 4 ]
}
