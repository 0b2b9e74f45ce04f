#!/usr/bin/env bats
# What the cluster already knows, said when it matters: submit warns of
# (or, with --strict, refuses) a non-preemptible job that asks for more
# GPUs than its project deserves and so can never be scheduled; bash,
# exec, attach and logs on a job that cannot start soon say why at once
# instead of waiting; logs -f of a job preempted or suspended under it
# ends with a line saying so and an exit status of its own. In
# Kubernetes mode and in control-plane mode alike.
#
# The emulator's fair-share story drives it, the controller paused and
# ticked. Demo cluster: node-1 and node-2, 8 GPUs each; team-a deserves
# 4 GPUs, team-b 2, team-c 2, team-d 8.

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

# cp_mark / cp_posts: the control plane's POSTs since the mark.
cp_mark() {
	CP_MARK=$(wc -l <"$CP_REQUESTS")
}
cp_posts() {
	tail -n +"$((CP_MARK + 1))" "$CP_REQUESTS" |
		jq -r 'select(.method == "POST") | .path'
}

never='it can never be scheduled'

# over MODE: a project and a GPU count over its quota, for each mode (the
# control plane's policy takes at most 4 GPUs a pod)
over() {
	case $1 in
	k) echo team-a 5 4 ;;
	c) echo team-b 3 2 ;;
	esac
}

@test "submit warns of a non-preemptible job over its project's quota, and makes it" {
	local mode p g d
	for mode in k c; do
		read -r p g d < <(over "$mode")
		run -0 --separate-stderr "$mode" submit "$mode-big" -p "$p" -i ubuntu -g "$g" --interactive
		stderr_is "runai: warning: project $p deserves $d GPUs and this non-preemptible job requests $g: $never"
		assert_line "The job '$mode-big' has been submitted successfully"
	done
	# the CLI v2's workspace is non-preemptible unless asked
	run -0 --separate-stderr c workspace submit w-big -p team-c -i ubuntu --gpu-devices-request 3
	stderr_is "runai: warning: project team-c deserves 2 GPUs and this non-preemptible job requests 3: $never"
	run -0 --separate-stderr k workspace submit kw-frac -p team-c -i ubuntu --gpu-devices-request 2
	stderr_is ''
	tick 2
	run -0 get_obj /apis/run.ai/v1/namespaces/runai-team-a/runaijobs/k-big
	run -0 get_obj /apis/run.ai/v1/namespaces/runai-team-b/runaijobs/c-big
	run -0 get_obj /apis/run.ai/v1/namespaces/runai-team-c/runaijobs/w-big
}

@test "preemptible work borrows over quota: no warning, and no more requests" {
	local mode
	for mode in k c; do
		mark_requests
		run -0 --separate-stderr "$mode" submit "$mode-train" -p team-b -i ubuntu -g 4
		stderr_is ''
		run -0 --separate-stderr "$mode" submit "$mode-pre" -p team-b -i ubuntu -g 4 --interactive --preemptible
		[[ "$stderr" != *"runai: warning"* ]]
		# (control-plane mode reads the projects for the project's id anyway)
		refute_request GET /apis/run.ai/v1/projects
	done
	run -0 --separate-stderr c training submit c-train2 -p team-b -i ubuntu --gpu-devices-request 4
	stderr_is ''
}

@test "submit --strict refuses a job that can never be scheduled: exit 1, nothing made" {
	local mode p g d
	for mode in k c; do
		read -r p g d < <(over "$mode")
		mark_requests
		cp_mark
		run -1 --separate-stderr "$mode" submit "$mode-strict" -p "$p" -i ubuntu -g "$g" --interactive --strict
		assert_output ''
		stderr_is "runai: error: project $p deserves $d GPUs and this non-preemptible job requests $g: $never; nothing submitted (--strict)
hint: ask for at most the project's deserved GPUs, or submit it as preemptible"
		# the projects were read, and nothing was written
		run -0 jq -r 'select(.method != "GET") | "\(.method) \(.path)"' <(requests_since_mark)
		assert_output ''
		run -0 cp_posts
		assert_output ''
		! exists /apis/run.ai/v1/namespaces/runai-"$p"/runaijobs/"$mode-strict"
	done
	mark_requests
	run -0 k submit k-strict -p team-a -i ubuntu -g 6 --interactive --strict --dry-run
	refute_request GET /apis/run.ai/v1/projects
	# the CLI v2's forms, and a job within the quota goes through
	cp_mark
	run -1 --separate-stderr c workspace submit w-strict -p team-c -i ubuntu --gpu-devices-request 3 --strict
	stderr_has "project team-c deserves 2 GPUs and this non-preemptible job requests 3: $never; nothing submitted (--strict)"
	run -0 cp_posts
	assert_output ''
	run -0 --separate-stderr c workspace submit w-fits -p team-a -i ubuntu --gpu-devices-request 4 --strict
	stderr_is ''
	run -0 cp_posts
	assert_output '/api/v1/workloads/workspaces'
}

# fast CMD...: runs it (stderr apart) with a wait of 20 minutes for the
# pod, and fails when it took more than two (times TIME_SCALE): a
# command that waited for the pod instead of saying why is far past
# that, however busy the machine.
fast() {
	local start=$SECONDS
	run --separate-stderr "$@"
	[ $((SECONDS - start)) -le $((120 * TIME_SCALE)) ] ||
		{ echo "took $((SECONDS - start)) s" >&2; return 1; }
}

@test "bash, exec, attach and logs on a job over quota say why at once, exit 1" {
	# k-big (team-a, 5 GPUs) and c-big (team-b, 3) wait for good; the
	# control plane knows the jobs submitted through it
	local mode job p cmd w
	for mode in k c; do
		for job in k-big c-big; do
			[ "$mode$job" = ck-big ] && continue
			p=team-a
			[ "$job" = c-big ] && p=team-b
			w="--wait-timeout 20m"
			for cmd in "exec $job -p $p $w -- true" "bash $job -p $p $w" \
			    "attach $job -p $p $w" "logs $job -p $p $w" \
			    "logs -f $job -p $p $w"; do
				# shellcheck disable=SC2086
				fast "$mode" $cmd
				[ "$status" -eq 1 ]
				assert_output ''
				case $job in
				k-big) stderr_is "runai: error: job 'k-big' is pending: over quota by 1 GPU
hint: Non-preemptible work must fit in its project's quota: team-a deserves 4 GPUs, its non-preemptible jobs hold 0 and this one asks 5 more, 1 over." ;;
				c-big) stderr_is "runai: error: job 'c-big' is pending: over quota by 1 GPU
hint: Non-preemptible work must fit in its project's quota: team-b deserves 2 GPUs, its non-preemptible jobs hold 0 and this one asks 3 more, 1 over." ;;
				esac
			done
		done
	done
	# the CLI v2's forms are the same commands
	fast c workspace exec w-big -p team-c --wait-timeout 20m -- true
	[ "$status" -eq 1 ]
	stderr_has "runai: error: job 'w-big' is pending: over quota by 3 GPUs"
}

@test "an image that cannot be pulled, a suspended job: said at once too" {
	c submit e-pull -p team-c -i registry.invalid/nope:1 -g 0 >/dev/null
	tick 4
	local mode
	for mode in k c; do
		fast "$mode" logs e-pull -p team-c --wait-timeout 20m
		[ "$status" -eq 1 ]
		stderr_is "runai: error: job 'e-pull' is pending: image pull failing: registry.invalid/nope:1
hint: Its pod is placed, but the image registry.invalid/nope:1 cannot be pulled (ImagePullBackOff)."
		fast "$mode" exec e-pull -p team-c --wait-timeout 20m -- true
		[ "$status" -eq 1 ]
		stderr_has "runai: error: job 'e-pull' is pending: image pull failing: registry.invalid/nope:1"
	done
	c suspend w-big -p team-c >/dev/null
	tick 2
	for mode in k c; do
		fast "$mode" exec w-big -p team-c --wait-timeout 20m -- true
		[ "$status" -eq 1 ]
		stderr_is "runai: error: job 'w-big' is not running: suspended
hint: It is suspended: its pods are gone and it holds no GPUs until it is resumed (runai resume)."
	done
}

@test "a job merely not placed yet is waited for, as before" {
	# the scheduler has not seen it (the controller is paused): no pod yet
	c submit k-new -p team-d -i ubuntu -g 1 >/dev/null
	local mode start
	for mode in k c; do
		start=$SECONDS
		run -1 --separate-stderr "$mode" exec k-new -p team-d --pod-running-timeout 3s -- true
		[ $((SECONDS - start)) -ge 3 ]
		stderr_has 'Waiting for pod to start running...'
		[[ "$stderr" != *"is pending"* ]]
		start=$SECONDS
		run -1 --separate-stderr "$mode" logs k-new -p team-d --pod-running-timeout 3s
		[ $((SECONDS - start)) -ge 3 ]
		stderr_has 'Waiting for job k-new to get a pod...'
		stderr_has 'job k-new has no pods'
	done
	c delete k-new -p team-d >/dev/null
}

# follow MODE JOB PROJECT: logs -f in the background, its stderr and exit
# status into $BATS_TEST_TMPDIR/MODE.err and MODE.rc
follow() {
	local d=$BATS_TEST_TMPDIR
	(
		rc=0
		"$1" logs -f "$2" -p "$3" >"$d/$1.out" 2>"$d/$1.err" || rc=$?
		echo "$rc" >"$d/$1.rc"
	) &
}

# followed MODE: waits (at most 20 s) for the follow to end
followed() {
	local i
	for i in $(seq 100); do
		[ -s "$BATS_TEST_TMPDIR/$1.rc" ] && return 0
		sleep 0.2
	done
	echo "logs -f in $1 mode still runs" >&2
	cat "$BATS_TEST_TMPDIR/$1.err" >&2
	tail -3 "$BATS_TEST_TMPDIR/$1.out" >&2
	return 1
}

@test "logs -f of a job preempted under it: who and when, exit 3" {
	# a clean cluster: every job so far deleted
	local p j
	for p in team-a team-b team-c team-d; do
		c delete -A -p "$p" >/dev/null
		k delete -A -p "$p" >/dev/null
	done
	tick 3
	# team-b borrows the whole cluster, 4 GPUs a job, one second apart
	# (the newest is preempted first); team-d takes its share back
	for j in b-f1 b-f2 b-f3 b-f4; do
		c submit "$j" -p team-b -i ubuntu -g 4 >/dev/null
		sleep 1
	done
	tick 3
	follow k b-f4 team-b
	follow c b-f4 team-b
	sleep 2
	c submit d-take -p team-d -i ubuntu -g 4 >/dev/null
	tick 3
	followed k
	followed c
	local at
	at=$(get_obj /api/v1/namespaces/runai-team-b/events | jq -r '[.items[] |
	    select(.reason == "Preempted" and .involvedObject.kind == "RunaiJob" and
	    .involvedObject.name == "b-f4") | .lastTimestamp] | last')
	[ "$at" != null ]
	at=$(date -u -d "$at" +%H:%M)
	local mode
	for mode in k c; do
		[ "$(cat "$BATS_TEST_TMPDIR/$mode.rc")" = 3 ]
		[ "$(tail -n 1 "$BATS_TEST_TMPDIR/$mode.err")" = \
		    "runai: job 'b-f4' was preempted by team-d at $at; it waits to run again" ]
		# the log itself was printed up to then
		grep -q 'step [0-9]*: loss=' "$BATS_TEST_TMPDIR/$mode.out"
	done
}

@test "logs -f of a job suspended under it: when, exit 3; the man page says so" {
	follow k b-f1 team-b
	follow c b-f1 team-b
	sleep 2
	c suspend b-f1 -p team-b >/dev/null
	tick 2
	followed k
	followed c
	local mode
	for mode in k c; do
		[ "$(cat "$BATS_TEST_TMPDIR/$mode.rc")" = 3 ]
		run -0 tail -n 1 "$BATS_TEST_TMPDIR/$mode.err"
		assert_output --regexp "^runai: job 'b-f1' was suspended at [0-9]{2}:[0-9]{2}:[0-9]{2}; 'runai resume b-f1' runs it again$"
	done
	# the man page's EXIT STATUS (t9000 sees it is what the table makes)
	run -0 grep -A1 '^\\fB3\\fR$' "$RAI_TOP/man/runai-logs.1"
	assert_line --index 1 'with \-f: the job was preempted or suspended while its log was followed (the last line on stderr says by whom or when)'
}

@test "a static token the cluster refuses: which context and user, and the way out" {
	local ctx user
	ctx=$(yq -r '."current-context"' "$KUBECONFIG")
	user=$(yq -r --arg c "$ctx" '.contexts[] | select(.name == $c) | .context.user' "$KUBECONFIG")
	[ -n "$ctx" ] && [ -n "$user" ]
	sed -i "s/token: .*/token: wrong-token/" "$KUBECONFIG"
	run -1 --separate-stderr k list -p team-a
	stderr_is "runai: error from server (Unauthorized): Unauthorized
hint: the cluster refused the token of user '$user' (context '$ctx'): run 'runai login', or check the user's credentials in the kubeconfig"
	# a token file's path is named
	printf 'wrong-token\n' >"$BATS_TEST_TMPDIR/token"
	python3 - "$KUBECONFIG" "$user" "$BATS_TEST_TMPDIR/token" <<-'EOF'
		import sys, yaml
		path, user, token_file = sys.argv[1:]
		d = yaml.safe_load(open(path))
		for u in d["users"]:
		    if u["name"] == user:
		        u["user"].pop("token", None)
		        u["user"]["tokenFile"] = token_file
		yaml.safe_dump(d, open(path, "w"))
	EOF
	run -1 --separate-stderr k exec k-big -p team-a -- true
	stderr_is "runai: error from server (Unauthorized): Unauthorized
hint: the cluster refused the token in the tokenFile '$BATS_TEST_TMPDIR/token' of user '$user' (context '$ctx'): check that token, or run 'runai login'"
}

@test "COMMAND LINE as typed, in the original grammar and the CLI v2's" {
	# runai keeps it where it makes the objects (Kubernetes mode); a
	# control plane keeps no command line
	run -0 k submit q-line -p team-d -i ubuntu -g 0 -- sh -c 'echo boom; exit 3'
	run -0 k describe job q-line -p team-d
	assert_line "COMMAND LINE: runai submit q-line -p team-d -i ubuntu -g 0 -- sh -c 'echo boom; exit 3'"
	run -0 k workspace submit q-ws -p team-d -i ubuntu -- sh -c 'echo boom; exit 3'
	run -0 k describe job q-ws -p team-d
	assert_line "COMMAND LINE: runai workspace submit q-ws -p team-d -i ubuntu -- sh -c 'echo boom; exit 3'"
}
