#!/usr/bin/env bats
# A machine whose kernel refuses bwrap's namespaces (here: bwrap named by
# KUBE_SIM_BWRAP does not exist): kube-sim says so once at start and runs
# no pod process, so exec is refused (t0933: --unsandboxed runs them on
# the host instead).

load lib/common

NS=runai-team-a

setup_file() {
	KUBE_SIM_BWRAP=/nonexistent/bwrap kubesim_start --demo --tick 0.2
}

teardown_file() {
	kubesim_stop
}

setup() {
	sim_test_setup "$NS"
}

@test "without namespaces: one line at start, and exec into a pod is refused" {
	run -0 grep -c 'pods are not sandboxed' "$KUBESIM_DIR/server.log"
	assert_output 1
	grep -q 'bwrap (Debian package bubblewrap) is not installed' "$KUBESIM_DIR/server.log"
	run -0 sim GET /_sim/sandbox
	[ "$(jq -r .mode <<<"$output")" = refuse ]
	runai submit box1 -i ubuntu -- sleep infinity >/dev/null
	pod_running box1
	run -1 --separate-stderr runai exec box1 -- hostname
	[ -z "$output" ]
	stderr_has "pods are not sandboxed on this machine"
	stderr_has "--unsandboxed"
	# the job itself stays simulated: Running, nothing started on the host
	pod_running box1
	run -1 pgrep -f 'sleep infinity.*box1|^sleep infinity$' -P "$KUBESIM_PID"
}
