#!/usr/bin/env bats
# No secret leaks: every command runs with -v=10, against a working
# cluster and against one that fails (500s, 401s, a dead port), with each
# kind of credential a kubeconfig can hold (bearer token, client
# certificate, username/password, exec plugin, OIDC tokens and client
# secret). Then all output, every file left under HOME and TMPDIR
# (kubeconfig backups, locks, caches, temp files) and the argv and
# environment the exec plugin was started with are searched for each
# secret: none may appear.

load lib/common

setup_file() {
	kubesim_start
	# secrets that nothing but the kubeconfig holds, kept in a file and
	# not exported, so no process the tests start inherits them
	local key_line
	key_line=$(grep -o 'client-key-data: .*' "$KUBESIM_DIR/kubeconfig-cert" |
		cut -d' ' -f2 | base64 -d | sed -n 3p)
	[ ${#key_line} -ge 40 ]
	cat >"$BATS_FILE_TMPDIR/secrets" <<EOF
S_PASSWORD=pw-9f3c1e7a5b2d4c6e
S_CLIENT_SECRET=cs-4d2b7e9a1c3f5e8b
S_REFRESH=rt-8e1a3c5f7b9d2e4a
S_ID_TOKEN=eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzZWNyZXQiLCJleHAiOjQxMDI0NDQ4MDB9.sig-7a2c4e6b8d1f3a5c
S_TOKEN=$KUBESIM_TOKEN
S_KEY_LINE='$key_line'
EOF
}

teardown_file() {
	kubesim_stop
}

setup() {
	isolate_env
	# shellcheck source=/dev/null
	. "$BATS_FILE_TMPDIR/secrets"
	export -n KUBESIM_TOKEN	# the harness exports the admin token
	export TMPDIR=$BATS_TEST_TMPDIR/tmp
	mkdir -p "$TMPDIR"
	export RUNAI_MAX_RETRIES=0 RUNAI_REQUEST_TIMEOUT=5s
	OUT=$BATS_TEST_TMPDIR/all-output
	: >"$OUT"
}

# A kubeconfig for the emulator whose user is given as YAML lines.
write_kubeconfig() {
	local server=$1 user_yaml=$2
	cat >"$HOME/.kube/config" <<EOF
apiVersion: v1
kind: Config
current-context: t
clusters:
- name: c
  cluster:
    server: $server
    certificate-authority: $KUBESIM_CA
contexts:
- name: t
  context: {cluster: c, user: u, namespace: runai-team-a}
users:
- name: u
  user:
$user_yaml
EOF
	chmod 600 "$HOME/.kube/config"
}

user_token() {
	printf '    token: %s\n' "$S_TOKEN"
}

user_cert() {
	grep -E '^ +client-(certificate|key)-data:' "$KUBESIM_DIR/kubeconfig-cert" |
		sed -E 's/^ +/    /'
}

user_basic() {
	printf '    username: admin\n    password: %s\n' "$S_PASSWORD"
}

# The plugin answers with the emulator's token and records how it was
# started (argv and environment) for the search.
user_exec() {
	local plugin=$BATS_TEST_TMPDIR/plugin
	cat >"$plugin" <<EOF
#!/bin/sh
{ printf '%s\n' "\$0" "\$@"; env; } >>"$BATS_TEST_TMPDIR/plugin-seen"
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s"}}\n' "$S_TOKEN"
EOF
	chmod +x "$plugin"
	printf '    exec:\n      apiVersion: client.authentication.k8s.io/v1\n'
	printf '      command: %s\n      interactiveMode: Never\n' "$plugin"
	printf '      env:\n      - {name: PLUGIN_MODE, value: test}\n'
}

user_oidc() {
	printf '    auth-provider:\n      name: oidc\n      config:\n'
	printf '        client-id: runai-cli\n        client-secret: %s\n' "$S_CLIENT_SECRET"
	printf '        idp-issuer-url: https://127.0.0.1:9/\n'
	printf '        id-token: %s\n        refresh-token: %s\n' "$S_ID_TOKEN" "$S_REFRESH"
}

# Every command that talks to the cluster, run with -v=10; output kept.
run_everything() {
	local c
	local -a cmds=(
		"runai list jobs" "runai list projects" "runai list nodes"
		"runai list clusters" "runai describe job nosuch"
		"runai describe node nosuch" "runai logs nosuch"
		"runai exec nosuch -- true" "runai delete nosuch"
		"runai suspend nosuch" "runai resume nosuch"
		"runai submit sec-job -i busybox -g 0 -- true"
		"runai top node" "runai top job" "runai config project team-a"
		"runai version" "runai __complete describe job s"
		"runai-adm node list" "runai-adm set node-role --gpu-worker nosuch --dry-run"
		"runai-adm node drain nosuch --timeout 1s"
	)
	for c in "${cmds[@]}"; do
		# shellcheck disable=SC2086 # the words of the command
		timeout 60 $c -v=10 </dev/null >>"$OUT" 2>&1 || true
	done
}

# Fails naming every secret found in the output, the files under HOME
# and TMPDIR (the kubeconfig itself excepted) or what the plugin saw.
assert_no_secrets() {
	local s found=0 hits
	for s in "$S_PASSWORD" "$S_CLIENT_SECRET" "$S_REFRESH" "$S_ID_TOKEN" \
		"$S_TOKEN" "$S_KEY_LINE"; do
		hits=$(grep -rlF -- "$s" "$OUT" "$HOME" "$TMPDIR" \
			"$BATS_TEST_TMPDIR/plugin-seen" 2>/dev/null |
			grep -vx "$HOME/.kube/config" || true)
		if [ -n "$hits" ]; then
			echo "secret ${s:0:6}... found in: $hits" >&2
			found=1
		fi
	done
	[ "$found" = 0 ] || return 1
	# the run did produce -v=10 traces to search
	grep -q 'GET ' "$OUT" || { echo "no -v=10 trace in the output" >&2; return 1; }
}

# The three servers: working, failing with the given status, dead.
fail_all() {
	sim DELETE /_sim/faults >/dev/null
	sim POST /_sim/faults "{\"path_prefix\":\"/\",\"count\":100000,\"status\":$1}" >/dev/null
}

heal() {
	sim DELETE /_sim/faults >/dev/null
}

dead_url() {
	# a port that was free a moment ago and has nobody listening
	"$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print("https://127.0.0.1:%d" % s.getsockname()[1])'
}

check_user() {
	local user_fn=$1
	write_kubeconfig "$KUBESIM_URL" "$($user_fn)"
	run_everything
	fail_all 500
	run_everything
	fail_all 401
	run_everything
	heal
	write_kubeconfig "$(dead_url)" "$($user_fn)"
	run_everything
	assert_no_secrets
}

@test "bearer token: never in -v=10 output or files" {
	check_user user_token
}

@test "client certificate: the key never leaves the kubeconfig" {
	check_user user_cert
}

@test "username and password: never in output or files" {
	check_user user_basic
}

@test "exec plugin: its token never in output; the plugin gets no secrets" {
	check_user user_exec
	# the plugin did run, with the environment the kubeconfig asked for
	grep -qx 'PLUGIN_MODE=test' "$BATS_TEST_TMPDIR/plugin-seen"
}

@test "OIDC tokens and client secret: never in output or files" {
	check_user user_oidc
}

@test "the search finds a secret when one is printed (the check can fail)" {
	write_kubeconfig "$KUBESIM_URL" "$(user_token)"
	echo "leaked $S_PASSWORD" >"$TMPDIR/oops"
	echo "GET /" >"$OUT"
	run assert_no_secrets
	assert_failure
	assert_output --partial "found in: $TMPDIR/oops"
}
