#!/usr/bin/env bats
# runai logs against the emulator: each flag with its exact output and
# request, the chief pod and --pod, containers, waiting for a starting
# pod, -f until the pod ends, -f through injected connection cuts (every
# line exactly once), errors, a reader that leaves, and Ctrl-C. Where
# kubectl 1.32 is installed, it reads the same logs and must agree.
#
# The controller is paused for the whole file: pods are moved with
# /_sim/phase and log lines are added with /_sim/logs, so nothing depends
# on the controller's own timing or its log lines.

load lib/common
load lib/pods

NS=runai-team-a

setup_file() {
	pods_setup_file
}

teardown_file() {
	kubesim_stop
}

setup() {
	pods_setup
}

teardown() {
	pods_teardown
}

kubectl() {
	"$KUBECTL_132" "$@"
}

need_kubectl() {
	have_kubectl_132 || skip "kubectl 1.32 not installed at $KUBECTL_132"
}

# seed_pod JOB NAME CREATED [CONTAINERS-JSON]: another Running pod of the
# job, created at CREATED.
seed_pod() {
	local uid cs=$4
	[ -n "$cs" ] || cs='[{"name":"'"$1"'","image":"busybox"}]'
	uid=$(get_obj "/apis/run.ai/v1/namespaces/$NS/runaijobs/$1" | jq -r .metadata.uid)
	jq -nc --arg ns "$NS" --arg job "$1" --arg name "$2" --arg t "$3" \
		--arg uid "$uid" --argjson cs "$cs" '
	  {apiVersion: "v1", kind: "Pod",
	   metadata: {name: $name, namespace: $ns, creationTimestamp: $t,
	              labels: {release: $job, app: "runaijob"},
	              ownerReferences: [{apiVersion: "run.ai/v1", kind: "RunaiJob",
	                                 name: $job, uid: $uid, controller: true}]},
	   spec: {schedulerName: "runai-scheduler", nodeName: "node-1", containers: $cs},
	   status: {phase: "Running"}}' | sim POST /_sim/seed - >/dev/null
}

older_than_1s() {
	[ "$(($(date +%s%N) - $(date -d "$1" +%s%N)))" -gt 1100000000 ]
}

faults_used_up() {
	[ "$(sim GET /_sim/faults | jq length)" -eq 0 ]
}

has_lines() {
	[ "$(wc -l <"$1")" -eq "$2" ]
}

log_requests() {
	requests_since_mark | jq -c 'select(.path | endswith("/log")) | .query'
}

# --- plain reads and each flag ------------------------------------------------

@test "logs prints the log of the job's pod as it is" {
	local pod
	pod=$(job_running plain)
	add_lines "$pod" -- one "two  with  spaces" "" three
	mark_requests
	run -0 --separate-stderr runai logs plain
	assert_output "one
two  with  spaces

three"
	[ -z "$stderr" ]
	# one request, no follow, no timestamps, no window
	[ "$(log_requests)" = '{}' ]
	assert_request GET "/api/v1/namespaces/$NS/pods/$pod/log"
}

@test "--tail, --timestamps and --since-time print exactly their lines" {
	local pod t1 t2 mid
	pod=$(job_running flags)
	add_lines "$pod" -- one
	add_lines "$pod" -- two three
	mark_requests
	run -0 runai logs flags --tail 2
	assert_output "two
three"
	run -0 runai logs flags -t 0
	assert_output ""
	run -0 runai logs flags --tail -1
	assert_output "one
two
three"
	run -0 runai logs flags --timestamps
	assert_output "$(stamped_log "$pod")"
	[[ ${lines[0]} =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}\.[0-9]{9}Z\ one$ ]]
	run -0 runai logs flags --timestamps --tail 1
	assert_output "$(stamped_log "$pod" | tail -n 1)"
	# between the two appends: kube-sim keeps microseconds
	t1=$(date -d "$(stamped_log "$pod" | sed -n '1s/ .*//p')" +%s%N)
	t2=$(date -d "$(stamped_log "$pod" | sed -n '2s/ .*//p')" +%s%N)
	mid=$(((t1 + t2) / 2))
	mid=$(date -u -d "@$((mid / 1000000000))" +%Y-%m-%dT%H:%M:%S).$(printf %06d $((mid % 1000000000 / 1000)))Z
	run -0 runai logs flags --since-time "$mid"
	assert_output "two
three"
	run -0 runai logs flags --since-time 2099-01-01T00:00:00Z
	assert_output ""
	run -0 log_requests
	assert_output "{\"tailLines\":[\"2\"]}
{\"tailLines\":[\"0\"]}
{}
{\"timestamps\":[\"true\"]}
{\"timestamps\":[\"true\"],\"tailLines\":[\"1\"]}
{\"sinceTime\":[\"$mid\"]}
{\"sinceTime\":[\"2099-01-01T00:00:00Z\"]}"
}

@test "--since prints only the lines newer than the duration" {
	local pod t_old
	pod=$(job_running since)
	add_lines "$pod" -- old
	t_old=$(stamped_log "$pod" | sed 's/ .*//')
	# wait until "old" is more than a second old (the shortest --since);
	# it only gets older, so this holds however slow the client is
	wait_until 60 older_than_1s "$t_old"
	mark_requests
	run -0 runai logs since --since 1s
	assert_output ""
	add_lines "$pod" -- new
	run -0 runai logs since --since 1h
	assert_output "old
new"
	run -0 log_requests
	assert_output '{"sinceSeconds":["1"]}
{"sinceSeconds":["3600"]}'
}

@test "the newest pod is the chief; --pod picks another of the job's pods" {
	local pod
	pod=$(job_running twopods)
	seed_pod twopods twopods-old 2000-01-01T00:00:00Z
	add_lines "$pod" -- "from the chief"
	add_lines twopods-old -- "from the old pod"
	run -0 runai logs twopods
	assert_output "from the chief"
	run -0 runai logs twopods --pod twopods-old
	assert_output "from the old pod"
	# a pod created later becomes the chief
	seed_pod twopods twopods-new 2099-01-01T00:00:00Z
	add_lines twopods-new -- "from the newest"
	run -0 runai logs twopods
	assert_output "from the newest"
}

@test "--container picks the container; the default is the first, said on stderr" {
	local pod
	pod=$(job_running twoc)
	seed_pod twoc twoc-pod 2099-01-01T00:00:00Z \
		'[{"name":"main","image":"busybox"},{"name":"side","image":"busybox"}]'
	add_lines twoc-pod main -- "main says"
	add_lines twoc-pod side -- "side says"
	mark_requests
	run -0 --separate-stderr runai logs twoc --container side
	assert_output "side says"
	[ -z "$stderr" ]
	run -0 --separate-stderr runai logs twoc
	assert_output "main says"
	stderr_is 'Defaulted container "main" out of: main, side'
	run -0 log_requests
	assert_output '{"container":["side"]}
{"container":["main"]}'
	run -1 --separate-stderr runai logs twoc -c nope
	stderr_is "runai: error: container nope is not valid for pod twoc-pod (its containers: main, side)"
	[ -z "$output" ]
}

# --- errors -------------------------------------------------------------------

@test "a job that does not exist, a pod not in the job: one clear line, exit 1" {
	local pod
	run -1 --separate-stderr runai logs nosuch
	stderr_is "runai: error: The job nosuch does not exist in project team-a. If the job exists in a different project, use -p <project name>."
	[ -z "$output" ]
	pod=$(job_running errjob)
	run -1 --separate-stderr runai logs errjob --pod someone-else
	stderr_is "runai: error: pod someone-else is not a pod of job errjob (its pods: $pod)"
	[ -z "$output" ]
}

@test "bad flag values are refused before any request" {
	mark_requests
	run -2 --separate-stderr runai logs anyjob --since 1m --since-time 2024-01-01T00:00:00Z
	stderr_is "runai: error: --since and --since-time cannot be used together"
	run -2 --separate-stderr runai logs anyjob --since-time yesterday
	stderr_is "runai: error: --since-time 'yesterday' is not an RFC 3339 time such as 2024-05-06T07:08:09Z"
	run -2 --separate-stderr runai logs anyjob --tail -2
	stderr_is "runai: error: --tail must be -1 (all lines) or more, not -2"
	[ "$(requests_since_mark | wc -l)" -eq 0 ]
}

# --- starting pods --------------------------------------------------------------

@test "a starting pod is waited for with one line on stderr, then followed" {
	local pod
	runai submit starting -i busybox >/dev/null
	sim POST /_sim/tick '{"steps": 1}' >/dev/null
	pod=$(get_obj "/api/v1/namespaces/$NS/pods?labelSelector=release%3Dstarting" |
		jq -r '.items[0].metadata.name')
	[ "$(get_obj "/api/v1/namespaces/$NS/pods/$pod" | jq -r .status.phase)" = Pending ]
	bg "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/err" runai logs -f starting
	wait_until 200 grep -q "Waiting for pod $pod to start" "$BATS_TEST_TMPDIR/err"
	phase "$pod" Running
	add_lines "$pod" -- first second
	wait_until 200 grep -q second "$BATS_TEST_TMPDIR/out"
	phase "$pod" Succeeded
	wait_exit "$BG_PID"
	[ "$BG_STATUS" -eq 0 ]
	[ "$(cat "$BATS_TEST_TMPDIR/out")" = "first
second" ]
	[ "$(cat "$BATS_TEST_TMPDIR/err")" = "Waiting for pod $pod to start..." ]
}

@test "a job without a pod yet is waited for too" {
	local pod
	runai submit nopod -i busybox >/dev/null
	bg "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/err" runai logs nopod
	wait_until 200 grep -q "Waiting for job nopod to get a pod" "$BATS_TEST_TMPDIR/err"
	pod=$(sim POST /_sim/phase "{\"namespace\":\"$NS\",\"workload\":\"nopod\",\"phase\":\"Running\"}" |
		jq -r '.items[0].metadata.name')
	wait_exit "$BG_PID"
	[ "$BG_STATUS" -eq 0 ]
	[ ! -s "$BATS_TEST_TMPDIR/out" ]
	[ "$(cat "$BATS_TEST_TMPDIR/err")" = "Waiting for job nopod to get a pod..." ]
	[ -n "$pod" ]
}

@test "a pod that does not start in time is the contract's error" {
	local pod
	runai submit stuck -i busybox >/dev/null
	sim POST /_sim/tick '{"steps": 1}' >/dev/null
	pod=$(get_obj "/api/v1/namespaces/$NS/pods?labelSelector=release%3Dstuck" |
		jq -r '.items[0].metadata.name')
	run -1 --separate-stderr runai logs stuck --pod-running-timeout 1s
	[ "$stderr" = "Waiting for pod $pod to start...
runai: error: instance $pod is not running, please use \"runai describe job\" to get more information." ] ||
		{ echo "stderr: $stderr" >&2; false; }
	[ -z "$output" ]
}

@test "a finished pod's log is printed, with or without -f" {
	local pod
	pod=$(job_running done1)
	add_lines "$pod" -- a b
	phase "$pod" Succeeded
	run -0 runai logs done1
	assert_output "a
b"
	run -0 runai logs done1 -f
	assert_output "a
b"
}

# --- following ------------------------------------------------------------------

@test "-f prints lines as they come and ends when the pod ends" {
	local pod
	pod=$(job_running follow1)
	add_lines "$pod" -- before
	mark_requests
	bg "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/err" runai logs -f follow1
	wait_until 200 grep -qx before "$BATS_TEST_TMPDIR/out"
	add_lines "$pod" -- after1
	wait_until 200 grep -qx after1 "$BATS_TEST_TMPDIR/out"
	add_lines "$pod" -- after2
	phase "$pod" Succeeded
	wait_exit "$BG_PID"
	[ "$BG_STATUS" -eq 0 ]
	[ "$(cat "$BATS_TEST_TMPDIR/out")" = "before
after1
after2" ]
	[ ! -s "$BATS_TEST_TMPDIR/err" ]
	run -0 log_requests
	assert_output '{"follow":["true"],"timestamps":["true"]}'
}

@test "-f on a pod that is deleted ends with an error saying so" {
	local pod
	pod=$(job_running gone1)
	add_lines "$pod" -- here
	bg "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/err" runai logs -f gone1
	wait_until 200 grep -qx here "$BATS_TEST_TMPDIR/out"
	kube_api -X DELETE -o /dev/null "$KUBESIM_URL/api/v1/namespaces/$NS/pods/$pod"
	wait_exit "$BG_PID"
	[ "$BG_STATUS" -eq 1 ]
	[ "$(cat "$BATS_TEST_TMPDIR/out")" = here ]
	[ "$(cat "$BATS_TEST_TMPDIR/err")" = "runai: error: pod $pod of job gone1 was deleted" ]
}

@test "-f --tail 1 --timestamps keeps the stamps and starts at the tail" {
	local pod
	pod=$(job_running follow2)
	add_lines "$pod" -- x y
	bg "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/err" runai logs -f --tail 1 --timestamps follow2
	wait_until 200 grep -q ' y$' "$BATS_TEST_TMPDIR/out"
	add_lines "$pod" -- z
	phase "$pod" Succeeded
	wait_exit "$BG_PID"
	[ "$BG_STATUS" -eq 0 ]
	[ "$(cat "$BATS_TEST_TMPDIR/out")" = "$(stamped_log "$pod" | tail -n 2)" ]
}

# follow_through_cuts JOB CUTS BYTES [FLAGS...]: follows while the log
# requests are cut CUTS times after BYTES bytes, appends 200 numbered
# lines in one go, finishes the pod; the output is in $BATS_TEST_TMPDIR/out.
follow_through_cuts() {
	local job=$1 cuts=$2 bytes=$3 pod
	shift 3
	pod=$(job_running "$job")
	FOLLOW_POD=$pod
	add_lines "$pod" -- 0
	sim POST /_sim/faults "{\"path_prefix\":\"/api/v1/namespaces/$NS/pods/$pod/log\",\"count\":$cuts,\"cut_after_bytes\":$bytes}" >/dev/null
	mark_requests
	bg "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/err" runai -v logs -f "$job" "$@"
	wait_until 200 grep -q 0 "$BATS_TEST_TMPDIR/out"
	add_seq "$pod" 1 200
	# every cut is used up, then the pod ends
	wait_until 400 faults_used_up
	wait_until 400 grep -q ' 200$\|^200$' "$BATS_TEST_TMPDIR/out"
	phase "$pod" Succeeded
	wait_exit "$BG_PID"
	[ "$BG_STATUS" -eq 0 ]
}

@test "-f through connection cuts prints every line exactly once" {
	follow_through_cuts cut1 6 300
	diff <(seq 0 200) "$BATS_TEST_TMPDIR/out"
	# the cuts happened, and each reconnect resumed with sinceTime
	[ "$(log_requests | wc -l)" -ge 7 ]
	[ "$(log_requests | jq -s '[.[1:][] | select(.sinceTime)] | length')" -ge 6 ]
	[ "$(grep -c 'reconnecting in' "$BATS_TEST_TMPDIR/err")" -ge 6 ]
}

@test "-f --timestamps through cuts in the middle of lines: exactly once, stamps kept" {
	# 100 bytes: about two and a half stamped lines, so cuts fall mid-line
	follow_through_cuts cut2 12 100 --timestamps
	diff <(stamped_log "$FOLLOW_POD") "$BATS_TEST_TMPDIR/out"
	[ "$(log_requests | wc -l)" -ge 13 ]
}

@test "runai logs -f JOB | head -n 3 ends quietly when head leaves" {
	local pod
	pod=$(job_running headjob)
	add_lines "$pod" -- 1 2 3 4 5
	bg "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/err" \
		bash -c 'runai logs -f headjob | head -n 3; echo "${PIPESTATUS[*]}" >"$0"' \
		"$BATS_TEST_TMPDIR/status"
	wait_until 200 has_lines "$BATS_TEST_TMPDIR/out" 3
	# the next line finds the pipe closed
	add_lines "$pod" -- 6
	wait_exit "$BG_PID"
	[ "$(cat "$BATS_TEST_TMPDIR/out")" = "1
2
3" ]
	[[ "$(cat "$BATS_TEST_TMPDIR/status")" =~ ^(0|141)\ 0$ ]]
	[ ! -s "$BATS_TEST_TMPDIR/err" ]
}

@test "Ctrl-C ends -f quietly with status 130" {
	local pod
	pod=$(job_running intr)
	add_lines "$pod" -- running
	bg "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/err" runai logs -f intr
	wait_until 200 grep -qx running "$BATS_TEST_TMPDIR/out"
	kill -INT "$BG_PID"
	wait_exit "$BG_PID"
	[ "$BG_STATUS" -eq 130 ]
	[ ! -s "$BATS_TEST_TMPDIR/err" ]
	[ "$(cat "$BATS_TEST_TMPDIR/out")" = running ]
}

# --- kubectl reads the same logs ------------------------------------------------

@test "kubectl 1.32 agrees with runai logs on every flag" {
	need_kubectl
	local pod f
	pod=$(job_running kc)
	seed_pod kc kc-two 2099-01-01T00:00:00Z \
		'[{"name":"main","image":"busybox"},{"name":"side","image":"busybox"}]'
	add_lines "$pod" -- one "two  spaced" three
	add_lines kc-two side -- "side 1" "side 2"
	# (kubectl sends --since-time in whole seconds, so whole seconds here)
	for f in "" "--tail 2" "--tail 0" "--timestamps" "--since 1h" \
		"--since-time 2000-01-01T00:00:00Z" \
		"--since-time 2099-01-01T00:00:00Z" "--timestamps --tail 1"; do
		# shellcheck disable=SC2086
		run -0 kubectl logs -n "$NS" "$pod" $f
		local want=$output
		# shellcheck disable=SC2086
		run -0 runai logs kc --pod "$pod" $f
		[ "$output" = "$want" ] || { echo "differ with '$f': runai '$output' kubectl '$want'" >&2; false; }
	done
	run -0 kubectl logs -n "$NS" kc-two -c side
	[ "$output" = "side 1
side 2" ]
	run -0 runai logs kc -c side
	[ "$output" = "side 1
side 2" ]
	phase "$pod" Succeeded
	run -0 kubectl logs -f -n "$NS" "$pod"
	[ "$output" = "one
two  spaced
three" ]
}

@test "kubectl 1.32 -f sees the lines up to a cut, as the emulator sends them" {
	need_kubectl
	local pod
	pod=$(job_running kccut)
	add_seq "$pod" 1 100
	# 100 bytes of "1\n2\n...": kubectl prints exactly those, then the cut
	sim POST /_sim/faults "{\"path_prefix\":\"/api/v1/namespaces/$NS/pods/$pod/log\",\"count\":1,\"cut_after_bytes\":100}" >/dev/null
	bg "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/err" kubectl logs -f -n "$NS" "$pod"
	wait_exit "$BG_PID"
	[ "$(cat "$BATS_TEST_TMPDIR/out")" = "$(seq 1 100 | head -c 100)" ]
	# runai, cut the same way, goes on to the end
	sim POST /_sim/faults "{\"path_prefix\":\"/api/v1/namespaces/$NS/pods/$pod/log\",\"count\":1,\"cut_after_bytes\":100}" >/dev/null
	phase "$pod" Succeeded
	run -0 runai logs -f kccut
	[ "$output" = "$(seq 1 100)" ]
}
