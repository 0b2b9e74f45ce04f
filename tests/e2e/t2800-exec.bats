#!/usr/bin/env bats
# runai exec, bash and attach against the emulator, whose pods run real
# processes (on a PTY when asked) behind the WebSocket channel protocol:
# output and exit codes, stdin that arrives intact, the terminal in tmux
# (raw mode, resize, restored afterwards), pods that are not running,
# submit --attach, and the same exec checks with the real kubectl.
#
# The controller is paused: jobs run when a test ticks it.

load lib/common

NS=runai-team-a

setup_file() {
	kubesim_start --demo
	sim POST /_sim/controller '{"paused": true}' >/dev/null
}

teardown_file() {
	kubesim_stop
}

setup() {
	isolate_env
	use_sim_kubeconfig
	sed -i "s/namespace: .*/namespace: $NS/" "$KUBECONFIG"
	sim DELETE /_sim/faults >/dev/null
	sim POST /_sim/ws '{"protocols": ["v5.channel.k8s.io", "v4.channel.k8s.io", "channel.k8s.io"]}' >/dev/null
	TMUX_SOCKET="$BATS_TEST_TMPDIR/tmux.sock"
}

teardown() {
	if [ -S "${TMUX_SOCKET:-}" ]; then
		tmux -S "$TMUX_SOCKET" kill-server 2>/dev/null || true
	fi
	kube_api -X DELETE "$KUBESIM_URL/apis/run.ai/v1/namespaces/$NS/runaijobs" >/dev/null || true
	kube_api -X DELETE "$KUBESIM_URL/api/v1/namespaces/$NS/configmaps" >/dev/null || true
	kube_api -X DELETE "$KUBESIM_URL/api/v1/namespaces/$NS/pods" >/dev/null || true
}

tick() {
	sim POST /_sim/tick "{\"steps\": ${1:-1}}" >/dev/null
}

# running JOB [SUBMIT-ARGS...]: submits an interactive job and runs it.
running() {
	local job=$1
	shift
	runai submit "$job" -i ubuntu --interactive "$@" >/dev/null
	tick 2
	pod_of "$job" >/dev/null
}

# pod_of JOB: the job's newest pod.
pod_of() {
	kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/pods" |
		jq -re --arg j "$1" '[.items[] | select(.metadata.labels.release == $j
		    or (.metadata.ownerReferences // [] | any(.name == $j)))]
		    | sort_by(.metadata.creationTimestamp) | last | .metadata.name'
}

# --- exec ---------------------------------------------------------------------

@test "exec passes stdout and stderr apart and exits with the remote exit code" {
	running ex1
	run -7 --separate-stderr runai exec ex1 -- sh -c 'echo to-out; echo to-err >&2; echo $TEAM_VAR-$HOSTNAME; exit 7'
	assert_line --index 0 to-out
	assert_line --index 1 --regexp "^-ex1-"
	stderr_is to-err
	run -0 runai exec ex1 -- true
	run -1 runai exec ex1 -- false
	run -0 runai exec ex1 -- sh -c 'exit 0'
	run -42 runai exec ex1 -- sh -c 'exit 42'
}

@test "exec -i carries 1 MiB of random bytes intact, and its end closes the remote stdin" {
	running ex2
	head -c 1048576 /dev/urandom >"$BATS_TEST_TMPDIR/in"
	run -0 bash -c "runai exec -i ex2 -- cat <'$BATS_TEST_TMPDIR/in' >'$BATS_TEST_TMPDIR/out'"
	cmp "$BATS_TEST_TMPDIR/in" "$BATS_TEST_TMPDIR/out"
	run -0 bash -c "runai exec -i ex2 -- sha256sum <'$BATS_TEST_TMPDIR/in'"
	assert_output "$(sha256sum <"$BATS_TEST_TMPDIR/in")"
	# without -i the remote command sees no input at all
	run -0 bash -c "echo ignored | runai exec ex2 -- sh -c 'wc -c </dev/stdin'"
	assert_output 0
}

@test "exec output reaches a pipe as it is written, and a reader that leaves ends it quietly" {
	running ex3
	run -0 --separate-stderr bash -c "runai exec ex3 -- sh -c 'echo first; sleep 30' | head -n 1"
	assert_output first
	[ -z "$stderr" ]
	run -0 --separate-stderr bash -c "set -o pipefail; runai exec ex3 -- seq 1 1000000 | head -n 3"
	assert_output "1
2
3"
	[ -z "$stderr" ]
}

@test "exec offers v5 and v4 and names the container; the request carries the command" {
	running ex4
	mark_requests
	run -0 runai exec ex4 -c ex4 -- echo hi there
	assert_output "hi there"
	assert_request GET "/api/v1/namespaces/$NS/pods/$(pod_of ex4)/exec" \
		'.query == {container: ["ex4"], command: ["echo", "hi", "there"], stdin: ["false"],
		    stdout: ["true"], stderr: ["true"], tty: ["false"]}'
	run -0 runai exec -v=7 ex4 -- true
	assert_output --partial '> Sec-WebSocket-Protocol: v5.channel.k8s.io, v4.channel.k8s.io'
	assert_output --partial '< Sec-WebSocket-Protocol: v5.channel.k8s.io'
	# the bearer token never shows, even in traces
	refute_output --partial "$KUBESIM_TOKEN"
}

@test "exec authenticates with a client certificate too, and refuses a server it cannot verify" {
	running ex8
	sed "s/namespace: .*/namespace: $NS/" "$KUBESIM_DIR/kubeconfig-cert" >"$KUBECONFIG"
	grep -q client-certificate "$KUBECONFIG"
	mark_requests
	run -0 runai exec ex8 -- echo via-cert
	assert_output via-cert
	assert_request GET "/api/v1/namespaces/$NS/pods/$(pod_of ex8)/exec" '.status == 101'
	# the kubeconfig's CA is the only one trusted: without it, no stream
	sed -i '/certificate-authority/d' "$KUBECONFIG"
	run -1 runai exec ex8 -- echo never
	refute_output --partial never
	assert_output --partial "certificate"
}

@test "exec falls back to v4.channel.k8s.io on a server without v5" {
	running ex7
	sim POST /_sim/ws '{"protocols": ["v4.channel.k8s.io", "channel.k8s.io"]}' >/dev/null
	run -7 --separate-stderr runai exec -v=4 ex7 -- sh -c 'echo out; echo err >&2; exit 7'
	assert_output out
	stderr_has "streaming with v4.channel.k8s.io"
	stderr_has err
}

@test "exec fails clearly: no command, unknown job, unknown container, missing executable" {
	running ex5
	run -2 runai exec ex5
	assert_output --partial "no command given"
	run -1 runai exec nosuchjob -- true
	assert_output --partial "The job nosuchjob does not exist in project team-a"
	run -1 runai exec -c nosuch ex5 -- true
	assert_output --partial "container nosuch not found in pod"
	run -1 runai exec ex5 -- no-such-tool
	assert_output 'runai: error: cannot run no-such-tool in pod '"$(pod_of ex5)"': exec: "no-such-tool": executable file not found in $PATH'
	run -1 runai exec --pod nosuchpod ex5 -- true
	assert_output --partial "pod nosuchpod is not a pod of job ex5"
}

@test "exec to a pod that is not running: waits, then the contract's messages" {
	# more GPUs than a node has, preemptible: it may run once nodes grow, so
	# it is waited for (over quota it would be refused at once: t2331)
	runai submit waiting -i ubuntu -g 9 --interactive --preemptible >/dev/null 2>&1
	tick
	run -1 runai exec --pod-running-timeout 1s waiting -- true
	assert_output --partial "Unable to run command in a pod that is not running"
	# a pod that starts while we wait is used
	running later
	runai submit late -i ubuntu --interactive >/dev/null
	mark_requests
	runai exec --pod-running-timeout 60s late -- echo ran >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
	local epid=$! i rc=0
	# two lists of the pods: it has seen this one not running; start it then
	for ((i = 0; i < 300; i++)); do
		requests_since_mark | jq -se '[.[] | select(.path | endswith("/pods"))] | length >= 2' >/dev/null && break
		sleep 0.1
	done
	tick 2
	wait "$epid" || rc=$?
	[ "$rc" -eq 0 ]
	[ "$(cat "$BATS_TEST_TMPDIR/out")" = ran ]
	[ "$(cat "$BATS_TEST_TMPDIR/err")" = "Waiting for pod to start running..." ]
	# an ended pod
	local pod
	pod=$(pod_of late)
	sim POST /_sim/phase "{\"namespace\": \"$NS\", \"pod\": \"$pod\", \"phase\": \"Succeeded\"}" >/dev/null
	run -1 runai exec late -- true
	assert_output --partial "Can't connect to the pod: $pod in phase: Succeeded"
}

@test "exec ends with 128+N when a signal stops it, and says nothing" {
	running ex6
	mark_requests
	runai exec ex6 -- sleep 60 >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
	local pid=$! i
	# the stream is up once the emulator has answered the upgrade
	for ((i = 0; i < 300; i++)); do
		requests_since_mark | jq -se 'any(.[]; .path | endswith("/exec"))' >/dev/null && break
		sleep 0.1
	done
	sleep 0.3
	kill -INT "$pid"
	local rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 130 ]
	[ ! -s "$BATS_TEST_TMPDIR/err" ]
}

# --- bash and the terminal ----------------------------------------------------

# tmux_start COLSxROWS COMMAND: a detached tmux session running COMMAND in bash.
tmux_start() {
	local size=$1
	shift
	tmux -S "$TMUX_SOCKET" -f /dev/null new-session -d -s t -x "${size%x*}" -y "${size#*x}" \
		"env PATH='$PATH' HOME='$HOME' KUBECONFIG='$KUBECONFIG' PS1='local> ' bash --norc --noprofile"
	tmux -S "$TMUX_SOCKET" set-option -t t remain-on-exit on >/dev/null
	tmux -S "$TMUX_SOCKET" send-keys -t t "$*" Enter
}

tmux_screen() {
	tmux -S "$TMUX_SOCKET" capture-pane -p -t t
}

# tmux_wait REGEX: waits until the screen shows a line matching REGEX.
tmux_wait() {
	local i
	for ((i = 0; i < 100; i++)); do
		tmux_screen | grep -qE "$1" && return 0
		sleep 0.1
	done
	echo "screen never showed /$1/:" >&2
	tmux_screen >&2
	return 1
}

@test "bash in tmux runs commands in the pod, follows resizes, and restores the terminal" {
	running sh1
	local pod
	pod=$(pod_of sh1)
	tmux_start 100x30 "stty -a | grep -o ' -\?icanon' >'$BATS_TEST_TMPDIR/before'; runai bash sh1; echo rc=\$?; stty -a | grep -o ' -\?icanon' >'$BATS_TEST_TMPDIR/after'"
	tmux_wait '[#$] ?$'
	tmux -S "$TMUX_SOCKET" send-keys -t t 'echo hello-$((6*7)) $HOSTNAME' Enter
	tmux_wait "^hello-42 $pod"
	tmux -S "$TMUX_SOCKET" send-keys -t t 'stty size' Enter
	tmux_wait '^30 100$'
	tmux -S "$TMUX_SOCKET" resize-window -t t -x 72 -y 20
	sleep 0.3
	tmux -S "$TMUX_SOCKET" send-keys -t t 'stty size' Enter
	tmux_wait '^20 72$'
	tmux -S "$TMUX_SOCKET" send-keys -t t 'exit 3' Enter
	tmux_wait 'rc=3$'
	for ((i = 0; i < 50; i++)); do [ -s "$BATS_TEST_TMPDIR/after" ] && break; sleep 0.1; done
	# the terminal is back in cooked mode
	[ "$(cat "$BATS_TEST_TMPDIR/after")" = "$(cat "$BATS_TEST_TMPDIR/before")" ]
	grep -qx ' icanon' "$BATS_TEST_TMPDIR/after"
}

@test "bash: a session killed by a signal still restores the terminal" {
	running sh2
	tmux_start 80x24 "runai bash sh2; echo rc=\$?; stty -a | grep -o ' -\?icanon' >'$BATS_TEST_TMPDIR/after'"
	tmux_wait '[#$] ?$'
	pkill -TERM -f 'runai bash sh2'
	tmux_wait 'rc=143$'
	for ((i = 0; i < 50; i++)); do [ -s "$BATS_TEST_TMPDIR/after" ] && break; sleep 0.1; done
	grep -qx ' icanon' "$BATS_TEST_TMPDIR/after"
}

@test "bash falls back to /bin/sh in an image without bash; without a terminal it says so" {
	runai submit bb1 -i busybox --interactive >/dev/null
	tick 2
	mark_requests
	run -0 --separate-stderr bash -c "echo 'echo shell=\$0' | runai bash bb1"
	assert_output shell=/bin/sh
	stderr_is "Unable to use a TTY - input is not a terminal"
	[ "$(requests_since_mark | jq -r 'select(.path | endswith("/exec")) | .query.command[0]')" = "/bin/bash
/bin/sh" ]
}

# --- attach and submit --attach -------------------------------------------------

@test "attach reaches the console in tmux; its output is the pod's log" {
	running con1 --tty --stdin
	tmux_start 80x24 "runai attach con1; echo rc=\$?"
	tmux_wait "If you don't see a command prompt, try pressing enter."
	tmux_wait '^Connecting to pod con1-'
	tmux -S "$TMUX_SOCKET" send-keys -t t 'echo attached-$((2+3))' Enter
	tmux_wait '^attached-5'
	# the cluster does not report an attached process's exit code
	tmux -S "$TMUX_SOCKET" send-keys -t t 'exit 5' Enter
	tmux_wait 'rc=0$'
	run -0 runai logs con1
	assert_line --partial attached-5
}

@test "attach without a terminal streams the console's output" {
	running con2 --tty --stdin
	# the console outlives the session: a stop (SIGINT here) ends only ours
	local fifo="$BATS_TEST_TMPDIR/in" out="$BATS_TEST_TMPDIR/out" pid i rc=0
	mkfifo "$fifo"
	env --default-signal=INT runai attach --no-tty con2 <"$fifo" >"$out" 2>&1 &
	pid=$!
	exec 5>"$fifo"
	printf 'echo piped-$((4*4))\n' >&5
	for ((i = 0; i < 300; i++)); do grep -q '^piped-16' "$out" && break; sleep 0.1; done
	kill -INT "$pid"
	wait "$pid" || rc=$?
	exec 5>&-
	[ "$rc" -eq 130 ]
	grep -q '^piped-16' "$out"
	run -0 runai exec con2 -- true
}

@test "submit --attach waits for the pod and attaches" {
	tmux_start 80x24 "runai submit att1 -i ubuntu --interactive --attach; echo rc=\$?"
	tmux_wait 'Waiting for pod to start running'
	tick 2
	tmux_wait "If you don't see a command prompt, try pressing enter."
	tmux -S "$TMUX_SOCKET" send-keys -t t 'echo in-$((1+1))' Enter
	tmux_wait '^in-2'
	tmux -S "$TMUX_SOCKET" send-keys -t t 'exit' Enter
	tmux_wait 'rc=0$'
	run -0 get_obj "/apis/run.ai/v1/namespaces/$NS/runaijobs/att1"
	run -0 jq -r '.spec.template.spec.containers[0] | "\(.stdin) \(.tty)"' <<<"$output"
	assert_output "true true"
}

# --- the same exec checks with the real kubectl ------------------------------------

@test "kubectl exec against the emulator agrees: exit 7 and 1 MiB of stdin intact" {
	have_kubectl_132 || skip "kubectl 1.32 not installed at $KUBECTL_132"
	running kx1
	local pod
	pod=$(pod_of kx1)
	run -7 "$KUBECTL_132" exec "$pod" -- sh -c 'exit 7'
	head -c 1048576 /dev/urandom >"$BATS_TEST_TMPDIR/in"
	run -0 bash -c "'$KUBECTL_132' exec -i '$pod' -- sha256sum <'$BATS_TEST_TMPDIR/in'"
	assert_output "$(sha256sum <"$BATS_TEST_TMPDIR/in")"
	# ours, on the same pod
	run -0 bash -c "runai exec -i kx1 -- sha256sum <'$BATS_TEST_TMPDIR/in'"
	assert_output "$(sha256sum <"$BATS_TEST_TMPDIR/in")"
}
