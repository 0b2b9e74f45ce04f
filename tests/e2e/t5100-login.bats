#!/usr/bin/env bats
# runai login against the real OIDC provider (tests/peers/oidc-peer) and
# the emulator checking its id-tokens: the cli flow, tokens stored in the
# kubeconfig, every command (runai and runai-adm) using and refreshing
# them (once, under the lock, also with 20 commands at once), revocation;
# the device, remote-browser and browser flows, and the prompts on a
# terminal (tmux).
# The provider runs with 5 s tokens (longer under valgrind) so expiry happens here.

load lib/common
load lib/oidc

setup_file() {
	login_setup_file
}

teardown_file() {
	kubesim_stop
	oidc_stop
}

setup() {
	login_setup
}

@test "cli login from stdin stores the tokens (0600) and list works with them" {
	run -0 --separate-stderr login_cli alice alice-pw
	assert_output "Logged in successfully"
	[ -n "$(kc_oidc id-token)" ]
	[ -n "$(kc_oidc refresh-token)" ]
	[ "$(kc_oidc auth-flow)" = cli ]
	[ "$(stat -c %a "$KUBECONFIG")" = 600 ]
	jwt_payload "$(kc_oidc id-token)" | jq -e '.sub == "alice" and .groups == ["team-a"]'
	mark_requests
	run -0 --separate-stderr runai list projects
	assert_line --partial "team-a"
	assert_request GET /apis/run.ai/v1/projects '.user == "alice@example.test" and .auth == "bearer"'
}

@test "cli login: a wrong password or an unknown user is refused, nothing stored" {
	run -1 --separate-stderr login_cli alice wrong-pw
	stderr_is "runai: error: invalid username or password"
	run -1 --separate-stderr login_cli mallory x
	stderr_is "runai: error: invalid username or password"
	[ -z "$(kc_oidc id-token)" ]
	[ -z "$(kc_oidc refresh-token)" ]
}

@test "an expired id-token is refreshed once by the next command, which succeeds" {
	login_cli >/dev/null
	id1=$(kc_oidc id-token) rt1=$(kc_oidc refresh-token) g0=$(refresh_grants)
	# while fresh, nothing is refreshed: asserted when the command ended
	# before the token reached the refresh window (the last fifth of its
	# life), whatever the machine's speed
	run -0 runai list projects
	local exp life
	exp=$(jwt_payload "$id1" | jq .exp)
	life=$((exp - $(jwt_payload "$id1" | jq .iat)))
	if [ "$(date +%s)" -lt $((exp - life / 5 - 1)) ]; then
		[ "$(refresh_grants)" = "$g0" ]
	fi
	# a slow command that refreshed once left a new id-token (the
	# provider's log line of it may still be on its way)
	if [ "$(kc_oidc id-token)" != "$id1" ]; then
		g0=$((g0 + 1)) id1=$(kc_oidc id-token) rt1=$(kc_oidc refresh-token)
	fi
	wait_token_expired
	mark_requests
	run -0 --separate-stderr runai list projects
	assert_line --partial "team-a"
	[ "$(refresh_grants)" = $((g0 + 1)) ]
	[ "$(kc_oidc id-token)" != "$id1" ]
	[ "$(kc_oidc refresh-token)" != "$rt1" ]
	[ "$(stat -c %a "$KUBECONFIG")" = 600 ]
	[ ! -e "$KUBECONFIG.lock" ]
	assert_request GET /apis/run.ai/v1/projects '.user == "alice@example.test" and .status == 200'
	# the new token is used as is by the next command
	run -0 runai list projects
	[ "$(refresh_grants)" = $((g0 + 1)) ]
}

@test "20 commands at once on an expired id-token refresh exactly once, all succeed" {
	login_cli >/dev/null
	wait_token_expired
	g0=$(refresh_grants)
	# fewer where each command is slow (valgrind), so that all of them
	# finish within one token lifetime
	n=$((20 / TIME_SCALE))
	pids=()
	for i in $(seq 1 "$n"); do
		runai list projects >"$BATS_TEST_TMPDIR/out.$i" 2>"$BATS_TEST_TMPDIR/err.$i" &
		pids+=($!)
	done
	fails=0
	for p in "${pids[@]}"; do
		wait "$p" || fails=$((fails + 1))
	done
	for i in $(seq 1 "$n"); do
		grep -q team-a "$BATS_TEST_TMPDIR/out.$i" || { cat "$BATS_TEST_TMPDIR/err.$i"; false; }
	done
	[ "$fails" -eq 0 ]
	[ "$(refresh_grants)" = $((g0 + 1)) ]
	# the rotated refresh token stored is the live one: it refreshes again
	g1=$(refresh_grants)
	wait_token_expired
	run -0 runai list projects
	[ "$(refresh_grants)" = $((g1 + 1)) ]
}

@test "50 commands at expiry while the project switches: one refresh, nothing lost" {
	login_cli >/dev/null
	wait_token_expired
	g0=$(refresh_grants)
	n=$((50 / TIME_SCALE))
	pids=()
	start=$(date +%s)
	for i in $(seq 1 "$n"); do
		case $((i % 5)) in
		0) cmd=(runai config project team-a) ;;
		1) cmd=(runai config project team-b) ;;
		*) cmd=(runai list projects) ;;
		esac
		"${cmd[@]}" >"$BATS_TEST_TMPDIR/out.$i" 2>"$BATS_TEST_TMPDIR/err.$i" &
		pids+=($!)
	done
	fails=0
	for i in $(seq 1 "$n"); do
		wait "${pids[i - 1]}" || { cat "$BATS_TEST_TMPDIR/err.$i" >&2; fails=$((fails + 1)); }
	done
	[ "$fails" -eq 0 ]
	# one refresh for all of them; on a loaded machine the batch may
	# outlast the new token (5 s), and then each lifetime it outlasts
	# allows one more, never one per command
	elapsed=$(($(date +%s) - start))
	lifetime=$(jwt_payload "$(kc_oidc id-token)" | jq '.exp - .iat')
	grants=$(($(refresh_grants) - g0))
	[ "$grants" -ge 1 ] && [ "$grants" -le $((1 + elapsed / lifetime)) ] || {
		echo "$grants refreshes in ${elapsed}s (token lifetime ${lifetime}s)" >&2
		false
	}
	# the file is whole: both tokens, the provider settings, a project
	[ -n "$(kc_oidc id-token)" ] && [ -n "$(kc_oidc refresh-token)" ]
	[ -n "$(kc_oidc idp-issuer-url)" ] && [ -n "$(kc_oidc client-id)" ]
	run -0 yq -r '.contexts[0].context.namespace' "$KUBECONFIG"
	assert_output --regexp '^runai-team-[ab]$'
	[ "$(stat -c %a "$KUBECONFIG")" = 600 ]
	[ ! -e "$KUBECONFIG.lock" ]
	# and the stored refresh token is the live one
	g1=$(refresh_grants)
	wait_token_expired
	run -0 runai list projects
	[ "$(refresh_grants)" = $((g1 + 1)) ]
}

@test "a revoked refresh token: the next command says to run 'runai login'" {
	login_cli >/dev/null
	run -0 curl -sS --cacert "$OIDC_CA" -o /dev/null -w '%{http_code}' "$OIDC_ISSUER/token/revocation" \
		-d client_id="$OIDC_CLIENT_ID" --data-urlencode "token=$(kc_oidc refresh-token)" -d token_type_hint=refresh_token
	assert_output 200
	wait_token_expired
	start=$(date +%s)
	run -1 --separate-stderr runai list projects
	[ "$(wc -l <<<"$stderr")" -eq 1 ]
	stderr_has "run 'runai login'"
	stderr_has "invalid_grant"
	[ $(($(date +%s) - start)) -lt $((5 * TIME_SCALE)) ]
	[ ! -e "$KUBECONFIG.lock" ]
}

@test "device flow: shows the user code, the approval completes the login" {
	runai login --auth-flow device >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
	pid=$!
	uc=$(wait_for_match "$BATS_TEST_TMPDIR/err" '[A-Z]{4}-[A-Z]{4}') || { stop_pid "$pid"; false; }
	grep -q "open $OIDC_ISSUER/device" "$BATS_TEST_TMPDIR/err"
	run oidc_device_approve "$uc" bob bob-pw
	[ "$status" -eq 0 ] || { stop_pid "$pid"; false; }
	rc=0; wait "$pid" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$BATS_TEST_TMPDIR/err"; false; }
	grep -qx 'Logged in successfully' "$BATS_TEST_TMPDIR/out"
	[ "$(kc_oidc auth-flow)" = device ]
	jwt_payload "$(kc_oidc id-token)" | jq -e '.sub == "bob"'
	run -0 runai -p team-b list jobs
}

@test "device flow: denied in the browser is a clear failure" {
	runai login --auth-flow device --timeout 30s >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
	pid=$!
	uc=$(wait_for_match "$BATS_TEST_TMPDIR/err" '[A-Z]{4}-[A-Z]{4}') || { stop_pid "$pid"; false; }
	jar=$BATS_TEST_TMPDIR/jar
	xsrf=$(curl -sS --cacert "$OIDC_CA" -b "$jar" -c "$jar" -G "$OIDC_ISSUER/device" --data-urlencode "user_code=$uc" |
		grep -o 'name="xsrf" value="[^"]*"' | sed 's/.*value="//;s/"$//' | head -n 1)
	u=$(curl -sS --cacert "$OIDC_CA" -b "$jar" -c "$jar" -o /dev/null -w '%{redirect_url}' "$OIDC_ISSUER/device" \
		-d "xsrf=$xsrf" --data-urlencode "user_code=$uc" -d confirm=yes)
	# the sign-in page's Cancel button
	[[ $u == "$OIDC_ISSUER/interaction/"* ]] || { stop_pid "$pid"; false; }
	curl -sS --cacert "$OIDC_CA" -b "$jar" -c "$jar" -o /dev/null -L "$u" -d action=abort
	rc=0; wait "$pid" || rc=$?
	[ "$rc" -eq 1 ] || { cat "$BATS_TEST_TMPDIR/err"; false; }
	grep -q 'denied' "$BATS_TEST_TMPDIR/err"
	[ -z "$(kc_oidc id-token)" ]
}

# remote_browser_login PASTE-KIND: runs the copy-paste flow with a fifo as
# stdin; PASTE-KIND "code" pastes the code shown, "url" the whole URL,
# "bad-state" the URL with another state.
remote_browser_login() {
	local fifo=$BATS_TEST_TMPDIR/fifo url page code pasted
	# a second login in the same test must not read the first one's
	# URL before its own shell has truncated the file
	rm -f "$fifo"
	: >"$BATS_TEST_TMPDIR/err"
	mkfifo "$fifo"
	runai login --auth-flow remote-browser <"$fifo" >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
	RB_PID=$!
	exec 5>"$fifo"
	url=$(wait_for_match "$BATS_TEST_TMPDIR/err" 'https://[^[:space:]]+/auth\?[^[:space:]]+') || return 1
	grep -q 'Enter verification code: ' "$BATS_TEST_TMPDIR/err"
	page=$(oidc_walk "$BATS_TEST_TMPDIR/jar" "$url" alice alice-pw) || return 1
	code=$(sed -n 's/.*<pre id="code">\([^<]*\)<.*/\1/p' "$BATS_TEST_TMPDIR/jar.body")
	[ -n "$code" ] || return 1
	case $1 in
	code) pasted=$code ;;
	url) pasted=$page ;;
	bad-state) pasted=$(sed 's/state=[^&]*/state=forged/' <<<"$page") ;;
	esac
	printf '%s\n' "$pasted" >&5
	exec 5>&-
}

@test "remote-browser flow: the printed URL, then the pasted code logs in" {
	login_kubeconfig auth-flow=remote-browser client-id=runai-cli-sso redirect-uri="$OIDC_ISSUER/oauth-code"
	remote_browser_login code || { stop_pid "$RB_PID"; false; }
	rc=0; wait "$RB_PID" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$BATS_TEST_TMPDIR/err"; false; }
	grep -q "^Go to the following link in your browser:" "$BATS_TEST_TMPDIR/err"
	url=$(grep -oE 'https://[^[:space:]]+/auth\?[^[:space:]]+' "$BATS_TEST_TMPDIR/err")
	[[ $url == *"code_challenge_method=S256"* && $url == *"state="* && $url == *"client_id=runai-cli-sso"* ]]
	grep -qx 'Logged in successfully' "$BATS_TEST_TMPDIR/out"
	[ "$(kc_oidc auth-flow)" = remote-browser ]
	[ -n "$(kc_oidc refresh-token)" ]
	# (kube-sim trusts client runai-cli only, so no API call here)
	run -0 runai whoami
	assert_line "User: alice@example.test"
}

@test "remote-browser flow: pasting the whole redirect URL works; a forged state is refused" {
	login_kubeconfig auth-flow=remote-browser client-id=runai-cli-sso redirect-uri="$OIDC_ISSUER/oauth-code"
	remote_browser_login url || { stop_pid "$RB_PID"; false; }
	rc=0; wait "$RB_PID" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$BATS_TEST_TMPDIR/err"; false; }
	login_kubeconfig auth-flow=remote-browser client-id=runai-cli-sso redirect-uri="$OIDC_ISSUER/oauth-code"
	remote_browser_login bad-state || { stop_pid "$RB_PID"; false; }
	rc=0; wait "$RB_PID" || rc=$?
	[ "$rc" -eq 1 ] || { cat "$BATS_TEST_TMPDIR/err"; false; }
	grep -q 'state mismatch' "$BATS_TEST_TMPDIR/err"
	[ -z "$(kc_oidc id-token)" ]
}

@test "browser flow without a display: the printed URL ends at the loopback listener" {
	env -u DISPLAY -u WAYLAND_DISPLAY runai -v=10 login --auth-flow browser >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
	pid=$!
	url=$(wait_for_match "$BATS_TEST_TMPDIR/err" 'https://[^[:space:]]+/auth\?[^[:space:]]+') || { stop_pid "$pid"; false; }
	[[ $url == *"redirect_uri=http%3A%2F%2F127.0.0.1%3A"* && $url == *"code_challenge_method=S256"* ]]
	cb=$(oidc_walk "$BATS_TEST_TMPDIR/jar" "$url" alice alice-pw) || { stop_pid "$pid"; false; }
	[[ $cb == http://127.0.0.1:*/callback\?code=* ]]
	# another path on the listener is a 404 and does not end the login
	port=$(sed 's|http://127.0.0.1:\([0-9]*\)/.*|\1|' <<<"$cb")
	run curl -sS -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/favicon.ico"
	assert_output 404
	run curl -sS "$cb"
	assert_output --partial "runai is logged in"
	rc=0; wait "$pid" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$BATS_TEST_TMPDIR/err"; false; }
	[ "$(kc_oidc auth-flow)" = browser ]
	# -v=10 traced the exchange, with the code and the verifier redacted
	code=$(sed 's/.*[?&]code=\([^&]*\).*/\1/' <<<"$cb")
	grep -q 'grant_type=authorization_code&code=<redacted>&.*code_verifier=<redacted>' "$BATS_TEST_TMPDIR/err"
	! grep -qF "$code" "$BATS_TEST_TMPDIR/err"
	! grep -q 'eyJ' "$BATS_TEST_TMPDIR/err"
	run -0 runai list projects
}

@test "browser flow: a redirect with another state is ignored; the login's own one logs in" {
	env -u DISPLAY -u WAYLAND_DISPLAY runai login --auth-flow browser >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
	pid=$!
	url=$(wait_for_match "$BATS_TEST_TMPDIR/err" 'https://[^[:space:]]+/auth\?[^[:space:]]+') || { stop_pid "$pid"; false; }
	cb=$(oidc_walk "$BATS_TEST_TMPDIR/jar" "$url" alice alice-pw) || { stop_pid "$pid"; false; }
	run curl -sS -o /dev/null -w '%{http_code}' "$(sed 's/state=[^&]*/state=forged/' <<<"$cb")"
	assert_output 400
	kill -0 "$pid"
	[ -z "$(kc_oidc id-token)" ]
	curl -sS -o /dev/null "$cb"
	rc=0; wait "$pid" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$BATS_TEST_TMPDIR/err"; false; }
	[ -n "$(kc_oidc id-token)" ]
}

@test "browser flow with a display runs xdg-open with the URL as argv, no secrets in its environment" {
	mkdir -p "$BATS_TEST_TMPDIR/bin"
	# a browser opener that records what it got, then exits
	printf '#!/bin/sh\nprintf "%%s\\n" "$#" "$1" >"%s/xdg.args"\nenv >"%s/xdg.env"\n' \
		"$BATS_TEST_TMPDIR" "$BATS_TEST_TMPDIR" >"$BATS_TEST_TMPDIR/bin/xdg-open"
	chmod +x "$BATS_TEST_TMPDIR/bin/xdg-open"
	PATH="$BATS_TEST_TMPDIR/bin:$PATH" DISPLAY=:99 runai login --auth-flow browser >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
	pid=$!
	wait_for_match "$BATS_TEST_TMPDIR/xdg.args" 'https://' >/dev/null || { stop_pid "$pid"; false; }
	[ "$(head -n 1 "$BATS_TEST_TMPDIR/xdg.args")" = 1 ]
	url=$(sed -n 2p "$BATS_TEST_TMPDIR/xdg.args")
	cb=$(oidc_walk "$BATS_TEST_TMPDIR/jar" "$url" alice alice-pw) || { stop_pid "$pid"; false; }
	curl -sS -o /dev/null "$cb"
	rc=0; wait "$pid" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$BATS_TEST_TMPDIR/err"; false; }
	# the child's environment holds no token (no JWT at all)
	! grep -q 'eyJ' "$BATS_TEST_TMPDIR/xdg.env"
	! grep -qF "$(kc_oidc refresh-token)" "$BATS_TEST_TMPDIR/xdg.env"
	! grep -qF "$(kc_oidc refresh-token)" "$BATS_TEST_TMPDIR/xdg.args"
}

@test "browser flow: a redirect-uri that is not loopback is refused" {
	login_kubeconfig redirect-uri=https://login.example.test/callback
	run -1 --separate-stderr runai login --auth-flow browser
	stderr_has "is not an http://127.0.0.1"
	login_kubeconfig redirect-uri=http://10.1.2.3:8000/callback
	run -1 --separate-stderr runai login --auth-flow browser
	stderr_has "is not an http://127.0.0.1"
}

@test "cli flow on a terminal: prompts for the user name (erase works) and the password, no echo" {
	command -v tmux >/dev/null || skip "tmux not installed"
	sock=rai-login-$$
	tmux -L "$sock" -f /dev/null new-session -d -x 160 -y 40 \
		"runai login --auth-flow cli; echo EXIT=\$?; sleep 60"
	tpid=$(tmux -L "$sock" display -p '#{pid}')
	pane() { tmux -L "$sock" capture-pane -p; }
	waitpane() {
		local i
		for i in $(seq 1 $((100 * TIME_SCALE))); do pane | grep -q "$1" && return 0; sleep 0.1; done
		pane >&2
		return 1
	}
	ok=0
	if waitpane 'Username:'; then
		# the terminal's own erase key edits the line
		tmux -L "$sock" send-keys alicx BSpace e Enter
		if waitpane 'Password:'; then
			tmux -L "$sock" send-keys alice-pw Enter
			waitpane 'EXIT=' && ok=1
		fi
	fi
	screen=$(pane)
	kill "$tpid" 2>/dev/null || true
	[ "$ok" = 1 ]
	[[ $screen == *"Logged in successfully"* && $screen == *"EXIT=0"* ]]
	[[ $screen != *"alice-pw"* ]]
	jwt_payload "$(kc_oidc id-token)" | jq -e '.sub == "alice"'
}

@test "cli flow: no terminal and no --username, or an empty user name, is one line" {
	run -2 --separate-stderr setsid -w runai login --auth-flow cli </dev/null
	[ "$stderr" = "runai: error: no terminal to ask for the user name; use --username" ]
	command -v tmux >/dev/null || skip "tmux not installed"
	sock=rai-login-eof-$$
	tmux -L "$sock" -f /dev/null new-session -d -x 160 -y 40 \
		"runai login --auth-flow cli; echo EXIT=\$?; sleep 60"
	tpid=$(tmux -L "$sock" display -p '#{pid}')
	local i screen=
	for i in $(seq 1 $((100 * TIME_SCALE))); do
		screen=$(tmux -L "$sock" capture-pane -p)
		[[ $screen == *Username:* ]] && break
		sleep 0.1
	done
	tmux -L "$sock" send-keys C-d
	for i in $(seq 1 $((100 * TIME_SCALE))); do
		screen=$(tmux -L "$sock" capture-pane -p)
		[[ $screen == *EXIT=* ]] && break
		sleep 0.1
	done
	kill "$tpid" 2>/dev/null || true
	[[ $screen == *"runai: error: no user name was entered"* && $screen == *"EXIT=2"* ]]
	[[ $screen != *Password:* ]]
}

@test "runai-adm uses and refreshes the same login" {
	login_cli >/dev/null
	wait_token_expired
	g0=$(refresh_grants)
	mark_requests
	run -0 --separate-stderr runai-adm node list
	[ "$(refresh_grants)" = $((g0 + 1)) ]
	assert_request GET /api/v1/nodes '.user == "alice@example.test" and .auth == "bearer"'
}
