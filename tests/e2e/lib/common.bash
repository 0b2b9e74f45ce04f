# Shared setup for the Bats end-to-end tests.
#
# Every test file does:
#     load lib/common
# and then, in setup_file, starts the peers it needs (kubesim_start), and in
# teardown_file stops them (kubesim_stop). Each test gets its own HOME,
# KUBECONFIG and cache directories under $BATS_TEST_TMPDIR, so no test can
# touch the developer's real ~/.kube or another test's files.

bats_require_minimum_version 1.5.0
bats_load_library bats-support
bats_load_library bats-assert

TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
export TOP
# The binaries under test: the build tree by default, an installed tree with
# RAI_BIN_DIR=/usr/bin.
RAI_BIN_DIR=${RAI_BIN_DIR:-$TOP}
PATH="$RAI_BIN_DIR:$PATH"
export PATH
PYTHON=${PYTHON:-/usr/bin/python3}
# Tests that race a timeout against a delay scale both by TIME_SCALE, and
# so does every deadline a test waits for a condition with: under
# valgrind a TLS handshake alone can take a second. RAI_TIME_SCALE sets
# it (tests/run checks it is a positive number).
# shellcheck disable=SC2034 # read by the test files
TIME_SCALE=${RAI_TIME_SCALE:-$(( ${RAI_VALGRIND:-0} == 1 ? 5 : 1 ))}
# scaled SECONDS: SECONDS (a decimal, as rntop's -d takes) times TIME_SCALE
scaled() {
	awk -v s="$1" -v k="$TIME_SCALE" 'BEGIN { print s * k }'
}
KUBECTL_132=${KUBECTL_132:-/usr/lib/google-cloud-sdk/bin/kubectl.1.32}

# Point every per-user location into the test's own directory.
isolate_env() {
	export HOME="$BATS_TEST_TMPDIR/home"
	export XDG_CONFIG_HOME="$HOME/.config"
	export XDG_CACHE_HOME="$HOME/.cache"
	export KUBECACHEDIR="$HOME/.kube/cache"
	mkdir -p "$HOME/.kube" "$XDG_CONFIG_HOME" "$XDG_CACHE_HOME"
	unset KUBECONFIG RUNAI_VERBOSITY NO_COLOR RUNAI_PROJECT
	export LC_ALL=C.UTF-8
}

# kubesim_start [kube-sim options...]
# Starts the cluster emulator on a free loopback port with its state under
# $BATS_FILE_TMPDIR/sim and waits until it serves. Exports:
#   KUBESIM_DIR KUBESIM_URL KUBESIM_PORT KUBESIM_CA KUBESIM_TOKEN
#   KUBESIM_KUBECONFIG (admin, bearer token)  KUBESIM_PID
#   KUBESIM_SIM_TOKEN_FILE (the /_sim credential, mode 0600)
kubesim_start() {
	KUBESIM_DIR="$BATS_FILE_TMPDIR/sim"
	mkdir -p "$KUBESIM_DIR"
	"$PYTHON" "$TOP/contrib/kube-sim/kube-sim" --state-dir "$KUBESIM_DIR" \
		--port 0 "$@" >"$KUBESIM_DIR/server.log" 2>&1 &
	KUBESIM_PID=$!
	local _
	for _ in $(seq 1 $((200 * TIME_SCALE))); do
		[ -s "$KUBESIM_DIR/ready.json" ] && break
		if ! kill -0 "$KUBESIM_PID" 2>/dev/null; then
			cat "$KUBESIM_DIR/server.log" >&2
			echo "kube-sim exited before it was ready" >&2
			return 1
		fi
		sleep 0.05
	done
	[ -s "$KUBESIM_DIR/ready.json" ] ||
		{ echo "kube-sim not ready after $((10 * TIME_SCALE)) s" >&2; return 1; }
	KUBESIM_URL=$(jq -r .url "$KUBESIM_DIR/ready.json")
	KUBESIM_PORT=$(jq -r .port "$KUBESIM_DIR/ready.json")
	KUBESIM_CA=$(jq -r .ca "$KUBESIM_DIR/ready.json")
	KUBESIM_TOKEN=$(jq -r .token "$KUBESIM_DIR/ready.json")
	KUBESIM_KUBECONFIG=$(jq -r .kubeconfig "$KUBESIM_DIR/ready.json")
	KUBESIM_SIM_TOKEN_FILE=$(jq -r .sim_token_file "$KUBESIM_DIR/ready.json")
	export KUBESIM_DIR KUBESIM_URL KUBESIM_PORT KUBESIM_CA KUBESIM_TOKEN \
		KUBESIM_KUBECONFIG KUBESIM_PID KUBESIM_SIM_TOKEN_FILE
}

# Stops the emulator started by kubesim_start, by its PID.
kubesim_stop() {
	[ -n "${KUBESIM_PID:-}" ] || return 0
	kill "$KUBESIM_PID" 2>/dev/null || true
	local _
	for _ in $(seq 1 $((100 * TIME_SCALE))); do
		kill -0 "$KUBESIM_PID" 2>/dev/null || break
		sleep 0.05
	done
	kill -9 "$KUBESIM_PID" 2>/dev/null || true
	wait "$KUBESIM_PID" 2>/dev/null || true
	KUBESIM_PID=
}

# kubesim_start_sandboxed [ARGS...]: the demo emulator (ticking every 0.2 s)
# for tests whose pods run real processes; skips the file (from setup_file)
# where pods cannot be sandboxed on this machine.
kubesim_start_sandboxed() {
	kubesim_start --demo --tick 0.2 "$@"
	[ "$(sim GET /_sim/sandbox | jq -r .mode)" = sandbox ] ||
		skip "pods cannot be sandboxed here: $(sim GET /_sim/sandbox | jq -r .reason)"
}

# sim METHOD PATH [JSON-BODY]: calls the emulator's /_sim control API and
# prints the response body. Fails on a non-2xx answer. A body of "-" is
# read from stdin (for bodies too big for an argument).
sim() {
	local method=$1 path=$2 body=${3:-}
	if [ "$body" = - ]; then
		sim_curl -X "$method" -H 'Content-Type: application/json' \
			--data-binary @- "$KUBESIM_URL$path"
	elif [ -n "$body" ]; then
		sim_curl -X "$method" -H 'Content-Type: application/json' \
			--data-binary "$body" "$KUBESIM_URL$path"
	else
		sim_curl -X "$method" "$KUBESIM_URL$path"
	fi
}

# sim_curl CURL-ARGS...: curl with the /_sim credential. The header goes
# through a file descriptor (curl -H @FILE), so the token is in no argv.
sim_curl() {
	curl -sS --fail-with-body --cacert "$KUBESIM_CA" \
		-H @<(printf 'Authorization: Bearer %s\n' "$(cat "$KUBESIM_SIM_TOKEN_FILE")") "$@"
}

# sim_test_setup NS: a test's own HOME and the emulator's kubeconfig with
# NS as the current namespace (the usual setup of an emulator test).
sim_test_setup() {
	isolate_env
	use_sim_kubeconfig
	sed -i "s/namespace: .*/namespace: $1/" "$KUBECONFIG"
}

# pod_running JOB: waits (10 s at most, times TIME_SCALE) until a pod of
# JOB in $NS runs.
pod_running() {
	local _
	for _ in $(seq 1 $((50 * TIME_SCALE))); do
		kube_api "$KUBESIM_URL/api/v1/namespaces/$NS/pods?labelSelector=release%3D$1" |
			jq -e '[.items[] | select(.status.phase == "Running")] | length > 0' >/dev/null &&
			return 0
		sleep 0.2
	done
	return 1
}

# job_row NAME: the job's row of "runai list".
job_row() {
	runai list | awk -v n="$1" '$1 == n'
}

# wait_row NAME ERE: polls "runai list" (10 s at most, times TIME_SCALE)
# until the job's row matches the extended regular expression.
wait_row() {
	local _
	for _ in $(seq 1 $((50 * TIME_SCALE))); do
		job_row "$1" | grep -Eq -- "$2" && return 0
		sleep 0.2
	done
	echo "job $1 never matched '$2': $(job_row "$1")" >&2
	return 1
}

# A private copy of the admin kubeconfig for one test, as $KUBECONFIG.
use_sim_kubeconfig() {
	cp "$KUBESIM_KUBECONFIG" "$HOME/.kube/config"
	chmod 600 "$HOME/.kube/config"
	export KUBECONFIG="$HOME/.kube/config"
}

# Marks the current end of the emulator's request log; requests_since_mark
# then prints the JSON lines received after it.
mark_requests() {
	REQ_MARK=$(wc -l <"$KUBESIM_DIR/requests.jsonl" 2>/dev/null || echo 0)
}
requests_since_mark() {
	tail -n +"$((${REQ_MARK:-0} + 1))" "$KUBESIM_DIR/requests.jsonl"
}

# count_requests METHOD PATH: how many logged requests after the mark
# had this method and path.
count_requests() {
	requests_since_mark | jq -s --arg m "$1" --arg p "$2" \
		'[.[] | select(.method == $m and .path == $p)] | length'
}

# assert_request METHOD PATH [JQ-PREDICATE]: some request after the mark had
# this method and path (and satisfies the predicate, evaluated on the log
# line). Prints the requests seen when none matches.
assert_request() {
	local method=$1 path=$2 pred=${3:-true}
	local n
	n=$(requests_since_mark | jq -c --arg m "$method" --arg p "$path" \
		"select(.method == \$m and .path == \$p) | select($pred)" | wc -l)
	if [ "$n" -eq 0 ]; then
		echo "no $method $path request matching '$pred'; requests seen:" >&2
		requests_since_mark | jq -c '{method, path, query, status}' >&2
		return 1
	fi
}

# refute_request METHOD PATH: no request after the mark had this method and path.
refute_request() {
	local method=$1 path=$2 n
	n=$(requests_since_mark | jq -c --arg m "$method" --arg p "$path" \
		'select(.method == $m and .path == $p)' | wc -l)
	[ "$n" -eq 0 ] || { echo "unexpected $method $path request" >&2; return 1; }
}

have_kubectl_132() {
	[ -x "$KUBECTL_132" ]
}

# bats-assert here has no assert_stderr. $stderr is set by run --separate-stderr.
# shellcheck disable=SC2154
stderr_has() {
	[[ "$stderr" == *"$1"* ]] || { echo "stderr: $stderr" >&2; return 1; }
}
stderr_is() {
	[ "$stderr" = "$1" ] || { echo "stderr: $stderr" >&2; return 1; }
}

# kube_api CURL-ARGS...: curl with the emulator's CA and admin token.
kube_api() {
	curl -sS --cacert "$KUBESIM_CA" -H "Authorization: Bearer $KUBESIM_TOKEN" "$@"
}

# get_obj PATH: prints the object; fails when the emulator has none.
get_obj() {
	kube_api --fail "$KUBESIM_URL$1"
}

# exists PATH: the emulator has the object.
exists() {
	[ "$(kube_api -o /dev/null -w '%{http_code}' "$KUBESIM_URL$1")" = 200 ]
}

# ---- OIDC test identity provider (tests/peers/oidc-peer) ----

# have_oidc_peer: node and the npm packages (npm ci --prefix tests/peers/oidc)
# are installed. Prints why not otherwise; use as
#     have_oidc_peer || skip "$(have_oidc_peer)"
have_oidc_peer() {
	"$TOP/tests/peers/oidc-peer" check
}

# oidc_start [provider options: --short (5 s tokens), --token-ttl S,
# --users FILE]: starts the real oidc-provider on a free loopback HTTPS port,
# state under $OIDC_DIR (default $BATS_FILE_TMPDIR/oidc).
# Exports OIDC_DIR OIDC_ISSUER OIDC_CA OIDC_CLIENT_ID OIDC_PORT OIDC_PID
# OIDC_LOG, and the array OIDC_KUBESIM_FLAGS for kubesim_start:
#     kubesim_start "${OIDC_KUBESIM_FLAGS[@]}"
# Users: alice/alice-pw (team-a), bob/bob-pw (team-b), carol/carol-pw
# (email not verified); emails <user>@example.test.
oidc_start() {
	OIDC_DIR=${OIDC_DIR:-$BATS_FILE_TMPDIR/oidc}
	"$TOP/tests/peers/oidc-peer" start "$OIDC_DIR" "$@" || return 1
	local line
	while IFS= read -r line; do
		export "${line?}"
	done <"$OIDC_DIR/env"
	export OIDC_DIR
	# shellcheck disable=SC2034 # used by the test files
	OIDC_KUBESIM_FLAGS=(--oidc-issuer-url "$OIDC_ISSUER" --oidc-client-id "$OIDC_CLIENT_ID"
		--oidc-ca-file "$OIDC_CA" --oidc-username-claim email --oidc-groups-claim groups)
}

# Stops the provider started by oidc_start, by its PID.
oidc_stop() {
	[ -n "${OIDC_DIR:-}" ] || return 0
	"$TOP/tests/peers/oidc-peer" stop "$OIDC_DIR"
	export OIDC_PID=
}

# oidc_token USER PASSWORD [SCOPE]: the password grant; prints the JSON answer.
oidc_token() {
	curl -sS --cacert "$OIDC_CA" "$OIDC_ISSUER/token" -d grant_type=password \
		-d client_id="$OIDC_CLIENT_ID" --data-urlencode "username=$1" \
		--data-urlencode "password=$2" \
		--data-urlencode "scope=${3:-openid email profile groups offline_access}"
}

# jwt_payload JWT: prints the decoded payload (JSON) of a JWT.
jwt_payload() {
	local p
	p=$(printf '%s' "$1" | cut -d. -f2 | tr '_-' '/+')
	case $((${#p} % 4)) in 2) p="$p==" ;; 3) p="$p=" ;; esac
	printf '%s' "$p" | base64 -d
}

# oidc_walk JAR URL USER PASSWORD: plays the browser from URL on (an
# authorization URL, or an interaction URL). Follows the provider's
# redirects with the cookie jar JAR, signs in as USER on the login page and
# lets consent be granted. Prints the first redirect that leaves the issuer
# (redirect_uri?code=...), or else the URL of the last page the provider
# showed (its body is in JAR.body). Fails when the login is refused.
oidc_walk() {
	local jar=$1 url=$2 user=$3 pass=$4 out code next posted=""
	for _ in $(seq 1 20); do
		out=$(curl -sS --cacert "$OIDC_CA" -b "$jar" -c "$jar" -o "$jar.body" \
			-w '%{http_code} %{redirect_url}' "$url") || return 1
		code=${out%% *} next=${out#* }
		if [ -z "$posted" ] && [ "$code" = 200 ] && [[ $url == "$OIDC_ISSUER/interaction/"* ]]; then
			posted=1
			out=$(curl -sS --cacert "$OIDC_CA" -b "$jar" -c "$jar" -o "$jar.body" \
				-w '%{http_code} %{redirect_url}' --data-urlencode "login=$user" \
				--data-urlencode "password=$pass" "$url") || return 1
			code=${out%% *} next=${out#* }
			[[ $code == 30? ]] || { echo "oidc_walk: login refused ($code)" >&2; return 1; }
		fi
		if [[ $code == 30? ]]; then
			case $next in
			"$OIDC_ISSUER"/*) url=$next; continue ;;
			*) printf '%s\n' "$next"; return 0 ;;
			esac
		fi
		printf '%s\n' "$url"
		return 0
	done
	echo "oidc_walk: too many redirects" >&2
	return 1
}

# oidc_device_approve USER_CODE USER PASSWORD: what the user does in the
# browser for the device flow: enters the code, confirms, signs in.
oidc_device_approve() {
	local jar="$BATS_TEST_TMPDIR/device-jar.$$" xsrf out
	xsrf=$(curl -sS --cacert "$OIDC_CA" -b "$jar" -c "$jar" -G "$OIDC_ISSUER/device" \
		--data-urlencode "user_code=$1" | grep -o 'name="xsrf" value="[^"]*"' |
		sed 's/.*value="//;s/"$//' | head -n 1)
	[ -n "$xsrf" ] || { echo "oidc_device_approve: no xsrf on the device page" >&2; return 1; }
	out=$(curl -sS --cacert "$OIDC_CA" -b "$jar" -c "$jar" -o /dev/null -w '%{redirect_url}' \
		"$OIDC_ISSUER/device" -d "xsrf=$xsrf" --data-urlencode "user_code=$1" -d confirm=yes)
	[ -n "$out" ] || { echo "oidc_device_approve: user code not accepted" >&2; return 1; }
	oidc_walk "$jar" "$out" "$2" "$3" >/dev/null || return 1
	grep -q 'Sign-in Success' "$jar.body" || {
		echo "oidc_device_approve: no success page:" >&2
		cat "$jar.body" >&2
		return 1
	}
}

# wait_for_match FILE REGEX [SECONDS]: waits (10 s by default; times
# TIME_SCALE) until a line of FILE matches; prints the first match.
wait_for_match() {
	local f=$1 re=$2 n=$((${3:-10} * 20 * TIME_SCALE)) i
	for ((i = 0; i < n; i++)); do
		if [ -f "$f" ] && grep -qE "$re" "$f"; then
			grep -oE "$re" "$f" | head -n 1
			return 0
		fi
		sleep 0.05
	done
	echo "wait_for_match: no '$re' in $f:" >&2
	cat "$f" >&2 2>/dev/null
	return 1
}
