#!/usr/bin/env bats
# make demo without a terminal: the emulator starts, every command the
# demo shows works against it (rntop over the nodes' SSH included), and
# the emulator and the nodes' sshd are stopped afterwards.

load lib/common

setup() {
	isolate_env
}

@test "the demo runs each command against its emulator and stops it" {
	export RAI_DEMO_STATE="$BATS_TEST_TMPDIR/demo"
	run -0 --separate-stderr "$TOP/contrib/demo.sh" </dev/null
	assert_line --regexp '^kube-sim is serving https://127\.0\.0\.1:[0-9]+ '
	assert_line "The job 'train1' has been submitted successfully"
	assert_line --regexp '^train1 +Running '
	assert_line 'Linux'
	assert_line --regexp '^step [0-9]+: loss='
	assert_line --regexp '^node-1 +gpu-worker +Ready +8 '
	# the notebook: its token URL, which answers as Jupyter does
	assert_line --regexp '^Jupyter notebook URL: http://127\.0\.0\.1:[0-9]+/\?token=[0-9a-f]{48}$'
	assert_line --regexp '^302 http://127\.0\.0\.1:[0-9]+/lab$'
	assert_line --partial 'Demo done; the emulator stops now.'
	# stopped by its PID
	local pid
	pid=$(sed -n 's/^KUBESIM_PID=//p' "$RAI_DEMO_STATE/env")
	[ -n "$pid" ]
	! kill -0 "$pid" 2>/dev/null
	# the nodes over SSH, where sshd can run (make deps installs it):
	# train1 holds a whole GPU, the notebook half of one, so two GPUs are
	# in use; each node's sshd is stopped by its PID too
	if "$TOP/tests/peers/sshd-peer" check >/dev/null; then
		assert_line --regexp '^node-[12] GPU [0-7]: [0-9]+% busy, [1-9][0-9]* of 81920 MiB, team-a/train1$'
		assert_line --regexp '^node-[12] GPU [0-7]: [0-9]+% busy, [1-9][0-9]* of 81920 MiB, team-a/[a-z0-9-]+$'
		[ "$(grep -cE '^node-[12] GPU [0-7]: ' <<<"$output")" -eq 2 ]
		local n
		for n in node-1 node-2; do
			pid=$(sed -n 's/^SSHD_PID=//p' "$RAI_DEMO_STATE/$n/env")
			[ -n "$pid" ]
			! kill -0 "$pid" 2>/dev/null
		done
	fi
}

