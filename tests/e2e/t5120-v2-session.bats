#!/usr/bin/env bats
# The Run:ai CLI v2's session and configuration commands, in both modes:
# login user|sso|remote-browser|access-key|application (app), login's
# --listen-host/--listen-port, whoami and logout after them, config
# set|describe|generate, kubeconfig set, auth get-token, version --wide
# and upgrade. One emulator serves both modes: its control plane
# (release 2.24, whose judge checks every request) and, where the OIDC
# peer can run, the id-tokens of Kubernetes mode's logins (those tests
# skip without it). Secrets given on the command line are looked for in
# the process table while the command runs, and in -v=8 logs.

load lib/common
load lib/oidc
load lib/cp

CP_VERSION=2.24

setup_file() {
	local p
	if have_oidc_peer >/dev/null; then
		# 5 s tokens, longer where everything is slower (valgrind)
		oidc_start --token-ttl $((5 * TIME_SCALE))
		cp_start "${OIDC_KUBESIM_FLAGS[@]}"
		for p in a b; do
			get_obj "/apis/run.ai/v1/projects/team-$p" |
				jq --arg g "team-$p" '.metadata.annotations["kube-sim/groups"] = $g' |
				sim POST /_sim/seed - >/dev/null
		done
	else
		cp_start
	fi
}

teardown_file() {
	kubesim_stop
	oidc_stop
}

setup() {
	isolate_env
}

teardown() {
	stop_pid "${BLACKHOLE_PID:-}"
	stop_pid "${BG_PID:-}"
}

# k8s_admin: Kubernetes mode with the emulator's admin (a static token),
# in team-a's namespace.
k8s_admin() {
	use_sim_kubeconfig
	sed -i 's/namespace: .*/namespace: runai-team-a/' "$KUBECONFIG"
}

# cp_password: the emulator's control-plane user's password.
cp_password() {
	jq -r .password "$CP_CREDS"
}

# free_port: a loopback port nobody listens on now.
free_port() {
	"$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# blackhole_start: a loopback port whose connections are taken and never
# answered, so a command sending a request there waits; BLACKHOLE_PORT.
blackhole_start() {
	local f=$BATS_TEST_TMPDIR/blackhole.port _
	"$PYTHON" -c 'import socket, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(64)
print(s.getsockname()[1], flush=True)
time.sleep(300)' >"$f" &
	BLACKHOLE_PID=$!
	for _ in $(seq 1 $((100 * TIME_SCALE))); do
		[ -s "$f" ] && break
		sleep 0.05
	done
	BLACKHOLE_PORT=$(cat "$f")
	[ -n "$BLACKHOLE_PORT" ]
}

# argv_while_running SECRET CMD...: starts CMD (which must wait on the
# blackhole), and once it runs checks that ps shows its words without
# SECRET; fails when SECRET is there or the command is gone.
argv_while_running() {
	local secret=$1 args _
	shift
	"$@" </dev/null >"$BATS_TEST_TMPDIR/bg.out" 2>"$BATS_TEST_TMPDIR/bg.err" &
	BG_PID=$!
	# past the option parsing, which wipes the secret at once
	for _ in $(seq 1 $((100 * TIME_SCALE))); do
		args=$(ps -ww -o args= -p "$BG_PID" || true)
		[[ $args == *login* ]] && break
		sleep 0.05
	done
	sleep "$(scaled 0.5)"
	args=$(ps -ww -o args= -p "$BG_PID") || { cat "$BATS_TEST_TMPDIR/bg.err" >&2; return 1; }
	echo "ps: $args" >&2
	[[ $args == *login* ]] || return 1
	[[ $args != *"$secret"* ]] || return 1
	[[ "$(tr '\0' ' ' </proc/"$BG_PID"/cmdline)" != *"$secret"* ]] || return 1
	stop_pid "$BG_PID"
	BG_PID=
}

# store_token: the access token of the control plane's login store.
store_token() {
	jq -r .accessToken "$XDG_CONFIG_HOME"/runai/control-plane/*.json
}

# ---- login user ----

@test "login user in Kubernetes mode: -u and -p run the cli flow; the password is never in -v=8 logs" {
	login_setup
	run -0 --separate-stderr runai -v=8 login user -u alice -p alice-pw
	assert_output "Logged in successfully"
	[ -n "$stderr" ]
	[[ $stderr != *alice-pw* ]]
	[[ $stderr != *eyJ* ]]
	[ "$(kc_oidc auth-flow)" = cli ]
	jwt_payload "$(kc_oidc id-token)" | jq -e '.sub == "alice"'
	# the global -p before the command is the project, the command's own -p the password
	run -0 runai -p team-a login user --user bob --password bob-pw
	jwt_payload "$(kc_oidc id-token)" | jq -e '.sub == "bob"'
	run -0 runai whoami
	assert_line "User: bob@example.test"
	# no -p: the password is stdin's line when stdin is no terminal
	run -0 bash -c 'echo alice-pw | runai login user -u alice'
	assert_output "Logged in successfully"
	jwt_payload "$(kc_oidc id-token)" | jq -e '.sub == "alice"'
	mark_requests
	run -0 runai list projects
	assert_request GET /apis/run.ai/v1/projects '.user == "alice@example.test" and .auth == "bearer"'
	run -2 --separate-stderr bash -c 'echo alice-pw | runai login user'
	stderr_is "runai: error: stdin is not a terminal: give the user name with --user (the password is read from stdin)"
	run -1 --separate-stderr runai login user -u alice -p wrong-pw
	stderr_is "runai: error: invalid username or password"
	run -0 runai logout
	assert_output "Logged out successfully"
	[ -z "$(kc_oidc id-token)" ]
}

@test "login user in control-plane mode: the password grant; whoami, logout; -p never in -v=8 logs" {
	cp_setup
	local pw before
	pw=$(cp_password)
	before=$(cp_grants password)
	run -0 --separate-stderr runai -v=8 login user -u "$CP_USER" -p "$pw"
	assert_output "Logged in successfully to $CP_URL"
	[[ $stderr == *'"grantType":"password"'* ]]
	[[ $stderr != *"$pw"* ]]
	[[ $stderr != *eyJ* ]]
	assert_equal "$(cp_grants password)" $((before + 1))
	# what was sent: the token endpoint, the password grant, answered 200
	run -0 jq -r 'select(.path == "/api/v1/token") | "\(.method) \(.grant) \(.status)"' "$CP_REQUESTS"
	assert_line "POST password 200"
	run -0 runai whoami
	assert_line "User: $CP_USER"
	assert_line "Control plane: $CP_URL"
	run -0 runai logout
	assert_output "Logged out"
	run -1 runai whoami
	# from stdin, when stdin is no terminal
	run -0 bash -c "jq -r .password '$CP_CREDS' | runai login user --user '$CP_USER'"
	assert_output "Logged in successfully to $CP_URL"
	run -0 runai whoami -o json
	assert_equal "$(jq -r .user <<<"$output")" "$CP_USER"
	run -1 --separate-stderr runai login user -u "$CP_USER" -p wrong
	stderr_has "login to $CP_URL failed"
}

@test "a password or secret given with -p or --secret is gone from the process table while login runs" {
	blackhole_start
	# control-plane mode: the token request waits on a control plane that never answers
	use_sim_kubeconfig
	runai config control-plane "http://127.0.0.1:$BLACKHOLE_PORT" >/dev/null
	argv_while_running Pw-in-argv-1 runai login user -u someone -p Pw-in-argv-1
	argv_while_running Pw-in-argv-2 runai login user -u someone --password=Pw-in-argv-2
	argv_while_running Sec-in-argv-3 runai login access-key --client-id ak-1 --secret Sec-in-argv-3
	argv_while_running Sec-in-argv-4 runai login app --name ak-1 --secret=Sec-in-argv-4
	# Kubernetes mode: the identity provider's discovery waits the same way
	if have_oidc_peer >/dev/null; then
		login_kubeconfig idp-issuer-url="https://127.0.0.1:$BLACKHOLE_PORT"
		argv_while_running Pw-in-argv-5 runai login user -u alice -p Pw-in-argv-5
	fi
}

# ---- sso, remote-browser, and the browser flow's listener ----

# sso_login_cp COMMAND...: the control plane's copy-paste login through
# COMMAND, signing in as the emulator's user; prints the code used.
sso_login_cp() {
	local fifo=$BATS_TEST_TMPDIR/fifo url loc code rc=0
	rm -f "$fifo"
	: >"$BATS_TEST_TMPDIR/err"
	mkfifo "$fifo"
	"$@" <"$fifo" >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
	BG_PID=$!
	exec 5>"$fifo"
	url=$(wait_for_match "$BATS_TEST_TMPDIR/err" 'http://[^[:space:]]+/auth\?[^[:space:]]+') ||
		{ exec 5>&-; return 1; }
	grep -q 'Enter verification code: ' "$BATS_TEST_TMPDIR/err" || { exec 5>&-; return 1; }
	loc=$(cp_signin "$url" "$CP_USER" "$(cp_password)")
	[[ $loc == "$CP_URL/oauth-code?code="* ]] || { exec 5>&-; return 1; }
	code=$(curl -sS "$loc" | sed -n 's/.*<pre id="code">\([^<]*\)<.*/\1/p')
	printf '%s\n' "$code" >&5
	exec 5>&-
	wait "$BG_PID" || rc=$?
	BG_PID=
	[ "$rc" -eq 0 ] || { cat "$BATS_TEST_TMPDIR/err" >&2; return 1; }
}

@test "login sso and login remote-browser in control-plane mode: the control plane's code page, the code exchanged" {
	cp_setup
	local before
	before=$(cp_grants exchange_token)
	sso_login_cp runai login sso
	grep -qx "Logged in successfully to $CP_URL" "$BATS_TEST_TMPDIR/out"
	grep -q "$CP_URL/auth/realms/runai/protocol/openid-connect/auth?" "$BATS_TEST_TMPDIR/err"
	grep -q 'redirect_uri=http%3A%2F%2F127.0.0.1%3A[0-9]*%2Foauth-code' "$BATS_TEST_TMPDIR/err"
	run -0 runai whoami
	assert_line "User: $CP_USER"
	runai logout >/dev/null
	sso_login_cp runai login remote-browser
	assert_equal "$(cp_grants exchange_token)" $((before + 2))
	run -0 jq -r .grant "$XDG_CONFIG_HOME"/runai/control-plane/*.json
	assert_output exchange_token
}

@test "login sso in Kubernetes mode: the remote-browser flow of the context's provider" {
	login_setup
	login_kubeconfig client-id=runai-cli-sso redirect-uri="$OIDC_ISSUER/oauth-code"
	local fifo=$BATS_TEST_TMPDIR/fifo url code rc=0
	mkfifo "$fifo"
	runai login sso <"$fifo" >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
	BG_PID=$!
	exec 5>"$fifo"
	url=$(wait_for_match "$BATS_TEST_TMPDIR/err" 'https://[^[:space:]]+/auth\?[^[:space:]]+') ||
		{ exec 5>&-; false; }
	[[ $url == *"client_id=runai-cli-sso"* && $url == *"redirect_uri="* ]]
	oidc_walk "$BATS_TEST_TMPDIR/jar" "$url" alice alice-pw >/dev/null || { exec 5>&-; false; }
	code=$(sed -n 's/.*<pre id="code">\([^<]*\)<.*/\1/p' "$BATS_TEST_TMPDIR/jar.body")
	printf '%s\n' "$code" >&5
	exec 5>&-
	wait "$BG_PID" || rc=$?
	BG_PID=
	[ "$rc" -eq 0 ] || { cat "$BATS_TEST_TMPDIR/err"; false; }
	grep -qx 'Logged in successfully' "$BATS_TEST_TMPDIR/out"
	[ "$(kc_oidc auth-flow)" = remote-browser ]
	run -0 runai whoami
	assert_line "User: alice@example.test"
}

@test "login --listen-host and --listen-port: the browser flow's callback, in both modes" {
	local port cb rc=0
	# control-plane mode: localhost, as the Run:ai CLI v2 names it
	cp_setup
	port=$(free_port)
	env -u DISPLAY -u WAYLAND_DISPLAY runai login --listen-host localhost --listen-port "$port" \
		>"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
	BG_PID=$!
	url=$(wait_for_match "$BATS_TEST_TMPDIR/err" 'http://[^[:space:]]+/auth\?[^[:space:]]+') || false
	[[ $url == *"redirect_uri=http%3A%2F%2Flocalhost%3A$port%2Fcallback"* ]]
	cb=$(cp_signin "$url" "$CP_USER" "$(cp_password)")
	[[ $cb == "http://localhost:$port/callback?code="* ]]
	run -0 curl -sS "http://127.0.0.1:${cb#http://localhost:}"
	assert_output --partial "runai is logged in"
	wait "$BG_PID" || rc=$?
	BG_PID=
	[ "$rc" -eq 0 ] || { cat "$BATS_TEST_TMPDIR/err"; false; }
	grep -qx "Logged in successfully to $CP_URL" "$BATS_TEST_TMPDIR/out"
	# what the listener cannot be is refused before anything is sent
	run -2 --separate-stderr runai login --listen-host 0.0.0.0
	stderr_is "runai: error: --listen-host 0.0.0.0: the browser login listens on this machine's loopback only: use localhost or 127.0.0.1"
	run -2 --separate-stderr runai login --listen-port 70000
	stderr_is "runai: error: --listen-port 70000 is not a port (1-65535, or 0 for any free one)"
	run -2 --separate-stderr runai login --auth-flow remote-browser --listen-port 43121
	stderr_is "runai: error: --listen-host and --listen-port are for the browser flow, not remote-browser"
	# Kubernetes mode: the provider takes 127.0.0.1's callback on any port
	have_oidc_peer >/dev/null || skip "$(have_oidc_peer)"
	login_kubeconfig auth-flow=cli
	port=$(free_port)
	env -u DISPLAY -u WAYLAND_DISPLAY runai login --listen-port "$port" \
		>"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
	BG_PID=$!
	url=$(wait_for_match "$BATS_TEST_TMPDIR/err" 'https://[^[:space:]]+/auth\?[^[:space:]]+') || false
	[[ $url == *"redirect_uri=http%3A%2F%2F127.0.0.1%3A$port%2Fcallback"* ]]
	cb=$(oidc_walk "$BATS_TEST_TMPDIR/jar" "$url" alice alice-pw)
	[[ $cb == "http://127.0.0.1:$port/callback?code="* ]]
	curl -sS -o /dev/null "$cb"
	rc=0
	wait "$BG_PID" || rc=$?
	BG_PID=
	[ "$rc" -eq 0 ] || { cat "$BATS_TEST_TMPDIR/err"; false; }
	# the flag asked for the browser flow over the kubeconfig's cli
	[ "$(kc_oidc auth-flow)" = browser ]
}

# ---- access keys ----

@test "login access-key: --secret, --secret-file or stdin; the client_credentials grant; --secret never in -v=8 logs" {
	cp_setup
	local id secret before
	id=$(jq -r .clientId "$CP_CREDS")
	secret=$(jq -r .clientSecret "$CP_CREDS")
	before=$(cp_grants client_credentials)
	run -0 --separate-stderr runai -v=8 login access-key --client-id "$id" --secret "$secret"
	assert_output "Logged in successfully to $CP_URL"
	[[ $stderr == *'"grantType":"client_credentials"'* ]]
	[[ $stderr != *"$secret"* ]]
	run -0 runai whoami -o json
	assert_equal "$(jq -r .subject <<<"$output")" "$id"
	run -0 runai logout
	run -0 runai login access-key --client-id "$id" --secret-file "$(cp_secret_file)"
	run -0 bash -c "jq -r .clientSecret '$CP_CREDS' | runai login access-key --client-id '$id' --interactive=disabled"
	assert_output "Logged in successfully to $CP_URL"
	assert_equal "$(cp_grants client_credentials)" $((before + 3))
	# --save keeps nothing more, and says so in one line
	run -0 --separate-stderr runai login access-key --client-id "$id" --secret-file "$(cp_secret_file)" --save
	stderr_is "runai: warning: --save: the login is always kept, in $(ls "$XDG_CONFIG_HOME"/runai/control-plane/*.json): its tokens, never the secret"
	[[ "$(cat "$XDG_CONFIG_HOME"/runai/control-plane/*.json)" != *"$secret"* ]]
	# what is wrong is one line, and nothing is sent
	before=$(wc -l <"$CP_REQUESTS")
	run -2 --separate-stderr runai login access-key --secret x
	stderr_is "runai: error: give the access key's id with --client-id"
	run -2 --separate-stderr runai login access-key --client-id "$id" --secret x --secret-file "$(cp_secret_file)"
	stderr_is "runai: error: --secret and --secret-file cannot be used together"
	run -2 --separate-stderr runai login access-key --client-id "$id" --interactive=disabled </dev/null
	stderr_is "runai: error: the secret is empty"
	assert_equal "$(wc -l <"$CP_REQUESTS")" "$before"
	run -1 --separate-stderr runai login access-key --client-id "$id" --secret wrong
	stderr_has "login to $CP_URL failed"
}

@test "login application, app and --name: the app_token grant" {
	cp_setup
	local id before
	id=$(jq -r .clientId "$CP_CREDS")
	before=$(cp_grants app_token)
	run -0 runai login application --client-id "$id" --secret-file "$(cp_secret_file)"
	assert_output "Logged in successfully to $CP_URL"
	run -0 runai login app --name "$id" --secret "$(jq -r .clientSecret "$CP_CREDS")"
	assert_equal "$(cp_grants app_token)" $((before + 2))
	run -0 runai whoami -o json
	assert_equal "$(jq -r .subject <<<"$output")" "$id"
	run -2 --separate-stderr runai login app --secret x
	stderr_is "runai: error: give the application's id with --client-id (or --name)"
}

@test "access keys in Kubernetes mode: one line, nothing sent" {
	k8s_admin
	mark_requests
	run -1 --separate-stderr runai login access-key --client-id ak-1 --secret s
	stderr_is "runai: error: access keys log in to a Run:ai control plane, and context 'kube-sim' is in Kubernetes mode (run 'runai config control-plane <url>' first)"
	run -1 --separate-stderr runai login application --name ak-1 --secret-file /dev/null
	stderr_is "runai: error: access keys log in to a Run:ai control plane, and context 'kube-sim' is in Kubernetes mode (run 'runai config control-plane <url>' first)"
	assert_equal "$(requests_since_mark | wc -l)" 0
}

@test "--interactive disabled (config set): logins ask nothing on the terminal" {
	cp_setup
	run -0 runai config set --interactive disabled
	assert_output "Context kube-sim: interactive disabled (logins never ask on the terminal)"
	run -0 yq -r '.contexts[0].context.extensions[0].extension.interactive' "$KUBECONFIG"
	assert_output disabled
	# a terminal would be asked otherwise: script gives the command one
	command -v script >/dev/null || skip "script not installed"
	run -2 script -qec "runai login user -u '$CP_USER'" /dev/null
	assert_output --partial "runai: error: asking on the terminal is disabled: use -p/--password, or one line on stdin"
	run -2 script -qec "runai login user" /dev/null
	assert_output --partial "runai: error: no user name given, and asking for it is disabled: use --user"
	run -0 runai config set --interactive enabled
	run -0 yq -r '.contexts[0].context.extensions[0].extension.interactive' "$KUBECONFIG"
	assert_output enabled
}

# ---- config set, describe, generate ----

@test "config set in Kubernetes mode: --project is the namespace, --cluster the context; the rest says why in one line" {
	k8s_admin
	yq -yi '.contexts += [{"name": "other", "context": {"cluster": .contexts[0].context.cluster, "user": .contexts[0].context.user}}]' "$KUBECONFIG"
	run -0 --separate-stderr runai config set --project team-b
	assert_output "Project team-b has been set as default project"
	run -0 yq -r '.contexts[0].context.namespace' "$KUBECONFIG"
	assert_output runai-team-b
	# the cluster first, then the project on it
	run -0 --separate-stderr runai config set --cluster other --project team-a
	assert_line --index 0 "Set current cluster to other"
	assert_line --index 1 "Project team-a has been set as default project"
	run -0 yq -r '."current-context" + " " + (.contexts[] | select(.name == "other") | .context.namespace)' "$KUBECONFIG"
	assert_output "other runai-team-a"
	# nothing of the CLI v2's own files
	[ ! -e "$HOME/.runai" ]
	run -0 --separate-stderr runai config set --output json --auto-update true --update-shell zsh \
		--list-format-align enabled --status-timeout-duration 5s
	assert_output ""
	assert_equal "${#stderr_lines[@]}" 5
	stderr_has "runai: warning: --auto-update: this build does not update itself; it is installed and updated by the package manager"
	stderr_has "runai: warning: --output: runai keeps no default output format; give -o to each command (-o json, -o yaml, -o wide)"
	run -2 --separate-stderr runai config set
	stderr_is "runai: error: nothing to set; see 'runai config set -h'"
	run -2 --separate-stderr runai config set --auth-url https://runai.example.com
	stderr_is "runai: error: --auth-url is a control plane's setting, and context 'other' is in Kubernetes mode: give --cp-url too"
	run -1 --separate-stderr runai config set --project nope
	stderr_has "nope"
	run -2 runai config set --interactive maybe
}

@test "config set in control-plane mode: the control plane, auth URL, cluster, project and interactive beside the context" {
	isolate_env
	use_sim_kubeconfig
	local bh cluster
	run -0 runai config set --cp-url "$CP_URL"
	assert_output "Context kube-sim uses the control plane $CP_URL"
	run -0 runai version
	assert_line "Mode: control-plane"
	cp_login
	# bad URLs are refused before anything is written
	run -1 --separate-stderr runai config set --cp-url http://runai.example.com --project team-b
	stderr_has "plain http to a host that is not a loopback address"
	run -2 --separate-stderr runai config set --auth-url ftp://x
	stderr_is "runai: error: --auth-url 'ftp://x' is not an http:// or https:// URL"
	cluster=$(curl -sS -H @<(printf 'Authorization: Bearer %s\n' "$(store_token)") \
		"$CP_URL/api/v1/clusters" | jq -r '.[0].name')
	run -0 runai config set --cluster "$cluster" --project team-b
	assert_line --index 0 "Context kube-sim uses the cluster $cluster of its control plane"
	assert_line --index 1 "Project team-b has been set as default project"
	run -0 yq -r '.contexts[0].context.extensions[0].extension | [.url, .project, .cluster] | join(" ")' "$KUBECONFIG"
	assert_output "$CP_URL team-b $cluster"
	# the auth URL moves the browser logins' realm (here to a closed port)
	bh="http://127.0.0.1:$(free_port)"
	run -0 runai config set --auth-url "$bh"
	assert_output "Context kube-sim signs in at the auth URL $bh"
	run -0 yq -r '.contexts[0].context.extensions[0].extension.authUrl' "$KUBECONFIG"
	assert_output "$bh"
	run -1 --separate-stderr runai login --auth-flow browser
	stderr_has "$bh/auth/realms/runai"
	run -0 runai config set --auth-url "$CP_URL"
	[ ! -e "$HOME/.runai" ]
	[ "$(stat -c %a "$KUBECONFIG")" = 600 ]
}

@test "config describe and generate: the settings and where they come from, in both modes" {
	k8s_admin
	run -0 runai config describe
	assert_line --index 0 --regexp '^SETTING +VALUE +FROM$'
	assert_line --regexp '^mode +kubernetes +no control plane set$'
	assert_line --regexp '^project +team-a +namespace$'
	assert_line --regexp '^namespace +runai-team-a +context$'
	assert_line --regexp "^kubeconfig +$KUBECONFIG +\\\$KUBECONFIG$"
	run -0 runai -p team-b config describe --json
	jq -e --arg kc "$KUBECONFIG" '.mode == "kubernetes" and .project == "team-b"
		and .namespace == "runai-team-a" and .context == "kube-sim" and .kubeconfig == $kc
		and .controlPlaneUrl == null and .interactive == "enabled"' <<<"$output"
	run -0 runai config describe --yaml
	assert_line "mode: kubernetes"
	run -2 runai config describe --json --yaml
	# control-plane mode
	runai config control-plane "$CP_URL" >/dev/null
	cp_login
	runai config project team-a >/dev/null
	run -0 runai config describe
	assert_line --regexp "^mode +control-plane +context$"
	assert_line --regexp "^control plane +$CP_URL +context$"
	assert_line --regexp "^auth URL +$CP_URL +the control plane's$"
	assert_line --regexp '^cluster +[^ ]+ +login$'
	assert_line --regexp '^project +team-a +context$'
	RUNAI_CONTROL_PLANE_URL=$CP_URL run -0 runai config describe --json
	jq -e --arg u "$CP_URL" '.mode == "control-plane" and .controlPlaneUrl == $u
		and .authUrl == $u and .project == "team-a" and .namespace == null' <<<"$output"
	# generate: JSON or YAML by the name, mode 0600; printed without -f
	run -0 runai config generate -f "$BATS_TEST_TMPDIR/settings.yaml"
	assert_output "Settings written to $BATS_TEST_TMPDIR/settings.yaml"
	[ "$(stat -c %a "$BATS_TEST_TMPDIR/settings.yaml")" = 600 ]
	run -0 yq -r '.mode + " " + .project + " " + .controlPlaneUrl' "$BATS_TEST_TMPDIR/settings.yaml"
	assert_output "control-plane team-a $CP_URL"
	run -0 runai config generate -f "$BATS_TEST_TMPDIR/settings.json"
	run -0 jq -r .context "$BATS_TEST_TMPDIR/settings.json"
	assert_output kube-sim
	run -0 runai config generate
	assert_equal "$(jq -r .mode <<<"$output")" control-plane
	run -0 runai config generate --yaml
	assert_line "mode: control-plane"
	run -2 --separate-stderr runai config generate -f "$BATS_TEST_TMPDIR/settings.txt"
	stderr_is "runai: error: -f $BATS_TEST_TMPDIR/settings.txt: the file's name ends in .json, .yaml or .yml, which picks the format"
	[ ! -e "$BATS_TEST_TMPDIR/settings.txt" ]
}

# ---- kubeconfig set ----

@test "kubeconfig set: the context's user runs runai exec-credential; kubectl reaches the cluster as the control plane's user" {
	cp_setup
	cp_login
	local token
	run -0 runai kubeconfig set
	assert_output "Context kube-sim uses the user runai-cli: the control plane's token, through 'runai exec-credential'"
	run -0 yq -c '.users[] | select(.name == "runai-cli") | .user.exec' "$KUBECONFIG"
	jq -e --arg kc "$(realpath "$KUBECONFIG")" '.command == "runai" and .apiVersion == "client.authentication.k8s.io/v1"
		and .args == ["exec-credential", "--kubeconfig", $kc, "--context", "kube-sim"]
		and .interactiveMode == "Never"' <<<"$output"
	run -0 yq -r '.contexts[0].context.user' "$KUBECONFIG"
	assert_output runai-cli
	# the token itself is not in the file
	token=$(store_token)
	run -1 grep -qF "$token" "$KUBECONFIG"
	[ "$(stat -c %a "$KUBECONFIG")" = 600 ]
	# the plugin gives the control plane's token
	run -0 runai exec-credential
	jq -e --arg t "$token" '.kind == "ExecCredential" and .status.token == $t
		and (.status.expirationTimestamp | test("Z$"))' <<<"$output"
	# kubectl runs the plugin, and the cluster sees the control plane's user
	have_kubectl_132 || skip "kubectl 1.32 not installed at $KUBECTL_132"
	mark_requests
	run -0 "$KUBECTL_132" get nodes
	assert_request GET /api/v1/nodes ".user == \"$CP_USER\" and .auth == \"bearer\""
}

@test "kubeconfig set: --username, and a cluster that cannot be asked is not written unless --bypass-validation" {
	cp_setup
	cp_login
	run -0 runai kubeconfig set --username alice-runai
	assert_output --partial "uses the user alice-runai:"
	run -0 yq -r '.contexts[0].context.user' "$KUBECONFIG"
	assert_output alice-runai
	yq -yi '.clusters[0].cluster.server = "https://127.0.0.1:1"' "$KUBECONFIG"
	run -1 --separate-stderr runai kubeconfig set --username other
	stderr_has "hint: --bypass-validation writes the user without asking the cluster"
	run -0 yq -r '.contexts[0].context.user' "$KUBECONFIG"
	assert_output alice-runai
	run -0 runai kubeconfig set --username other --bypass-validation
	assert_output --partial "(not checked with the cluster)"
	run -0 yq -r '.contexts[0].context.user' "$KUBECONFIG"
	assert_output other
	run -2 runai kubeconfig set --username ""
}

@test "kubeconfig set: not logged in, or in Kubernetes mode, is one line" {
	cp_setup
	run -1 --separate-stderr runai kubeconfig set
	stderr_is "runai: error: not logged in to the control plane $CP_URL; run 'runai login'"
	run -0 yq -r '.contexts[0].context.user' "$KUBECONFIG"
	refute_output runai-cli
	runai config control-plane --unset >/dev/null
	run -1 --separate-stderr runai kubeconfig set
	stderr_is "runai: error: 'runai kubeconfig set' gives a context the control plane's token, and context 'kube-sim' is in Kubernetes mode, where its own kubeconfig user reaches the cluster"
}

# ---- auth get-token ----

@test "auth get-token in control-plane mode: the control plane's token, renewed when it nears expiry, never in -v=10 logs" {
	cp_setup
	cp_login
	local token before
	run -0 --separate-stderr runai -v=10 auth get-token -o plaintext
	token=$output
	assert_equal "$token" "$(store_token)"
	[[ $stderr != *"$token"* ]]
	# a Bearer header for a script
	run -0 curl -sS -o /dev/null -w '%{http_code}' -H @<(printf 'Authorization: Bearer %s\n' "$token") \
		"$CP_URL/api/v1/clusters"
	assert_output 200
	run -0 runai auth get-token
	jq -e --arg t "$token" '.kind == "ExecCredential" and .apiVersion == "client.authentication.k8s.io/v1"
		and .status.token == $t' <<<"$output"
	run -2 runai auth get-token -o json
	# a token about to end is renewed first (2 s before the end of 12)
	cp_settings '{"tokenTtl": 12}'
	cp_login
	cp_settings '{"tokenTtl": 3600}'
	token=$(store_token)
	before=$(cp_grants refresh_token)
	sleep 10.3
	run -0 runai auth get-token -o plaintext
	[ "$output" != "$token" ]
	assert_equal "$output" "$(store_token)"
	assert_equal "$(cp_grants refresh_token)" $((before + 1))
	runai logout >/dev/null
	run -1 --separate-stderr runai auth get-token
	stderr_is "runai: error: not logged in to the control plane $CP_URL; run 'runai login'"
}

@test "auth get-token in Kubernetes mode: the static token, or the OIDC id-token refreshed when expired" {
	k8s_admin
	run -0 --separate-stderr runai -v=10 auth get-token -o plaintext
	assert_output "$KUBESIM_TOKEN"
	[[ $stderr != *"$KUBESIM_TOKEN"* ]]
	run -0 curl -sS -o /dev/null -w '%{http_code}' --cacert "$KUBESIM_CA" \
		-H @<(printf 'Authorization: Bearer %s\n' "$(runai auth get-token -o plaintext)") "$KUBESIM_URL/api/v1/namespaces"
	assert_output 200
	login_setup
	login_cli >/dev/null
	run -0 runai auth get-token
	jq -e --arg t "$(kc_oidc id-token)" '.status.token == $t' <<<"$output"
	wait_token_expired
	local old g0
	old=$(kc_oidc id-token)
	g0=$(refresh_grants)
	run -0 --separate-stderr runai -v=10 auth get-token -o plaintext
	[ "$output" != "$old" ]
	assert_equal "$output" "$(kc_oidc id-token)"
	assert_equal "$(refresh_grants)" $((g0 + 1))
	[[ $stderr != *"$output"* ]]
	runai logout >/dev/null
	run -1 runai auth get-token
}

# ---- version, upgrade ----

@test "version --wide: the API server's version, or the control plane's cluster" {
	k8s_admin
	run -0 runai version --wide
	assert_line "Mode: kubernetes"
	assert_line "ServerVersion: $(kube_api "$KUBESIM_URL/version" | jq -r .gitVersion)"
	run -2 runai version --wide --short
	runai config control-plane "$CP_URL" >/dev/null
	run -0 runai version --wide
	assert_line "ControlPlaneCluster: unknown (not logged in)"
	cp_login
	run -0 runai version --wide
	assert_line --regexp '^ControlPlaneCluster: [^ ]+ \([0-9a-f-]{36}\)$'
}

@test "upgrade: one line, exit 1, with any of its flags" {
	run -1 --separate-stderr runai upgrade
	stderr_is "runai: error: this build does not download software: install updates of runai with the package manager"
	run -1 --separate-stderr runai upgrade --force --exec zsh
	stderr_is "runai: error: this build does not download software: install updates of runai with the package manager"
	assert_output ""
}

@test "the judge saw no schema violation in anything above" {
	run -0 cat "$CP_VIOLATIONS"
	assert_output ""
	assert [ "$(wc -l <"$CP_REQUESTS")" -gt 20 ]
}
