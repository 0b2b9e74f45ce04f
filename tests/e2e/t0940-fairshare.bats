#!/usr/bin/env bats
# Run:ai fair share in the emulator, driven through runai: two teams
# borrow the idle GPUs over quota, a third asks for its deserved GPUs and
# gets them back by preemption within a few controller steps, and
# `runai list projects -o wide` / `runai list -A` show each step.

load lib/common

setup_file() {
	kubesim_start --demo
	# the test steps the controller itself, so "within N ticks" means it
	sim POST /_sim/controller '{"paused": true}' >/dev/null
}

teardown_file() {
	kubesim_stop
}

setup() {
	isolate_env
	use_sim_kubeconfig
}

tick() {
	sim POST /_sim/tick "{\"steps\": ${1:-1}}" >/dev/null
}

# submit PROJECT NAME... : one 1-GPU training job each.
submit() {
	local project=$1 name
	shift
	for name in "$@"; do
		runai submit "$name" -p "$project" -i ubuntu -g 1 >/dev/null
	done
}

# usage: "project allocated queued" for every project with a quota.
usage() {
	runai list projects -o wide | awk 'NR > 1 { print $1, $4, $5 }'
}

# status NAME: the STATUS column of `runai list -A` for job NAME.
status() {
	runai list -A | awk -v n="$1" '$1 == n { print $2 }'
}

@test "the default table keeps the reference's columns; -o wide adds ALLOCATED and QUEUED" {
	run -0 runai list projects
	assert_line --index 0 --regexp '^PROJECT +DEPARTMENT +DESERVED GPUs +INT LIMIT +INT AFFINITY +TRAIN AFFINITY$'
	assert_line --regexp '^team-a +default +4 +- +- +-$'
	run -0 runai list projects -o wide
	assert_line --index 0 --regexp '^PROJECT +DEPARTMENT +DESERVED GPUs +ALLOCATED GPUs +QUEUED GPUs +INT LIMIT +INT AFFINITY +TRAIN AFFINITY$'
	assert_line --regexp '^team-d +default +8 +0 +0 +- +- +-$'
}

@test "two teams borrow every idle GPU over quota; the first come keeps what it took" {
	submit team-a a1 a2 a3 a4 a5 a6 a7 a8 a9 a10
	submit team-b b1 b2 b3 b4 b5 b6 b7
	tick 3
	run -0 usage
	assert_output "team-a 10 0
team-b 6 1
team-c 0 0
team-d 0 0"
	[ "$(status a10)" = Running ]
	[ "$(status b6)" = Running ]
	# b7 waits: team-b (6) is over its fair share (16 - 10 = 6) already
	[[ "$(status b7)" =~ ^(Pending|Unschedulable)$ ]]
}

@test "a team under quota asks: the others are preempted toward their fair share" {
	submit team-d d1 d2 d3 d4 d5 d6 d7 d8
	tick 3
	# fair shares: team-d 8 (its quota), team-a 4 + 2*4/6, team-b 2 + 2*2/6
	run -0 usage
	assert_output "team-a 5 5
team-b 3 4
team-c 0 0
team-d 8 0"
	run -0 runai list -A
	for d in d1 d2 d3 d4 d5 d6 d7 d8; do
		assert_line --regexp "^$d +Running .* team-d "
	done
	# the 8 preempted jobs are back to Pending, with the reason on the
	# workload; b7, never placed, is still Unschedulable
	run -0 runai list -A
	[ "$(grep -cE '^[ab][0-9]+ +Pending ' <<<"$output")" -eq 8 ] || { echo "$output"; false; }
	assert_line --regexp '^b7 +Unschedulable '
	run -0 get_obj "/api/v1/namespaces/runai-team-a/events"
	run -0 jq -r '[.items[] | select(.reason == "Preempted" and .involvedObject.kind == "RunaiJob")
	    | .message][0]' <<<"$output"
	assert_output --regexp '^Preempted by project team-d to reclaim its fair share of GPUs for d[0-9]: project team-a had [0-9]+ GPUs allocated, over its fair share of 5\.3333 \(deserved 4\)$'
	# and it stays so: nobody under its share has room to ask
	tick 5
	run -0 usage
	assert_output "team-a 5 5
team-b 3 4
team-c 0 0
team-d 8 0"
}

@test "interactive work reclaims GPUs within its quota; beyond it, it waits over quota" {
	runai submit int1 -p team-c -i ubuntu -g 2 --interactive >/dev/null
	tick 3
	[ "$(status int1)" = Running ]
	run -0 usage
	assert_line "team-c 2 0"
	assert_line "team-d 8 0"
	# its quota is full: one more interactive GPU waits, over quota
	runai submit int2 -p team-c -i ubuntu -g 1 --interactive >/dev/null
	tick 2
	[ "$(status int2)" = Unschedulable ]
	run -0 runai describe job int2 -p team-c
	assert_output --partial "over quota"
	# team-d, at its share, may not take team-c's GPUs back
	submit team-d d9
	tick 2
	[ "$(status int1)" = Running ]
}

@test "deleting the borrowers gives the GPUs to whoever waits, by fair share" {
	runai delete -p team-d d1 d2 d3 d4 d5 d6 d7 d8 d9 >/dev/null
	runai delete -p team-c int2 >/dev/null
	tick 3
	# 8 GPUs free; team-a (6 waiting) and team-b (5 waiting) split them
	# 4:2 over their quotas: fair shares 9.33 and 4.67
	run -0 usage
	assert_output "team-a 9 1
team-b 5 2
team-c 2 0
team-d 0 0"
}
