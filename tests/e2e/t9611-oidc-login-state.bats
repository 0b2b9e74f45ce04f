#!/usr/bin/env bats
# Issue 24, finding 7: any local process can reach the browser flow's
# loopback listener. Redirects without this login's state (a forged
# code, a forged error, none at all) are answered with a 400 page,
# logged at -v=1 and ignored; the login goes on until its own redirect
# arrives, or the timeout ends it.

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

# browser_login [runai options...]: starts the browser flow in the
# background (LOGIN_PID) and sets CB to the provider's callback URL
# after alice has logged in there.
browser_login() {
	env -u DISPLAY -u WAYLAND_DISPLAY runai login --auth-flow browser "$@" \
		>"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" &
	LOGIN_PID=$!
	url=$(wait_for_match "$BATS_TEST_TMPDIR/err" 'https://[^[:space:]]+/auth\?[^[:space:]]+') ||
		{ stop_pid "$LOGIN_PID"; return 1; }
	CB=$(oidc_walk "$BATS_TEST_TMPDIR/jar" "$url" alice alice-pw) ||
		{ stop_pid "$LOGIN_PID"; return 1; }
}

@test "forged redirects do not end a browser login; its own redirect logs in" {
	browser_login -v=1
	cb=$CB
	base=${cb%%\?*}
	for q in "code=forged&state=forged" "code=forged" "error=access_denied" \
		"error=access_denied&state=forged" ""; do
		run curl -sS -w '\n%{http_code}' "$base?$q"
		assert_line --index 1 400
		assert_line --index 0 --partial "does not belong to the login"
		kill -0 "$LOGIN_PID"
	done
	[ -z "$(kc_oidc id-token)" ]
	run curl -sS "$cb"
	assert_output --partial "runai is logged in"
	rc=0; wait "$LOGIN_PID" || rc=$?
	[ "$rc" -eq 0 ] || { cat "$BATS_TEST_TMPDIR/err"; false; }
	[ -n "$(kc_oidc id-token)" ]
	[ "$(grep -c 'ignored a redirect to the login listener' "$BATS_TEST_TMPDIR/err")" -eq 5 ]
	# the forged code was never sent to the provider
	run ! grep -q forged "$OIDC_LOG"
}

@test "forged redirects alone: the login ends at its timeout, nothing stored" {
	browser_login --timeout 3s
	cb=$CB
	run curl -sS -o /dev/null -w '%{http_code}' "${cb%%\?*}?code=x&state=forged"
	assert_output 400
	rc=0; wait "$LOGIN_PID" || rc=$?
	[ "$rc" -eq 1 ]
	grep -q 'no login arrived at the redirect listener' "$BATS_TEST_TMPDIR/err"
	[ -z "$(kc_oidc id-token)" ]
}

@test "the provider's error under the login's state still ends the login" {
	browser_login
	cb=$CB
	state=$(sed 's/.*[?&]state=\([^&]*\).*/\1/' <<<"$cb")
	run curl -sS -o /dev/null -w '%{http_code}' \
		"${cb%%\?*}?error=access_denied&error_description=denied&state=$state"
	assert_output 400
	rc=0; wait "$LOGIN_PID" || rc=$?
	[ "$rc" -eq 1 ]
	grep -q 'access_denied' "$BATS_TEST_TMPDIR/err"
	[ -z "$(kc_oidc id-token)" ]
}
