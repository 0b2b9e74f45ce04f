#!/usr/bin/env bats
# runai list jobs against the emulator: jobs seeded as the reference CLI
# writes them, driven through Pending/Running/Succeeded/Failed/Suspended
# by the emulator's controller, then listed as table, JSON, YAML, names.

load lib/common

setup_file() {
	kubesim_start --demo
	sim POST /_sim/controller '{"paused": true}' >/dev/null
	sim POST /_sim/seed "$(cat "$BATS_TEST_DIRNAME/../fixtures/jobs/e2e-seed.json")" >/dev/null
	sim POST /_sim/tick '{"steps": 3}' >/dev/null
	sim POST /_sim/phase '{"namespace":"runai-team-a","workload":"done","phase":"Succeeded"}' >/dev/null
	sim POST /_sim/phase '{"namespace":"runai-team-a","workload":"boom","phase":"Failed"}' >/dev/null
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

HEADER='NAME       STATUS         AGE  NODE    IMAGE      TYPE         PROJECT  USER   GPUs Allocated (Requested)  PODs Running (Pending)  SERVICE URL(S)'

# The table without the AGE column (it moves with the clock).
without_age() {
	sed -E 's/^(.{26}).{5}/\1/; s/ +$//'
}

# A job with no running pod that has not ended (pending, preempted,
# suspended) is on no node: NODE says "-", not the node it last used; a
# finished job keeps the node it ran on.
@test "list prints the reference header and every status" {
	run -0 --separate-stderr runai list
	[ -z "$stderr" ]
	[ "${lines[0]}" = "Showing jobs for project team-a" ]
	[ "${lines[1]}" = "$HEADER" ]
	run -0 --separate-stderr runai list
	run -0 without_age <<<"$(tail -n +3 <<<"$output")"
	assert_output "boom       Failed         node-1  img:boom   Train        team-a          - (1)                       0 (0)
done       Succeeded      node-1  img:done   Train        team-a          - (1)                       0 (0)
frac       Running        node-1  img:frac   Train        team-a   bob    0.50 (0.50)                 1 (0)
huge       Unschedulable  -       img:huge   Train        team-a          0 (64)                      0 (1)
multi      Running        node-1  img:multi  Interactive  team-a          2 (2)                       1 (0)
orphan     Invalid job
ref-train  Running        node-1  busybox    Train        team-a   alice  1 (1)                       1 (0)
susp       Suspended      -       img:susp   Train        team-a          0 (1)                       0 (0)"
}

@test "list jobs is list; -A adds the other projects without the header line" {
	run -0 runai list jobs
	[ "${lines[0]}" = "Showing jobs for project team-a" ]
	run -0 runai list -A
	[ "${lines[0]}" = "$HEADER" ]
	assert_line --regexp '^other +Running .* team-b '
	[ "${#lines[@]}" -eq 10 ]
}

@test "list -p selects the project's namespace" {
	run -0 runai list -p team-b -o name
	assert_output "job/other"
}

@test "list -o json is a List of job views" {
	run -0 runai list -o json
	run -0 jq -c '[.items[] | {name, status, gpus, pods, user, createdByCli}] | .[0:3]' <<<"$output"
	assert_output '[{"name":"boom","status":"Failed","gpus":{"allocated":0,"requested":1,"requestedMemoryBytes":0},"pods":{"running":0,"pending":0},"user":"","createdByCli":false},{"name":"done","status":"Succeeded","gpus":{"allocated":0,"requested":1,"requestedMemoryBytes":0},"pods":{"running":0,"pending":0},"user":"","createdByCli":false},{"name":"frac","status":"Running","gpus":{"allocated":0.5,"requested":0.5,"requestedMemoryBytes":0},"pods":{"running":1,"pending":0},"user":"bob","createdByCli":false}]'
	run -0 runai list -o json
	run -0 jq -c '.items[] | select(.name == "ref-train") | {kind, createdByCli, user, node}' <<<"$output"
	assert_output '{"kind":"RunaiJob","createdByCli":true,"user":"alice","node":"node-1"}'
}

@test "list -o yaml and -o name" {
	run -0 runai list -o yaml
	assert_line 'kind: List'
	assert_line --regexp '^- name: orphan$'
	run -0 runai list -o name
	assert_output "job/boom
job/done
job/frac
job/huge
job/multi
job/orphan
job/ref-train
job/susp"
}

# AGE moves with the clock between two runs: its cell (the first
# duration on a line) is masked, and so is its padding, which follows
# the longest age in the column ("2m9s" one run, "2m10s" the next).
mask_age() {
	sed -E 's/(^| )[0-9]+[smhdy]([0-9]+[smh])?( |$)/\1AGE\3/; s/AGE +/AGE /'
}

@test "lists sent at once print byte for byte what lists sent one by one print" {
	local args
	for args in "" "-A" "-A -o wide" "-A -o json" "-p team-b -o yaml" "-o name"; do
		# shellcheck disable=SC2086
		RUNAI_PARALLEL_REQUESTS=1 runai list $args >"$BATS_TEST_TMPDIR/serial"
		# shellcheck disable=SC2086
		RUNAI_PARALLEL_REQUESTS=4 runai list $args >"$BATS_TEST_TMPDIR/parallel"
		[ -s "$BATS_TEST_TMPDIR/serial" ]
		diff <(mask_age <"$BATS_TEST_TMPDIR/serial") <(mask_age <"$BATS_TEST_TMPDIR/parallel")
	done
	# and they were sent at once, on at most 4 connections, none of them
	# left to libcurl's queue (which, in libcurl 7.88, now and then kept
	# one waiting a second with every connection idle); serially not.
	# The emulator holds the first list's answer (the Services) until the
	# third (the batch Jobs) has reached it: sent at once, the third comes
	# on a connection of its own while the first waits, however fast or
	# slow this machine is; one by one it never could, and the list would
	# wait out the hold's deadline with one connection.
	hold_until /api/v1/namespaces/runai-team-a/services /apis/batch/v1/namespaces/runai-team-a/jobs
	RUNAI_PARALLEL_REQUESTS=4 run -0 --separate-stderr runai -v=9 list
	asked_at_once
	run ! one_at_a_time
	local connections
	connections=$(grep -c '^\* Connected to ' <<<"$stderr")
	[ "$connections" -gt 1 ] && [ "$connections" -le 4 ] ||
		{ echo "$connections connections" >&2; false; }
	[[ "$stderr" != *"No connections available"* ]]
	sim DELETE /_sim/faults >/dev/null
	RUNAI_PARALLEL_REQUESTS=1 run -0 --separate-stderr runai -v=9 list
	one_at_a_time
}

# hold_until PATH AWAITED: the emulator holds the answer to the next
# request for PATH until a request for AWAITED has reached it (a deadline
# of 10 s, times TIME_SCALE, where none comes).
hold_until() {
	sim POST /_sim/faults "{\"path_prefix\":\"$1\",\"count\":1,\"delay\":$((10 * TIME_SCALE)),\"until\":\"$2\"}" >/dev/null
}

# one_at_a_time: in a -v=9 trace ($stderr), no request went out while
# another was unanswered: libcurl says a transfer is over ("Connection #N
# ... left intact", or closed) before the next one starts when runai
# sends one at a time, whatever the machine's speed. (The order of runai's
# own "200 OK in" lines cannot say it: an answer is logged when its
# caller takes it, which may be after the next request went out.)
one_at_a_time() {
	awk '/^> [A-Z]+ /{ n++; if (n > max) max = n }
	    /^\* Connection #[0-9]+ to host .* left intact/ || /^\* Closing connection/{ n-- }
	    END { if (max != 1) { print "at most " max " requests in flight" > "/dev/stderr"; exit 1 } }' <<<"$stderr"
}

# asked_at_once: the third list sent ahead (the batch Jobs) was asked for
# before the first (the Services) was answered, in a -v=9 trace. One at
# a time, the third goes out once the second is answered, and the second
# once the first is: after the first's answer is logged.
asked_at_once() {
	asked_before_answered /apis/batch/v1/namespaces/runai-team-a/jobs \
		/api/v1/namespaces/runai-team-a/services
}

# asked_before_answered ASKED ANSWERED: in a -v=9 trace ($stderr), the
# list at path ASKED went out before the answer to the list at path
# ANSWERED was logged.
asked_before_answered() {
	local ask answer
	ask=$(grep -nF "$KUBESIM_URL$1?" <<<"$stderr" | grep -m 1 '^[0-9]*:curl -v -XGET ' | cut -d: -f1)
	answer=$(grep -nF "GET $KUBESIM_URL$2?" <<<"$stderr" | grep -m 1 ' 200 OK in ' | cut -d: -f1)
	[ -n "$ask" ] && [ -n "$answer" ] && [ "$ask" -lt "$answer" ]
}

@test "by default lists go out at once only when the server is slow to answer" {
	# a server answering within a millisecond or so gets the lists one
	# after another. Whether this one does depends on the machine's speed:
	# under valgrind or the sanitizers an answer may take 3 ms, and then
	# the trace says so and lists go out at once from that moment; with
	# no such line, none may have been asked ahead
	run -0 --separate-stderr runai -v=9 list
	[ "$(grep -c '^curl -v -XGET ' <<<"$stderr")" -gt 5 ]
	if [[ "$stderr" != *"requests sent ahead go out at once"* ]]; then
		one_at_a_time
	fi
	# the first list's answer took 30 ms: the rest go out at once
	sim POST /_sim/faults '{"path_prefix":"/api/v1/namespaces","count":1,"delay":0.03}' >/dev/null
	run -0 --separate-stderr runai -v=9 list
	asked_at_once
	[[ "$stderr" =~ "an answer took "[0-9.]+" ms to start: requests sent ahead go out at once" ]]
	# the first lists are quick, the RunaiJobs' answer is held until the
	# batch Jobs (the list after it) has been asked for: once it has
	# waited 3 ms with no answer, the lists after it go out on connections
	# of their own, and the hold ends when the Jobs' request comes. Sent
	# one by one, the Jobs would be asked for only after the RunaiJobs'
	# answer, which would come at the hold's deadline.
	sim DELETE /_sim/faults >/dev/null
	hold_until /apis/run.ai/v1/namespaces/runai-team-a/runaijobs /apis/batch/v1/namespaces/runai-team-a/jobs
	run -0 --separate-stderr runai -v=9 list
	[[ "$stderr" == *"requests sent ahead go out at once"* ]]
	asked_before_answered /apis/batch/v1/namespaces/runai-team-a/jobs /apis/run.ai/v1/namespaces/runai-team-a/runaijobs
	# and the output is the same
	sim POST /_sim/faults '{"path_prefix":"/api/v1/namespaces","count":1,"delay":0.03}' >/dev/null
	runai list -A >"$BATS_TEST_TMPDIR/slow"
	runai list -A >"$BATS_TEST_TMPDIR/quick"
	diff <(mask_age <"$BATS_TEST_TMPDIR/slow") <(mask_age <"$BATS_TEST_TMPDIR/quick")
	sim DELETE /_sim/faults >/dev/null
}

@test "a list that is not JSON fails alike sent at once or one by one, and a 404 is not asked twice" {
	local p
	for p in 1 4; do
		sim POST /_sim/faults '{"path_prefix":"/apis/batch/v1/namespaces/runai-team-a/jobs","count":1,"status":200,"body":"garbage"}' >/dev/null
		RUNAI_PARALLEL_REQUESTS=$p run -1 --separate-stderr runai list
		[ -z "$output" ]
		[[ "$stderr" == "runai: error: response from GET $KUBESIM_URL/apis/batch/v1/namespaces/runai-team-a/jobs?limit=5000: malformed JSON list at byte 0: "* ]]
	done
	# an answer no retry changes is taken from the list sent ahead
	sim POST /_sim/faults '{"path_prefix":"/apis/kubeflow.org/v1/namespaces/runai-team-a/tfjobs","count":1,"status":404}' >/dev/null
	mark_requests
	RUNAI_PARALLEL_REQUESTS=4 run -0 runai list
	[ "$(count_requests GET /apis/kubeflow.org/v1/namespaces/runai-team-a/tfjobs)" -eq 1 ]
	sim DELETE /_sim/faults >/dev/null
}

@test "list asks only for Run:ai pods and the name-reservation ConfigMaps" {
	mark_requests
	run -0 runai list
	assert_request GET /api/v1/namespaces/runai-team-a/pods '.query.fieldSelector == ["spec.schedulerName=runai-scheduler"]'
	assert_request GET /api/v1/namespaces/runai-team-a/configmaps '.query.labelSelector == ["base-name"]'
	assert_request GET /apis/run.ai/v1/namespaces/runai-team-a/runaijobs
	refute_request GET /api/v1/nodes
}

@test "a 503 mid-list is retried" {
	sim POST /_sim/faults '{"path_prefix":"/apis/run.ai/v1/namespaces/runai-team-a/runaijobs","count":1,"status":503,"retry_after":0}' >/dev/null
	run -0 runai list -o name
	assert_line job/ref-train
}

@test "a server that keeps failing is a clear error, exit 1" {
	sim POST /_sim/faults '{"path_prefix":"/apis/run.ai/v1/namespaces/runai-team-a/runaijobs","count":20,"status":500}' >/dev/null
	run -1 --separate-stderr runai list
	[ -z "$output" ]
	[[ "$stderr" == *500* || "$stderr" == *nternal* ]]
	sim DELETE /_sim/faults >/dev/null
}

@test "a connection cut mid-answer is a clear error, exit 1" {
	sim POST /_sim/faults '{"path_prefix":"/apis/run.ai/v1/namespaces/runai-team-a/runaijobs","count":20,"cut_after_bytes":40}' >/dev/null
	run -1 --separate-stderr runai list
	[ -n "$stderr" ]
	sim DELETE /_sim/faults >/dev/null
}

@test "list --watch prints the list again when a job changes" {
	timeout $((30 * TIME_SCALE)) runai list -p team-b --watch -o name >"$BATS_TEST_TMPDIR/watch" 2>&1 &
	local pid=$! i
	for i in $(seq 1 $((50 * TIME_SCALE))); do
		[ -s "$BATS_TEST_TMPDIR/watch" ] && break
		sleep 0.1
	done
	sleep 0.5
	sim POST /_sim/seed '{"apiVersion":"run.ai/v1","kind":"RunaiJob","metadata":{"name":"late","namespace":"runai-team-b"},"spec":{"template":{"spec":{"schedulerName":"runai-scheduler","containers":[{"name":"late","image":"img:late"}]}}}}' >/dev/null
	for i in $(seq 1 $((50 * TIME_SCALE))); do
		grep -q job/late "$BATS_TEST_TMPDIR/watch" && break
		sleep 0.1
	done
	kill "$pid" 2>/dev/null || true
	wait "$pid" || true
	run cat "$BATS_TEST_TMPDIR/watch"
	assert_output "job/other

job/late
job/other"
}

@test "a burst of job changes under --watch costs a few lists, not one each" {
	local burst i
	burst=$(jq -nc '{kind: "List", apiVersion: "v1", items: [range(30) | {apiVersion: "run.ai/v1", kind: "RunaiJob",
		metadata: {name: "burst-\(.)", namespace: "runai-team-b"},
		spec: {template: {spec: {schedulerName: "runai-scheduler", containers: [{name: "b", image: "img:b"}]}}}}]}')
	timeout $((30 * TIME_SCALE)) runai list -p team-b --watch -o name >"$BATS_TEST_TMPDIR/watch" 2>&1 &
	local pid=$!
	for i in $(seq 1 $((50 * TIME_SCALE))); do
		[ -s "$BATS_TEST_TMPDIR/watch" ] && break
		sleep 0.1
	done
	mark_requests
	sim POST /_sim/seed "$burst" >/dev/null
	for i in $(seq 1 $((60 * TIME_SCALE))); do
		[ "$(tail -n 1 "$BATS_TEST_TMPDIR/watch")" = job/other ] &&
			grep -q '^job/burst-29$' "$BATS_TEST_TMPDIR/watch" && break
		sleep 0.1
	done
	sleep 1.5	# a list per event would still be going on
	kill "$pid" 2>/dev/null || true
	wait "$pid" || true
	# the last list shows the whole burst
	run -0 awk 'BEGIN { RS = "\n\n" } END { print }' "$BATS_TEST_TMPDIR/watch"
	assert_line job/burst-0
	assert_line job/burst-29
	# 30 events, at most 3 lists (the first may catch the seed half done)
	run -0 jq -s '[.[] | select(.method == "GET" and .path == "/apis/run.ai/v1/namespaces/runai-team-b/runaijobs" and .query.watch == null)] | length' \
		< <(requests_since_mark)
	[ "$output" -ge 1 ] && [ "$output" -le 3 ]
}

@test "a list of many jobs streams in a few requests and prints every job" {
	sim POST /_sim/bulk '{"plural": "runaijobs", "namespace": "runai-team-c", "count": 1200, "prefix": "bulk-"}' >/dev/null
	mark_requests
	run -0 --separate-stderr runai list -p team-c
	[ -z "$stderr" ]
	[ "${lines[0]}" = "Showing jobs for project team-c" ]
	[ "${#lines[@]}" -eq 1202 ]
	assert_line --regexp '^bulk-0 +Running +[0-9]+s +node-[12] +gcr.io/run-ai-demo/quickstart +Train +team-c +demo-user +1 \(1\) +1 \(0\) *$'
	assert_line --regexp '^bulk-1199 +Running '
	# one page: the scheduler's annotations spare the pods
	[ "$(count_requests GET /apis/run.ai/v1/namespaces/runai-team-c/runaijobs)" -eq 1 ]
	refute_request GET /api/v1/namespaces/runai-team-c/pods
	# the API server is on this machine: no Accept-Encoding, so no gzip
	run -0 jq -s '[.[] | select(.headers."accept-encoding" != null)] | length' \
		< <(requests_since_mark)
	assert_output 0
}

@test "a connection cut after some jobs came is one line of error, exit 1, no table" {
	sim POST /_sim/faults '{"path_prefix":"/apis/run.ai/v1/namespaces/runai-team-c/runaijobs","count":5,"cut_after_bytes":20000}' >/dev/null
	run -1 --separate-stderr runai list -p team-c
	sim DELETE /_sim/faults >/dev/null
	assert_output ""
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == "runai: error: reading the response from GET $KUBESIM_URL/apis/run.ai/v1/namespaces/runai-team-c/runaijobs?limit="*" failed: "* ]]
}

# Last: hiding run.ai removes the RunaiJobs for good.
@test "without run.ai served, the other workloads and reservations still list" {
	sim POST /_sim/crd '{"runai": false}' >/dev/null
	mark_requests
	run -0 runai list -o name
	assert_output "job/orphan
job/ref-train"
	assert_request GET /apis/batch/v1/namespaces/runai-team-a/jobs
}

@test "a Deployment's pods are found through its ReplicaSet" {
	sim POST /_sim/seed '{"kind":"List","apiVersion":"v1","items":[
	 {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"infer","namespace":"runai-team-d","uid":"11111111-0000-0000-0000-000000000001"},
	  "spec":{"selector":{"matchLabels":{"app":"infer"}},"template":{"metadata":{"labels":{"app":"infer"}},"spec":{"schedulerName":"runai-scheduler","containers":[{"name":"infer","image":"img:infer"}]}}}},
	 {"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"infer-abc","namespace":"runai-team-d","uid":"11111111-0000-0000-0000-000000000002",
	  "ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"infer","uid":"11111111-0000-0000-0000-000000000001","controller":true}]},
	  "spec":{"selector":{"matchLabels":{"app":"infer"}},"template":{"metadata":{"labels":{"app":"infer"}},"spec":{"containers":[{"name":"infer","image":"img:infer"}]}}}},
	 {"apiVersion":"v1","kind":"Pod","metadata":{"name":"infer-abc-x1","namespace":"runai-team-d","labels":{"app":"infer","project":"team-d"},
	  "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"infer-abc","uid":"11111111-0000-0000-0000-000000000002","controller":true}]},
	  "spec":{"schedulerName":"runai-scheduler","nodeName":"node-2","containers":[{"name":"infer","image":"img:infer"}]},
	  "status":{"phase":"Running"}}]}' >/dev/null
	run -0 runai list -p team-d -o json
	run -0 jq -c '.items[] | {name, kind, type, node, status, pods}' <<<"$output"
	assert_output '{"name":"infer","kind":"Deployment","type":"Inference","node":"node-2","status":"Running","pods":{"running":1,"pending":0}}'
}

# Really last: the emulator is stopped (run.ai is hidden by now, so the
# list cut off is the name-reservation ConfigMaps').
@test "a server that dies in the middle of a list is one line of error, exit 1" {
	sim POST /_sim/faults '{"path_prefix":"/api/v1/namespaces/runai-team-c/configmaps","count":1,"trickle":true}' >/dev/null
	runai list -p team-c >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
	local pid=$! rc=0 i
	# until the fault is taken: the ConfigMap list has begun to trickle
	# in (a byte a second); a slow client (valgrind) gets there later
	for i in $(seq 1 $((600 * TIME_SCALE))); do
		[ "$(sim GET /_sim/faults)" = "[]" ] && break
		sleep 0.1
	done
	[ "$(sim GET /_sim/faults)" = "[]" ]
	sleep 2.5
	kill "$KUBESIM_PID"	# it hangs up the list it was sending, and exits
	wait "$pid" || rc=$?
	[ "$rc" -eq 1 ]
	run cat "$BATS_TEST_TMPDIR/out"
	assert_output ""
	run cat "$BATS_TEST_TMPDIR/err"
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "runai: error: reading the response from GET $KUBESIM_URL/api/v1/namespaces/runai-team-c/configmaps?labelSelector=base-name&limit=500 failed: "* ]]
}
