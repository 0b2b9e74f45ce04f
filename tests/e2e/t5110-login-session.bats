#!/usr/bin/env bats
# After runai login: whoami, logout (with revocation), the exec plugin
# for kubectl, project access for OIDC users, and what must be refused:
# issuer mismatch, provider down, a stale (spent) refresh token, a user
# with a client certificate, secrets in -v output or argv.
# The provider runs with 5 s tokens (longer under valgrind).

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

@test "whoami shows user, subject, groups, issuer and expiry; -o json" {
	login_cli >/dev/null
	run -0 --separate-stderr runai whoami
	assert_line --index 0 "User: alice@example.test"
	assert_line --index 1 "Logged in Id: alice"
	assert_line --index 2 "Groups: team-a"
	assert_line --index 3 "Issuer: $OIDC_ISSUER"
	assert_line --index 4 --regexp '^Expires: [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8} [A-Z]+ \(in [0-9]+s\)$'
	run -0 --separate-stderr runai whoami -o json
	jq -e --arg iss "$OIDC_ISSUER" '.user == "alice@example.test" and .subject == "alice"
		and .groups == ["team-a"] and .issuer == $iss and .expired == false
		and (.expiry | test("^[0-9-]{10}T[0-9:]{8}Z$"))' <<<"$output"
	wait_token_expired
	run -0 runai whoami
	assert_line --index 4 --regexp '\(expired [0-9]+s ago\)$'
}

@test "whoami without a login says so" {
	run -1 --separate-stderr runai whoami
	stderr_is "runai: error: not logged in: user 'oidc' has no id-token in the kubeconfig; run 'runai login'"
	use_sim_kubeconfig
	run -1 --separate-stderr runai whoami
	stderr_has "You are currently not logged in to Run:AI"
}

@test "logout revokes the refresh token and removes both tokens, keeping the settings" {
	login_cli >/dev/null
	rt=$(kc_oidc refresh-token)
	run -0 --separate-stderr runai logout
	assert_output "Logged out successfully"
	[ -z "$stderr" ]
	[ -z "$(kc_oidc id-token)" ] && [ -z "$(kc_oidc refresh-token)" ]
	[ "$(kc_oidc client-id)" = "$OIDC_CLIENT_ID" ] && [ "$(kc_oidc idp-issuer-url)" = "$OIDC_ISSUER" ]
	[ "$(stat -c %a "$KUBECONFIG")" = 600 ]
	# revoked at the provider: the old refresh token is dead
	run oidc_refresh_with "$rt"
	jq -e '.error == "invalid_grant"' <<<"$output"
	run -1 --separate-stderr runai list projects
	stderr_has "run 'runai login'"
	run -1 runai whoami
}

@test "logout with the provider down still logs out locally, with a warning" {
	login_cli >/dev/null
	K=idp-issuer-url yq -yi '.users[0].user["auth-provider"].config[env.K] = "https://127.0.0.1:1"' "$KUBECONFIG"
	run -0 --separate-stderr runai logout
	assert_output "Logged out successfully"
	stderr_has "runai: warning: could not revoke the refresh token"
	[ -z "$(kc_oidc refresh-token)" ]
}

@test "exec-credential prints an ExecCredential with the id-token, refreshed when expired" {
	login_cli >/dev/null
	run -0 --separate-stderr runai exec-credential
	jq -e --arg t "$(kc_oidc id-token)" '.kind == "ExecCredential"
		and .apiVersion == "client.authentication.k8s.io/v1" and .status.token == $t
		and (.status.expirationTimestamp | test("Z$"))' <<<"$output"
	exp=$(jwt_payload "$(kc_oidc id-token)" | jq .exp)
	[ "$(jq -r .status.expirationTimestamp <<<"$output")" = "$(date -u -d "@$exp" +%Y-%m-%dT%H:%M:%SZ)" ]
	KUBERNETES_EXEC_INFO='{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1beta1","spec":{"interactive":false}}' \
		run -0 --separate-stderr runai exec-credential
	jq -e '.apiVersion == "client.authentication.k8s.io/v1beta1"' <<<"$output"
	wait_token_expired
	g0=$(refresh_grants)
	run -0 --separate-stderr runai exec-credential
	[ "$(refresh_grants)" = $((g0 + 1)) ]
	jq -e --arg t "$(kc_oidc id-token)" '.status.token == $t' <<<"$output"
}

@test "kubectl with runai exec-credential as its exec plugin reaches the cluster as the user" {
	have_kubectl_132 || skip "kubectl 1.32 not installed at $KUBECTL_132"
	login_cli >/dev/null
	kk=$BATS_TEST_TMPDIR/kubectl-config
	cat >"$kk" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: sim
  cluster:
    server: $(yq -r '.clusters[0].cluster.server' "$KUBECONFIG")
    certificate-authority-data: $(yq -r '.clusters[0].cluster["certificate-authority-data"]' "$KUBECONFIG")
users:
- name: via-runai
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: $(command -v runai)
      args: [exec-credential, --kubeconfig, $KUBECONFIG, --context, sim]
      interactiveMode: Never
contexts:
- name: k
  context: {cluster: sim, user: via-runai, namespace: runai-team-a}
current-context: k
EOF
	mark_requests
	run -0 "$KUBECTL_132" --kubeconfig "$kk" get pods
	assert_request GET /api/v1/namespaces/runai-team-a/pods '.user == "alice@example.test" and .auth == "bearer"'
	# past the token's expiry kubectl runs the plugin again, which refreshes
	wait_token_expired
	g0=$(refresh_grants)
	run -0 "$KUBECTL_132" --kubeconfig "$kk" get pods
	[ "$(refresh_grants)" = $((g0 + 1)) ]
}

@test "project access: bob (team-b) is denied in team-a and works in team-b" {
	login_cli bob bob-pw >/dev/null
	run -0 --separate-stderr runai -p team-b list jobs
	run -1 --separate-stderr runai -p team-a submit -i busybox --name bob-x -- sleep 1
	stderr_has "Access denied. You are not authorized to perform this action."
	run -0 --separate-stderr runai -p team-b submit -i busybox --name bob-ok -- sleep 1
	kube_api --fail -o /dev/null "$KUBESIM_URL/apis/run.ai/v1/namespaces/runai-team-b/runaijobs/bob-ok"
	run -1 --separate-stderr runai -p team-b delete nope-not-there
	run -1 --separate-stderr runai -p team-a delete bob-ok
	stderr_has "Access denied. You are not authorized to perform this action."
}

@test "issuer mismatch in discovery is refused" {
	# the same provider, named with a trailing slash: its document says otherwise
	login_kubeconfig idp-issuer-url="$OIDC_ISSUER/"
	run -1 --separate-stderr login_cli
	stderr_has "issuer mismatch"
	stderr_has "names issuer '$OIDC_ISSUER'"
	[ -z "$(kc_oidc id-token)" ]
}

@test "provider down: one clear line, exit 1, fast" {
	login_kubeconfig idp-issuer-url=https://127.0.0.1:1
	start=$(date +%s)
	run -1 --separate-stderr login_cli
	[ $(($(date +%s) - start)) -lt $((5 * TIME_SCALE)) ]
	[ "$(wc -l <<<"$stderr")" -eq 1 ]
	stderr_has "runai: error: identity provider: cannot connect to 'https://127.0.0.1:1/"
}

@test "provider down during a refresh: one clear line, exit 1, the tokens kept" {
	login_cli >/dev/null
	wait_token_expired
	rt=$(kc_oidc refresh-token)
	"$PYTHON" - "$KUBECONFIG" <<-'EOF'
		import sys, yaml
		p = sys.argv[1]
		d = yaml.safe_load(open(p))
		for u in d["users"]:
		    u["user"]["auth-provider"]["config"]["idp-issuer-url"] = "https://127.0.0.1:1"
		yaml.safe_dump(d, open(p, "w"))
	EOF
	start=$(date +%s)
	run -1 --separate-stderr runai list projects
	[ $(($(date +%s) - start)) -lt $((10 * TIME_SCALE)) ]
	[ "$(wc -l <<<"$stderr")" -eq 1 ]
	stderr_has "cannot connect to 'https://127.0.0.1:1/"
	# whose token ran out when, which provider is down, the way out
	exp=$(jwt_payload "$(kc_oidc id-token)" | jq .exp)
	stderr_has "runai: error: the id-token of user 'oidc' expired at $(date -u -d "@$exp" +%Y-%m-%dT%H:%M:%SZ) and the identity provider at https://127.0.0.1:1 cannot be reached (identity provider: cannot connect to"
	[[ "$stderr" == *"); run 'runai login' when it is back" ]]
	# nothing was spent or lost: a login is not needed once it is back
	[ "$(kc_oidc refresh-token)" = "$rt" ]
}

@test "a spent refresh token (stale kubeconfig copy) ends in 'run runai login'" {
	login_cli >/dev/null
	cp "$KUBECONFIG" "$BATS_TEST_TMPDIR/old-config"
	wait_token_expired
	run -0 runai list projects
	# the copy's refresh token has been rotated away; reusing it is refused
	cp "$BATS_TEST_TMPDIR/old-config" "$KUBECONFIG"
	run -1 --separate-stderr runai list projects
	stderr_is "runai: error: the login session has expired or was revoked (invalid_grant); run 'runai login'"
}

@test "a user with a client certificate is not overwritten" {
	cert=$(jq -r .kubeconfig_cert "$KUBESIM_DIR/ready.json")
	crt=$(yq -r '.users[0].user["client-certificate-data"]' "$cert")
	key=$(yq -r '.users[0].user["client-key-data"]' "$cert")
	C=$crt K=$key yq -yi '.users[0].user["client-certificate-data"] = env.C | .users[0].user["client-key-data"] = env.K' "$KUBECONFIG"
	before=$(sha256sum <"$KUBECONFIG")
	run -1 --separate-stderr login_cli
	stderr_has "user 'oidc' authenticates with a client certificate"
	stderr_has "login aborted"
	[ "$(sha256sum <"$KUBECONFIG")" = "$before" ]
}

@test "secrets never show in -v=10 output, and no option takes a password" {
	run -2 --separate-stderr runai login --auth-flow cli --username alice --password alice-pw
	printf 'alice-pw\n' | runai -v=10 login --auth-flow cli --username alice --password-stdin >"$BATS_TEST_TMPDIR/v" 2>&1
	grep -q 'POST .*/token' "$BATS_TEST_TMPDIR/v"
	wait_token_expired
	runai -v=10 list projects >>"$BATS_TEST_TMPDIR/v" 2>&1
	grep -q 'grant_type=refresh_token' "$BATS_TEST_TMPDIR/v"
	! grep -q 'alice-pw' "$BATS_TEST_TMPDIR/v"
	! grep -q 'eyJ' "$BATS_TEST_TMPDIR/v"
	! grep -qF "$(kc_oidc refresh-token)" "$BATS_TEST_TMPDIR/v"
	grep -q '<redacted>' "$BATS_TEST_TMPDIR/v"
}

@test "an id-token signed by a key the issuer does not publish is refused at login" {
	d=$BATS_TEST_TMPDIR/rogue
	"$TOP/tests/peers/oidc-peer" start "$d" --foreign-jwks
	iss=$(sed -n 's/^OIDC_ISSUER=//p' "$d/env")
	login_kubeconfig idp-issuer-url="$iss" idp-certificate-authority="$d/ca.crt"
	run -1 --separate-stderr login_cli
	"$TOP/tests/peers/oidc-peer" stop "$d"
	stderr_is "runai: error: the id-token's signature does not verify with the issuer's key; refused"
	[ -z "$(kc_oidc id-token)" ]
}

@test "a user without an auth-provider: login needs issuer and client id, then creates it" {
	yq -yi 'del(.users[0].user["auth-provider"])' "$KUBECONFIG"
	run -1 --separate-stderr login_cli
	stderr_is "runai: error: both client-id and idp-issuer-url must be set"
	run -0 --separate-stderr bash -c 'printf "alice-pw\n" | runai login --auth-flow cli --username alice --password-stdin \
		--issuer-url "$OIDC_ISSUER" --client-id "$OIDC_CLIENT_ID" --idp-certificate-authority "$OIDC_CA" \
		--additional-scope groups'
	assert_output "Logged in successfully"
	[ "$(yq -r '.users[0].user["auth-provider"].name' "$KUBECONFIG")" = oidc ]
	[ "$(kc_oidc idp-issuer-url)" = "$OIDC_ISSUER" ] && [ "$(kc_oidc client-id)" = "$OIDC_CLIENT_ID" ]
	[ "$(kc_oidc idp-certificate-authority)" = "$(realpath "$OIDC_CA")" ]
	run -0 runai list projects
	# and the refresh works from what was stored
	wait_token_expired
	g0=$(refresh_grants)
	run -0 runai list projects
	[ "$(refresh_grants)" = $((g0 + 1)) ]
}
