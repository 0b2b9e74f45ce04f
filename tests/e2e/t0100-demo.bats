#!/usr/bin/env bats
# make demo without a terminal: the emulator starts, every command the
# demo shows works against it, and the emulator is stopped afterwards.

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
	assert_line --regexp '^\[train1-[a-z0-9]+\] step [0-9]+: loss='
	assert_line --regexp '^node-1 +gpu-worker +Ready +8 '
	assert_line --partial 'Demo done; the emulator stops now.'
	# stopped by its PID
	local pid
	pid=$(sed -n 's/^KUBESIM_PID=//p' "$RAI_DEMO_STATE/env")
	[ -n "$pid" ]
	! kill -0 "$pid" 2>/dev/null
}
