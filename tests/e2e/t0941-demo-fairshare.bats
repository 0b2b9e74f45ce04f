#!/usr/bin/env bats
# make demo's fair-share story, without a terminal: team-a and team-b
# borrow every idle GPU over quota, team-d asks for its 8 and gets them
# back by preemption; the tables between the steps show it.

load lib/common

setup() {
	isolate_env
}

# wide_row N PROJECT: the PROJECT row of the Nth "runai list projects -o wide".
wide_row() {
	awk -v n="$1" -v p="$2" '
		/^\$ runai list projects -o wide$/ { k++; next }
		k == n && $1 == p { print; exit }' <<<"$output"
}

@test "the demo tells the fair-share story and stops its emulator" {
	export RAI_DEMO_STATE="$BATS_TEST_TMPDIR/demo"
	run -0 --separate-stderr "$TOP/contrib/demo.sh" </dev/null
	assert_line --partial -- '--- Fair share: 16 GPUs'
	# before: the two borrowers hold all 16 GPUs (team-a also has the
	# demo's train1 and half a GPU of job-0), team-d nothing
	[[ "$(wide_row 1 team-a)" =~ ^team-a\ \(default\)\ +default\ +4\ +9\.50\ +0\  ]]
	[[ "$(wide_row 1 team-b)" =~ ^team-b\ +default\ +2\ +6\ +0\  ]]
	[[ "$(wide_row 1 team-d)" =~ ^team-d\ +default\ +8\ +0\ +0\  ]]
	# after: team-d has its 8, the borrowers are down to 7.5 and wait for 8
	[[ "$(wide_row 2 team-d)" =~ ^team-d\ +default\ +8\ +8\ +0\  ]]
	local a b
	a=$(wide_row 2 team-a | awk '{ print $5, $6 }')
	b=$(wide_row 2 team-b | awk '{ print $4, $5 }')
	[ "$(awk -v a="$a" -v b="$b" 'BEGIN { split(a, x, " "); split(b, y, " ");
	    print x[1] + y[1], x[2] + y[2] }')" = "7.5 8" ]
	for d in d-train1 d-train2 d-train3 d-train4; do
		assert_line --regexp "^$d +Running .* team-d "
	done
	assert_line --regexp '^[ab]-train[0-9] +Pending '
	assert_line --regexp '\[Preempted\] Preempted by project team-d to reclaim its fair share of GPUs for d-train[1-4]: project team-a had '
	# a job the demo shows waiting, with its reason (list -o wide's REASON)
	assert_line --regexp '^a-train[0-9] +Pending .* preempted by team-d at [0-9]{2}:[0-9]{2}$'
	assert_line --regexp '^Why pending: (preempted by team-d at [0-9:]+|queued [0-9]+ of [0-9]+ in team-a|over fair share by .*)$'
	assert_line --partial 'Demo done; the emulator stops now.'
	local pid
	pid=$(sed -n 's/^KUBESIM_PID=//p' "$RAI_DEMO_STATE/env")
	[ -n "$pid" ]
	! kill -0 "$pid" 2>/dev/null
}
