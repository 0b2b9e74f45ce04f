#!/usr/bin/env bats
# runai describe job against the emulator: the key/value view, pods and
# events of a job written as the reference CLI writes it; -o json|yaml
# with and without pods; not-found, invalid messages.

load lib/common

setup_file() {
	kubesim_start --demo
	sim POST /_sim/controller '{"paused": true}' >/dev/null
	sim POST /_sim/seed "$(cat "$BATS_TEST_DIRNAME/../fixtures/jobs/e2e-seed.json")" >/dev/null
	sim POST /_sim/tick '{"steps": 3}' >/dev/null
}

teardown_file() {
	kubesim_stop
}

setup() {
	isolate_env
	use_sim_kubeconfig
	sed -i "s/namespace: .*/namespace: runai-team-a/" "$KUBECONFIG"
}

@test "describe job prints the reference keys in order, pods and events" {
	run -0 --separate-stderr runai describe job ref-train
	[ -z "$stderr" ]
	run -0 bash -c "sed -n '1,19p' <<<\"\$0\" | cut -d: -f1" "$output"
	assert_output "NAME
NAMESPACE
TYPE
STATUS
TRAINING DURATION
GPUS
TOTAL REQUESTED GPUS
ALLOCATED GPUS
ALLOCATED GPUS MEMORY
RUNNING PODS
PENDING PODS
PARALLELISM
COMPLETIONS
SUCCEEDED PODS
FAILED PODS
IS DISTRIBUTED WORKLOAD
CREATED BY CLI
SERVICE URL(S)
COMMAND LINE"
	run -0 runai describe job ref-train
	assert_line 'NAME: ref-train'
	assert_line 'STATUS: Running'
	assert_line 'GPUS: 1'
	assert_line 'CREATED BY CLI: true'
	assert_line 'COMMAND LINE: runai submit ref-train -i busybox -g 1'
	assert_line 'Pods:'
	assert_line --regexp '^POD +STATUS +TYPE +AGE +NODE$'
	assert_line --regexp '^ref-train-[a-z0-9]+ +RUNNING +TRAIN +[0-9]+[sm] +node-1/'
	assert_line --regexp '^SOURCE +TYPE +AGE +MESSAGE$'
	assert_line --regexp '^-------- +---- +--- +-------$'
	assert_line --regexp '^runaijob/ref-train +Normal +[0-9]+[sm] +\[SuccessfulCreate\] Created pod: ref-train-'
}

@test "describe job without pods: no events, and -o json does not crash" {
	# Seeded while the controller is paused: no pods, no events yet.
	sim POST /_sim/seed '{"apiVersion":"run.ai/v1","kind":"RunaiJob","metadata":{"name":"fresh","namespace":"runai-team-a"},"spec":{"template":{"spec":{"schedulerName":"runai-scheduler","containers":[{"name":"fresh","image":"img:fresh"}]}}}}' >/dev/null
	run -0 runai describe job fresh
	assert_line 'STATUS: Unknown'
	assert_line 'No events for resources'
	run -0 runai describe job fresh -o json
	run -0 jq -c . <<<"$output"
	assert_output '{"name":"fresh","namespace":"runai-team-a","duration":"","status":"Unknown","trainer":"Train","chiefName":"","instances":[],"priority":"N/A","commandLine":""}'
	run -0 runai describe job susp
	assert_line 'STATUS: Suspended'
}

@test "describe job -o yaml names the chief pod" {
	run -0 runai describe job ref-train -o yaml
	assert_line 'name: ref-train'
	assert_line --regexp '^chiefName: ref-train-[a-z0-9]+$'
	assert_line --regexp '^  chief: true$'
}

@test "describe job of a missing job says where to look" {
	run -1 --separate-stderr runai describe job nope
	[ "$stderr" = "runai: error: The job nope does not exist in project team-a. If the job exists in a different project, use -p <project name>." ]
	run -0 runai describe job other -p team-b -o name
	assert_output job/other
}

@test "describe job of an orphan name reservation says it is invalid" {
	run -1 --separate-stderr runai describe job orphan
	[ "$stderr" = "runai: error: The job orphan is invalid. Please delete it" ]
}

@test "describe node prints a block and the GPUs of each node" {
	run -0 --separate-stderr runai describe node node-1
	[ -z "$stderr" ]
	assert_line 'NAME: node-1'
	assert_line 'STATUS: Ready'
	assert_line 'TOTAL GPUS: 8'
	assert_line 'NODE GPUs INFO:'
	assert_line --regexp '^GPU +ALLOCATED$'
	assert_line --regexp '^7 +[0-9.]+$'
	refute_line 'NAME: node-2'
	run -0 runai describe node
	assert_line 'NAME: node-2'
}

@test "describe node with unknown names lists the nodes there are" {
	run -1 --separate-stderr runai describe node x node-1 y
	[ "$stderr" = "runai: error: No match found for node(s) '[x y]'
hint: available nodes: node-1, node-2" ]
}

@test "COMMAND LINE keeps the quoting a shell needs; a too long name says so" {
	run -0 runai submit quoted1 -i busybox -- sh -c "echo 'boom'; exit 3"
	run -0 runai describe job quoted1
	assert_line "COMMAND LINE: runai submit quoted1 -i busybox -- sh -c 'echo '\\''boom'\\''; exit 3'"
	# read back by a shell, it is the command typed
	local line
	line=$(grep '^COMMAND LINE: ' <<<"$output")
	run -0 bash -c "set -- ${line#COMMAND LINE: runai submit quoted1 -i busybox -- }; printf '%s|' \"\$@\""
	assert_output "sh|-c|echo 'boom'; exit 3|"
	runai delete quoted1 >/dev/null
	run -2 --separate-stderr runai submit "$(printf 'a%.0s' {1..65})" -i busybox
	assert_equal "$stderr" "runai: error: Job name '$(printf 'a%.0s' {1..65})' is 65 characters long; a job name has at most 63"
}
