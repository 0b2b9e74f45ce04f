#!/usr/bin/env bats
# Why a job waits or stopped, in the researcher's words and with the
# cluster's numbers: the REASON column of "runai list -o wide", the reason
# and queue place in -o json, and describe's "Why pending:" / "Why it
# stopped:" section, in Kubernetes mode and in control-plane mode alike.
#
# The emulator's fair-share story drives it (the controller paused, each
# step ticked): the jobs are submitted through the control plane, so both
# modes see the same workloads - Kubernetes mode as RunaiJobs and pods
# with the scheduler's conditions and events, control-plane mode as
# workloads with their phase message and conditions - and each test asks
# both the same question. Demo cluster: node-1 and node-2, 8 GPUs each;
# team-a deserves 4, team-b 2, team-c 2, team-d 8.

load lib/common
load lib/cp

CP_VERSION=2.24

setup_file() {
	cp_two_modes_file_setup
}

teardown_file() {
	kubesim_stop
}

setup() {
	cp_two_modes_setup
}

# submit ARGS...: through the control plane, then two controller steps.
submit() {
	c submit "$@" >/dev/null
	tick 2
}

# why MODE PROJECT: "NAME|REASON|PLACE" of each job, from list -o json
# (PLACE "N of M", or "-" for a job in no queue).
why() {
	"$1" list -p "$2" -o json | jq -r '.items[] | "\(.name)|\(.reason)|" +
		(if .queue then "\(.queue.position) of \(.queue.length)" else "-" end)'
}

# both PROJECT LINE...: each mode's why of PROJECT has every LINE.
both() {
	local project=$1 mode line
	shift
	for mode in k c; do
		run -0 why "$mode" "$project"
		for line in "$@"; do
			assert_line "$line"
		done
	done
}

# wide MODE PROJECT JOB: the job's row of list -o wide.
wide() {
	"$1" list -p "$2" -o wide | awk -v n="$3" '$1 == n'
}

@test "a non-preemptible job over its project's quota says by how much" {
	submit c-ws1 -p team-c -i ubuntu -g 2 --interactive
	submit c-ws2 -p team-c -i ubuntu -g 3 --interactive
	both team-c 'c-ws1||-' 'c-ws2|over quota by 3 GPUs|1 of 1'
	[[ "$(wide k team-c c-ws2)" =~ ^c-ws2\ +Unschedulable\ .*\ over\ quota\ by\ 3\ GPUs$ ]]
	[[ "$(wide c team-c c-ws2)" =~ ^c-ws2\ +Pending\ .*\ over\ quota\ by\ 3\ GPUs$ ]]
	[[ "$(wide k team-c c-ws1)" =~ \ -$ ]]
	local mode
	for mode in k c; do
		run -0 "$mode" describe job c-ws2 -p team-c
		assert_line 'Why pending: over quota by 3 GPUs'
		assert_line '  Non-preemptible work must fit in its project'"'"'s quota: team-c deserves 2 GPUs, its non-preemptible jobs hold 2 and this one asks 3 more, 3 over.'
		assert_line '  Scheduler: Non-preemptible workload is over quota: project team-c has 2 deserved GPUs, 2 allocated, and the workload requests 3 more'
		assert_line '  Place 1 of 1 among the waiting jobs of project team-c (higher priority first, then the older).'
		run -0 "$mode" describe job c-ws2 -p team-c -o json
		run -0 jq -c '.why | [.title, .reason, .kind, .queue]' <<<"$output"
		assert_output '["Why pending","over quota by 3 GPUs","over-quota",{"position":1,"length":1}]'
		# a running job has nothing to explain
		run -0 "$mode" describe job c-ws1 -p team-c
		refute_line --partial 'Why '
	done
	# the emulator says so as Run:ai's scheduler does: on the pod's
	# condition, in a Warning event on the pod, a Normal one on the workload
	run -0 get_obj "/api/v1/namespaces/runai-team-c/events"
	run -0 jq -r '.items[] | select(.reason == "Unschedulable") |
	    "\(.involvedObject.kind) \(.type)"' <<<"$output"
	assert_line 'Pod Warning'
	assert_line 'RunaiJob Normal'
}

@test "a gang with room for only some of its pods waits for the rest" {
	# node-1: c-ws1 2 + a-run1 3 (a-tmp 3 for now); node-2: b-run2 1 + b-run1 4
	submit a-run1 -p team-a -i ubuntu -g 3
	submit a-tmp -p team-a -i ubuntu -g 3
	submit b-run2 -p team-b -i ubuntu -g 1
	# a second later: b-run1 is the newer, the one preempted first below
	sleep 1
	submit b-run1 -p team-b -i ubuntu -g 4
	c delete -p team-a a-tmp >/dev/null
	tick 3
	# 3 free GPUs on each node; 3 pods of 2 GPUs: room for 2 of them
	c submit-dist pytorch d-gang -p team-d -i ubuntu -g 2 --workers 2 >/dev/null
	tick 2
	both team-d 'd-gang|waiting for 1 of 3 pods|1 of 1'
	[[ "$(wide k team-d d-gang)" =~ \ waiting\ for\ 1\ of\ 3\ pods$ ]]
	local mode
	for mode in k c; do
		run -0 "$mode" describe job d-gang -p team-d
		assert_line 'Why pending: waiting for 1 of 3 pods'
		assert_line '  Its 3 pods must start together, and the nodes have room for 2 of them now.'
		assert_line '  Scheduler: Gang of 3 pods: room for 2 now, and all must start together. 0/2 nodes are available: 2 Insufficient nvidia.com/gpu. Most free GPUs on one node: 3 (node-1); a pod requests 2.'
	done
	c delete -p team-d d-gang >/dev/null
	tick 3
}

@test "a pod bigger than any node's free GPUs: which resource, the largest free block" {
	submit d-big -p team-d -i ubuntu -g 4
	both team-d 'd-big|no node has 4 free GPUs (largest free: 3)|1 of 1'
	local mode
	for mode in k c; do
		run -0 "$mode" describe job d-big -p team-d
		assert_line 'Why pending: no node has 4 free GPUs (largest free: 3)'
		assert_line '  A pod asks for 4 GPUs, and no node has that many free now: the most free on one node is 3.'
	done
}

@test "preempted by the reclaiming project at a time; over fair share; the queue behind" {
	local j
	for j in a-wait1 a-wait2 a-wait3; do
		c submit "$j" -p team-a -i ubuntu -g 4 >/dev/null
		sleep 1	# one second apart: the queue goes by age
	done
	tick 3
	# team-d, under its share, took b-run1's GPUs back for d-big
	local at
	at=$(get_obj /api/v1/namespaces/runai-team-b/events | jq -r '[.items[] |
	    select(.reason == "Preempted" and .involvedObject.kind == "RunaiJob" and
	    .involvedObject.name == "b-run1") | .lastTimestamp] | last')
	[ "$at" != null ]
	at=$(date -u -d "$at" +%H:%M)
	both team-d 'd-big||-'
	both team-b "b-run1|preempted by team-d at $at|1 of 1" 'b-run2||-'
	# team-a (3 GPUs, fair share 4 + 4 x 4/6) would go over it by a third of
	# a GPU with a-wait1; the two behind it wait their turn
	both team-a 'a-run1||-' 'a-wait1|over fair share by 0.33 GPUs|1 of 3' \
		'a-wait2|queued 2 of 3 in team-a|2 of 3' 'a-wait3|queued 3 of 3 in team-a|3 of 3'
	[[ "$(wide k team-a a-wait2)" =~ \ queued\ 2\ of\ 3\ in\ team-a$ ]]
	[[ "$(wide c team-a a-wait2)" =~ \ queued\ 2\ of\ 3\ in\ team-a$ ]]
	local mode
	for mode in k c; do
		run -0 "$mode" describe job b-run1 -p team-b
		assert_line "Why pending: preempted by team-d at $at"
		assert_line --regexp "^  Preempted at $at:[0-9]{2} by project team-d: its GPUs were taken back"
		assert_line --regexp '^  Scheduler: Preempted by project team-d to reclaim its fair share of GPUs for d-big: project team-b had 5 GPUs allocated'
		run -0 "$mode" describe job a-wait1 -p team-a
		assert_line 'Why pending: over fair share by 0.33 GPUs'
		assert_line '  Project team-a holds 3 GPUs; with this job'"'"'s 4 it would be 0.33 over its fair share of 6.67 (deserved 4), so no running work is preempted for it. It runs when GPUs are free.'
		run -0 "$mode" describe job a-wait2 -p team-a
		assert_line 'Why pending: queued 2 of 3 in team-a'
		assert_line '  Place 2 of 3 among the waiting jobs of project team-a (higher priority first, then the older).'
	done
}

@test "an image that cannot be pulled, on the node it was placed on" {
	submit e-pull -p team-b -i registry.invalid/nope:1 -g 0
	tick 2
	both team-b 'e-pull|image pull failing: registry.invalid/nope:1|-'
	local mode
	for mode in k c; do
		run -0 "$mode" describe job e-pull -p team-b
		assert_line 'Why pending: image pull failing: registry.invalid/nope:1'
		assert_line --regexp '^  (Kubelet: )?Back-off pulling image "registry.invalid/nope:1"'
	done
	# kubelet's waiting reasons and events, as a cluster shows them
	run -0 get_obj "/api/v1/namespaces/runai-team-b/pods?labelSelector=release%3De-pull"
	run -0 jq -r '.items[0] | [.spec.nodeName != null, .status.phase,
	    .status.containerStatuses[0].state.waiting.reason] | @tsv' <<<"$output"
	assert_output "$(printf 'true\tPending\tImagePullBackOff')"
	run -0 get_obj "/api/v1/namespaces/runai-team-b/events"
	run -0 jq -r '[.items[] | select(.involvedObject.name | startswith("e-pull")) |
	    select(.type == "Warning") | .reason] | unique | join(",")' <<<"$output"
	assert_output 'BackOff,Failed'
}

@test "a failed job: the exit code and reason of its last container, its log's last lines" {
	submit e-fail -p team-b -i ubuntu -g 0 -a kube-sim/duration=0 -a kube-sim/exit-code=3
	tick 30
	both team-b 'e-fail|exited 3: Error|-'
	local mode pod
	for mode in k c; do
		run -0 "$mode" describe job e-fail -p team-b
		assert_line 'Why it stopped: exited 3: Error'
		assert_line --regexp '^  Container e-fail of pod e-fail-[a-z0-9]+ exited with code 3 \(Error\)'
		assert_line '  The workload failed: BackoffLimitExceeded: Job has reached the specified backoff limit'
		assert_line '  Last lines of its log:'
		pod=$(sed -n 's/^  Container e-fail of pod \(e-fail-[a-z0-9]*\) .*/\1/p' <<<"$output")
		assert_line --regexp "^    step [0-9]+: loss="
		run -0 "$mode" describe job e-fail -p team-b -o json
		run -0 jq -c '.why | [.reason, .kind, .exitCode, (.log | length > 0)]' <<<"$output"
		assert_output '["exited 3: Error","failed",3,true]'
	done
	# both modes read the same pod's log: the newest pod's, its last try
	run -0 k describe job e-fail -p team-b
	local kpod
	kpod=$(sed -n 's/^  Container e-fail of pod \(e-fail-[a-z0-9]*\) .*/\1/p' <<<"$output")
	[ "$kpod" = "$pod" ]
}

@test "a suspended job says so and leaves its project's queue" {
	c suspend -p team-a a-wait3 >/dev/null
	tick 2
	both team-a 'a-wait3|suspended|-' 'a-wait2|queued 2 of 2 in team-a|2 of 2'
	local mode
	for mode in k c; do
		run -0 "$mode" describe job a-wait3 -p team-a
		assert_line 'Why it stopped: suspended'
	done
}

@test "no node takes pods: every node cordoned" {
	local n
	for n in node-1 node-2; do
		kube_api --fail -X PATCH -H 'Content-Type: application/merge-patch+json' \
			--data '{"spec":{"unschedulable":true}}' "$KUBESIM_URL/api/v1/nodes/$n" >/dev/null
	done
	submit e-cordon -p team-b -i ubuntu -g 0
	both team-b 'e-cordon|2 of 2 nodes unschedulable|2 of 2' "b-run1|preempted by team-d at $(
		get_obj /api/v1/namespaces/runai-team-b/events | jq -r '[.items[] |
		select(.reason == "Preempted" and .involvedObject.name == "b-run1") |
		.lastTimestamp] | last' | xargs -I{} date -u -d {} +%H:%M)|1 of 2"
	local mode
	for mode in k c; do
		run -0 "$mode" describe job e-cordon -p team-b
		assert_line 'Why pending: 2 of 2 nodes unschedulable'
		assert_line '  2 of the cluster'"'"'s 2 nodes take no new pods: 2 cordoned (unschedulable), 0 not ready.'
		assert_line '  Scheduler: 0/2 nodes are available: 2 node(s) were unschedulable.'
	done
	for n in node-1 node-2; do
		kube_api --fail -X PATCH -H 'Content-Type: application/merge-patch+json' \
			--data '{"spec":{"unschedulable":false}}' "$KUBESIM_URL/api/v1/nodes/$n" >/dev/null
	done
}

@test "the default list is the reference's, and costs no more requests" {
	run -0 k list -A
	assert_line --index 0 --regexp '^NAME +STATUS +AGE +NODE +IMAGE +TYPE +PROJECT +USER +GPUs Allocated \(Requested\) +PODs Running \(Pending\) +SERVICE URL\(S\)$'
	refute_output --partial 'over quota'
	mark_requests
	run -0 k list -A
	refute_request GET /api/v1/events
	run -0 k list -A -o wide
	assert_line --index 0 --regexp ' SERVICE URL\(S\) +REASON$'
	# the workloads' Preempted events, in one list
	assert_request GET /api/v1/events \
		'.query.fieldSelector == ["reason=Preempted,involvedObject.kind!=Pod"]'
	run -0 c list -A
	refute_output --partial REASON
}

@test "the control plane's answers kept to its published document" {
	# every reason was asked for in control-plane mode: the judge saw them
	run -0 jq -sc '[.[] | select(.method == "GET" and .path == "/api/v1/workloads") |
	    .status] | unique' "$CP_REQUESTS"
	assert_output '[200]'
	[ ! -s "$CP_VIOLATIONS" ] || { cat "$CP_VIOLATIONS"; false; }
	# the over-quota workload's reason in the API's own words
	run -0 c describe job c-ws2 -p team-c -o json
	run -0 jq -c '.workload | [.phaseReason, .pendingSchedulingMessages[0].phaseReason,
	    (.conditions[] | select(.type == "PodScheduled") | .reason)]' <<<"$output"
	assert_output '["NonPreemptibleOverQuota","NonPreemptibleOverQuota","Unschedulable"]'
}
