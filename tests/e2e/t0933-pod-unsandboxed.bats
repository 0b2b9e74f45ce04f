#!/usr/bin/env bats
# kube-sim --unsandboxed on a machine that cannot sandbox (bwrap named by
# KUBE_SIM_BWRAP does not exist): it says once that pod processes run on
# the host, unisolated, and runs them there.

load lib/common

NS=runai-team-a

setup_file() {
	KUBE_SIM_BWRAP=/nonexistent/bwrap kubesim_start --demo --tick 0.2 --unsandboxed
}

teardown_file() {
	kubesim_stop
}

setup() {
	sim_test_setup "$NS"
}

@test "--unsandboxed runs pod processes on the host, and says so once" {
	run -0 grep -c 'unsandboxed: pod processes run on this host' "$KUBESIM_DIR/server.log"
	assert_output 1
	run -0 sim GET /_sim/sandbox
	[ "$(jq -r .mode <<<"$output")" = host ]
	runai submit box2 -i ubuntu -- sleep infinity >/dev/null
	pod_running box2
	run -0 runai exec box2 -- hostname
	assert_output "$(hostname)"
	run -0 runai exec box2 -- pwd
	assert_output --partial "$KUBESIM_DIR/pods/$NS/"
}
