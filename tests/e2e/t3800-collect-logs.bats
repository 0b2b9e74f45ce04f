#!/usr/bin/env bats
# The support archive: runai diagnostics collect-logs and runai-adm
# collect-logs against the emulator. Pods are planted (controller
# paused) in runai and runai-backend with known log lines, a container
# that restarted, one that has not started, a name too long for
# ustar's fields, and secrets planted where objects embed them (env
# values, annotations, a RunaiJob's template, a Secret); every archive
# is listed and unpacked, each log's lines compared, the planted values
# searched for, and the requests the emulator received checked. Then
# the failures: bad options, no output directory, no cluster, Ctrl-C,
# a name already taken; and control-plane mode, whose requests the
# control plane's judge checks.

load lib/common
load lib/cp

CP_VERSION=2.24
NS_A=runai
NS_B=runai-backend
# a pod name of 200 characters: its members' paths need pax records
LONG_POD=long-$(printf 'a%.0s' $(seq 1 195))
LONG_CTR=c$(printf 'b%.0s' $(seq 1 62))

# plant_pod NS NAME PHASE CONTAINERS-JSON [STATUSES-JSON] [ANNOTATIONS-JSON]
plant_pod() {
	jq -nc --arg ns "$1" --arg name "$2" --arg phase "$3" --argjson cs "$4" \
		--argjson st "${5:-[]}" --argjson ann "${6:-{\}}" '
	  {apiVersion: "v1", kind: "Pod",
	   metadata: {name: $name, namespace: $ns, annotations: $ann},
	   spec: {nodeName: "node-1", containers: $cs},
	   status: {phase: $phase, containerStatuses: $st}}' |
		sim POST /_sim/seed - >/dev/null
}

# lines NS POD CONTAINER LINE...: appends log lines.
lines() {
	local ns=$1 pod=$2 ctr=$3
	shift 3
	jq -nc --arg ns "$ns" --arg pod "$pod" --arg c "$ctr" \
		'{namespace: $ns, pod: $pod, container: $c, lines: $ARGS.positional}' \
		--args "$@" | sim POST /_sim/logs - >/dev/null
}

setup_file() {
	cp_start
	sim POST /_sim/controller '{"paused": true}' >/dev/null
	local env last
	env='[{"name": "API_TOKEN", "value": "s3cret-planted-env"},
	      {"name": "PLAIN_SETTING", "value": "visible-value"}]'
	last=$(jq -nc --argjson env "$env" \
		'{kind: "Pod", spec: {containers: [{name: "main", env: $env}]}}')
	plant_pod $NS_A ctrl-1 Running \
		"[{\"name\":\"main\",\"image\":\"busybox\",\"env\":$env},
		  {\"name\":\"sidecar\",\"image\":\"busybox\"}]" \
		'[{"name": "main", "restartCount": 2, "ready": true,
		   "lastState": {"terminated": {"exitCode": 1}}},
		  {"name": "sidecar", "restartCount": 0, "ready": true}]' \
		"$(jq -nc --arg last "$last" '{"example.com/api-key": "s3cret-planted-annot",
		   "runai-cli-command": "runai submit -e DB_PASSWORD=s3cret-planted-cmd",
		   "kubectl.kubernetes.io/last-applied-configuration": $last}')"
	plant_pod $NS_B backend-1 Running \
		'[{"name": "api", "image": "busybox",
		   "env": [{"name": "SECRET_KEY", "value": "s3cret-planted-backend"}]}]'
	plant_pod $NS_B pending-1 Pending '[{"name": "waits", "image": "busybox"}]'
	plant_pod $NS_B "$LONG_POD" Running "[{\"name\": \"$LONG_CTR\", \"image\": \"busybox\"}]"
	lines $NS_A ctrl-1 main "main line one" "main line two"
	lines $NS_A ctrl-1 sidecar "sidecar says hi"
	lines $NS_B backend-1 api "backend ready" "serving on :8080"
	lines $NS_B "$LONG_POD" "$LONG_CTR" "a long way down"
	jq -nc '{apiVersion: "v1", kind: "Secret",
	   metadata: {name: "planted", namespace: "runai"}, type: "Opaque",
	   stringData: {password: "s3cret-planted-secret"}}' |
		sim POST /_sim/seed - >/dev/null
	jq -nc --argjson env "$env" '{apiVersion: "run.ai/v1", kind: "RunaiJob",
	   metadata: {name: "job-1", namespace: "runai-team-a"},
	   spec: {template: {spec: {containers: [{name: "job-1", image: "busybox",
	      env: $env}]}}}}' | sim POST /_sim/seed - >/dev/null
}

teardown_file() {
	kubesim_stop
}

setup() {
	isolate_env
	use_sim_kubeconfig
	OUT="$BATS_TEST_TMPDIR/out"
	X="$BATS_TEST_TMPDIR/x"
	mkdir -p "$OUT"
	BG_PID=
}

teardown() {
	[ -z "$BG_PID" ] || kill "$BG_PID" 2>/dev/null || true
	sim DELETE /_sim/faults >/dev/null || true
}

# The archive the command wrote in $OUT (exactly one file there).
archive() {
	local f
	f=$(find "$OUT" -mindepth 1 -maxdepth 1)
	[ "$(printf '%s\n' "$f" | wc -l)" -eq 1 ] || { echo "files in $OUT: $f" >&2; return 1; }
	printf '%s\n' "$f"
}

# unpack: the archive's members under $X; sets TOP (its directory).
unpack() {
	local f
	f=$(archive)
	mkdir -p "$X"
	tar xzf "$f" -C "$X"
	TOP=$(find "$X" -mindepth 1 -maxdepth 1 -type d)
	[[ $(basename "$TOP") =~ ^runai-logs-[0-9]{8}-[0-9]{6}$ ]]
}

# log_text FILE: a log member without the kubelet's timestamps.
log_text() {
	[[ $(head -n 1 "$1") =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z\  ]] ||
		{ echo "no timestamp in $1: $(head -n 1 "$1")" >&2; return 1; }
	sed 's/^[^ ]* //' "$1"
}

# expected_members TOP [MEMBER...]: the members every run over the
# planted namespaces writes, and the MEMBERs, under TOP.
expected_members() {
	local top=$1 m
	printf '%s\n' "$top/cluster/nodes.json" \
		"$top/cluster/run.ai/v1/runaijobs.json" \
		"$top/cluster/run.ai/v1/projects.json" \
		"$top/cluster/run.ai/v1/runaiconfigs.json" \
		"$top/$NS_A/pods.json" "$top/$NS_A/events.json" \
		"$top/$NS_A/pods/ctrl-1/main.log" "$top/$NS_A/pods/ctrl-1/sidecar.log" \
		"$top/$NS_B/pods.json" "$top/$NS_B/events.json" \
		"$top/$NS_B/pods/backend-1/api.log" \
		"$top/$NS_B/pods/$LONG_POD/$LONG_CTR.log" \
		"$top/summary.txt"
	for m in "${@:2}"; do
		printf '%s\n' "$top/$m"
	done
}

# check_bundle [MEMBER...]: the archive holds what was planted,
# redacted, and nothing secret.
check_bundle() {
	local f top
	f=$(archive)
	[ "$(stat -c %a "$f")" = 600 ]
	unpack
	top=$(basename "$TOP")
	tar tzf "$f" | sort >"$OUT/members"
	expected_members "$top" "$@" | sort | diff - "$OUT/members"
	# every log with its lines
	run -0 log_text "$TOP/$NS_A/pods/ctrl-1/main.log"
	assert_output $'main line one\nmain line two'
	run -0 log_text "$TOP/$NS_A/pods/ctrl-1/sidecar.log"
	assert_output "sidecar says hi"
	run -0 log_text "$TOP/$NS_B/pods/backend-1/api.log"
	assert_output $'backend ready\nserving on :8080'
	run -0 log_text "$TOP/$NS_B/pods/$LONG_POD/$LONG_CTR.log"
	assert_output "a long way down"
	# no planted secret anywhere, in the clear or base64'ed; the plain
	# value next to them is kept
	run grep -rl -e s3cret -e "$(printf s3cret | base64)" "$X"
	assert_failure 1
	assert_output ""
	run -0 jq -r '.items[] | select(.metadata.name == "ctrl-1") |
		.spec.containers[0].env[] | "\(.name)=\(.value)"' "$TOP/$NS_A/pods.json"
	assert_output $'API_TOKEN=<redacted>\nPLAIN_SETTING=visible-value'
	run -0 jq -r '.items[] | select(.metadata.name == "ctrl-1") |
		.metadata.annotations["example.com/api-key"],
		.metadata.annotations["runai-cli-command"]' "$TOP/$NS_A/pods.json"
	assert_output $'<redacted>\nrunai submit -e DB_PASSWORD=<redacted>'
	run -0 jq -r '.items[] | select(.metadata.name == "job-1") |
		.spec.template.spec.containers[0].env[0].value' \
		"$TOP/cluster/run.ai/v1/runaijobs.json"
	assert_output "<redacted>"
	# the summary says what was left out and why
	run -0 cat "$TOP/summary.txt"
	assert_line "  no-such-ns: namespace not found, skipped"
	assert_line --regexp "^  $NS_B/pods/pending-1/waits.log: container \"waits\" in pod \"pending-1\" is waiting to start"
	assert_line --regexp "^  $NS_A/pods/ctrl-1/main.previous.log: no previous instance's log \(previous terminated container \"main\" in pod \"ctrl-1\" not found\)$"
	assert_line "  API group scheduling.run.ai: not served by this cluster"
	assert_line "Totals: 4 logs from 3 pods in 2 namespaces, 2 skipped"
}

NAMESPACES="$NS_A,$NS_B,no-such-ns"

@test "runai diagnostics collect-logs archives every log and the objects, redacted" {
	mark_requests
	run -0 --separate-stderr runai diagnostics collect-logs --namespaces "$NAMESPACES" \
		--output-dir "$OUT/"
	assert_output --regexp "^wrote $OUT/runai-logs-[0-9]{8}-[0-9]{6}\.tar\.gz: 4 logs from 3 pods in 2 namespaces, 2 skipped$"
	[ "${output%%:*}" = "wrote $(archive)" ]
	# no progress on a stderr that is no terminal
	[ -z "$stderr" ]
	check_bundle
	# the previous log only of the container that restarted; every log
	# with timestamps; no Secret read at all
	assert_request GET "/api/v1/namespaces/$NS_A/pods/ctrl-1/log" \
		'.query == {container: ["main"], timestamps: ["true"], previous: ["true"]}'
	assert_request GET "/api/v1/namespaces/$NS_A/pods/ctrl-1/log" \
		'.query == {container: ["sidecar"], timestamps: ["true"]}'
	[ "$(requests_since_mark | jq -c 'select(.query.previous)' | wc -l)" -eq 1 ]
	[ "$(requests_since_mark | jq -c 'select(.path | test("secrets"))' | wc -l)" -eq 0 ]
	assert_request GET /apis
	assert_request GET /apis/run.ai/v1/runaijobs
}

@test "runai-adm collect-logs adds preflight's report of the cluster" {
	run -0 runai-adm collect-logs --namespaces "$NAMESPACES" --output-dir "$OUT"
	assert_output --regexp "^wrote $OUT/runai-logs-[0-9]{8}-[0-9]{6}\.tar\.gz: 4 logs from 3 pods in 2 namespaces, 2 skipped$"
	check_bundle preflight.txt
	run -0 cat "$TOP/preflight.txt"
	assert_line "context: kube-sim"
	assert_line --regexp "^k8s\.version +PASS +Kubernetes v1\.32\.5"
	assert_line --regexp "^11 checks: "
	refute_output --partial "net.registry"
	run -0 grep -x "Written by: runai-adm .*" "$TOP/summary.txt"
}

@test "--no-previous asks for no previous log; the default namespaces" {
	mark_requests
	run -0 runai diagnostics collect-logs --no-previous --output-dir "$OUT"
	# runai and runai-backend are there, the other five are missing
	assert_output --regexp ": 4 logs from 3 pods in 2 namespaces, 6 skipped$"
	[ "$(requests_since_mark | jq -c 'select(.query.previous)' | wc -l)" -eq 0 ]
	for ns in runai-reservation runai-backend training-operator knative gpu-operator nim-operator; do
		assert_request GET "/api/v1/namespaces/$ns"
	done
	unpack
	run -0 grep -c "namespace not found, skipped" "$TOP/summary.txt"
	assert_output 5
	run -0 grep -x "Previous logs: not asked for" "$TOP/summary.txt"
}

@test "bad options are refused before anything is sent" {
	mark_requests
	run -2 runai diagnostics collect-logs --namespaces 'runai,Bad_Name'
	assert_output --partial "runai: error: --namespaces: 'Bad_Name' is not a namespace name"
	run -2 runai-adm collect-logs --namespaces 'runai,'
	assert_output --partial "runai-adm: error: --namespaces: '' is not a namespace name"
	run -2 runai diagnostics collect-logs --output-dir ''
	assert_output --partial "--output-dir must not be empty"
	run -2 runai diagnostics collect-logs extra
	[ "$(requests_since_mark | wc -l)" -eq 0 ]
}

@test "an output directory that is not there, or not a directory, is one line" {
	run -1 runai diagnostics collect-logs --output-dir "$OUT/none"
	assert_output "runai: error: output directory '$OUT/none': No such file or directory"
	touch "$OUT/file"
	run -1 runai-adm collect-logs --output-dir "$OUT/file"
	assert_output "runai-adm: error: output directory '$OUT/file': Not a directory"
	run -0 ls -A "$OUT"
	assert_output file
}

@test "a directory it may not write to is one line, and leaves nothing" {
	local dir=$OUT
	if [ "$(id -u)" -eq 0 ]; then
		# root writes anywhere on a disk; sysfs refuses it files
		dir=/sys
		! touch /sys/t3800-probe 2>/dev/null || skip "root may create files in /sys here"
	else
		chmod 555 "$OUT"
	fi
	run -1 runai diagnostics collect-logs --output-dir "$dir"
	chmod 755 "$OUT"
	assert_output "runai: error: cannot create a file in output directory '$dir': Permission denied"
	[ -z "$(ls -A "$OUT")" ]
	[ -z "$(find "$dir" -maxdepth 1 -name 'runai-logs-*' 2>/dev/null)" ]
}

@test "no cluster: nothing collected, exit 1, no file left" {
	local port
	port=$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	sed -i "s#server: .*#server: https://127.0.0.1:$port#" "$KUBECONFIG"
	RUNAI_MAX_RETRIES=0 run -1 runai diagnostics collect-logs --output-dir "$OUT"
	assert_output --regexp "^runai: error: nothing could be collected: .*127\.0\.0\.1:$port"
	[ "${#lines[@]}" -eq 1 ]
	[ -z "$(ls -A "$OUT")" ]
	RUNAI_MAX_RETRIES=0 run -1 runai-adm collect-logs --output-dir "$OUT"
	assert_output --partial "runai-adm: error: nothing could be collected"
	[ -z "$(ls -A "$OUT")" ]
}

@test "only missing namespaces: the cluster's objects are still written" {
	run -0 runai diagnostics collect-logs --namespaces no-such-ns --output-dir "$OUT"
	assert_output --regexp ": 0 logs from 0 pods in 0 namespaces, 1 skipped$"
	unpack
	run -0 grep -x "  no-such-ns: namespace not found, skipped" "$TOP/summary.txt"
	[ -s "$TOP/cluster/nodes.json" ]
}

@test "Ctrl-C while a log streams leaves no file" {
	sim POST /_sim/faults "{\"path_prefix\": \"/api/v1/namespaces/$NS_A/pods/ctrl-1/log\", \"delay\": 30}" >/dev/null
	env --default-signal=INT runai diagnostics collect-logs --namespaces "$NS_A" \
		--output-dir "$OUT" >"$OUT.stdout" 2>"$OUT.stderr" &
	BG_PID=$!
	for _ in $(seq 1 $((100 * TIME_SCALE))); do
		compgen -G "$OUT/*.tmp.*" >/dev/null && break
		sleep 0.1
	done
	run -0 ls -A "$OUT"
	assert_output --regexp '^runai-logs-[0-9]{8}-[0-9]{6}\.tar\.gz\.tmp\.'
	# the temp file is there while the log's request waits
	sleep 0.5
	kill -INT "$BG_PID"
	local status=0
	wait "$BG_PID" || status=$?
	BG_PID=
	[ "$status" -eq 130 ]
	run -0 ls -A "$OUT"
	assert_output ""
	[ ! -s "$OUT.stdout" ]
}

@test "a name already taken is never replaced" {
	local t i
	# this second's name and those of the next 30 s are taken (a loaded
	# machine may start the command, and name its archive, seconds later)
	t=$(date +%s)
	for i in $(seq 0 $((30 * TIME_SCALE))); do
		echo "mine $i" >"$OUT/runai-logs-$(date -d "@$((t + i))" +%Y%m%d-%H%M%S).tar.gz"
	done
	run -0 runai diagnostics collect-logs --namespaces "$NS_A" --output-dir "$OUT"
	assert_output --regexp "^wrote $OUT/runai-logs-[0-9]{8}-[0-9]{6}-2\.tar\.gz: "
	for i in $(seq 0 $((30 * TIME_SCALE))); do
		[ "$(cat "$OUT/runai-logs-$(date -d "@$((t + i))" +%Y%m%d-%H%M%S).tar.gz")" = "mine $i" ]
	done
	[ "$(find "$OUT" -name '*-2.tar.gz' | wc -l)" -eq 1 ]
	tar tzf "$(find "$OUT" -name '*-2.tar.gz')" | grep -q '/summary.txt$'
}

@test "on a terminal, progress is shown on stderr and cleared" {
	command -v script >/dev/null || skip "script(1) not installed"
	run -0 script -qec "runai diagnostics collect-logs --namespaces $NS_A --output-dir $OUT 2>&1" /dev/null
	assert_output --partial "collecting $NS_A/pods/ctrl-1/main.log"
	assert_output --partial $'\r\033[Kwrote '
}

@test "control-plane mode collects through the cluster's Kubernetes API" {
	cp_setup
	cp_login
	runai config project team-a >/dev/null
	mark_requests
	run -0 runai diagnostics collect-logs --namespaces "$NAMESPACES" --output-dir "$OUT"
	assert_output --regexp ": 4 logs from 3 pods in 2 namespaces, 2 skipped$"
	check_bundle
	assert_request GET "/api/v1/namespaces/$NS_A/pods/ctrl-1/log"
}

@test "control-plane mode without a way to the cluster's API is one line" {
	cp_setup
	cp_login
	runai config project team-a >/dev/null
	# no kubeconfig: the control plane alone has no API for pods
	KUBECONFIG="$BATS_TEST_TMPDIR/none" RUNAI_CONTROL_PLANE_URL=$CP_URL \
		run -1 runai diagnostics collect-logs -p team-a --output-dir "$OUT"
	assert_line --index 0 "runai: error: in control-plane mode 'runai diagnostics collect-logs' goes through the cluster's Kubernetes API: no current context is set: no kubeconfig found at KUBECONFIG=$BATS_TEST_TMPDIR/none; set KUBECONFIG or use --kubeconfig"
	assert_line --index 1 --partial "hint: "
	[ "${#lines[@]}" -eq 2 ]
	# a context whose server does not answer: nothing collected
	sed -i "s#server: .*#server: https://127.0.0.1:1#" "$KUBECONFIG"
	RUNAI_MAX_RETRIES=0 run -1 runai diagnostics collect-logs --output-dir "$OUT"
	assert_output --regexp "^runai: error: nothing could be collected: "
	[ -z "$(ls -A "$OUT")" ]
}

# Last but the judge: the run.ai CRDs are taken away for good.
@test "a cluster that serves no run.ai group: noted, not an error" {
	sim POST /_sim/crd '{"runai": false}' >/dev/null
	mark_requests
	run -0 runai-adm collect-logs --namespaces "$NS_A" --output-dir "$OUT"
	assert_output --regexp ": 2 logs from 1 pod in 1 namespace, 0 skipped$"
	unpack
	[ ! -e "$TOP/cluster/run.ai" ]
	run -0 cat "$TOP/summary.txt"
	assert_line "  API group run.ai: not served by this cluster"
	assert_line "  API group scheduling.run.ai: not served by this cluster"
	assert_line "  no API group under run.ai is served by this cluster"
	refute_request GET /apis/run.ai/v1
}

@test "the judge saw no schema violation" {
	run -0 cat "$CP_VIOLATIONS"
	assert_output ""
}
