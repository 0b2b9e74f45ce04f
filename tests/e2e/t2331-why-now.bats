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
	cp_start
	sim POST /_sim/controller '{"paused": true}' >/dev/null
}

teardown_file() {
	kubesim_stop
}

# Each test: its own HOME, a Kubernetes-mode kubeconfig and a copy of it
# in control-plane mode, logged in; times in UTC.
setup() {
	isolate_env
	use_sim_kubeconfig
	export TZ=UTC
	CP_KUBECONFIG="$HOME/.kube/cp-config"
	cp "$KUBECONFIG" "$CP_KUBECONFIG"
	KUBECONFIG=$CP_KUBECONFIG runai config control-plane "$CP_URL" >/dev/null
	jq -r .password "$CP_CREDS" | KUBECONFIG=$CP_KUBECONFIG \
		runai login --username "$CP_USER" --password-stdin >/dev/null
}

tick() {
	sim POST /_sim/tick "{\"steps\": ${1:-1}}" >/dev/null
}

# k ARGS / c ARGS: runai in Kubernetes mode / in control-plane mode.
k() {
	runai "$@"
}
c() {
	KUBECONFIG=$CP_KUBECONFIG runai "$@"
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
