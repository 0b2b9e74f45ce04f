#!/usr/bin/env bats
# A researcher's first session, typed as the original CLI's published
# quick-start guides have it (old forms included), against the emulator:
# set the project, submit a training job and an interactive build job
# with the old --command/--args, list, get, logs, bash into the build
# job, fractional jobs listed with two decimals, delete both ways.

load lib/common
load lib/pods

NS=runai-team-a

setup_file() {
	kubesim_start --demo --tick 0.2
}

teardown_file() {
	kubesim_stop
}

setup() {
	isolate_env
	use_sim_kubeconfig
	BG_PIDS=()
}

teardown() {
	pods_teardown
}

# row NAME: the job's row of "runai list".
row() {
	runai list 2>/dev/null | awk -v n="$1" '$1 == n'
}

running() {
	row "$1" | grep -Eq '^[^ ]+ +Running '
}

@test "the quick-start session of the original CLI's guides" {
	# 1. the project (project set: the CLI v2 grammar's, as it answers)
	run -0 --separate-stderr runai project set team-a
	assert_output "project team-a configured successfully"
	[ -z "$stderr" ]

	# 2. a training job (positional name, as the old guides write it)
	run -0 runai submit train1 -i gcr.io/run-ai-demo/quickstart -g 1
	assert_line "The job 'train1' has been submitted successfully"

	# 3. an interactive build job with the old command form
	run -0 --separate-stderr runai submit build1 -i ubuntu -g 1 --interactive \
		--command sleep --args infinity
	assert_line "The job 'build1' has been submitted successfully"
	stderr_has "'--command <command>' is deprecated"
	run -0 get_obj "/apis/run.ai/v1/namespaces/$NS/runaijobs/build1"
	run -0 jq -c '.spec.template.spec.containers[0].command' <<<"$output"
	assert_output '["sleep","infinity"]'

	# 4. half-GPU jobs, listed with two decimals
	runai submit frac05 -i gcr.io/run-ai-demo/quickstart -g 0.5 >/dev/null
	wait_until 200 running train1
	wait_until 200 running build1
	wait_until 200 running frac05
	run -0 runai list
	assert_line --index 0 "Showing jobs for project team-a"
	assert_line --regexp '^train1 +Running .* Train .* 1 \(1\) +1 \(0\)'
	assert_line --regexp '^build1 +Running .* Interactive .* 1 \(1\) +1 \(0\)'
	assert_line --regexp '^frac05 +Running .* 0\.50 \(0\.50\) +1 \(0\)'

	# 5. get, the old name of describe job
	run -0 --separate-stderr runai get train1
	assert_line --regexp '^NAME: +train1$'
	stderr_has "'runai get' is deprecated; use 'runai describe job'"

	# 6. logs of the training job
	local pod
	pod=$(runai describe job train1 -o json | jq -r '.instances[0].name')
	add_lines "$pod" -- "epoch 1 loss 0.9" "epoch 2 loss 0.5"
	run -0 runai logs train1
	assert_output --partial "epoch 2 loss 0.5"

	# 7. a shell in the build job (no terminal here: commands on stdin)
	run -0 --separate-stderr bash -c "echo 'echo in-the-pod' | runai bash build1"
	assert_output in-the-pod

	# 8. delete, the original's way and the later CLI's way
	run -0 runai delete train1
	assert_output "Job train1 deleted successfully."
	run -0 runai delete job build1 frac05
	assert_output "Job build1 deleted successfully.
Job frac05 deleted successfully."
	run -0 runai list
	refute_output --partial train1
	refute_output --partial build1
}
