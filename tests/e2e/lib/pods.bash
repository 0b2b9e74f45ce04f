# Helpers for tests that drive a job's pod by hand through the emulator
# (its controller paused): start it, move its phase, append log lines,
# and run runai in the background with every process stopped by its PID.
# Needs NS (the project's namespace) and, for bg, a BG_PIDS array that the
# file's teardown kills.
# shellcheck disable=SC2034 # BG_PID and BG_STATUS are read by the callers

# The emulator with the demo projects and its controller paused: pods
# move only when a test says so.
pods_setup_file() {
	kubesim_start --demo
	sim POST /_sim/controller '{"paused": true}' >/dev/null
}

# Each test: its own HOME, the emulator's kubeconfig in project NS.
pods_setup() {
	isolate_env
	use_sim_kubeconfig
	sed -i "s/namespace: .*/namespace: $NS/" "$KUBECONFIG"
	BG_PIDS=()
}

# Every process the test started is stopped by its PID; faults are
# disarmed (retried: the emulator may be coming back from an outage).
pods_teardown() {
	local pid
	for pid in "${BG_PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	wait_until 200 sim DELETE /_sim/faults >/dev/null || true
}

# wait_until TRIES CMD...: runs CMD every 0.05 s until it succeeds, at
# most TRIES times TIME_SCALE.
wait_until() {
	local tries=$(($1 * TIME_SCALE)) i
	shift
	for ((i = 0; i < tries; i++)); do
		"$@" && return 0
		sleep 0.05
	done
	"$@"
}

# bg OUT ERR CMD...: runs CMD in the background with stdout and stderr in
# files and SIGINT at its default action (a background job of a
# non-interactive shell would ignore it); sets BG_PID.
bg() {
	local out=$1 err=$2
	shift 2
	env --default-signal=INT "$@" >"$out" 2>"$err" &
	BG_PID=$!
	BG_PIDS+=("$BG_PID")
}

# wait_exit PID: waits (at most 20 s, times TIME_SCALE) for PID to end;
# sets BG_STATUS.
wait_exit() {
	wait_until 400 eval '! kill -0 '"$1"' 2>/dev/null' || return 1
	BG_STATUS=0
	wait "$1" || BG_STATUS=$?
}

# job_running NAME: submits the job and starts its pod; prints the pod.
job_running() {
	local out
	runai submit "$1" -i busybox >/dev/null || return 1
	out=$(sim POST /_sim/phase "{\"namespace\":\"$NS\",\"workload\":\"$1\",\"phase\":\"Running\"}") ||
		return 1
	jq -er '.items[0].metadata.name' <<<"$out"
}

# add_lines POD [CONTAINER] -- LINE...: appends log lines.
add_lines() {
	local pod=$1 container=null
	shift
	if [ "$1" != -- ]; then
		container="\"$1\""
		shift
	fi
	shift
	jq -nc --arg ns "$NS" --arg pod "$pod" --argjson c "$container" \
		'{namespace: $ns, pod: $pod, container: $c, lines: $ARGS.positional}' \
		--args "$@" | sim POST /_sim/logs - >/dev/null
}

# add_seq POD FROM TO: appends the numbers FROM..TO as lines, in one go.
add_seq() {
	seq "$2" "$3" | jq -R . | jq -sc --arg ns "$NS" --arg pod "$1" \
		'{namespace: $ns, pod: $pod, lines: .}' | sim POST /_sim/logs - >/dev/null
}

phase() {
	sim POST /_sim/phase "{\"namespace\":\"$NS\",\"pod\":\"$1\",\"phase\":\"$2\"}" >/dev/null
}

# The pod's log as the emulator holds it: "<time> <line>" per line.
stamped_log() {
	sim GET "/_sim/logs?namespace=$NS&pod=$1${2:+&container=$2}" |
		jq -r '.lines[] | "\(.time) \(.line)"'
}
