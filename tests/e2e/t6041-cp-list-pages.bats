#!/usr/bin/env bats
# Control-plane mode: list jobs over more workloads than one page holds.
# Each page becomes rows as it comes (runai never holds the listing as
# JSON), so every workload of every page must still be listed once,
# sorted, with the NODE column from the cluster's pods, and the pages
# asked for one after another. The workloads come from the emulator's
# bulkWorkloads (records only: they stay Creating, on no node).

load lib/common
load lib/cp

CP_VERSION=2.24

setup_file() {
	cp_start
}

teardown_file() {
	kubesim_stop
}

setup() {
	cp_setup
}

@test "list jobs -A over three pages lists every workload once, in order, each page asked for once" {
	cp_login
	runai submit onnode -p team-b -i ubuntu -- sleep 300 >/dev/null
	cp_wait_status onnode Running
	cp_settings '{"bulkWorkloads": {"count": 1100, "project": "team-a", "prefix": "bulk-"}}'
	: >"$CP_REQUESTS"
	run -0 runai list jobs -A
	# 1,100 bulk rows and the one submitted, each once
	assert_equal "$(grep -c '^bulk-' <<<"$output")" 1100
	assert_equal "$(grep -E '^bulk-[0-9]+ ' <<<"$output" | awk '{ print $1 }' | sort -u | wc -l)" 1100
	assert_equal "$(grep -c '^onnode ' <<<"$output")" 1
	# sorted by project (the seventh column), then name, across pages
	run -0 bash -c 'awk "NR > 1 { print \$7, \$1 }" | LC_ALL=C sort -c && echo sorted' <<<"$output"
	assert_output sorted
	# the running job's node from the cluster's pods; the bulk ones on none
	run -0 runai list jobs -A
	assert_line --regexp '^onnode +Running +[^ ]+ +node-[0-9]+ '
	assert_line --regexp '^bulk-7 +[A-Za-z]+ +[^ ]+ +- '
	# three pages of workloads (and one of pods) per listing: two listings
	run -0 jq -r 'select(.path == "/api/v1/workloads") | .query' "$CP_REQUESTS"
	assert_equal "$(grep -c 'offset=0&limit=500$' <<<"$output")" 2
	assert_equal "$(grep -c 'offset=500&limit=500$' <<<"$output")" 2
	assert_equal "$(grep -c 'offset=1000&limit=500$' <<<"$output")" 2
	assert_equal "$(grep -c 'offset=1500' <<<"$output")" 0
}

@test "a listing that stops incomplete on a later page prints no rows" {
	cp_login
	cp_settings '{"bulkWorkloads": {"count": 600, "start": 5000, "project": "team-a", "prefix": "more-"}}'
	cp_settings '{"paging": "repeat"}'
	run -1 --separate-stderr timeout 20 runai list jobs -A
	cp_settings '{"paging": null}'
	assert_output ""
	assert_equal "$stderr" "runai: error: the control plane's list /api/v1/workloads repeats itself (the page at offset 500 brought nothing new): stopped, the listing is incomplete"
}
